import { createHash } from 'node:crypto';
import type { Outcome } from '../domain/types.js';
import { countUnread, isObject, outcomeOf, type JsonObject, type Unread } from './common.js';
import type { CaptureLimits } from './normalized-jsonl.js';
import {
  applyOutput,
  callIdOf,
  hasResponsesCalls,
  isItemList,
  isResponsesItemList,
  isUnknownItem,
  readItem,
} from './responses-items.js';
import { rejectionLabels, type Task, TaskSplitter } from './task-splitter.js';
import type { ParsedSession, ReaderReport } from './types.js';
import { InputError } from '../errors/input-error.js';

/**
 * OpenAI Agents SDK run history and Responses API items (see responses-items.ts for the item shapes), in the
 * containers they are saved in: a JSON array of items (`result.to_input_list()`), an object holding them under
 * `messages`, `input` (+ `output`), `items` or `history`, a Responses API response (`{"object": "response",
 * "output": [...]}`), or JSONL with one item per line. The outcome is the container's `outcome` / `success`
 * when it has one, else unknown (the judge decides). Several tasks in one history split by the rule in
 * task-splitter.ts.
 */

export interface ItemEntry {
  item: unknown;
  /** JSON path of the item, for problems. */
  where: string;
  line: number;
  at: string | null;
  /** The field of the source that holds a call's tool name, when it is not `name` (`toolName`, `tool_name`). */
  nameField?: string;
  /**
   * Labels in force where the item was written (the model that wrote it): a task takes those of its first entry after
   * its request (else of its request), over the log's own (ItemSessionOptions.labels).
   */
  labels?: Record<string, unknown>;
}

export interface ItemSessionOptions {
  /**
   * The log's own id (`<id>`, `<id>#2`...), or null when it has none: then each task is named by the content of
   * the log up to its end (`<idPrefix>:<hash>`, `#k` after the first), so a conversation sent again as it grows
   * names its finished tasks as before, while two logs that differ anywhere before a task never share its id.
   */
  idBase: string | null;
  /** What a content id starts with (default: the source). */
  idPrefix?: string;
  source: string;
  namespace: string;
  limits: CaptureLimits;
  now: string;
  outcome?: Outcome;
  reward?: number | null;
  agentId?: string | null;
  labels?: Record<string, unknown> | null;
  /** False for user messages that are context rather than a request (instructions, environment). */
  isGoalText?: (text: string) => boolean;
  resultCheck?: (text: string) => { failed: boolean; error: string | null };
  /** Where item kinds this version does not know are counted. */
  unread?: Unread;
  /** A transcript read on from a task's first entry, or read so that a later read may (ItemsResume). */
  resume?: ItemsResume;
  /**
   * An output whose call is not waiting in the task in progress answers the call of an earlier task still waiting for
   * it, named by its id (Codex CLI: a turn stopped while a command ran, its output written after the next request).
   * Without it, such an output is a problem of its own and the call keeps no result.
   */
  lateOutputs?: boolean;
}

/**
 * A transcript read in pieces as it grows (codex-rollout.ts, gemini.ts): read on from the first entry of a task, with
 * what the entries before it leave (`from`: how many tasks they split into, so that the next ones are numbered as a
 * whole read numbers them, and the calls there that could not be read, whose outputs are left out with them); and
 * what this read gives a later one: the tasks that began at a request on a line no earlier entry has (`begun`, by
 * index among this read's tasks), and the calls that could not be read, with their lines.
 */
export interface ItemsResume {
  /**
   * With `lateOutputs`: `given`, the ids of calls before the entry read from whose outputs, after it, the read that
   * started there gave them (passed over here: their tasks were stored with them); `earlier`, whether a call id may be
   * that of a call before it (an output for it that no call read waits for may answer one there: `mismatch` is set,
   * for the transcript to be read whole).
   */
  from?: {
    tasks: number;
    rejected: readonly string[];
    given?: readonly string[];
    earlier?: (id: string) => boolean;
  };
  begun: { task: number; line: number }[];
  rejected: { id: string; line: number }[];
  /** The tasks (by index among this read's) with a call still waiting for its output at the end, by id. */
  waiting?: number[];
  /**
   * Outputs given to the call of an earlier task (lateOutputs): the call's id, its task (by index; -1 for one before the
   * entry read from, `given`), the output's line.
   */
  late?: { id: string; task: number; line: number }[];
  /** Set when the entries read may change a task before the entry read from (read the transcript whole). */
  mismatch?: string;
}

export interface BuiltSession extends ParsedSession {
  line: number;
}

/** Where a message-list reader (AI SDK, Pydantic AI, AutoGen) stores what it reads, and how it names places. */
export interface MessageListContext {
  namespace: string;
  limits: CaptureLimits;
  now: string;
  /** The line of the list (or of its first message). */
  line: number;
  /** The JSON path of the list inside its record ('' for the whole record). */
  path: string;
  problems: ReaderReport[];
  unread?: Unread;
  /** The line of the i-th message, when each message has its own line. */
  lineOf?: (index: number) => number;
}

/**
 * The earlier task whose call an output answers, when no call of the task in progress waits for it (lateOutputs):
 * the index of the last task before it with a call of that id still waiting; -1 when there is none. The task in
 * progress goes on as it was (its answer stands).
 */
function lateOutputTask(split: TaskSplitter, id: string): number {
  for (let i = split.tasks.length - 2; i >= 0; i--) if (split.tasks[i]!.pending.some((p) => p.id === id)) return i;
  return -1;
}

/** Sessions from an ordered list of Responses items; one problem per unusable item, thrown as a list. */
export function sessionsFromItems(
  entries: ItemEntry[],
  o: ItemSessionOptions,
  problems: ReaderReport[],
): BuiltSession[] {
  const split = new TaskSplitter();
  const resume = o.resume;
  // A call that cannot be read is one problem: its result, later, is left out with it.
  const rejected = new Set<string>(resume?.from?.rejected ?? []);
  const given = new Set<string>(resume?.from?.given ?? []);
  // Read on from a task's first entry, the tasks are numbered after those before it.
  const numbered = resume?.from?.tasks ?? 0;
  let lastLine: number | null = null;
  // Without an id of its own, task k is named by the entries up to its end (read as the next task starts), and
  // by the entries up to its start.
  const read = o.idBase === null ? createHash('sha256') : null;
  const contentIds: string[] = [];
  const startIds: string[] = [];
  // Per task: the labels of its first entry after its request (`work`), else of its request.
  const taskLabels: { asked?: Record<string, unknown>; work?: Record<string, unknown> }[] = [];
  for (const e of entries) {
    const before = split.tasks.length;
    const ownLine = e.line !== lastLine;
    lastLine = e.line;
    try {
      const item = e.item;
      if (
        e.nameField &&
        isObject(item) &&
        item.type === 'function_call' &&
        !(typeof item.name === 'string' && item.name)
      )
        throw new InputError(`${e.where}.${e.nameField}: missing`);
      const ev = readItem(item, e.where, o.limits, e.at);
      if (e.labels && ev.kind !== 'user' && split.tasks.length) {
        const t = (taskLabels[split.tasks.length - 1] ??= {});
        t.work ??= e.labels;
      }
      if (ev.kind === 'user') {
        if (ev.text.trim() && (o.isGoalText ?? (() => true))(ev.text)) split.user(ev.text, e.line, e.at);
        if (e.labels && split.tasks.length > before) (taskLabels[split.tasks.length - 1] ??= {}).asked = e.labels;
        if (resume && ownLine && split.tasks.length > before) resume.begun.push({ task: before, line: e.line });
      } else if (ev.kind === 'assistant') split.assistantText(ev.text, e.at);
      else if (ev.kind === 'call') split.call(ev.id, ev.call, !ev.done, e.at);
      else if (ev.kind === 'output') {
        if (ev.id !== null && rejected.has(ev.id)) continue;
        // With lateOutputs, an output no call of the task in progress waits for: an earlier task's call's.
        const id = o.lateOutputs && ev.id !== null && !split.current.pending.some((p) => p.id === ev.id) ? ev.id : null;
        const late = id === null ? -1 : lateOutputTask(split, id);
        if (id !== null && late >= 0) {
          applyOutput(split.tasks[late]!.pending, ev, o.limits, e.where, o.resultCheck);
          resume?.late?.push({ id, task: late, line: e.line });
        } else if (id !== null && given.delete(id)) {
          // Given to its call, before the checkpoint, by the read that left it (task -1: before this read).
          resume?.late?.push({ id, task: -1, line: e.line });
        } else if (id !== null && resume?.from?.earlier?.(id))
          // It may answer a call before the checkpoint: a whole read gives that task its result, this read cannot.
          resume.mismatch ??= 'an output after the checkpoint for a call that may be before it';
        else {
          applyOutput(split.current.pending, ev, o.limits, e.where, o.resultCheck);
          split.resulted(e.at);
        }
      } else if (o.unread && isUnknownItem(e.item)) countUnread(o.unread, (e.item as JsonObject).type);
    } catch (err) {
      problems.push({ line: e.line, path: e.where, reason: (err as Error).message });
      const id = isObject(e.item) ? callIdOf(e.item) : null;
      if (id !== null) {
        rejected.add(id);
        resume?.rejected.push({ id, line: e.line });
      }
    }
    if (read) {
      if (before > 0 && split.tasks.length > before) contentIds[before - 1] = read.copy().digest('hex').slice(0, 20);
      read.update(`${JSON.stringify([e.item, e.at])}\n`);
      for (let k = before; k < split.tasks.length; k++)
        startIds[k] = read.copy().update('start').digest('hex').slice(0, 20);
    }
  }
  if (read && split.tasks.length) contentIds[split.tasks.length - 1] = read.digest('hex').slice(0, 20);
  if (resume) resume.waiting = split.tasks.flatMap((t, i) => (t.pending.some((p) => p.id !== null) ? [i] : []));
  const prefix = o.idPrefix ?? o.source;
  const out: BuiltSession[] = [];
  const chatter = split.chatterNote();
  if (chatter) problems.push(chatter);
  split.tasks.forEach((t, i) => {
    if (t.goal === null) {
      if (t.calls.length)
        problems.push({
          line: t.line,
          path: '',
          reason: `${t.calls.length} tool call(s) with no user message before them to take the goal from`,
        });
      return;
    }
    if (split.isChatter(t)) return;
    if (t.calls.length > o.limits.maxCallsPerSession) {
      problems.push({
        line: t.line,
        path: '',
        reason: `${t.calls.length} calls exceed the limit of ${o.limits.maxCallsPerSession} per session (capture.maxCallsPerSession)`,
      });
      return;
    }
    const { id, contentNames } = split.taskId(t, i + numbered, o.idBase, () => ({
      start: `${prefix}:${startIds[i]}`,
      end: `${prefix}:${contentIds[i]}`,
    }));
    out.push({
      line: t.line,
      finalAnswer: t.finalAnswer,
      ...(split.unfinished(t) ? { unfinished: true as const } : {}),
      ...(contentNames ? { contentNames } : {}),
      session: {
        id,
        namespace: o.namespace,
        goal: t.goal,
        outcome: o.outcome ?? 'unknown',
        reward: o.reward ?? null,
        agentId: o.agentId ?? null,
        source: o.source,
        startedAt: t.startedAt ?? o.now,
        endedAt: split.endedAt(t, o.now),
        labels: labelsOf(o.labels, taskLabels[i], t),
        calls: t.calls,
        outcomeSource: 'reported',
      },
    });
  });
  return out;
}

/** A task's labels: the log's, those in force where it was done (ItemEntry.labels), and a rejected answer's. */
function labelsOf(
  log: Record<string, unknown> | null | undefined,
  at: { asked?: Record<string, unknown>; work?: Record<string, unknown> } | undefined,
  t: Task,
): Record<string, unknown> | null {
  const here = at?.work ?? at?.asked;
  if (!here && !t.rejection) return log ?? null;
  return { ...log, ...here, ...(t.rejection ? rejectionLabels(t) : {}) };
}

const CONTAINER_KEYS = ['messages', 'input', 'items', 'history', 'output', 'new_items'] as const;

/**
 * A serialised JavaScript Agents SDK run state (`result.state.toString()`, or the `state` of
 * `JSON.stringify(result)`): `$schemaVersion`, `originalInput`, `modelResponses`, `generatedItems`.
 */
function runStateOf(v: unknown): JsonObject | null {
  const s = isObject(v) && isObject(v.state) && '$schemaVersion' in v.state ? v.state : v;
  if (!isObject(s) || typeof s.$schemaVersion !== 'string') return null;
  return 'originalInput' in s || Array.isArray(s.generatedItems) || Array.isArray(s.modelResponses) ? s : null;
}

/** A raw Responses API object (`{"object": "response", "output": [...]}`). */
function isResponseObject(v: unknown): v is JsonObject {
  return isObject(v) && v.object === 'response' && Array.isArray(v.output);
}

/** A list of raw Responses API objects (one model turn each): one history. */
export function isResponseObjectList(v: unknown): v is JsonObject[] {
  return Array.isArray(v) && v.length > 0 && v.every(isResponseObject);
}

/** Items with the JSON path of each inside their container. */
interface Located {
  items: unknown[];
  paths: string[];
}

function located(list: unknown[], prefix: string, unwrap: string | null = null): Located {
  const items: unknown[] = [];
  const paths: string[] = [];
  list.forEach((x, i) => {
    const inner = unwrap && isObject(x) && isObject(x[unwrap]);
    items.push(inner ? (x as JsonObject)[unwrap as string] : x);
    paths.push(`${prefix}[${i}]${inner ? `.${unwrap}` : ''}`);
  });
  return { items, paths };
}

/** The items of a run state: the original input, then what the run generated (approval requests repeat a call). */
function runStateItems(s: JsonObject): Located {
  const input: Located =
    typeof s.originalInput === 'string'
      ? { items: [{ role: 'user', content: s.originalInput }], paths: ['originalInput'] }
      : located(Array.isArray(s.originalInput) ? s.originalInput : [], 'originalInput');
  const all = located(Array.isArray(s.generatedItems) ? s.generatedItems : [], 'generatedItems', 'rawItem');
  const keep = (Array.isArray(s.generatedItems) ? s.generatedItems : []).map(
    (g) => !(isObject(g) && g.type === 'tool_approval_item'),
  );
  const generated: Located = {
    items: all.items.filter((_, i) => keep[i]),
    paths: all.paths.filter((_, i) => keep[i]),
  };
  // Without generated items, the model responses still hold the calls (not their results).
  const outputs = generated.items.length ? { items: [], paths: [] } : outputsOf(s.modelResponses, 'modelResponses');
  return {
    items: [...input.items, ...generated.items, ...outputs.items],
    paths: [...input.paths, ...generated.paths, ...outputs.paths],
  };
}

/** The output items of a list of responses, each with its path (`[i].output[k]`). */
function outputsOf(responses: unknown, prefix = ''): Located {
  const out: Located = { items: [], paths: [] };
  (Array.isArray(responses) ? responses : []).forEach((r, i) => {
    if (!isObject(r) || !Array.isArray(r.output)) return;
    const l = located(r.output, `${prefix}[${i}].output`);
    out.items.push(...l.items);
    out.paths.push(...l.paths);
  });
  return out;
}

/**
 * The user message a goal comes from when the items have none: Response objects hold the model's output
 * only, so the `instructions` of the first stand in (said in a note by the caller).
 */
function instructionsOf(responses: JsonObject[]): string | null {
  for (const r of responses) if (typeof r.instructions === 'string' && r.instructions.trim()) return r.instructions;
  return null;
}

interface History {
  items: unknown[];
  /** Where each item sits in the container (for problems), when not simply `[i]` or `<key>[i]`. */
  paths: string[] | null;
  /** The container key the items sit under. */
  key: string | null;
  /** A user message to put first when the items hold none (raw Response objects). */
  goalFallback: string | null;
}

/** Whether a list holds a call's output before the call itself: it is newest first. */
function answeredBeforeAsked(items: unknown[]): boolean {
  const asked = new Map<string, number>();
  items.forEach((x, i) => {
    const id = isObject(x) && typeof x.type === 'string' && x.type.endsWith('_call') ? callIdOf(x) : null;
    if (id !== null && !asked.has(id)) asked.set(id, i);
  });
  return items.some((x, i) => {
    const id = isObject(x) && typeof x.type === 'string' && /_(?:output|result)$/.test(x.type) ? callIdOf(x) : null;
    return id !== null && (asked.get(id) ?? -1) > i;
  });
}

function historyOf(v: unknown): History | null {
  const state = runStateOf(v);
  if (state) {
    const { items, paths } = runStateItems(state);
    return { items, paths: paths.map((p) => (state === v ? p : `state.${p}`)), key: null, goalFallback: null };
  }
  if (isResponseObjectList(v)) return { ...outputsOf(v), key: null, goalFallback: instructionsOf(v) };
  if (isResponsesItemList(v)) return { items: v, paths: null, key: null, goalFallback: null };
  if (!isObject(v)) return null;
  // A page of the Conversations API (`GET /conversations/{id}/items`) or of a response's input items:
  // `{object: "list", data}`, newest first unless it was asked for in order.
  if (v.object === 'list' && Array.isArray(v.data) && isItemList(v.data) && hasResponsesCalls(v.data)) {
    const n = v.data.length;
    const reversed = answeredBeforeAsked(v.data);
    const items = reversed ? [...v.data].reverse() : v.data;
    return { items, paths: items.map((_, i) => `data[${reversed ? n - 1 - i : i}]`), key: null, goalFallback: null };
  }
  const lists: unknown[] = [];
  for (const k of CONTAINER_KEYS) if (Array.isArray(v[k])) lists.push(...(v[k] as unknown[]));
  // Agents SDK RunItems wrap the item as `raw_item` (Python) or `rawItem` (JavaScript).
  const items = lists.map((x) =>
    isObject(x) && isObject(x.raw_item) ? x.raw_item : isObject(x) && isObject(x.rawItem) ? x.rawItem : x,
  );
  if (!items.length || !hasResponsesCalls(items) || !isItemList(items)) return null;
  return {
    items,
    paths: null,
    key: CONTAINER_KEYS.find((k) => Array.isArray(v[k])) ?? null,
    goalFallback: isResponseObject(v) ? instructionsOf([v]) : null,
  };
}

/** The item list of a container, or null when the value is not one. */
export function responsesItemsOf(v: unknown): unknown[] | null {
  const h = historyOf(v);
  return h && hasResponsesCalls(h.items) ? h.items : null;
}

/** Whether a whole value (container or list) is OpenAI Agents / Responses run history. */
export function isAgentsHistory(v: unknown): boolean {
  return responsesItemsOf(v) !== null;
}

/**
 * What a history does not record, for a note: Response objects hold no user input (the goal came from their
 * instructions) and no tool results; an interrupted run state has calls that never ran.
 */
export function historyNotes(v: unknown): string[] {
  const h = historyOf(v);
  if (!h) return [];
  const notes: string[] = [];
  if (h.goalFallback && !h.items.some((x) => isObject(x) && x.role === 'user'))
    notes.push(
      "Responses API objects hold the model's output only (no user input, no tool results): the goal is taken from their instructions and the calls have no results",
    );
  const state = runStateOf(v);
  const step = state && isObject(state.currentStep) ? state.currentStep : null;
  if (step?.type === 'next_step_interruption') {
    const names: string[] = [];
    for (const g of Array.isArray(state?.generatedItems) ? state.generatedItems : []) {
      if (!isObject(g) || g.type !== 'tool_approval_item') continue;
      const raw = isObject(g.rawItem) ? g.rawItem : {};
      names.push(typeof g.toolName === 'string' ? g.toolName : typeof raw.name === 'string' ? raw.name : '?');
    }
    notes.push(
      `the run stopped for approval: ${names.length} call(s) awaiting it (${names.join(', ')}) never ran and have no result`,
    );
  }
  return notes;
}

export function fromAgentsHistory(
  v: unknown,
  namespace: string,
  limits: CaptureLimits,
  now: string,
  line: number,
  path: string,
  problems: ReaderReport[],
  unread?: Unread,
): BuiltSession[] {
  const h = historyOf(v);
  if (!h || !hasResponsesCalls(h.items))
    throw new InputError('expected OpenAI Agents / Responses items (function_call / function_call_output)');
  const { items, key } = h;
  const state = runStateOf(v);
  const c: JsonObject = state ?? (isObject(v) ? v : Array.isArray(v) && isResponseObject(v[0]) ? v[0] : {});
  const pre = path ? `${path}.` : '';
  const under = (p: string) => (!path || p.startsWith('[') ? `${path}${p}` : `${path}.${p}`);
  const entries: ItemEntry[] = items.map((item, i) => ({
    item,
    where: h.paths ? under(h.paths[i]) : key ? `${pre}${key}[${i}]` : `${path}[${i}]`,
    line,
    at: null,
  }));
  if (h.goalFallback && !items.some((x) => isObject(x) && x.role === 'user'))
    entries.unshift({ item: { role: 'user', content: h.goalFallback }, where: `${pre}instructions`, line, at: null });
  const agent = state && isObject(state.currentAgent) ? state.currentAgent.name : null;
  const fields = containerFields(c, 'openai-agents', ['session_id', 'id', 'conversation_id']);
  return sessionsFromItems(
    entries,
    {
      ...fields,
      namespace,
      limits,
      now,
      unread,
      agentId: fields.agentId ?? (typeof c.agent === 'string' ? c.agent : typeof agent === 'string' ? agent : null),
    },
    problems,
  );
}

/**
 * The sessions of a message list read into items: ids, source, outcome, reward and agent from the container
 * (`idKeys` in order), the format as their label.
 */
export function listSessions(
  entries: ItemEntry[],
  ctx: MessageListContext,
  format: string,
  container: unknown,
  idKeys: readonly string[],
): BuiltSession[] {
  return sessionsFromItems(
    entries,
    {
      ...containerFields(isObject(container) ? container : {}, format, idKeys),
      namespace: ctx.namespace,
      limits: ctx.limits,
      now: ctx.now,
      labels: { format },
      unread: ctx.unread,
    },
    ctx.problems,
  );
}

/**
 * What a log's container says of the sessions in it: their id (the first of `idKeys` it has, else one made from
 * `content`), source (else the format), outcome, reward and agent.
 */
export function containerFields(
  c: JsonObject,
  format: string,
  idKeys: readonly string[],
): Pick<ItemSessionOptions, 'idBase' | 'idPrefix' | 'source' | 'outcome' | 'reward' | 'agentId'> {
  const key = idKeys.find((k) => typeof c[k] === 'string');
  return {
    idBase: key ? String(c[key]) : null,
    idPrefix: format,
    source: typeof c.source === 'string' ? c.source : format,
    outcome: outcomeOf(c) ?? 'unknown',
    reward: typeof c.reward === 'number' ? c.reward : null,
    agentId: typeof c.agent_id === 'string' ? c.agent_id : null,
  };
}
