import type { Outcome, ToolCall } from '../domain/types.js';
import { contentId, contentText, ERROR_RESULT, isObject, outcomeOf, parseArgs } from './common.js';
import { type CaptureLimits, capText } from './normalized-jsonl.js';
import type { ParsedSession } from './types.js';
import { InputError } from '../errors/input-error.js';

/**
 * OpenAI chat-completions message logs: assistant `tool_calls` (or the legacy `function_call`) followed by
 * `tool` (or `function`) messages. Call ids may repeat inside one conversation, so results are paired by
 * order: a `tool` message takes the earliest pending call with its id, or failing that the earliest pending
 * call.
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

/** A conversation container: a non-empty array of role messages, or an object with a `messages` array. */
export function isOpenAiConversation(value: unknown): value is OpenAiConversation | unknown[] {
  if (Array.isArray(value))
    return value.length > 0 && value.every((m) => typeof m === 'object' && m !== null && 'role' in m);
  return typeof value === 'object' && value !== null && Array.isArray((value as { messages?: unknown }).messages);
}

/** Marks only the OpenAI shape has: `tool_calls`, `function_call`, or `tool` / `function` messages. */
export function hasOpenAiMarkers(messages: unknown[]): boolean {
  return messages.some(
    (m) =>
      isObject(m) &&
      (m.role === 'tool' ||
        m.role === 'function' ||
        (Array.isArray(m.tool_calls) && m.tool_calls.length > 0) ||
        isObject(m.function_call)),
  );
}

export function fromOpenAi(
  value: OpenAiConversation | unknown[],
  namespace: string,
  limits: CaptureLimits,
  now: string,
): ParsedSession {
  const conv: OpenAiConversation = Array.isArray(value) ? { messages: value } : value;
  const calls: ToolCall[] = [];
  const pending: PendingCall[] = [];
  let goal = typeof conv.goal === 'string' && conv.goal.trim() ? conv.goal : null;
  let finalAnswer: string | null = null;

  const addCall = (name: unknown, rawArgs: unknown, id: unknown, where: string) => {
    if (typeof name !== 'string' || !name) throw new InputError(`${where}.name: missing`);
    const call: ToolCall = {
      position: calls.length,
      tool: name,
      args: parseArgs(rawArgs, `${where}.arguments`),
      result: '',
      ok: true,
      error: null,
      durationMs: null,
      at: null,
    };
    calls.push(call);
    pending.push({ id: typeof id === 'string' ? id : null, call });
  };

  conv.messages.forEach((raw, index) => {
    if (!isObject(raw)) throw new InputError(`messages[${index}]: not an object`);
    const m = raw;
    const role = m.role;
    if (role === 'user' && goal === null) {
      const text = contentText(m.content);
      if (text.trim()) goal = text;
    }
    if (role === 'assistant') {
      const toolCalls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
      toolCalls.forEach((tc, j) => {
        const t = (isObject(tc) ? tc : {}) as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
        addCall(t.function?.name, t.function?.arguments, t.id, `messages[${index}].tool_calls[${j}].function`);
      });
      if (isObject(m.function_call))
        addCall(m.function_call.name, m.function_call.arguments, null, `messages[${index}].function_call`);
      const text = contentText(m.content).trim();
      finalAnswer = toolCalls.length === 0 && !isObject(m.function_call) && text ? text : null;
    }
    if (role === 'tool' || role === 'function') {
      const id = typeof m.tool_call_id === 'string' ? m.tool_call_id : null;
      let k = id === null ? -1 : pending.findIndex((p) => p.id === id);
      if (k < 0 && role === 'function' && typeof m.name === 'string')
        k = pending.findIndex((p) => p.call.tool === m.name);
      if (k < 0) k = 0;
      const match = pending.splice(k, 1)[0];
      if (!match) throw new InputError(`messages[${index}]: tool result without a pending tool call`);
      const text = contentText(m.content);
      match.call.result = capText(text, limits.resultChars);
      if (ERROR_RESULT.test(text)) {
        match.call.ok = false;
        match.call.error = capText(text, Math.min(limits.resultChars, 500));
      }
      finalAnswer = null;
    }
  });
  if (goal === null) throw new InputError('no user message to take the goal from');
  if (calls.length > limits.maxCallsPerSession)
    throw new InputError(`${calls.length} calls exceed the limit of ${limits.maxCallsPerSession}`);
  const outcome: Outcome = outcomeOf(conv) ?? 'unknown';
  // A conversation without an id gets one from its content, so re-ingesting the same file stays idempotent.
  const id = conv.session_id ?? conv.id ?? contentId('openai', conv.messages);
  return {
    session: {
      id: String(id),
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
      outcomeSource: 'reported',
    },
    finalAnswer,
  };
}
