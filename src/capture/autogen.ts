import { countUnread, isObject, type JsonObject, resultText, stringsText } from './common.js';
import { type BuiltSession, type ItemEntry, listSessions, type MessageListContext } from './openai-agents.js';

/**
 * AutoGen AgentChat runs, as `TaskResult.model_dump()` (`{messages, stop_reason}`), the messages and events
 * `run_stream()` yields (one per JSONL line, or a list), an agent's model context
 * (`AssistantAgentState.llm_context.messages`, as `save_state()` writes it), or a team's saved state (`TeamState`:
 * its group chat manager's `message_thread`):
 *
 * - Messages and events, told apart by `type`: `TextMessage` / `MultiModalMessage` (from `user`, or from a user
 *   proxy that was asked for input, `UserInputRequestedEvent`, it is a request; from an agent, an answer),
 *   `ToolCallRequestEvent` (`content: [{id, name, arguments}]`), `ToolCallExecutionEvent` (`content: [{call_id,
 *   name, content, is_error}]`), `ToolCallSummaryMessage` (an answer); thoughts, streaming chunks, memory queries,
 *   hand-offs and stop messages are read past.
 * - Model context: `UserMessage` (the request), `AssistantMessage` (`content`: text, or the function calls),
 *   `FunctionExecutionResultMessage` (the results), `SystemMessage`.
 *
 * `is_error` fails a call. A run of several tasks (a team that asked its user again) splits by the rule in
 * task-splitter.ts. Types this version does not know are counted. AutoGen records no outcome: the container's
 * `outcome` / `success`, else the judge.
 */

const CALLS = new Set(['ToolCallRequestEvent', 'AssistantMessage']);
const RESULTS = new Set(['ToolCallExecutionEvent', 'FunctionExecutionResultMessage']);
const TEXTS = new Set(['TextMessage', 'MultiModalMessage', 'UserMessage', 'ToolCallSummaryMessage']);
const PASSIVE = new Set([
  'SystemMessage',
  'ThoughtEvent',
  'ModelClientStreamingChunkEvent',
  'MemoryQueryEvent',
  'UserInputRequestedEvent',
  'HandoffMessage',
  'StopMessage',
  'CodeGenerationEvent',
  'CodeExecutionEvent',
  'SelectSpeakerEvent',
  'SelectorEvent',
  'StructuredMessage',
]);

const isAutogenMessage = (m: unknown): m is JsonObject =>
  isObject(m) && typeof m.type === 'string' && /^[A-Z][A-Za-z]+$/.test(m.type) && 'content' in m;

/** An assistant model-context message whose content is function calls. */
const callsOf = (m: JsonObject): unknown[] =>
  CALLS.has(String(m.type)) && Array.isArray(m.content) ? m.content.filter(isObject) : [];

/**
 * Where a run's messages sit: the list itself, `messages`, an agent state's `llm_context.messages`, or in a
 * team's state (`TeamState`) the group chat manager's `message_thread`, which holds the agents' tool call
 * events too.
 */
function locate(v: unknown): { list: unknown; key: string } {
  if (Array.isArray(v)) return { list: v, key: '' };
  if (!isObject(v)) return { list: null, key: '' };
  if (isObject(v.llm_context)) return { list: v.llm_context.messages, key: 'llm_context.messages' };
  if (v.type === 'TeamState' && isObject(v.agent_states))
    for (const [name, state] of Object.entries(v.agent_states))
      if (isObject(state) && Array.isArray(state.message_thread))
        return { list: state.message_thread, key: `agent_states.${name}.message_thread` };
  return { list: v.messages, key: 'messages' };
}

/** The messages of an AutoGen run (a list, `{messages}`, an agent's or a team's saved state), or null. */
export function autogenMessagesOf(v: unknown): JsonObject[] | null {
  const { list } = locate(v);
  if (!Array.isArray(list) || list.length === 0 || !list.every(isAutogenMessage)) return null;
  return list.some((m) => callsOf(m).length > 0) ? list : null;
}

export function fromAutogen(v: unknown, ctx: MessageListContext): BuiltSession[] {
  const { line, path, unread, lineOf } = ctx;
  const messages = autogenMessagesOf(v) ?? [];
  const { key } = locate(v);
  const prefix = key ? `${path ? `${path}.` : ''}${key}` : path;
  // Who speaks for the person: `user`, and any proxy that was asked for input.
  const people = new Set(['user']);
  for (const m of messages)
    if (m.type === 'UserInputRequestedEvent' && typeof m.source === 'string') people.add(m.source);
  const entries: ItemEntry[] = [];
  messages.forEach((m, i) => {
    const where = `${prefix}[${i}]`;
    const at = typeof m.created_at === 'string' && Number.isFinite(Date.parse(m.created_at)) ? m.created_at : null;
    const push = (item: JsonObject) => entries.push({ item, where, line: lineOf ? lineOf(i) : line, at });
    const type = String(m.type);
    const calls = callsOf(m);
    if (calls.length)
      for (const c of calls as JsonObject[])
        push({ type: 'function_call', call_id: c.id ?? null, name: c.name, arguments: c.arguments ?? {} });
    else if (RESULTS.has(type) && Array.isArray(m.content))
      for (const r of m.content.filter(isObject))
        push({
          type: 'function_call_output',
          call_id: r.call_id ?? null,
          output: r.content == null ? '' : resultText(r.content),
          status: r.is_error === true ? 'failed' : 'completed',
        });
    else if (TEXTS.has(type)) {
      const asked = type === 'UserMessage' || (type !== 'ToolCallSummaryMessage' && people.has(String(m.source)));
      push({ type: 'message', role: asked ? 'user' : 'assistant', content: stringsText(m.content) });
    } else if (type === 'AssistantMessage')
      push({ type: 'message', role: 'assistant', content: stringsText(m.content) });
    else if (!PASSIVE.has(type) && unread) countUnread(unread, type);
  });
  return listSessions(entries, ctx, 'autogen', v, ['session_id', 'id', 'run_id']);
}
