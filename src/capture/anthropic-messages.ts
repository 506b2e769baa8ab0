import type { Outcome, ToolCall } from '../domain/types.js';
import { contentId, contentText, ERROR_RESULT, isObject, outcomeOf, parseArgs } from './common.js';
import { type CaptureLimits, capText } from './normalized-jsonl.js';
import type { ParsedSession } from './types.js';
import { InputError } from '../errors/input-error.js';

/**
 * Anthropic Messages logs, in the same containers as the OpenAI ones (one `{"messages": [...]}` per line, or a
 * JSON array of messages): assistant `tool_use` blocks (also `server_tool_use` / `mcp_tool_use`) answered by
 * `tool_result` blocks (`mcp_tool_result`) in the next user turn, paired by `tool_use_id` (by order when an
 * id repeats or is missing). `is_error: true` marks a failed call; without the flag, a result that reads as an
 * error does. The goal is the first user text (a user turn holding only tool results is not a goal).
 */
export interface AnthropicConversation {
  messages: unknown[];
  system?: unknown;
  id?: string;
  session_id?: string;
  outcome?: Outcome;
  success?: boolean;
  reward?: number;
  agent_id?: string;
  source?: string;
  goal?: string;
}

const USE_BLOCKS = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);
const RESULT_BLOCKS = new Set(['tool_result', 'mcp_tool_result']);
const ANTHROPIC_BLOCKS = new Set([...USE_BLOCKS, ...RESULT_BLOCKS, 'thinking', 'redacted_thinking']);

/** Marks only the Anthropic shape has: tool_use / tool_result / thinking content blocks. */
export function hasAnthropicMarkers(messages: unknown[]): boolean {
  return messages.some(
    (m) =>
      isObject(m) &&
      Array.isArray(m.content) &&
      m.content.some((b) => isObject(b) && typeof b.type === 'string' && ANTHROPIC_BLOCKS.has(b.type)),
  );
}

interface Pending {
  id: string | null;
  call: ToolCall;
}

export function fromAnthropic(
  value: AnthropicConversation | unknown[],
  namespace: string,
  limits: CaptureLimits,
  now: string,
): ParsedSession {
  const conv: AnthropicConversation = Array.isArray(value) ? { messages: value } : value;
  const calls: ToolCall[] = [];
  const pending: Pending[] = [];
  let goal = typeof conv.goal === 'string' && conv.goal.trim() ? conv.goal : null;
  let finalAnswer: string | null = null;

  conv.messages.forEach((raw, index) => {
    if (!isObject(raw)) throw new InputError(`messages[${index}]: not an object`);
    const role = raw.role;
    if (role !== 'user' && role !== 'assistant' && role !== 'system')
      throw new InputError(`messages[${index}].role: expected "user" or "assistant", not ${JSON.stringify(role)}`);
    const blocks: unknown[] =
      typeof raw.content === 'string'
        ? [{ type: 'text', text: raw.content }]
        : Array.isArray(raw.content)
          ? raw.content
          : [];
    if (raw.content != null && typeof raw.content !== 'string' && !Array.isArray(raw.content))
      throw new InputError(`messages[${index}].content: must be a string or an array of blocks`);
    if (role === 'user') {
      const text = blocks
        .filter((b) => isObject(b) && b.type === 'text')
        .map((b) => String((b as { text?: unknown }).text ?? ''))
        .join('');
      if (goal === null && text.trim()) goal = text;
    }
    let sawUse = false;
    let text = '';
    blocks.forEach((b, j) => {
      if (!isObject(b)) throw new InputError(`messages[${index}].content[${j}]: not a block object`);
      const where = `messages[${index}].content[${j}]`;
      if (typeof b.type === 'string' && USE_BLOCKS.has(b.type)) {
        if (role !== 'assistant') throw new InputError(`${where}: ${b.type} in a ${String(role)} message`);
        if (typeof b.name !== 'string' || !b.name) throw new InputError(`${where}.name: missing`);
        const call: ToolCall = {
          position: calls.length,
          tool: b.name,
          args: parseArgs(b.input, `${where}.input`),
          result: '',
          ok: true,
          error: null,
          durationMs: null,
          at: null,
        };
        calls.push(call);
        pending.push({ id: typeof b.id === 'string' ? b.id : null, call });
        sawUse = true;
      } else if (typeof b.type === 'string' && RESULT_BLOCKS.has(b.type)) {
        const id = typeof b.tool_use_id === 'string' ? b.tool_use_id : null;
        let k = id === null ? -1 : pending.findIndex((p) => p.id === id);
        if (k < 0) k = 0;
        const match = pending.splice(k, 1)[0];
        if (!match) throw new InputError(`${where}: tool_result without a pending tool_use`);
        const result = contentText(b.content);
        match.call.result = capText(result, limits.resultChars);
        const failed = typeof b.is_error === 'boolean' ? b.is_error : ERROR_RESULT.test(result);
        if (failed) {
          match.call.ok = false;
          match.call.error = capText(result || 'tool_result is_error', Math.min(limits.resultChars, 500));
        }
        finalAnswer = null;
      } else if (b.type === 'text' && role === 'assistant') {
        text += typeof b.text === 'string' ? b.text : '';
      }
    });
    if (role === 'assistant') finalAnswer = !sawUse && text.trim() ? text.trim() : sawUse ? null : finalAnswer;
  });
  if (goal === null) throw new InputError('no user message to take the goal from');
  if (calls.length > limits.maxCallsPerSession)
    throw new InputError(`${calls.length} calls exceed the limit of ${limits.maxCallsPerSession}`);
  const id = conv.session_id ?? conv.id ?? contentId('anthropic', conv.messages);
  return {
    session: {
      id: String(id),
      namespace,
      goal,
      outcome: outcomeOf(conv) ?? 'unknown',
      reward: typeof conv.reward === 'number' ? conv.reward : null,
      agentId: conv.agent_id ?? null,
      source: conv.source ?? 'anthropic',
      startedAt: now,
      endedAt: null,
      labels: null,
      calls,
      outcomeSource: 'reported',
    },
    finalAnswer,
  };
}
