import { contentText, countUnread, isObject, type JsonObject, resultText } from './common.js';
import { type BuiltSession, type ItemEntry, listSessions, type MessageListContext } from './openai-agents.js';

/**
 * LangChain messages, as LangGraph agents and LangChain apps keep a conversation: a graph's `messages` state
 * (`graph.invoke(...)` or `graph.get_state(config).values` written as JSON), a LangGraph server's thread
 * (`GET /threads/{id}`, `/threads/{id}/state`: `{values: {messages}}`; `/history`: a list of such states, newest
 * first), a chat history saved with `messages_to_dict` (`[{type, data}]`), `model_dump()` of each message, or
 * LangChain.js's `JSON.stringify(messages)` (`{lc: 1, type: "constructor", id: [..., "AIMessage"], kwargs}`).
 *
 * - `human` is the request (the goal); `ai` answers with `content` (text, or blocks whose `text` is read) and calls
 *   tools with `tool_calls` (`{name, args, id}`; else the provider's `additional_kwargs.tool_calls`, else the
 *   `tool_use` / `tool_call` blocks of its content); `tool` is a call's result, by `tool_call_id`, and
 *   `status: "error"` (or an error-looking text, as ToolNode writes "Error: ...") fails it; the legacy `function`
 *   message answers the call before it.
 * - A call the model wrote but that could not be parsed (`invalid_tool_calls`) never ran: it is kept as a failed
 *   call with its error.
 * - `system` and `remove` messages are read past; a message type this version does not know is counted.
 *
 * A thread of several requests splits into tasks by the rule in task-splitter.ts. LangChain records no outcome:
 * the container's `outcome` / `success`, else the judge.
 */

/** Message types by `type` (Python's `message.type`) and by class name (LangChain.js, `lc` constructors). */
const KINDS: Record<string, string> = {
  human: 'human',
  HumanMessage: 'human',
  HumanMessageChunk: 'human',
  ai: 'ai',
  AIMessage: 'ai',
  AIMessageChunk: 'ai',
  tool: 'tool',
  ToolMessage: 'tool',
  ToolMessageChunk: 'tool',
  function: 'function',
  FunctionMessage: 'function',
  system: 'system',
  SystemMessage: 'system',
  developer: 'system',
  chat: 'chat',
  ChatMessage: 'chat',
  remove: 'remove',
  RemoveMessage: 'remove',
};

/**
 * One message in its flat shape (`{type, content, tool_calls, ...}`, `type` normalised to `human` / `ai` /
 * `tool` / ..., or `?<type>` for a type this version does not know), whichever way it was written, or null when
 * it is not a message (no string `type`, no `content`).
 */
function flat(m: unknown): JsonObject | null {
  if (!isObject(m)) return null;
  let fields: JsonObject = m;
  let type: unknown = m.type;
  if (m.lc === 1 && m.type === 'constructor' && Array.isArray(m.id) && isObject(m.kwargs)) {
    fields = m.kwargs;
    type = m.id[m.id.length - 1];
  } else if (isObject(m.data) && !('content' in m) && typeof m.type === 'string') fields = m.data;
  if (typeof type !== 'string' || !type || !('content' in fields)) return null;
  // A type this version does not know keeps its own name (it is counted, not read).
  const kind = KINDS[type] ?? `?${type}`;
  if (kind === 'chat') {
    const role = fields.role;
    return { ...fields, type: role === 'user' ? 'human' : role === 'assistant' ? 'ai' : `chat:${String(role)}` };
  }
  return { ...fields, type: kind };
}

interface Call {
  id: unknown;
  name: unknown;
  args: unknown;
  /** Where the call sits in its message (`tool_calls[0]`), for problems. */
  key: string;
}

/** The calls an `ai` message made: `tool_calls`, else the provider's own list, else tool blocks of its content. */
function callsOf(m: JsonObject): Call[] {
  const calls: Call[] = [];
  const extra = isObject(m.additional_kwargs) ? m.additional_kwargs : {};
  if (Array.isArray(m.tool_calls) && m.tool_calls.length)
    m.tool_calls.forEach((c, j) => {
      if (isObject(c)) calls.push({ id: c.id ?? null, name: c.name, args: c.args ?? {}, key: `tool_calls[${j}]` });
    });
  else if (Array.isArray(extra.tool_calls) && extra.tool_calls.length)
    extra.tool_calls.forEach((c, j) => {
      const fn = isObject(c) && isObject(c.function) ? c.function : null;
      if (fn)
        calls.push({
          id: c.id ?? null,
          name: fn.name,
          args: fn.arguments ?? {},
          key: `additional_kwargs.tool_calls[${j}].function`,
        });
    });
  else if (isObject(extra.function_call)) {
    const fn = extra.function_call;
    calls.push({ id: null, name: fn.name, args: fn.arguments ?? {}, key: 'additional_kwargs.function_call' });
  } else if (Array.isArray(m.content))
    m.content.forEach((b, j) => {
      if (isObject(b) && (b.type === 'tool_use' || b.type === 'tool_call'))
        calls.push({ id: b.id ?? null, name: b.name, args: b.input ?? b.args ?? {}, key: `content[${j}]` });
    });
  return calls;
}

/** Calls the model wrote that could not be parsed (they never ran); one without a name is no step. */
const invalidCallsOf = (m: JsonObject): JsonObject[] =>
  Array.isArray(m.invalid_tool_calls)
    ? m.invalid_tool_calls.filter((c): c is JsonObject => isObject(c) && typeof c.name === 'string' && c.name !== '')
    : [];

interface Located {
  messages: JsonObject[];
  /** Where the list sits in its record (`messages`, `values.messages`, `[0].values.messages`). */
  key: string;
  /** What holds the list (a thread or state keeps the id), for its id and outcome. */
  holder: unknown;
}

/** The raw list and where it sits: a list, `{messages}`, a state `{values: {messages}}`, or a state history. */
function locate(v: unknown): { raw: unknown[]; key: string; holder: unknown } | null {
  const valuesOf = (s: unknown) => (isObject(s) && isObject(s.values) ? s.values.messages : undefined);
  if (Array.isArray(v)) {
    // A thread's history (each state holds every message so far): the state with the most messages.
    if (v.length && v.every((s) => Array.isArray(valuesOf(s)))) {
      let best = 0;
      v.forEach((s, i) => {
        if ((valuesOf(s) as unknown[]).length > (valuesOf(v[best]) as unknown[]).length) best = i;
      });
      return { raw: valuesOf(v[best]) as unknown[], key: `[${best}].values.messages`, holder: v[best] };
    }
    return { raw: v, key: '', holder: {} };
  }
  if (!isObject(v)) return null;
  if (Array.isArray(v.messages)) return { raw: v.messages, key: 'messages', holder: v };
  const inState = valuesOf(v);
  return Array.isArray(inState) ? { raw: inState, key: 'values.messages', holder: v } : null;
}

function located(v: unknown): Located | null {
  const at = locate(v);
  if (!at || at.raw.length === 0) return null;
  const messages: JsonObject[] = [];
  for (const m of at.raw) {
    const f = flat(m);
    if (!f) return null;
    messages.push(f);
  }
  const calls = messages.some(
    (m) => (m.type === 'ai' && (callsOf(m).length > 0 || invalidCallsOf(m).length > 0)) || m.type === 'tool',
  );
  // Without a call yet (a first turn in which the agent asked a question back), every message must be of a kind
  // only LangChain writes, with a request among them.
  const plain = messages.every((m) => !String(m.type).startsWith('?')) && messages.some((m) => m.type === 'human');
  return (calls && messages.some((m) => m.type === 'ai')) || plain
    ? { messages, key: at.key, holder: at.holder }
    : null;
}

/** The messages of a LangChain conversation (flattened) that holds a tool call or is plainly LangChain's, or null. */
export function langchainMessagesOf(v: unknown): JsonObject[] | null {
  return located(v)?.messages ?? null;
}

/** A thread id: the holder's own, or its checkpoint's. */
function threadFields(holder: unknown): JsonObject {
  if (!isObject(holder)) return {};
  const checkpoint = isObject(holder.checkpoint) ? holder.checkpoint : {};
  const id = holder.thread_id ?? checkpoint.thread_id;
  return typeof id === 'string' ? { ...holder, thread_id: id } : holder;
}

export function fromLangChainMessages(v: unknown, ctx: MessageListContext): BuiltSession[] {
  const { line, path, unread, lineOf } = ctx;
  const at = located(v);
  if (!at) return [];
  const prefix = [path, at.key].filter(Boolean).join(at.key.startsWith('[') ? '' : '.');
  const entries: ItemEntry[] = [];
  at.messages.forEach((m, i) => {
    const where = `${prefix}[${i}]`;
    const push = (item: JsonObject, key = '') =>
      entries.push({
        item,
        where: key ? `${where}.${key}` : where,
        line: lineOf ? lineOf(i) : line,
        at: null,
        nameField: 'name',
      });
    if (m.type === 'human') push({ type: 'message', role: 'user', content: contentText(m.content) });
    else if (m.type === 'ai') {
      const text = contentText(m.content);
      if (text.trim()) push({ type: 'message', role: 'assistant', content: text });
      for (const c of callsOf(m))
        push({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.args }, c.key);
      for (const [j, bad] of invalidCallsOf(m).entries()) {
        const id = bad.id ?? `invalid:${i}:${j}`;
        push({ type: 'function_call', call_id: id, name: bad.name, arguments: {} });
        const reason = typeof bad.error === 'string' && bad.error ? bad.error : 'arguments could not be parsed';
        push({ type: 'function_call_output', call_id: id, output: `invalid tool call: ${reason}`, status: 'failed' });
      }
    } else if (m.type === 'tool' || m.type === 'function')
      push({
        type: 'function_call_output',
        call_id: m.type === 'tool' ? (m.tool_call_id ?? null) : null,
        output: contentText(m.content) || resultText(m.content ?? ''),
        status: m.status === 'error' ? 'failed' : 'completed',
      });
    else if (m.type !== 'system' && m.type !== 'remove' && unread)
      countUnread(unread, String(m.type).replace(/^\?/, ''));
  });
  const holder = threadFields(at.holder);
  return listSessions(entries, ctx, 'langchain-messages', holder, ['thread_id', 'session_id', 'id']);
}
