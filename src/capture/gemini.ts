import type { ReaderReport } from './types.js';
import { countUnread, cutTo, isObject, type JsonObject, resultText, type Unread } from './common.js';
import type { StreamLine } from './codex-rollout.js';
import { emptyIdFilter, type IdFilter, mayHold, withIds } from './id-filter.js';
import type { CaptureLimits } from './normalized-jsonl.js';
import { type BuiltSession, type ItemEntry, type ItemsResume, sessionsFromItems } from './openai-agents.js';

/**
 * Gemini logs, in two shapes. Both are turned into Responses items and go through sessionsFromItems, so a log
 * splits into tasks by the rule every transcript follows (task-splitter.ts) and results pair with their calls.
 *
 * - Gemini CLI sessions, `~/.gemini/tmp/<project hash>/chats/session-<time>-<id>.jsonl`: a metadata record
 *   (`sessionId`, `projectHash`, `startTime`, `lastUpdated`, `kind`), then message records (`id`, `timestamp`,
 *   `type` user | gemini | info | error | warning, `content` as text or parts, `displayContent`, and on a gemini
 *   message `toolCalls` with `name`, `args`, `result`, `status`, `timestamp`). A message that changes (its tool
 *   calls finish, its tokens arrive) is written again whole: the last copy counts, in the place of the first.
 *   `{"$set": {...}}` updates the metadata (a `messages` list there replaces the messages), and
 *   `{"$rewindTo": id}` takes that message and every later one back. Versions before the JSONL layout wrote one
 *   JSON document, `{sessionId, projectHash, startTime, lastUpdated, messages}`.
 * - Gemini API contents, `[{role: "user" | "model", parts: [{text} | {functionCall} | {functionResponse}]}]`:
 *   bare (a `/chat save` checkpoint of older CLIs, a genai SDK history), under `history` (checkpoints) or under
 *   `contents` (a generateContent request, which carries the whole conversation).
 *
 * The goal is the first user text: the text the person typed (`displayContent`) when the CLI recorded it, and
 * never the files an `@path` reference pasted after it, nor the environment the CLI sends first ("This is the
 * Gemini CLI. We are setting up the context for our chat."). Thought parts are not answers. A call failed when its
 * status is not `success` (an error, a cancellation) or its response holds an `error`. Neither shape records
 * an outcome: it is left to the judge.
 */

/** How many records detection reads. */
const DETECT_SAMPLE = 50;

const MESSAGE_TYPES = new Set(['user', 'gemini', 'info', 'error', 'warning']);

/** Where the CLI appends the files an `@path` reference names to the typed prompt. */
const REFERENCED_FILES = /\n*--- Content from referenced files ---[\s\S]*$/;

/** The environment the CLI (or a fork of it) sends as the first user turn of a chat: context, not a request. */
const SETUP_CONTEXT =
  /^\s*(?:<session_context>\s*)?This is the [^.\n]{1,40}\. We are setting up the context for our chat\./;
const isRequest = (text: string) => !SETUP_CONTEXT.test(text);

function isMetadata(v: JsonObject): boolean {
  return typeof v.sessionId === 'string' && typeof v.projectHash === 'string';
}

function isMessageRecord(v: JsonObject): boolean {
  return (
    typeof v.id === 'string' &&
    typeof v.type === 'string' &&
    MESSAGE_TYPES.has(v.type) &&
    'content' in v &&
    !('message' in v) &&
    !('uuid' in v)
  );
}

/** A Gemini CLI session written as one JSON document (versions before the JSONL layout). */
export function isGeminiSession(v: unknown): v is JsonObject {
  return isObject(v) && isMetadata(v) && Array.isArray(v.messages);
}

/** Whether one JSONL line is one the Gemini CLI writes in a session log (metadata, a message, `$set`, `$rewindTo`). */
export function isGeminiCliLine(v: unknown): boolean {
  return isObject(v) && (isMetadata(v) || isMessageRecord(v) || isObject(v.$set) || typeof v.$rewindTo === 'string');
}

/** Whether a JSONL file is a Gemini CLI session log: most of its first records are the CLI's, and some carry it. */
export function isGeminiCliLog(lines: StreamLine[]): boolean {
  let seen = 0;
  let known = 0;
  let carrying = 0;
  for (const { value } of lines) {
    if (seen >= DETECT_SAMPLE) break;
    if (!isObject(value)) continue;
    seen++;
    const meta = isMetadata(value);
    const message = isMessageRecord(value);
    if (meta || message) carrying++;
    if (meta || message || isObject(value.$set) || typeof value.$rewindTo === 'string') known++;
  }
  return seen > 0 && carrying > 0 && known >= seen / 2;
}

/**
 * The CLI's prompt log (`~/.gemini/tmp/<project hash>/logs.json`): what the person typed, one entry a prompt
 * (`sessionId`, `messageId`, `type`, `message`, `timestamp`), without replies or tool calls.
 */
export function isGeminiPromptLog(v: unknown): boolean {
  return (
    Array.isArray(v) &&
    v.length > 0 &&
    v.every((e) => isObject(e) && typeof e.sessionId === 'string' && typeof e.messageId === 'number' && 'message' in e)
  );
}

const isTurn = (c: unknown): c is JsonObject =>
  isObject(c) && Array.isArray(c.parts) && (c.role === 'user' || c.role === 'model' || c.role === 'function');

/**
 * The events of a Google ADK session (`{id, appName, userId, state, events}`, as its session services and
 * `adk web` keep it) or of the event list its `/run` endpoint answers: `{author, invocationId, content, ...}`.
 */
function adkEventsOf(v: unknown): JsonObject[] | null {
  const session = isObject(v) && Array.isArray(v.events) && ('appName' in v || 'app_name' in v);
  const list = Array.isArray(v) ? v : session ? (v.events as unknown[]) : null;
  const isEvent = (e: unknown) =>
    isObject(e) && typeof e.author === 'string' && ('invocationId' in e || 'invocation_id' in e);
  return list && list.length > 0 && list.every(isEvent) ? (list as JsonObject[]) : null;
}

/** A Gemini conversation: its turns, when each was written (ADK events carry a time), and where they sit. */
interface Turns {
  turns: JsonObject[];
  at: (string | null)[];
  /** The path of each turn inside the value (`[3]`, `history[3]`, `events[3].content`). */
  where: string[];
  /** The ADK session, for its id. */
  session: JsonObject | null;
}

/** The turns of a value in the Gemini API shape (contents, a checkpoint, a request) or of an ADK session, or null. */
function turnsOf(v: unknown, path = ''): Turns | null {
  const pre = path ? `${path}.` : '';
  const events = adkEventsOf(v);
  if (events) {
    const out: Turns = { turns: [], at: [], where: [], session: Array.isArray(v) ? null : (v as JsonObject) };
    events.forEach((e, i) => {
      // A streamed reply comes as partial events and then once whole: the whole one counts.
      if (e.partial === true || !isTurn(e.content)) return;
      out.turns.push(e.content);
      out.at.push(typeof e.timestamp === 'number' ? new Date(e.timestamp * 1000).toISOString() : null);
      out.where.push(Array.isArray(v) ? `${path}[${i}].content` : `${pre}events[${i}].content`);
    });
    return out.turns.length ? out : null;
  }
  const key =
    isObject(v) && Array.isArray(v.history) ? 'history' : isObject(v) && Array.isArray(v.contents) ? 'contents' : null;
  const list = Array.isArray(v) ? v : key ? ((v as JsonObject)[key] as unknown[]) : null;
  if (!list || list.length === 0 || !list.every(isTurn)) return null;
  return {
    turns: list,
    at: list.map(() => null),
    where: list.map((_, i) => (key ? `${pre}${key}[${i}]` : `${path}[${i}]`)),
    session: null,
  };
}

export function isGeminiContents(v: unknown): boolean {
  return turnsOf(v) !== null;
}

/** The text parts of a content (thoughts left out). */
function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  const parts = Array.isArray(content) ? content : isObject(content) ? [content] : [];
  return parts
    .map((p) =>
      typeof p === 'string' ? p : isObject(p) && p.thought !== true && typeof p.text === 'string' ? p.text : '',
    )
    .join('');
}

/** A function response's text, and whether it reports an error. */
function responseOf(fr: JsonObject): { text: string; failed: boolean } {
  const r = fr.response;
  if (isObject(r)) {
    if (r.error != null && r.error !== '') return { text: resultText(r.error), failed: true };
    if (typeof r.output === 'string') return { text: r.output, failed: false };
    if (r.output != null) return { text: resultText(r.output), failed: false };
  }
  return { text: r == null ? '' : resultText(r), failed: false };
}

/** The shell tool reports a command's exit status in its output ("Exit Code: 1"); the call itself succeeded. */
function shellFailed(tool: unknown, text: string): boolean {
  const exit = typeof tool === 'string' && /shell/i.test(tool) ? /^Exit Code: (-?\d+)/m.exec(text) : null;
  return !!exit && exit[1] !== '0';
}

/** The tool calls cut as they were read (slimGeminiLine), with what their whole result said. */
const cutResults = new WeakMap<object, { text: string; failed: boolean }>();

/**
 * A session log's line with only what this reader reads of it, for a log read line by line (parse-file.ts Slimmer): a
 * model message's tool call whose result is longer than `keep` characters keeps its first `keep` (toolCallResult of
 * the whole call, kept beside it: whether it failed is what the whole result said), and no copy of it in what the CLI
 * displayed; every other line, and every other part of the message, is left as it is.
 */
export function slimGeminiLine(v: unknown, keep: number): unknown {
  if (!isObject(v) || !isMessageRecord(v) || v.type !== 'gemini' || !Array.isArray(v.toolCalls)) return v;
  let cut = false;
  const toolCalls = v.toolCalls.map((tc) => {
    if (!isObject(tc)) return tc;
    const r = toolCallResult(tc);
    if (r.text.length <= keep) return tc;
    cut = true;
    const { result: _result, resultDisplay: _display, ...rest } = tc;
    cutResults.set(rest, { text: cutTo(r.text, keep), failed: r.failed });
    return rest;
  });
  return cut ? { ...v, toolCalls } : v;
}

/** What a recorded tool call returned: its function responses (or text parts), else what the CLI displayed. */
function toolCallResult(tc: JsonObject): { text: string; failed: boolean } {
  const cut = cutResults.get(tc);
  if (cut) return cut;
  const parts = Array.isArray(tc.result) ? tc.result : tc.result == null ? [] : [tc.result];
  const texts: string[] = [];
  let failed = false;
  for (const p of parts) {
    if (typeof p === 'string') texts.push(p);
    else if (isObject(p) && isObject(p.functionResponse)) {
      const r = responseOf(p.functionResponse);
      texts.push(r.text);
      failed ||= r.failed;
    } else if (isObject(p) && typeof p.text === 'string') texts.push(p.text);
  }
  let text = texts.filter(Boolean).join('\n');
  if (!text && typeof tc.resultDisplay === 'string') text = tc.resultDisplay;
  const status = typeof tc.status === 'string' ? tc.status : 'success';
  if (status !== 'success') failed = true;
  if (shellFailed(tc.name, text)) failed = true;
  return { text: text || (failed ? status : ''), failed };
}

/** One Gemini CLI message as Responses items (the request, or the model's text and its calls with their results). */
function messageItems(m: JsonObject, line: number, unread: Unread): ItemEntry[] {
  const at = typeof m.timestamp === 'string' ? m.timestamp : null;
  if (m.type === 'user') {
    const typed = m.displayContent != null ? partsText(m.displayContent) : partsText(m.content);
    const text = typed.replace(REFERENCED_FILES, '').trim();
    return [{ item: { type: 'message', role: 'user', content: text }, where: 'content', line, at }];
  }
  if (m.type !== 'gemini') {
    // info, error and warning lines are the CLI's own notices, not the conversation.
    countUnread(unread, `message ${String(m.type)}`);
    return [];
  }
  const out: ItemEntry[] = [];
  // The model that wrote the message: the label of the task it is the first work of.
  const labels = typeof m.model === 'string' && m.model ? { model: m.model } : {};
  const said = partsText(m.content);
  if (said.trim())
    out.push({ item: { type: 'message', role: 'assistant', content: said }, where: 'content', line, at, labels });
  (Array.isArray(m.toolCalls) ? m.toolCalls : []).forEach((tc, k) => {
    const where = `toolCalls[${k}]`;
    if (!isObject(tc)) {
      out.push({ item: null, where, line, at });
      return;
    }
    const when = typeof tc.timestamp === 'string' ? tc.timestamp : at;
    const id = typeof tc.id === 'string' ? tc.id : null;
    out.push({
      item: { type: 'function_call', call_id: id, name: tc.name, arguments: tc.args ?? {} },
      where,
      line,
      at: when,
      labels,
    });
    const r = toolCallResult(tc);
    out.push({
      item: { type: 'function_call_output', call_id: id, output: r.text, status: r.failed ? 'failed' : 'completed' },
      where,
      line,
      at: when,
      labels,
    });
  });
  return out;
}

/**
 * What reading a Gemini CLI session log on from a task's first line needs to know of the lines before it, so that the
 * tasks read from there are the ones a read of the whole file gives (ids, labels). Kept between hook runs
 * (app/capture.ts); every field is an id, a label or a count, never the text of a message.
 */
export interface GeminiContext {
  /**
   * The metadata as the read that left the checkpoint ended with it: the session id (null when it names none: the
   * file's name stands in), the project hash and the kind. A later one that changes the id or the kind changes the
   * tasks before the checkpoint too: the file is then read whole.
   */
  sessionId: string | null;
  projectHash: string | null;
  kind: string | null;
  /** How many tasks the messages before it split into: the next is `#n+1`. */
  tasks: number;
  /**
   * The ids of the last messages before it, and of all of them (a filter: id-filter.ts). The CLI writes a message
   * again mostly while it is its last one; a message before the checkpoint written again after it (in its place,
   * before the checkpoint's task) makes the file read whole: one of the recent ones surely, any other that may be in
   * `seen` (a false "may" costs a whole read).
   */
  recent: string[];
  seen: IdFilter;
}

/**
 * A read of a session log on from a checkpoint (`from`, with the records from that task's first message on), or of
 * the whole file (no `from`). The reader says where the next read may start (`checkpoint`: the line of the request
 * that began the last task it can start from, never the first task) and what it must know there; or, reading on,
 * that the records read change what was read before (`mismatch`: read the file whole).
 */
export interface GeminiResume {
  from?: GeminiContext;
  checkpoint?: { line: number; context: GeminiContext } | null;
  mismatch?: string;
}

/** How many ids of the messages before a checkpoint it keeps (GeminiContext.recent). */
const RECENT_KEPT = 16;

/** The metadata a checkpoint keeps, as a metadata record. */
function metaOf(c: GeminiContext): JsonObject {
  return {
    ...(c.sessionId !== null ? { sessionId: c.sessionId } : {}),
    ...(c.projectHash !== null ? { projectHash: c.projectHash } : {}),
    ...(c.kind !== null ? { kind: c.kind } : {}),
  };
}

const stringOr = (v: unknown) => (typeof v === 'string' ? v : null);

/**
 * Sessions from a Gemini CLI session log (JSONL records, or the one document of older versions as one record):
 * the records replayed into the conversation they leave, then read as a transcript.
 */
export function fromGeminiCli(
  lines: StreamLine[],
  file: string,
  namespace: string,
  limits: CaptureLimits,
  now: string,
  problems: ReaderReport[],
  unread: Unread = new Map(),
  resume?: GeminiResume,
): BuiltSession[] {
  const from = resume?.from;
  let meta: JsonObject = from ? metaOf(from) : {};
  const messages = new Map<string, { m: JsonObject; line: number }>();
  // For a checkpoint: the line each message in the conversation was put in at (its place), the message each line
  // holds, and the stretches of lines a record reached back over: a message written again or taken back after a
  // line, in a place before it (from its place to the record), and the whole conversation rewritten (from line 0).
  const placed = new Map<string, number>();
  const messageAt = new Map<number, string>();
  const reachedBack: { from: number; to: number }[] = [];
  const recent = new Set(from?.recent ?? []);
  let first: string | null = null;
  let mismatch: string | null = null;
  // A messages list in the metadata (the one-document layout, or a rewrite of the history) is the conversation
  // at that point; later records still change it.
  const replaceAll = (list: unknown[], line: number) => {
    messages.clear();
    placed.clear();
    list.forEach((m, k) => {
      const id = isObject(m) && typeof m.id === 'string' ? m.id : `#${k}`;
      if (isObject(m)) messages.set(id, { m, line });
      placed.set(id, line);
    });
    reachedBack.push({ from: 0, to: line });
    if (from) mismatch ??= 'the conversation was rewritten ($set of messages) after the checkpoint';
  };
  for (const { value, line } of lines) {
    if (!isObject(value)) {
      problems.push({ line, path: '', reason: 'not a Gemini CLI session record (expected an object)' });
      continue;
    }
    if (typeof value.$rewindTo === 'string') {
      // That message and everything after it were taken back (all of them when the id is not found).
      const target = value.$rewindTo;
      if (from && (!messages.has(target) || target === first))
        mismatch ??= 'a rewind to a message at or before the checkpoint';
      reachedBack.push({ from: placed.get(target) ?? 0, to: line });
      let gone = !messages.has(target);
      for (const id of [...messages.keys()]) {
        if (id === target) gone = true;
        if (gone) {
          messages.delete(id);
          placed.delete(id);
        }
      }
    } else if (isMessageRecord(value)) {
      const id = value.id as string;
      const at = placed.get(id);
      if (at === undefined) {
        if (from && (recent.has(id) || mayHold(from.seen, id)))
          mismatch ??= 'a message before the checkpoint was written again after it';
        placed.set(id, line);
      } else if (at < line) reachedBack.push({ from: at + 1, to: line });
      first ??= id;
      messageAt.set(line, id);
      messages.set(id, { m: value, line });
    } else if (isObject(value.$set) || isMetadata(value)) {
      const update = isObject(value.$set) ? value.$set : value;
      meta = { ...meta, ...update };
      if (Array.isArray(update.messages)) replaceAll(update.messages, line);
    } else countUnread(unread, typeof value.type === 'string' ? value.type : (Object.keys(value)[0] ?? '(empty)'));
  }
  if (from && !mismatch) {
    // The id of every task, and whether any is stored, come from the metadata as the file ends: a `$set` of another
    // session id (or kind) after the checkpoint renames the tasks before it too, and those only a whole read stores
    // under the new id. That stop falls back to a whole read, whose mark keeps the new id: the next ones read on.
    if (stringOr(meta.sessionId) !== from.sessionId) mismatch = 'the session id changed after the checkpoint';
    else if (stringOr(meta.kind) !== from.kind) mismatch = 'the session kind changed after the checkpoint';
  }
  if (resume && mismatch) {
    resume.mismatch = mismatch;
    return [];
  }
  const list = [...messages.values()];
  if (meta.kind === 'subagent') {
    problems.push({
      line: lines[0]?.line ?? 1,
      path: '',
      reason:
        "a Gemini CLI subagent session (kind: subagent): nothing to store on its own; ingest the main session file, where the subagent's work is its tool call",
    });
    return [];
  }
  if (!list.some(({ m }) => m.type === 'user' || m.type === 'gemini')) {
    problems.push({
      line: lines[0]?.line ?? 1,
      path: '',
      reason: 'a Gemini CLI session without a single user or gemini message: nothing to store',
    });
    return [];
  }
  const entries = list.flatMap(({ m, line }) => messageItems(m, line, unread));
  const id = typeof meta.sessionId === 'string' ? meta.sessionId : file;
  const items: ItemsResume | undefined = resume && {
    ...(from ? { from: { tasks: from.tasks, rejected: [] } } : {}),
    begun: [],
    rejected: [],
  };
  const built = sessionsFromItems(
    entries,
    {
      idBase: `gemini-cli:${id}`,
      source: 'gemini-cli',
      agentId: 'gemini-cli',
      isGoalText: isRequest,
      namespace,
      limits,
      now,
      labels: {
        format: 'gemini',
        ...(typeof meta.projectHash === 'string' ? { project_hash: meta.projectHash } : {}),
      },
      unread,
      ...(items ? { resume: items } : {}),
    },
    problems,
  );
  if (resume && items) {
    // The last task that began at a request put in its place on its own line, when no later record reached back
    // over that line (a message before it written again or taken back, the conversation rewritten).
    const mark = [...items.begun].reverse().find((b) => {
      const at = messageAt.get(b.line);
      return (
        b.task >= 1 &&
        at !== undefined &&
        placed.get(at) === b.line &&
        !reachedBack.some((r) => r.from <= b.line && b.line < r.to)
      );
    });
    const u = mark ? messageAt.get(mark.line) : undefined;
    if (!mark || u === undefined) resume.checkpoint = null;
    else {
      const before = [...messages.keys()];
      const ahead = before.slice(0, before.indexOf(u));
      resume.checkpoint = {
        line: mark.line,
        context: {
          sessionId: stringOr(meta.sessionId),
          projectHash: stringOr(meta.projectHash),
          kind: stringOr(meta.kind),
          tasks: (from?.tasks ?? 0) + mark.task,
          recent: [...(from?.recent ?? []), ...ahead].slice(-RECENT_KEPT),
          seen: withIds(from?.seen ?? emptyIdFilter(), ahead),
        },
      };
    }
  }
  return built;
}

/** Sessions from Gemini API contents: function calls answered by function responses, in order or by id. */
export function fromGeminiContents(
  value: unknown,
  namespace: string,
  limits: CaptureLimits,
  now: string,
  line: number,
  path: string,
  problems: ReaderReport[],
): BuiltSession[] {
  const {
    turns,
    at: times,
    where: places,
    session,
  } = turnsOf(value, path) ?? { turns: [], at: [], where: [], session: null };
  const entries: ItemEntry[] = [];
  turns.forEach((turn, i) => {
    const where = places[i];
    const at = times[i];
    const parts = (turn.parts as unknown[]).filter(isObject);
    if (turn.role === 'model') {
      for (const p of parts) {
        if (isObject(p.functionCall)) {
          const fc = p.functionCall;
          entries.push({
            item: {
              type: 'function_call',
              call_id: typeof fc.id === 'string' ? fc.id : null,
              name: fc.name,
              arguments: fc.args ?? {},
            },
            where: `${where}.parts`,
            line,
            at,
          });
        } else if (p.thought !== true && typeof p.text === 'string' && p.text.trim())
          entries.push({ item: { type: 'message', role: 'assistant', content: p.text }, where, line, at });
      }
      return;
    }
    // A user (or function) turn: the responses answer the calls before it; its text is a request.
    for (const p of parts) {
      if (!isObject(p.functionResponse)) continue;
      const r = responseOf(p.functionResponse);
      const id = typeof p.functionResponse.id === 'string' ? p.functionResponse.id : null;
      const failed = r.failed || shellFailed(p.functionResponse.name, r.text);
      entries.push({
        item: { type: 'function_call_output', call_id: id, output: r.text, status: failed ? 'failed' : 'completed' },
        where: `${where}.parts`,
        line,
        at,
      });
    }
    const text = partsText(parts).replace(REFERENCED_FILES, '').trim();
    if (text) entries.push({ item: { type: 'message', role: 'user', content: text }, where, line, at });
  });
  const adk = session !== null || adkEventsOf(value) !== null;
  const app = session?.appName ?? session?.app_name;
  return sessionsFromItems(
    entries,
    {
      idBase: typeof session?.id === 'string' ? session.id : null,
      source: adk ? 'google-adk' : 'gemini',
      agentId: adk ? agentOf(value) : null,
      isGoalText: isRequest,
      namespace,
      limits,
      now,
      labels: { format: 'gemini', ...(typeof app === 'string' ? { app } : {}) },
    },
    problems,
  );
}

/** The ADK agent that answered first (an event author other than the user), or null. */
function agentOf(value: unknown): string | null {
  const author = (adkEventsOf(value) ?? []).find((e) => e.author !== 'user')?.author;
  return typeof author === 'string' ? author : null;
}
