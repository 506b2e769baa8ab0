import type { ToolCall } from '../domain/types.js';
import { contentText, cutTo, ERROR_RESULT, isObject, parseArgs, resultText, type JsonObject } from './common.js';
import { capText, type CaptureLimits } from './normalized-jsonl.js';
import { InputError } from '../errors/input-error.js';

/**
 * OpenAI Responses API items, the shape shared by the OpenAI Agents SDK run history (`result.to_input_list()`,
 * `RunResult.new_items` raw items), a Responses API `response.output`, and Codex CLI rollout files:
 *
 * - messages: `{role, content}` (easy input message) or `{type: "message", role, content: [{type:
 *   "input_text" | "output_text", text}]}`;
 * - tool calls: `function_call` / `custom_tool_call` `{call_id, name, arguments | input}` answered by
 *   `function_call_output` / `custom_tool_call_output` `{call_id, output}`, paired by `call_id`;
 *   `local_shell_call` (answered by `local_shell_call_output`), `computer_call` (`computer_call_output`),
 *   `mcp_call` (carrying its own `output` / `error`), and the hosted `web_search_call`, `file_search_call`,
 *   `code_interpreter_call`, `image_generation_call` (their own status);
 * - `reasoning` items are skipped (chain of thought is never a step).
 */

const CALL_TYPES = new Set([
  'function_call',
  'hosted_tool_call',
  'shell_call',
  'apply_patch_call',
  'custom_tool_call',
  'local_shell_call',
  'computer_call',
  'mcp_call',
  'web_search_call',
  'file_search_call',
  'code_interpreter_call',
  'image_generation_call',
]);
const OUTPUT_TYPES = new Set([
  'function_call_output',
  'function_call_result',
  'computer_call_result',
  'shell_call_output',
  'apply_patch_call_output',
  'custom_tool_call_output',
  'local_shell_call_output',
  'computer_call_output',
]);

/** What a call's output said of it, read from its whole text (an output cut as it was read: cutOutput). */
export interface OutputCheck {
  failed: boolean;
  error: string | null;
}

/** The outputs cut as they were read (cutOutput), with what their whole text said of their call. */
const cutChecks = new WeakMap<object, OutputCheck>();

/**
 * An output item whose text is longer than `keep` characters, with the text cut there (a transcript read line by line
 * keeps no more of it than its reader reads: parse-file.ts Slimmer), and what `check` (the reader's resultCheck) says
 * of the whole text kept beside it for applyOutput; any other item as it is. An output whose shell commands say they
 * failed (shellOutputFailure) is left whole.
 */
export function cutOutput(item: JsonObject, keep: number, check: (text: string) => OutputCheck): JsonObject {
  if (!OUTPUT_TYPES.has(item.type as string) || shellOutputFailure(item.output) !== null) return item;
  const text = outputText(item.output);
  if (text.length <= keep) return item;
  const said = check(text);
  const cut = { ...item, output: cutTo(text, keep) };
  cutChecks.set(cut, { failed: said.failed, error: said.error === null ? null : cutTo(said.error, keep) });
  return cut;
}

/** Items that carry no call, result or message: read past (the Agents SDK's `unknown` holds provider extras). */
const QUIET_TYPES = new Set(['reasoning', 'compaction', 'unknown', 'tool_search_call', 'tool_search_output']);

/** Whether one item is a Responses item (a typed message, a call, a call output or reasoning). */
export function isResponsesItem(v: unknown): boolean {
  if (!isObject(v) || typeof v.type !== 'string') return false;
  return v.type === 'message' || QUIET_TYPES.has(v.type) || CALL_TYPES.has(v.type) || OUTPUT_TYPES.has(v.type);
}

/** The call id of an item: `call_id` (Responses API, Python SDK) or `callId` (the JavaScript Agents SDK). */
export function callIdOf(item: JsonObject): string | null {
  if (typeof item.call_id === 'string') return item.call_id;
  if (typeof item.callId === 'string') return item.callId;
  return typeof item.id === 'string' ? item.id : null;
}

/** Whether a list of items is Responses traffic: some item is a call or call output. */
export function hasResponsesCalls(items: unknown[]): boolean {
  return items.some(
    (v) => isObject(v) && typeof v.type === 'string' && (CALL_TYPES.has(v.type) || OUTPUT_TYPES.has(v.type)),
  );
}

/** A typed item of a kind this version does not know (a later SDK's), read past and counted. */
export function isUnknownItem(x: unknown): boolean {
  return isObject(x) && typeof x.type === 'string' && !isResponsesItem(x) && !('messages' in x) && !('steps' in x);
}

/**
 * Whether a list reads as Responses items: known items and easy messages `{role, content}`, with at most a
 * minority of typed items of kinds this version does not know.
 */
export function isItemList(items: unknown[]): boolean {
  let known = 0;
  for (const x of items) {
    if (isResponsesItem(x) || (isObject(x) && typeof x.role === 'string' && !('messages' in x))) known++;
    else if (!isUnknownItem(x)) return false;
  }
  return known * 2 > items.length;
}

/** A list of Responses items (easy messages `{role, content}` allowed) holding at least one call or output. */
export function isResponsesItemList(v: unknown): v is unknown[] {
  return Array.isArray(v) && v.length > 0 && hasResponsesCalls(v) && isItemList(v);
}

/** What one item says, for the session builders: a user text, an assistant text, a call, an output, or nothing. */
export type ItemEvent =
  | { kind: 'user'; text: string }
  | { kind: 'assistant'; text: string }
  | { kind: 'call'; id: string | null; call: ToolCall; done: boolean }
  | { kind: 'output'; id: string | null; text: string; failed: boolean | null; error?: string; check?: OutputCheck }
  | { kind: 'other' };

/** Reads one item into an event. Throws with `where` when a call has no name or arguments do not parse. */
export function readItem(item: unknown, where: string, limits: CaptureLimits, at: string | null = null): ItemEvent {
  if (!isObject(item)) throw new InputError(`${where}: not an object`);
  const type = typeof item.type === 'string' ? item.type : item.role ? 'message' : null;
  if (type === 'message') {
    const text = messageText(item.content);
    if (item.role === 'user') return { kind: 'user', text };
    if (item.role === 'assistant') return { kind: 'assistant', text };
    return { kind: 'other' };
  }
  if (type && CALL_TYPES.has(type)) return readCall(item, type, where, limits, at);
  if (type && OUTPUT_TYPES.has(type)) {
    const id = callIdOf(item);
    const text = outputText(item.output);
    const shell = shellOutputFailure(item.output);
    const failed = item.status === 'failed' || item.status === 'incomplete' || shell ? true : null;
    const check = cutChecks.get(item);
    return {
      kind: 'output',
      id,
      text,
      failed,
      ...(shell ? { error: `${shell}: ${text}`.trim() } : {}),
      ...(check ? { check } : {}),
    };
  }
  return { kind: 'other' };
}

function readCall(item: JsonObject, type: string, where: string, limits: CaptureLimits, at: string | null): ItemEvent {
  const id = callIdOf(item);
  let tool: string;
  let args: Record<string, unknown>;
  if (type === 'hosted_tool_call') {
    // The JavaScript Agents SDK's hosted tools (web search, file search, code interpreter...): their own result.
    if (typeof item.name !== 'string' || !item.name) throw new InputError(`${where}.name: missing`);
    tool = item.name.replace(/_call$/, '');
    args = parseArgs(item.arguments, `${where}.arguments`);
  } else if (type in ACTION_CALLS) {
    const [name, field] = ACTION_CALLS[type];
    tool = name;
    const action = item[field];
    args = isObject(action) ? action : {};
  } else if (type === 'function_call' || type === 'custom_tool_call' || type === 'mcp_call') {
    if (typeof item.name !== 'string' || !item.name) throw new InputError(`${where}.name: missing`);
    tool =
      type === 'mcp_call' && typeof item.server_label === 'string' ? `${item.server_label}.${item.name}` : item.name;
    const raw = type === 'custom_tool_call' ? item.input : item.arguments;
    if (type === 'custom_tool_call' && typeof raw === 'string') {
      // Custom (freeform) tools take plain text, e.g. Codex's apply_patch: the text is the argument.
      try {
        args = parseArgs(raw, `${where}.input`);
      } catch {
        args = { input: raw };
      }
    } else args = parseArgs(raw, `${where}.arguments`);
  } else {
    tool = type.replace(/_call$/, '');
    args = isObject(item.action)
      ? item.action
      : typeof item.query === 'string'
        ? { query: item.query }
        : Array.isArray(item.queries)
          ? { queries: item.queries }
          : {};
  }
  const call: ToolCall = { position: 0, tool, args, result: '', ok: true, error: null, durationMs: null, at };
  // Calls that carry their own result (hosted tools, MCP) are complete as they are.
  let done = !ANSWERED_LATER.has(type);
  if (type === 'mcp_call' || type === 'hosted_tool_call') {
    if (item.output != null) call.result = capText(resultText(item.output), limits.resultChars);
    if (typeof item.error === 'string' && item.error) {
      call.ok = false;
      call.error = capText(item.error, 500);
    }
  } else if (done && item.status === 'failed') {
    call.ok = false;
    call.error = `${type} failed`;
  } else if (done && item.results != null) {
    call.result = capText(resultText(item.results), limits.resultChars);
  }
  if (!done && item.status === 'failed') {
    call.ok = false;
    call.error = `${type} failed`;
    done = false;
  }
  return { kind: 'call', id, call, done };
}

/** Calls whose arguments are one object field: the tool name and that field. */
const ACTION_CALLS: Record<string, [string, string]> = {
  local_shell_call: ['local_shell', 'action'],
  computer_call: ['computer', 'action'],
  shell_call: ['shell', 'action'],
  apply_patch_call: ['apply_patch', 'operation'],
};

/** Calls answered by a later output item (the others carry their own result or status). */
const ANSWERED_LATER = new Set([
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'computer_call',
  'shell_call',
  'apply_patch_call',
]);

/**
 * How a JavaScript Agents SDK shell output (`[{stdout, stderr, outcome: {type: "exit", exitCode}}]`) failed, as
 * its error's lead ("exit code 1", "timed out"); null when every command exited 0.
 */
function shellOutputFailure(output: unknown): string | null {
  if (!Array.isArray(output)) return null;
  for (const o of output) {
    if (!isObject(o) || !isObject(o.outcome)) continue;
    if (o.outcome.type === 'timeout') return 'timed out';
    if (typeof o.outcome.exitCode === 'number' && o.outcome.exitCode !== 0) return `exit code ${o.outcome.exitCode}`;
  }
  return null;
}

function messageText(content: unknown): string {
  if (Array.isArray(content)) {
    return content
      .map((p) =>
        isObject(p) &&
        (p.type === 'input_text' || p.type === 'output_text' || p.type === 'text') &&
        typeof p.text === 'string'
          ? p.text
          : isObject(p) && p.type === 'refusal' && typeof p.refusal === 'string'
            ? p.refusal
            : '',
      )
      .join('');
  }
  return contentText(content);
}

function outputText(output: unknown): string {
  if (Array.isArray(output)) {
    // Shell outputs: stdout then stderr of each command; else content parts.
    if (output.some((o) => isObject(o) && ('stdout' in o || 'stderr' in o)))
      return output
        .map((o) => (isObject(o) ? [o.stdout, o.stderr].filter((t) => typeof t === 'string' && t).join('\n') : ''))
        .join('\n');
    return messageText(output);
  }
  // The JavaScript Agents SDK's `{type: "text", text}` tool output; a content part (`input_text`, `output_text`) as
  // a newer Codex writes one.
  if (isObject(output) && /^(?:input_|output_)?text$/.test(String(output.type)) && typeof output.text === 'string')
    return output.text;
  return resultText(output ?? '');
}

/** Pairs an output with the earliest pending call with its id (else the earliest pending call) and records it. */
export function applyOutput(
  pending: { id: string | null; call: ToolCall }[],
  ev: { id: string | null; text: string; failed: boolean | null; error?: string; check?: OutputCheck },
  limits: CaptureLimits,
  where: string,
  resultCheck: (text: string) => { failed: boolean; error: string | null } = defaultCheck,
): void {
  let k = ev.id === null ? -1 : pending.findIndex((p) => p.id === ev.id);
  if (k < 0 && ev.id !== null && pending.length && pending.every((p) => p.id !== null))
    throw new InputError(`${where}: output for call_id ${ev.id}, which no earlier call has`);
  if (k < 0) k = 0;
  const match = pending.splice(k, 1)[0];
  if (!match) throw new InputError(`${where}: output without a pending call`);
  match.call.result = capText(ev.text, limits.resultChars);
  // An output cut as it was read: what its whole text said.
  const check = ev.check ?? resultCheck(ev.text);
  if (ev.failed || check.failed) {
    match.call.ok = false;
    match.call.error = capText(check.error ?? ev.error ?? (ev.text || 'failed'), 500);
  }
}

function defaultCheck(text: string): { failed: boolean; error: string | null } {
  return ERROR_RESULT.test(text) ? { failed: true, error: text } : { failed: false, error: null };
}
