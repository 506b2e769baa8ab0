import { contentText, countUnread, isObject, type JsonObject, resultText } from './common.js';
import { type BuiltSession, type ItemEntry, listSessions, type MessageListContext } from './openai-agents.js';

/**
 * Vercel AI SDK conversations, as apps save them. Both message shapes the SDK has are read; they are turned into
 * Responses items and go through sessionsFromItems, so a chat splits into tasks by the rule every transcript
 * follows (task-splitter.ts) and results pair with their calls by id.
 *
 * - UI messages (what `useChat` holds and a chat app persists): `{id, role, parts}`. A tool call is one part
 *   holding its input and, once it ran, its output: `type: "tool-<name>"` or `"dynamic-tool"` (with `toolName`)
 *   and a `state` (`output-available`, `output-error` with `errorText`, `output-denied`; `input-available` and
 *   the approval states have not run). AI SDK 4 wrote `type: "tool-invocation"` parts holding a
 *   `toolInvocation` (`state: "result"` with `result`), and before parts a message-level `toolInvocations` list.
 * - Model messages (`ModelMessage`, `CoreMessage` in 4: `result.response.messages`, what `generateText` is
 *   given): `{role, content}` with assistant `tool-call` parts (`input`, `args` in 4) answered by `tool-result`
 *   parts of a `tool` message, whose `output` is `{type: "text" | "json" | "error-text" | "error-json" |
 *   "execution-denied" | "content", value}` (`result` and `isError` in 4).
 *
 * Containers: a JSON array of messages, `{messages: [...]}` (a saved chat, with its `id`), or one message per
 * JSONL line; Mastra's memory stores the UI message under `content: {format: 2 | 3, parts}`, with a `threadId`. The goal is the first user text; an error output, an error state or a denied execution fails the
 * call. Parts of kinds the SDK renders but that are not steps (reasoning, sources, files, data parts, step
 * boundaries) are read past; a part kind this version does not know is counted. The SDK records no outcome:
 * the container's `outcome` / `success` when it has one, else the judge decides.
 */

/** Part kinds that are neither requests, answers nor steps. */
const PASSIVE_PARTS = new Set([
  'reasoning',
  'redacted-reasoning',
  'step-start',
  'source',
  'source-url',
  'source-document',
  'file',
  'image',
  'reasoning-file',
  'custom',
  'tool-approval-request',
  'tool-approval-response',
]);

/** A UI message part that is a tool call of AI SDK 5 or later (`tool-<name>`, `dynamic-tool`). */
function isToolUiPart(p: JsonObject): boolean {
  const type = typeof p.type === 'string' ? p.type : '';
  return (
    (type === 'dynamic-tool' || (type.startsWith('tool-') && type !== 'tool-call' && type !== 'tool-result')) &&
    typeof p.toolCallId === 'string'
  );
}

const isInvocationPart = (p: unknown) => isObject(p) && p.type === 'tool-invocation';

/** One message's parts and where they sit, whichever shape holds them. */
interface MessageView {
  parts: unknown[];
  /** The key the parts sit under, for problems (`parts`, `content`, `content.parts`). */
  key: string;
  /** AI SDK 4's message-level calls, when no part holds them (they are the same calls). */
  invocations: unknown[];
}

/**
 * UI messages keep `parts`; model messages `content` (text, or parts); Mastra stores a UI message as
 * `content: {format: 2 | 3, parts, toolInvocations}`.
 */
function viewOf(m: JsonObject): MessageView {
  const inner = isObject(m.content) && Array.isArray(m.content.parts) ? m.content : null;
  const holder = inner ?? m;
  const [parts, key]: [unknown[], string] = Array.isArray(holder.parts)
    ? [holder.parts, inner ? 'content.parts' : 'parts']
    : Array.isArray(m.content)
      ? [m.content, 'content']
      : [typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : [], 'content'];
  const listed = Array.isArray(holder.toolInvocations) ? holder.toolInvocations : [];
  return { parts, key, invocations: parts.some(isInvocationPart) ? [] : listed };
}

/** Whether one message carries a call or result in an AI SDK shape. */
function hasAiSdkTool(m: JsonObject): boolean {
  const { parts, invocations } = viewOf(m);
  return (
    invocations.length > 0 ||
    parts.some(
      (p) =>
        isObject(p) &&
        (p.type === 'tool-invocation' ||
          isToolUiPart(p) ||
          ((p.type === 'tool-call' || p.type === 'tool-result') && typeof p.toolCallId === 'string')),
    )
  );
}

const isMessage = (m: unknown): m is JsonObject =>
  isObject(m) && typeof m.role === 'string' && (Array.isArray(m.parts) || 'content' in m);

/** The messages of an AI SDK conversation (a list, or `{messages}`), or null when the value is not one. */
export function aiSdkMessagesOf(v: unknown): JsonObject[] | null {
  const list = Array.isArray(v) ? v : isObject(v) && Array.isArray(v.messages) ? v.messages : null;
  if (!list || list.length === 0 || !list.every(isMessage)) return null;
  return list.some(hasAiSdkTool) ? (list as JsonObject[]) : null;
}

/** When a message was written (`createdAt` of AI SDK 4, or a `metadata.createdAt` many apps add), or null. */
function timeOf(m: JsonObject): string | null {
  const raw = m.createdAt ?? (isObject(m.metadata) ? m.metadata.createdAt : undefined);
  const t = typeof raw === 'number' ? raw : typeof raw === 'string' ? Date.parse(raw) : Number.NaN;
  return Number.isFinite(t) ? new Date(t).toISOString() : null;
}

/** A call the person did not let run: a failure, with their reason when they gave one. */
function denied(reason: unknown): { text: string; failed: boolean } {
  return { text: `execution denied${typeof reason === 'string' && reason ? `: ${reason}` : ''}`, failed: true };
}

/** A model message tool result: its text, and whether it reports a failure. */
function modelOutput(p: JsonObject): { text: string; failed: boolean } {
  const o = p.output;
  if (isObject(o) && typeof o.type === 'string') {
    if (o.type === 'execution-denied') return denied(o.reason);
    const text = o.type === 'content' ? contentText(o.value) : o.value == null ? '' : resultText(o.value);
    return { text, failed: o.type === 'error-text' || o.type === 'error-json' };
  }
  // AI SDK 4: `result` (any JSON) and `isError`.
  const r = 'result' in p ? p.result : o;
  return { text: r == null ? '' : resultText(r), failed: p.isError === true };
}

/** A UI tool part (5 and later) or tool invocation (4) as a call, and its result when it ran. */
function uiTool(
  inv: JsonObject,
  name: unknown,
): { name: unknown; id: string | null; input: unknown; result: { text: string; failed: boolean } | null } {
  const id = typeof inv.toolCallId === 'string' ? inv.toolCallId : null;
  const input = inv.input ?? inv.args ?? {};
  const approval = isObject(inv.approval) ? inv.approval : null;
  let result: { text: string; failed: boolean } | null = null;
  if (inv.state === 'output-error')
    result = { text: typeof inv.errorText === 'string' ? inv.errorText : 'error', failed: true };
  else if (inv.state === 'output-denied' || (inv.state === 'approval-responded' && approval?.approved === false))
    result = denied(approval?.reason);
  else if (inv.state === 'output-available' || inv.state === 'result' || 'output' in inv || 'result' in inv) {
    const out = 'output' in inv ? inv.output : inv.result;
    result = { text: out == null ? '' : resultText(out), failed: false };
  }
  return { name, id, input, result };
}

export function fromAiSdk(v: unknown, ctx: MessageListContext): BuiltSession[] {
  const { line, path, unread, lineOf } = ctx;
  const messages = aiSdkMessagesOf(v) ?? [];
  const prefix = Array.isArray(v) ? path : `${path ? `${path}.` : ''}messages`;
  const entries: ItemEntry[] = [];
  messages.forEach((m, i) => {
    const where = `${prefix}[${i}]`;
    const at = timeOf(m);
    const ln = lineOf ? lineOf(i) : line;
    const push = (item: JsonObject, w = where) => entries.push({ item, where: w, line: ln, at });
    // A call without a tool name is a problem naming the SDK's field; its result is left out with it.
    const ask = (id: unknown, name: unknown, input: unknown, w: string) =>
      entries.push({
        item: { type: 'function_call', call_id: id, name, arguments: input },
        where: w,
        line: ln,
        at,
        nameField: 'toolName',
      });
    const answer = (id: unknown, r: { text: string; failed: boolean }, w: string) =>
      push({ type: 'function_call_output', call_id: id, output: r.text, status: r.failed ? 'failed' : 'completed' }, w);
    const call = (t: ReturnType<typeof uiTool>, w: string) => {
      ask(t.id, t.name, t.input, w);
      if (t.result) answer(t.id, t.result, w);
    };
    if (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'tool') return;
    const { parts, key: partsKey, invocations } = viewOf(m);
    let text = '';
    const flushText = () => {
      if (text.trim() && m.role !== 'tool')
        push({ type: 'message', role: m.role === 'user' ? 'user' : 'assistant', content: text });
      text = '';
    };
    // AI SDK 4 kept the calls beside the text too (`toolInvocations`, with the answer in `content`): read them,
    // before the text, only when no part holds them.
    invocations.forEach((inv, j) => {
      if (isObject(inv)) call(uiTool(inv, inv.toolName), `${where}.toolInvocations[${j}]`);
    });
    parts.forEach((p, j) => {
      if (typeof p === 'string') {
        text += p;
        return;
      }
      if (!isObject(p)) return;
      const w = `${where}.${partsKey}[${j}]`;
      const type = typeof p.type === 'string' ? p.type : '';
      if (type === 'text') {
        text += typeof p.text === 'string' ? p.text : '';
        return;
      }
      if (type === 'tool-call') {
        flushText();
        ask(p.toolCallId, p.toolName, p.input ?? p.args ?? {}, w);
      } else if (type === 'tool-result') {
        flushText();
        answer(p.toolCallId, modelOutput(p), w);
      } else if (type === 'tool-invocation') {
        flushText();
        // AI SDK 4 nests the call (`toolInvocation`); some apps write its fields on the part itself.
        const inv = isObject(p.toolInvocation) ? p.toolInvocation : p;
        call(uiTool(inv, inv.toolName), w);
      } else if (isToolUiPart(p)) {
        flushText();
        call(uiTool(p, type === 'dynamic-tool' ? p.toolName : type.slice('tool-'.length)), w);
      } else if (!PASSIVE_PARTS.has(type) && !type.startsWith('data-') && unread) countUnread(unread, type);
    });
    flushText();
  });
  // Mastra writes each message's thread: the chat's id when the container has none.
  const thread = messages.find((m) => typeof m.threadId === 'string')?.threadId;
  const container = { threadId: thread, ...(isObject(v) ? v : {}) };
  return listSessions(entries, ctx, 'ai-sdk', container, ['session_id', 'id', 'chatId', 'threadId']);
}

/**
 * What a conversation does not record, for a note: calls that never got a result (a UI part still in an input
 * or approval state, an AI SDK 4 invocation in state `call`, a model tool-call that no tool-result answers).
 */
export function aiSdkNotes(v: unknown): string[] {
  const names: string[] = [];
  const answered = new Set<unknown>();
  const asked: { id: unknown; name: unknown }[] = [];
  for (const m of aiSdkMessagesOf(v) ?? []) {
    const { parts, invocations } = viewOf(m);
    for (const p of [...parts, ...invocations]) {
      if (!isObject(p)) continue;
      if (p.type === 'tool-call') asked.push({ id: p.toolCallId, name: p.toolName });
      else if (p.type === 'tool-result') answered.add(p.toolCallId);
      else {
        const inv = isInvocationPart(p) && isObject(p.toolInvocation) ? p.toolInvocation : p;
        const isCall = isInvocationPart(p) || isToolUiPart(p) || (!('type' in p) && 'toolCallId' in p);
        if (!isCall || uiTool(inv, null).result) continue;
        names.push(String(inv.toolName ?? (typeof p.type === 'string' ? p.type.slice('tool-'.length) : '?')));
      }
    }
  }
  for (const a of asked) if (!answered.has(a.id)) names.push(String(a.name));
  return names.length ? [`${names.length} call(s) never got a result (${names.join(', ')}): stored without one`] : [];
}
