import { createHash } from 'node:crypto';
import type { Outcome, Session, ToolCall } from '../domain/types.js';
import { type CaptureLimits, capText, stringifyResult } from './normalized-jsonl.js';

/**
 * OpenAI chat-completions message logs: assistant `tool_calls` followed by `tool` messages.
 * Call ids may repeat inside one conversation, so results are paired by order: a `tool` message takes the
 * earliest pending call with its id, or failing that the earliest pending call.
 */
export interface OpenAiConversation {
  messages: unknown[];
  id?: string;
  session_id?: string;
  outcome?: Outcome;
  success?: boolean;
  reward?: number;
  agent_id?: string;
  source?: string;
  goal?: string;
}

interface PendingCall {
  id: string | null;
  call: ToolCall;
}

const ERROR_RESULT = /^\s*(?:error\b|exception\b|traceback\b|\{\s*"error"\s*:)/i;

export function isOpenAiConversation(value: unknown): value is OpenAiConversation | unknown[] {
  if (Array.isArray(value)) return value.length > 0 && value.every((m) => typeof m === 'object' && m !== null && 'role' in m);
  return typeof value === 'object' && value !== null && Array.isArray((value as { messages?: unknown }).messages);
}

export function fromOpenAi(value: OpenAiConversation | unknown[], namespace: string, limits: CaptureLimits, now: string): Session {
  const conv: OpenAiConversation = Array.isArray(value) ? { messages: value } : value;
  const calls: ToolCall[] = [];
  const pending: PendingCall[] = [];
  let goal = conv.goal ?? null;

  conv.messages.forEach((raw, index) => {
    if (typeof raw !== 'object' || raw === null) throw new Error(`messages[${index}]: not an object`);
    const m = raw as Record<string, unknown>;
    const role = m.role;
    if (role === 'user' && goal === null) goal = contentText(m.content);
    if (role === 'assistant') {
      const toolCalls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
      toolCalls.forEach((tc, j) => {
        const t = tc as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
        const name = t.function?.name;
        if (typeof name !== 'string' || !name) throw new Error(`messages[${index}].tool_calls[${j}].function.name: missing`);
        const call: ToolCall = {
          position: calls.length,
          tool: name,
          args: parseArgs(t.function?.arguments, `messages[${index}].tool_calls[${j}].function.arguments`),
          result: '',
          ok: true,
          error: null,
          durationMs: null,
          at: null,
        };
        calls.push(call);
        pending.push({ id: typeof t.id === 'string' ? t.id : null, call });
      });
    }
    if (role === 'tool') {
      const id = typeof m.tool_call_id === 'string' ? m.tool_call_id : null;
      let k = id === null ? -1 : pending.findIndex((p) => p.id === id);
      if (k < 0) k = 0;
      const match = pending.splice(k, 1)[0];
      if (!match) throw new Error(`messages[${index}]: tool result without a pending tool call`);
      const text = contentText(m.content);
      match.call.result = capText(text, limits.resultChars);
      if (ERROR_RESULT.test(text)) {
        match.call.ok = false;
        match.call.error = capText(text, 300);
      }
    }
  });
  if (goal === null || !goal.trim()) throw new Error('no user message to take the goal from');
  if (calls.length > limits.maxCallsPerSession) throw new Error(`${calls.length} calls exceed the limit of ${limits.maxCallsPerSession}`);
  const outcome: Outcome = conv.outcome ?? (conv.success == null ? 'unknown' : conv.success ? 'success' : 'failure');
  // A conversation without an id gets one from its content, so re-ingesting the same file stays idempotent.
  const id = conv.session_id ?? conv.id ?? `openai:${createHash('sha256').update(JSON.stringify(conv.messages)).digest('hex').slice(0, 20)}`;
  return {
    id,
    namespace,
    goal,
    outcome,
    reward: typeof conv.reward === 'number' ? conv.reward : null,
    agentId: conv.agent_id ?? null,
    source: conv.source ?? 'openai',
    startedAt: now,
    endedAt: null,
    labels: null,
    calls,
  };
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === 'string' ? part : typeof part === 'object' && part && 'text' in part ? String((part as { text: unknown }).text) : ''))
      .join('');
  }
  return content == null ? '' : stringifyResult(content);
}

function parseArgs(raw: unknown, where: string): Record<string, unknown> {
  if (raw == null || raw === '') return {};
  if (typeof raw === 'object') return raw as Record<string, unknown>;
  if (typeof raw !== 'string') throw new Error(`${where}: must be a JSON string`);
  try {
    const parsed = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : { value: parsed };
  } catch {
    throw new Error(`${where}: not valid JSON`);
  }
}
