import type { ToolCall } from '../domain/types.js';
import { contentText, ERROR_RESULT, isObject, parseArgs } from './common.js';
import {
  type ConversationOptions,
  type ConversationRecord,
  type ConversationTasks,
  conversationSessions,
} from './conversation-tasks.js';
import { type CaptureLimits, capText } from './normalized-jsonl.js';
import type { BuiltSession } from './openai-agents.js';
import type { ParsedSession } from './types.js';
import { InputError } from '../errors/input-error.js';

/**
 * OpenAI chat-completions message logs: assistant `tool_calls` (or the legacy `function_call`) followed by
 * `tool` (or `function`) messages. Call ids may repeat inside one conversation, so results are paired by
 * order: a `tool` message takes the earliest pending call with its id, or failing that the earliest pending
 * call. A conversation of several requests splits into tasks (task-splitter.ts).
 */
export type OpenAiConversation = ConversationRecord;

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

/** Reads an OpenAI conversation into the tasks of `tasks`. Throws (the record is rejected) on a malformed message. */
function readOpenAi(conv: OpenAiConversation, limits: CaptureLimits, tasks: ConversationTasks): void {
  const { split } = tasks;
  const addCall = (name: unknown, rawArgs: unknown, id: unknown, where: string) => {
    if (typeof name !== 'string' || !name) throw new InputError(`${where}.name: missing`);
    const call: ToolCall = {
      position: 0,
      tool: name,
      args: parseArgs(rawArgs, `${where}.arguments`),
      result: '',
      ok: true,
      error: null,
      durationMs: null,
      at: null,
    };
    split.call(typeof id === 'string' ? id : null, call, true, null);
  };

  conv.messages.forEach((raw, index) => {
    if (!isObject(raw)) throw new InputError(`messages[${index}]: not an object`);
    const m = raw;
    const role = m.role;
    if (role === 'user') tasks.user(contentText(m.content));
    if (role === 'assistant') {
      const toolCalls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
      const text = contentText(m.content).trim();
      // Text beside a call is narration; text alone is an answer (or a question back).
      if (text && toolCalls.length === 0 && !isObject(m.function_call)) split.assistantText(text, null);
      toolCalls.forEach((tc, j) => {
        const t = (isObject(tc) ? tc : {}) as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
        addCall(t.function?.name, t.function?.arguments, t.id, `messages[${index}].tool_calls[${j}].function`);
      });
      if (isObject(m.function_call))
        addCall(m.function_call.name, m.function_call.arguments, null, `messages[${index}].function_call`);
    }
    if (role === 'tool' || role === 'function') {
      const pending = split.current.pending;
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
      split.resulted(null);
    }
    tasks.read(index);
  });
}

/**
 * One OpenAI conversation as one session, whatever it holds (a benchmark trajectory: one task by construction).
 * The goal is the record's `goal`, else the first request; the id the record's, else one from its messages.
 */
export function fromOpenAi(
  value: OpenAiConversation | unknown[],
  namespace: string,
  limits: CaptureLimits,
  now: string,
): ParsedSession {
  const o = { namespace, limits, now, line: 1, path: '', reports: [], oneTask: true };
  const [built] = conversationSessions(value, 'openai', readOpenAi, o);
  return { session: built.session, finalAnswer: built.finalAnswer };
}

/**
 * The sessions of an OpenAI conversation log record: one per task, by the rule of task-splitter.ts (a record
 * that names its `goal` is one task). Notes (requests left out as small talk) go to `o.reports`.
 */
export function openAiSessions(value: OpenAiConversation | unknown[], o: ConversationOptions): BuiltSession[] {
  return conversationSessions(value, 'openai', readOpenAi, o);
}
