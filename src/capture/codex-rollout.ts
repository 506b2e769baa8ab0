import type { ReaderReport } from './types.js';
import { contentText, countUnread, isObject, type JsonObject, type Unread } from './common.js';
import type { CaptureLimits } from './normalized-jsonl.js';
import { type BuiltSession, type ItemEntry, type ItemsResume, sessionsFromItems } from './openai-agents.js';
import { emptyIdFilter, type IdFilter, mayHold, withIds } from './id-filter.js';
import { cutOutput, isResponsesItem } from './responses-items.js';

/**
 * Codex CLI rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`): one JSON object per
 * line, `{timestamp, type, payload}` with `type` one of `session_meta` (the session id, cwd, CLI version),
 * `turn_context`, `event_msg` (UI events, skipped) and `response_item` (a Responses item: message,
 * function_call / function_call_output, custom_tool_call, local_shell_call, reasoning). Older CLIs wrote the
 * meta object bare on the first line (`{id, timestamp, instructions}`) and the items bare after it
 * (`record_type: "state"` lines are skipped).
 *
 * User messages that only carry context (`<user_instructions>`, `<environment_context>`, an AGENTS.md
 * preamble) are not goals. A shell call failed when its output reports a non-zero exit code (the JSON
 * `{"output", "metadata": {"exit_code"}}` form or the text `Exit code: N` form). Codex logs no outcome: it is
 * left to the judge. Several prompts in one rollout split into tasks by the rule in task-splitter.ts.
 */

export interface StreamLine {
  value: unknown;
  line: number;
}

const ROLLOUT_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);

/** Whether one JSONL line is a rollout line of the current layout (`{timestamp, type, payload}`). */
export function isCodexRolloutLine(v: unknown): boolean {
  return isObject(v) && typeof v.type === 'string' && ROLLOUT_TYPES.has(v.type) && 'payload' in v;
}

/**
 * Whether one line can be part of a rollout in either layout: a rollout line, the older bare meta line, a bare
 * Responses item, or a `record_type` line.
 */
export function belongsToCodexRollout(v: unknown): boolean {
  if (!isObject(v)) return false;
  return (
    isCodexRolloutLine(v) ||
    isResponsesItem(v) ||
    typeof v.record_type === 'string' ||
    (typeof v.id === 'string' && 'instructions' in v)
  );
}

export function isCodexRollout(lines: StreamLine[]): boolean {
  const first = lines.find((l) => isObject(l.value));
  if (!first || !isObject(first.value)) return false;
  const v = first.value;
  if (v.type === 'session_meta' && isObject(v.payload)) return true;
  const wrapped = lines.filter(
    (l) =>
      isObject(l.value) && typeof l.value.type === 'string' && ROLLOUT_TYPES.has(l.value.type) && 'payload' in l.value,
  ).length;
  if (wrapped > 0 && wrapped >= lines.length / 2) return true;
  // The older layout: a bare meta line, then bare Responses items.
  return typeof v.id === 'string' && 'instructions' in v && lines.slice(1).some((l) => isResponsesItem(l.value));
}

/**
 * Context blocks Codex puts in user messages before (or instead of) the request, each with its closing tag:
 * `<user_instructions>`, `<environment_context>`, `<user_shell_command>`, `<turn_aborted>`,
 * `<recommended_plugins>` and the like (a snake_case tag), `<INSTRUCTIONS>`, an AGENTS.md preamble.
 */
const CONTEXT_BLOCK =
  /^\s*(?:<([a-z]+(?:_[a-z]+)+|INSTRUCTIONS)>[\s\S]*?(?:<\/\1>|$)|# AGENTS\.md instructions[^\n]*\n+(?:<INSTRUCTIONS>[\s\S]*?(?:<\/INSTRUCTIONS>|$))?)/;
/** The IDE extensions send `# Context from my IDE setup: ... ## My request for Codex: <request>`. */
const IDE_REQUEST = /^\s*# Context from my IDE setup:[\s\S]*?^## My request for Codex:[^\S\n]*\n?/m;

/** The request in one user text: context blocks before it dropped; '' when the text is context only. */
function codexRequest(text: string): string {
  let t = text;
  for (let m = CONTEXT_BLOCK.exec(t); m?.[0].length; m = CONTEXT_BLOCK.exec(t)) t = t.slice(m[0].length);
  const ide = IDE_REQUEST.exec(t);
  if (ide) t = t.slice(ide.index + ide[0].length);
  return t.trim();
}

/** The `event_msg` kinds the reader reads (typedRequest, eventCall); the others only by their call id. */
const READ_EVENTS = new Set(['user_message', 'item_completed', 'mcp_tool_call_end', 'patch_apply_end']);

/**
 * A rollout line with only what this reader reads of it, for a rollout read line by line (parse-file.ts): an
 * `event_msg` of a kind it does not read (a command's end with its whole output again, output deltas, token counts)
 * keeps its payload's kind and call id (the checkpoint reads the ids of the events after it); a tool's output
 * (`function_call_output`, `custom_tool_call_output`..., wrapped or bare) its first `keep` characters, with what its
 * whole text says of the call (shellOutcome: its exit code) kept beside it (responses-items.ts cutOutput); every other
 * line is left as it is.
 */
export function slimCodexLine(v: unknown, keep: number): unknown {
  if (!isObject(v)) return v;
  if (v.type === 'response_item' && isObject(v.payload)) {
    const payload = cutOutput(v.payload, keep, shellOutcome);
    return payload === v.payload ? v : { ...v, payload };
  }
  if (!('payload' in v) && typeof v.type === 'string') return cutOutput(v, keep, shellOutcome);
  if (v.type !== 'event_msg' || !isObject(v.payload) || READ_EVENTS.has(v.payload.type as string)) return v;
  const p = v.payload;
  return {
    ...v,
    payload: { ...('type' in p ? { type: p.type } : {}), ...('call_id' in p ? { call_id: p.call_id } : {}) },
  };
}

/** The request of an `event_msg` payload, or null when it carries none. */
function typedRequest(p: unknown): string | null {
  if (!isObject(p)) return null;
  if (p.type === 'user_message' && typeof p.message === 'string') return codexRequest(p.message);
  if (p.type === 'item_completed' && isObject(p.item) && String(p.item.type).toLowerCase() === 'usermessage') {
    const parts = Array.isArray(p.item.content) ? p.item.content : [];
    return codexRequest(
      parts
        .map((c) =>
          isObject(c) && String(c.type).toLowerCase() === 'text' && typeof c.text === 'string' ? c.text : '',
        )
        .join(''),
    );
  }
  return null;
}

/** A user message item with its context parts and blocks taken out (parts are read one by one). */
function requestItem(item: JsonObject): JsonObject {
  const parts = Array.isArray(item.content) ? item.content : [item.content];
  const text = parts
    .map((p) => codexRequest(typeof p === 'string' ? p : isObject(p) && typeof p.text === 'string' ? p.text : ''))
    .filter(Boolean)
    .join('\n');
  return { type: 'message', role: 'user', content: [{ type: 'input_text', text }] };
}

/** Exit status of a shell output: `{"metadata": {"exit_code": N}}` or a leading `Exit code: N` line. */
export function shellOutcome(text: string): { failed: boolean; error: string | null } {
  const t = text.trim();
  if (t.startsWith('{')) {
    try {
      const o = JSON.parse(t) as unknown;
      if (isObject(o) && isObject(o.metadata) && typeof o.metadata.exit_code === 'number') {
        const code = o.metadata.exit_code;
        return code === 0
          ? { failed: false, error: null }
          : { failed: true, error: `exit code ${code}: ${typeof o.output === 'string' ? o.output : ''}`.trim() };
      }
    } catch {
      /* not JSON: fall through */
    }
  }
  const m = /^(?:Exit code|Process exited with code):?\s*(-?\d+)/im.exec(t);
  if (m)
    return Number(m[1]) === 0 ? { failed: false, error: null } : { failed: true, error: `exit code ${m[1]}: ${t}` };
  if (/^\s*(?:error|failed|aborted)\b/i.test(t)) return { failed: true, error: t };
  return { failed: false, error: null };
}

/**
 * The call an end event stands for when no response item holds it (from 0.14x): `mcp_tool_call_end` as an MCP call
 * named `server__tool` (Codex's name for an MCP tool), `patch_apply_end` as `apply_patch` with the files it changed.
 * Null for any other event, or one whose call the rollout holds as an item. Both are given the `mcp_call` item
 * shape, the one item that carries its own result and error, so the item reader reads them as it reads the others.
 */
function eventCall(p: unknown, itemCalls: ReadonlySet<string>): JsonObject | null {
  if (!isObject(p) || typeof p.call_id !== 'string' || itemCalls.has(p.call_id)) return null;
  if (p.type === 'mcp_tool_call_end' && isObject(p.invocation)) {
    const { server, tool, arguments: args } = p.invocation;
    if (typeof tool !== 'string' || !tool) return null;
    const result = isObject(p.result) ? p.result : {};
    const ok = isObject(result.Ok) ? result.Ok : null;
    const err = result.Err ?? (ok?.isError === true ? contentText(ok.content) || 'isError' : null);
    return {
      type: 'mcp_call',
      call_id: p.call_id,
      name: typeof server === 'string' && server ? `${server}__${tool}` : tool,
      arguments: isObject(args) ? args : {},
      ...(ok ? { output: contentText(ok.content) } : {}),
      ...(err != null ? { error: typeof err === 'string' ? err : JSON.stringify(err) } : {}),
    };
  }
  if (p.type === 'patch_apply_end') {
    const files = isObject(p.changes) ? Object.keys(p.changes) : [];
    const out = [p.stdout, p.stderr].filter((t) => typeof t === 'string' && t).join('\n');
    return {
      type: 'mcp_call',
      call_id: p.call_id,
      name: 'apply_patch',
      arguments: { files },
      output: out,
      ...(p.success === false ? { error: out || 'patch not applied' } : {}),
    };
  }
  return null;
}

/**
 * What reading a rollout on from a task's first line needs to know of the lines before it, so that the tasks read from
 * there are the ones a read of the whole file gives (ids, labels, calls). Kept between hook runs (app/capture.ts);
 * every field is an id, a label or a count, never the text of a line.
 */
export interface CodexContext {
  /** The rollout's id, from its first `session_meta` line (a rollout without one is read whole every time). */
  id: string;
  /** The labels as the lines before it leave them (a later `session_meta` or `turn_context` changes them). */
  cwd: string | null;
  version: string | null;
  model: string | null;
  /** How many tasks the lines before it split into: the next is `#n+1`. */
  tasks: number;
  /**
   * The call ids of response items before it that an end event after it may name (a call with no output before it,
   * one an end event after it names): such an event repeats its call, as in a whole read. Codex writes a call's end
   * event before its output, and the next request after both: an end event for a call whose output came before the
   * checkpoint is not looked for.
   */
  calls: string[];
  /** The calls before it that could not be read and whose output had not come by then: it is left out with them. */
  rejected: string[];
  /**
   * Calls before it whose outputs came after it (a turn stopped while a command ran), given to them by the read that
   * left it: the next read passes those outputs over (up to OPEN_CALLS_KEPT; another such output reads whole).
   */
  given?: string[];
  /**
   * The call ids of every response item before it (a filter: id-filter.ts). An end event after it for a call not in
   * `calls` that may be one of them would repeat a call a whole read counts once: the file is then read whole.
   */
  seen: IdFilter;
}

/**
 * A read of a rollout on from a checkpoint (`from`, with the lines from that task's first one), or of the whole file
 * (no `from`). The reader says where the next read may start (`checkpoint`: the first line of the last task it can
 * start from, never the first task) and what it must know there.
 */
export interface CodexResume {
  from?: CodexContext;
  checkpoint?: { line: number; context: CodexContext } | null;
  /** Reading on, a line read changes what was read before the checkpoint: read the file whole. */
  mismatch?: string;
}

/**
 * How many tasks before the last one a checkpoint may go back for a call still waiting for its output (fromCodexRollout
 * codexCheckpoint): a call whose output never comes holds the mark back no further.
 */
const WAITING_TASKS_HELD = 2;

/** How many call ids a checkpoint keeps of the calls still running there (an aborted turn leaves some). */
const OPEN_CALLS_KEPT = 64;

export function fromCodexRollout(
  lines: StreamLine[],
  file: string,
  namespace: string,
  limits: CaptureLimits,
  now: string,
  problems: ReaderReport[],
  unread: Unread = new Map(),
  resume?: CodexResume,
): BuiltSession[] {
  const from = resume?.from;
  let id: string | null = from ? from.id : null;
  // The line whose session_meta gave the id (0: the checkpoint read on from); a rollout of the older layout (a bare
  // meta line) or without one gives no checkpoint: a piece of it is not known for a rollout.
  let idLine: number | null = from ? 0 : null;
  let cwd: string | null = from ? from.cwd : null;
  let version: string | null = from ? from.version : null;
  let model: string | null = from ? from.model : null;
  const entries: ItemEntry[] = [];
  // Calls the rollout also holds as response items: their events (`mcp_tool_call_end`, `patch_apply_end`) repeat them.
  const itemCalls = new Set(
    lines.flatMap(({ value }) =>
      isObject(value) &&
      value.type === 'response_item' &&
      isObject(value.payload) &&
      typeof value.payload.call_id === 'string'
        ? [value.payload.call_id]
        : [],
    ),
  );
  for (const c of from?.calls ?? []) itemCalls.add(c);
  let mismatch: string | null = null;
  // The labels in force at a line: a task takes those of its first line of work (the model that did it, the folder
  // it was done in), so that a later turn_context or session_meta relabels no task before it.
  let labels: JsonObject = {};
  const relabel = () => {
    labels = {
      ...(cwd ? { cwd } : {}),
      ...(version ? { cli_version: version } : {}),
      ...(model ? { model } : {}),
    };
  };
  relabel();
  for (const { value, line } of lines) {
    if (!isObject(value)) {
      problems.push({ line, path: '', reason: 'not a rollout line (expected an object)' });
      continue;
    }
    const at = typeof value.timestamp === 'string' ? value.timestamp : null;
    if (value.type === 'session_meta' && isObject(value.payload)) {
      const p = value.payload;
      if (id === null && typeof p.id === 'string') {
        id = p.id;
        idLine = line;
      }
      cwd = typeof p.cwd === 'string' ? p.cwd : cwd;
      version = typeof p.cli_version === 'string' ? p.cli_version : version;
      relabel();
      continue;
    }
    if (value.type === 'turn_context' && isObject(value.payload)) {
      if (typeof value.payload.model === 'string') model = value.payload.model;
      relabel();
      continue;
    }
    if (value.type === 'response_item') {
      const p = value.payload;
      const user = isObject(p) && p.role === 'user' && (p.type === 'message' || p.type === undefined);
      // Item kinds this version does not know (say `ghost_snapshot`) are counted, not read.
      if (isObject(p) && typeof p.type === 'string' && !user && !isResponsesItem(p))
        countUnread(unread, `response_item ${p.type}`);
      else entries.push({ item: user ? requestItem(p) : p, where: 'payload', line, at, labels });
      continue;
    }
    if (value.type === 'event_msg') {
      // The request as the person typed it (`user_message`; from 0.147 an `item_completed` UserMessage); a
      // rollout may carry it here only. The response_item user message beside it, when there is one, gives the
      // same text and does not start a second task.
      const typed = typedRequest(value.payload);
      if (typed !== null) entries.push({ item: { role: 'user', content: typed }, where: 'payload', line, at, labels });
      // A call some versions write only as its end event (an MCP tool, a patch applied): the call, with its result.
      const ended = eventCall(value.payload, itemCalls);
      // Read on, an end event for a call a response item before the checkpoint may hold: a whole read would not
      // count it again.
      if (ended && from && mayHold(from.seen, ended.call_id as string))
        mismatch ??= 'an end event after the checkpoint for a call that may be before it';
      if (ended) entries.push({ item: ended, where: 'payload', line, at, labels });
      continue;
    }
    if (value.type === 'compacted' || value.record_type === 'state') continue;
    if (!id && typeof value.id === 'string' && 'instructions' in value) {
      id = value.id;
      continue;
    }
    if (isResponsesItem(value)) {
      const user = value.type === 'message' && value.role === 'user';
      entries.push({ item: user ? requestItem(value) : value, where: '', line, at, labels });
    } else if ('payload' in value || typeof value.type === 'string') countUnread(unread, value.type);
  }
  if (resume && mismatch) {
    resume.mismatch = mismatch;
    return [];
  }
  if (!id) {
    const m = /rollout-[^/\\]*?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(file);
    id = m ? m[1] : null;
  }
  // Read on, an output for a call a response item before the checkpoint may hold (a turn stopped while it ran): a
  // whole read gives it to that call's task.
  const items: ItemsResume | undefined = resume && {
    ...(from
      ? {
          from: {
            tasks: from.tasks,
            rejected: from.rejected,
            given: from.given ?? [],
            earlier: (c: string) => mayHold(from.seen, c),
          },
        }
      : {}),
    begun: [],
    rejected: [],
    late: [],
  };
  const built = sessionsFromItems(
    entries,
    {
      idBase: `codex:${id ?? file}`,
      source: 'codex',
      namespace,
      limits,
      now,
      labels: { format: 'codex' },
      resultCheck: shellOutcome,
      lateOutputs: true,
      ...(items ? { resume: items } : {}),
    },
    problems,
  );
  if (resume && items?.mismatch) {
    resume.mismatch = items.mismatch;
    return [];
  }
  if (resume && items)
    resume.checkpoint = codexCheckpoint(lines, items, idLine !== null && id ? { id, idLine } : null, from);
  return built;
}

/**
 * Where a later read of the rollout may start: the first line of the last task that began at a request on a line of
 * its own, after the line that gave the rollout its id (never the first task), and what the lines before it leave.
 */
function codexCheckpoint(
  lines: StreamLine[],
  items: ItemsResume,
  known: { id: string; idLine: number } | null,
  from: CodexContext | undefined,
): { line: number; context: CodexContext } | null {
  const last = known && [...items.begun].reverse().find((b) => b.task >= 1 && b.line > known.idLine);
  if (!known || !last) return null;
  // No task before the mark should have a call still waiting for its output (a turn stopped while a command ran, its
  // output written after a later request): the mark goes back to the first line of the last task that leaves none, up
  // to WAITING_TASKS_HELD tasks, so that the next read gives such a call its output as a whole read does (read on, the
  // first task read, where the mark was, may be it: the mark stays). Further back, an output after the mark for a
  // call before it makes the next read read the file whole.
  const waiting = items.waiting ?? [];
  const leavesNone = (b: { task: number }) => !waiting.some((t) => t < b.task);
  const back = [...items.begun]
    .reverse()
    .find(
      (b) =>
        b.task >= (from ? 0 : 1) && b.line > known.idLine && b.task >= last.task - WAITING_TASKS_HELD && leavesNone(b),
    );
  const mark = back ?? last;
  let cwd = from ? from.cwd : null;
  let version = from ? from.version : null;
  let model = from ? from.model : null;
  // Per call id before the checkpoint: whether its call item is there without an output; and the ids events after it
  // name, outputs after it answer.
  const open = new Map<string, boolean>((from?.calls ?? []).map((c) => [c, true]));
  const named = new Set<string>();
  const answeredAfter = new Set<string>();
  const seenBefore = new Set<string>();
  for (const { value, line } of lines) {
    if (!isObject(value) || !isObject(value.payload)) continue;
    const p = value.payload;
    const callId = typeof p.call_id === 'string' ? p.call_id : null;
    if (line >= mark.line) {
      if (callId !== null && value.type === 'event_msg') named.add(callId);
      if (callId !== null && value.type === 'response_item') answeredAfter.add(callId);
      continue;
    }
    if (value.type === 'session_meta') {
      cwd = typeof p.cwd === 'string' ? p.cwd : cwd;
      version = typeof p.cli_version === 'string' ? p.cli_version : version;
    } else if (value.type === 'turn_context' && typeof p.model === 'string') model = p.model;
    else if (value.type === 'response_item' && callId !== null) {
      seenBefore.add(callId);
      open.set(callId, !(typeof p.type === 'string' && /_output$/.test(p.type)) && (open.get(callId) ?? true));
    }
  }
  const before = [...open.keys()];
  const calls = [
    ...before.filter((c) => named.has(c)),
    ...before.filter((c) => !named.has(c) && open.get(c)).slice(-OPEN_CALLS_KEPT),
  ];
  const rejected = [
    ...new Set([...(from?.rejected ?? []), ...items.rejected.filter((r) => r.line < mark.line).map((r) => r.id)]),
  ].filter((c) => answeredAfter.has(c) || open.get(c) === true);
  return {
    line: mark.line,
    context: {
      id: known.id,
      cwd,
      version,
      model,
      tasks: (from?.tasks ?? 0) + mark.task,
      calls,
      rejected,
      // Outputs after the mark this read gave to calls before it (the next read passes them over), the last ones.
      given: (items.late ?? [])
        .filter((l) => l.task < mark.task && l.line >= mark.line)
        .map((l) => l.id)
        .slice(-OPEN_CALLS_KEPT),
      seen: withIds(from?.seen ?? emptyIdFilter(), seenBefore),
    },
  };
}
