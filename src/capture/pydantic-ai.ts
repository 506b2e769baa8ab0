import { contentText, countUnread, isObject, type JsonObject, resultText, stringsText } from './common.js';
import { type BuiltSession, type ItemEntry, listSessions, type MessageListContext } from './openai-agents.js';

/**
 * Pydantic AI message history, as `ModelMessagesTypeAdapter.dump_json(result.all_messages())` (or
 * `to_jsonable_python`) writes it: a list of `ModelRequest` (`kind: "request"`) and `ModelResponse`
 * (`kind: "response"`) messages, each with `parts` told apart by `part_kind`.
 *
 * - Requests: `user-prompt` (the goal: `content`, a string or a list whose strings are the text),
 *   `system-prompt` (context), `tool-return` (`tool_name`, `tool_call_id`, `content`; newer versions add
 *   `outcome`: `failed` or `denied` fails the call) and `retry-prompt` (a call the agent must make again: with a
 *   `tool_name`, the call failed, with the validation errors or the tool's `ModelRetry` message as its error).
 * - Responses: `text`, `thinking`, `tool-call` (`tool_name`, `args` as a JSON string or an object,
 *   `tool_call_id`), and `builtin-tool-call` / `builtin-tool-return` for the provider's own tools.
 *
 * A call of the output tool (`final_result`, or `final_result_<name>` with several output types) is how the
 * agent answers with structured output: its arguments are the answer, not a step. Containers: the list, `{messages}`,
 * or one message per JSONL line; a history of several runs splits into tasks by the rule in task-splitter.ts.
 * Part kinds this version does not know are counted. The history records no outcome: the container's
 * `outcome` / `success`, else the judge.
 */

const KNOWN_PARTS = new Set([
  'user-prompt',
  'system-prompt',
  'tool-return',
  'retry-prompt',
  'text',
  'thinking',
  'tool-call',
  'builtin-tool-call',
  'builtin-tool-return',
  'file',
]);

const isOutputTool = (name: unknown) => typeof name === 'string' && /^final_result(?:_|$)/.test(name);

const isPydanticMessage = (m: unknown): m is JsonObject =>
  isObject(m) && (m.kind === 'request' || m.kind === 'response') && Array.isArray(m.parts);

/** The messages of a Pydantic AI history (a list, or `{messages}`) that holds a tool call, or null. */
export function pydanticMessagesOf(v: unknown): JsonObject[] | null {
  const list = Array.isArray(v) ? v : isObject(v) && Array.isArray(v.messages) ? v.messages : null;
  if (!list || list.length === 0 || !list.every(isPydanticMessage)) return null;
  const calls = list.some((m) =>
    (m.parts as unknown[]).some((p) => isObject(p) && typeof p.part_kind === 'string' && p.part_kind.includes('tool')),
  );
  return calls ? list : null;
}

/** A timestamp as ISO text, or null. */
function iso(raw: unknown): string | null {
  const t = typeof raw === 'string' ? Date.parse(raw) : Number.NaN;
  return Number.isFinite(t) ? new Date(t).toISOString() : null;
}

export function fromPydanticAi(v: unknown, ctx: MessageListContext): BuiltSession[] {
  const { line, path, unread, lineOf } = ctx;
  const messages = pydanticMessagesOf(v) ?? [];
  const prefix = Array.isArray(v) ? path : `${path ? `${path}.` : ''}messages`;
  const entries: ItemEntry[] = [];
  messages.forEach((m, i) => {
    const ln = lineOf ? lineOf(i) : line;
    (m.parts as unknown[]).forEach((p, j) => {
      if (!isObject(p)) return;
      const where = `${prefix}[${i}].parts[${j}]`;
      const at = iso(p.timestamp) ?? iso(m.timestamp);
      // A call without a tool name is a problem naming `tool_name`; its result is left out with it.
      const push = (item: JsonObject) => entries.push({ item, where, line: ln, at, nameField: 'tool_name' });
      const kind = typeof p.part_kind === 'string' ? p.part_kind : '';
      if (kind === 'user-prompt') push({ type: 'message', role: 'user', content: stringsText(p.content) });
      else if (kind === 'text')
        push({ type: 'message', role: 'assistant', content: typeof p.content === 'string' ? p.content : '' });
      else if ((kind === 'tool-call' || kind === 'builtin-tool-call') && isOutputTool(p.tool_name))
        push({ type: 'message', role: 'assistant', content: resultText(p.args ?? '') });
      else if (kind === 'tool-call' || kind === 'builtin-tool-call')
        push({ type: 'function_call', call_id: p.tool_call_id ?? null, name: p.tool_name, arguments: p.args ?? {} });
      else if ((kind === 'tool-return' || kind === 'builtin-tool-return') && !isOutputTool(p.tool_name)) {
        const failed = p.outcome === 'failed' || p.outcome === 'denied';
        push({
          type: 'function_call_output',
          call_id: p.tool_call_id ?? null,
          output: p.content == null ? (failed ? String(p.outcome) : '') : resultText(p.content),
          status: failed ? 'failed' : 'completed',
        });
      } else if (kind === 'retry-prompt' && typeof p.tool_name === 'string' && !isOutputTool(p.tool_name))
        push({
          type: 'function_call_output',
          call_id: p.tool_call_id ?? null,
          output: typeof p.content === 'string' ? p.content : contentText(p.content) || resultText(p.content),
          status: 'failed',
        });
      else if (!KNOWN_PARTS.has(kind) && unread) countUnread(unread, kind || p.kind);
    });
  });
  return listSessions(entries, ctx, 'pydantic-ai', v, ['session_id', 'id', 'run_id']);
}
