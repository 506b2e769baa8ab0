import { answeredByExit } from '../domain/commands.js';
import { assignRecallsToTasks, type SessionTask } from '../domain/recall-tasks.js';
import { JUDGE_ACTOR } from '../domain/replace-trial.js';
import { sessionRef } from '../domain/session-ref.js';
import { wellFormed } from '../domain/untrusted-text.js';
import { randomUUID } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LogLines, LogStream } from '../capture/read-log.js';
import type { ClaudeCodeResume } from '../capture/claude-code.js';
import type { CodexResume } from '../capture/codex-rollout.js';
import type { GeminiResume } from '../capture/gemini.js';
import {
  captureSettings,
  isCompressed,
  lineOffset,
  type MarkContext,
  type MarkedFormat,
  markHolds,
  newMark,
  type OpenTranscript,
  parseMark,
  taskCount,
  taskIds,
  transcriptOf,
  type TranscriptMark,
} from '../capture/transcript-mark.js';
import { stateKey } from '../store/state-key.js';
import type { DryRunResult, PrepareCaptureOptions, PreparedCapture } from '../capture/ingest.js';
import type { OutcomeJudge } from '../capture/judge.js';
import type { ContentNames, StartSessionOptions } from '../capture/types.js';
import { protectCall, protectGoal, protectId, protectLabels, resolvePrivacy } from '../capture/privacy.js';
import { depthReason, exceedsDepth, jsonBytesWithin } from '../domain/json-limits.js';
import { copyStanding, fillsGaps } from '../domain/session-copies.js';
import { OUTCOMES, type Outcome, type Session, type ToolCall } from '../domain/types.js';
import { toolNameProblem } from '../domain/tool-name.js';
import type { Catalog } from './catalog.js';
import type { Changes } from './changes.js';
import type { AppContext } from './context.js';
import { InputError, NotFoundError, PassLockedError, SessionStateError } from '../errors/index.js';
import type { PassLock, Synthesis } from './synthesis.js';
import type {
  IngestResult,
  IngestTextOptions,
  RecordedCall,
  RetentionResult,
  SessionRecall,
  SessionRecorder,
} from './types.js';

/**
 * Capture: whole sessions and capture files in, live sessions recorded call by call, outcomes reported, and
 * sessions forgotten. Capture privacy and the capture limits apply here, before anything is stored.
 */
export class Capture {
  private readonly judges = new Map<string, OutcomeJudge>();

  constructor(
    private readonly ctx: AppContext,
    private readonly synthesis: Synthesis,
    private readonly catalog: Catalog,
    private readonly lock: PassLock,
    private readonly changes: Changes,
  ) {}

  /**
   * Stores whole sessions; a session id already stored is left untouched
   * (idempotent). A session over the limits (calls per session, record size, nesting depth) is not stored and
   * is named in `problems`; the others are.
   */
  async ingest(
    sessions: Session[],
  ): Promise<{ inserted: number; skipped: number; problems?: { index: number; sessionId: string; reason: string }[] }> {
    const problems: { index: number; sessionId: string; reason: string }[] = [];
    const policy = resolvePrivacy(this.ctx.config.capture.privacy);
    const ok: Session[] = [];
    sessions.forEach((session, index) => {
      const reason = sessionProblem(session, this.ctx.config.capture);
      if (reason) problems.push({ index, sessionId: protectId(policy, String(session?.id ?? ''), 'sid'), reason });
      // Ids, agent ids, sources and labels are keys and names shown everywhere: protected here. Goals and
      // calls are stored as the caller gives them (the deny rules must still see a secret in a span; every
      // text is redacted before it reaches evidence, a skill or an export).
      else
        ok.push({
          ...session,
          // A call without a position is in its place in the list; the other fields a caller may leave out.
          calls: session.calls.map((c, i) =>
            answeredAsStatus({
              ...c,
              position: c.position ?? i,
              args: c.args ?? {},
              result: c.result ?? '',
              ok: c.ok ?? !c.error,
              error: c.error ?? null,
              durationMs: c.durationMs ?? null,
              at: c.at ?? null,
            }),
          ),
          id: protectId(policy, session.id, 'sid'),
          agentId: protectId(policy, session.agentId, 'agent'),
          source: protectId(policy, session.source, 'source'),
          labels: protectLabels(policy, session.labels),
        });
    });
    const r = await this.ctx.requireStore().insertSessions(ok);
    this.synthesis.noteNewSessions(r.inserted);
    return problems.length ? { ...r, problems } : r;
  }

  /**
   * Ingests a capture file (JSONL interchange, OpenAI or Anthropic messages, OTLP GenAI spans, raw tau-bench
   * results; `auto` detects per record). Capture privacy (`capture.privacy`) is applied before anything is
   * stored; sessions without an outcome are judged (`capture.judge`, or `opts.judge`) and stored as judged.
   * Bad records are reported with line, JSON path and reason; the valid ones are kept.
   */
  async ingestFile(path: string, opts: Omit<IngestTextOptions, 'name'> = {}): Promise<IngestResult> {
    const { readLog } = await import('../capture/ingest.js');
    const { closeLog } = await import('../capture/read-log.js');
    const log = await readLog(path);
    try {
      return await this.ingestText(log, { ...opts, name: path });
    } finally {
      closeLog(log);
    }
  }

  /**
   * Reads the text of a capture file as `ingestText` would (format, limits, capture privacy), and says what would
   * be stored; stores nothing and judges nothing.
   */
  async previewText(text: string, opts: Omit<IngestTextOptions, 'judge'> = {}): Promise<DryRunResult> {
    const { dryRunSummary } = await import('../capture/ingest.js');
    const name = opts.name ?? 'request';
    const { parsed } = await this.readText(text, name, opts);
    const summary = dryRunSummary(name, parsed);
    if (!this.ctx.store) return summary;
    // What storing would do with each session, as ingest places it against what the memory holds under its names
    // (a log stored before reads as present; a copy further on grows the stored one).
    const names = namesOf(parsed);
    const held = await this.heldUnder(this.ctx.ns(opts.namespace), parsed.sessions, names);
    return {
      ...summary,
      sessions: summary.sessions.map((x, i) => {
        const s = parsed.sessions[i]!;
        return { ...x, stored: placeCopy(s, names.get(s), held).kind };
      }),
    };
  }

  /** The stored sessions under the ids and content names of sessions read from a log, by stored id. */
  private async heldUnder(
    namespace: string,
    sessions: readonly Session[],
    names: ReadonlyMap<Session, ContentNames | undefined>,
  ): Promise<Map<string, Session>> {
    const ids = sessions.flatMap((s) => [s.id, ...Object.values(names.get(s) ?? {})]);
    const held = await this.ctx.requireStore().getSessions(namespace, [...new Set(ids)]);
    return new Map(held.map((st) => [st.id, st]));
  }

  /** Parses a capture text with the configuration's limits and capture privacy (nothing is judged here). */
  private async readText(
    text: string | LogLines | LogStream,
    name: string,
    opts: Omit<IngestTextOptions, 'judge' | 'name'> & { resume?: PrepareCaptureOptions['resume'] },
  ): Promise<PreparedCapture> {
    const { ctx } = this;
    const { prepareCapture } = await import('../capture/ingest.js');
    return prepareCapture(text, {
      file: name,
      namespace: ctx.ns(opts.namespace),
      format: opts.format ?? 'auto',
      maxRecordBytes: ctx.config.capture.maxRecordBytes,
      resultChars: ctx.config.capture.resultChars,
      maxCallsPerSession: ctx.config.capture.maxCallsPerSession,
      now: ctx.now().toISOString(),
      privacy: ctx.config.capture.privacy,
      ...(opts.resume ? { resume: opts.resume } : {}),
    });
  }

  /**
   * Ingests the text of a capture file (any format `ingestFile` reads), named `name` in problems and notes: what
   * an application that keeps its agents' logs itself sends (REST `POST /api/ingest`). A session already stored is
   * skipped; a copy of it further on (a task sent before it ended, then again) grows it in place (`grown`).
   */
  async ingestText(text: string | LogLines | LogStream, opts: IngestTextOptions = {}): Promise<IngestResult> {
    const path = opts.name ?? 'request';
    const { parsed } = await this.readText(text, path, opts);
    return (await this.storeParsed(parsed, path, opts)).result;
  }

  /**
   * Ingests a transcript its agent appends to (a Claude Code transcript, a Codex CLI rollout or a Gemini CLI session
   * log a hook names, `ingest --hook`): what `ingestFile` stores, read from the first line of the task the last call
   * for this file ended in, not from the start. How far it was read is kept in the memory's state per namespace and
   * file (capture/transcript-mark.ts); a file replaced, cut shorter or rewritten, a mark that cannot be read, other
   * capture settings, or lines that change what was read before (a rewind to an earlier prompt, a Gemini CLI session
   * id changed or its messages rewritten) make it read the file whole. Two calls at once for one file each store what
   * they read and leave a mark that holds for the file (the sessions are stored before the mark is kept). Any other
   * format (a Gemini CLI session of the one-document layout among them), or a compressed file, is read whole.
   */
  async ingestTranscript(path: string, opts: Omit<IngestTextOptions, 'name'> = {}): Promise<IngestResult> {
    const { ctx } = this;
    const format = opts.format ?? 'auto';
    if (format !== 'auto' && !isMarkedFormat(format)) return this.ingestFile(path, opts);
    const store = ctx.requireStore();
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      // Not there, or not readable: said as a whole read says it.
      return this.ingestFile(path, opts);
    }
    try {
      const file = transcriptOf(fd);
      if (isCompressed(file)) return await this.ingestFile(path, opts);
      const namespace = ctx.ns(opts.namespace);
      const key = stateKey.transcriptMark(resolve(path));
      const settings = captureSettings(ctx.config.capture);
      const mark = parseMark(await store.getState(namespace, key));
      const usable = mark && (format === 'auto' || format === mark.format) && markHolds(file, mark, settings);
      let read = usable ? await this.readTranscript(file, path, opts, mark) : null;
      const reader = read && mark ? read.resume[readerOf(mark.format)] : null;
      const mismatch = reader && 'mismatch' in reader ? reader.mismatch : undefined;
      if (read && (mismatch || read.parsed.format !== mark?.format)) {
        ctx.log.child('capture').debug('transcript read whole', { reason: mismatch ?? read.parsed.format });
        read = null;
      }
      read ??= await this.readTranscript(file, path, opts, null);
      const earlier = read.mark ? taskIds(read.mark.tasks) : {};
      const { result, placedId } = await this.storeParsed(read.parsed, path, opts, earlier);
      const next = this.nextMark(file, read, placedId, settings, earlier);
      // Kept once the sessions are stored: a mark never points past a task that was not.
      if (next || mark) await store.setState(namespace, key, next ? JSON.stringify(next) : '');
      if (!read.mark) return result;
      // The tasks before the mark were stored by earlier reads: present, as a whole read would count them.
      const before = taskCount(read.mark.tasks);
      return {
        ...result,
        skipped: result.skipped + before,
        readFrom: { line: read.mark.line, byte: read.mark.offset },
      };
    } finally {
      closeSync(fd);
    }
  }

  /** Reads an open transcript from its mark on (or whole, without one) and parses what it read. */
  private async readTranscript(
    file: OpenTranscript,
    path: string,
    opts: Omit<IngestTextOptions, 'judge' | 'name'>,
    mark: TranscriptMark | null,
  ) {
    const start = mark?.offset ?? 0;
    const firstLine = mark?.line ?? 1;
    // JSONL (every transcript a hook reads on) is read line by line as it is parsed, never held whole.
    const { readLogPart } = await import('../capture/ingest.js');
    const text = readLogPart(file.fd, path, start, file.size);
    // Each reader that can be read on from a checkpoint is asked for one; the mark's own reader starts from its own.
    const resume: { firstLine: number; claudeCode: ClaudeCodeResume; codex: CodexResume; gemini: GeminiResume } = {
      firstLine,
      claudeCode: mark?.format === 'claude-code' ? { from: mark.context } : {},
      codex: mark?.format === 'codex' ? { from: mark.context } : {},
      gemini: mark?.format === 'gemini' ? { from: mark.context } : {},
    };
    const { parsed } = await this.readText(text, path, { ...opts, resume });
    return { parsed, text, start, firstLine, resume, mark };
  }

  /**
   * The mark after a read: at the checkpoint the reader gave (the first line of the last task), with the ids of the
   * tasks stored before it (`earlier`: those before the mark read from); the mark read from, when the read gave none
   * further on; none for a file that is no transcript a hook reads on (Claude Code, Codex CLI, Gemini CLI JSONL) or
   * whose bytes the text cannot be mapped to.
   */
  private nextMark(
    file: OpenTranscript,
    read: Awaited<ReturnType<Capture['readTranscript']>>,
    placedId: ReadonlyMap<Session, string>,
    settings: string,
    earlier: Readonly<Record<string, string[]>>,
  ): TranscriptMark | null {
    const { parsed, mark } = read;
    if (!isMarkedFormat(parsed.format)) return null;
    const reader = checkpointOf(parsed.format, read.resume);
    const offset = reader ? lineOffset(read.text, read.start, read.firstLine, reader.line) : null;
    if (!reader || offset === null) return mark ? { ...mark, size: file.size } : null;
    const tasks: Record<string, string[]> = Object.fromEntries(
      Object.entries(earlier).map(([base, ids]) => [base, [...ids]]),
    );
    parsed.sessions.forEach((s, i) => {
      const id = placedId.get(s);
      if (id === undefined || (parsed.records[i]?.line ?? 1) >= reader.line) return;
      const base = parsed.bases[i]!;
      (tasks[base] ??= []).push(id);
    });
    return newMark(file, { offset, line: reader.line, size: file.size }, reader.mark, tasks, settings);
  }

  /**
   * Stores the sessions of a parsed capture text (ingestText); `before`: the ids of the tasks of each agent session
   * stored from the part of a transcript this text follows (a recall may belong to one of them).
   */
  private async storeParsed(
    parsed: PreparedCapture['parsed'],
    path: string,
    opts: Omit<IngestTextOptions, 'name'>,
    before: Readonly<Record<string, string[]>> = {},
  ): Promise<{ result: IngestResult; placedId: Map<Session, string> }> {
    const { ctx } = this;
    const store = ctx.requireStore();
    // Duplicate ids inside one file: one copy of a task is kept, the one furthest on (a log may hold a task logged
    // while it ran, then whole). One that is another task is named: two sessions must not hide behind one id.
    const first = new Map<string, { index: number; line: number }>();
    const problems = [...parsed.problems];
    const unique: Session[] = [];
    const lineOf = new Map<Session, number>();
    parsed.sessions.forEach((s, i) => {
      const line = parsed.records[i]?.line ?? 1;
      const prior = first.get(s.id);
      const standing = prior && copyStanding(unique[prior.index], s);
      if (!prior) {
        first.set(s.id, { index: unique.length, line });
        unique.push(s);
      } else if (standing === 'ahead') unique[prior.index] = s;
      else if (standing === 'other')
        problems.push({
          file: path,
          line,
          reason: `session id ${s.id} was already used at line ${prior.line} by a session with different content; the first is kept`,
        });
      lineOf.set(s, line);
    });
    // A session the memory holds already is skipped; a copy of it further on (a log sent while the agent was still
    // working, then again) grows it; another task under its id is named (the stored one is kept).
    const names = namesOf(parsed);
    const stored = await this.heldUnder(ctx.ns(opts.namespace), unique, names);
    const fresh: Session[] = [];
    const grown: Session[] = [];
    const answers = new Map(parsed.sessions.map((s, i) => [s, parsed.records[i]?.finalAnswer ?? null]));
    const answerOf = new Map<Session, string | null>();
    // A transcript read while its agent works (not `finished`): a task it ends in the middle of (a call not answered
    // yet) has not ended, and is not judged until a copy that ends it comes. A whole log's last task ended there.
    const unfinished = new Set(
      opts.finished === false ? parsed.sessions.filter((_, i) => parsed.records[i]?.unfinished) : [],
    );
    const unfinishedNow = new Set<Session>();
    const placedId = new Map<Session, string>();
    let conflicts = 0;
    for (const s of unique) {
      const place = placeCopy(s, names.get(s), stored);
      if (place.kind === 'new' || place.kind === 'grow') {
        (place.kind === 'new' ? fresh : grown).push(place.session);
        answerOf.set(place.session, answers.get(s) ?? null);
        if (unfinished.has(s)) unfinishedNow.add(place.session);
        placedId.set(s, place.session.id);
      } else if (place.kind === 'present') placedId.set(s, place.id);
      else if (place.kind === 'conflict') {
        conflicts++;
        problems.push({
          file: path,
          line: lineOf.get(s) ?? 1,
          reason: `session id ${s.id} is already stored with different content; the stored one is kept`,
        });
      }
    }
    // Only sessions this ingest stores or grows are judged: a file read again costs no judge call (a model's, with llm).
    const judge = await this.outcomeJudge(opts.judge);
    const judged = [...fresh, ...grown];
    const judgement = judge
      ? await (await import('../capture/judge.js')).judgeSessions(
          judged,
          judged.map((s) => answerOf.get(s) ?? null),
          judge,
          { unfinished: judged.map((s) => unfinishedNow.has(s)) },
        )
      : null;
    problems.sort((a, b) => a.line - b.line);
    const { inserted } = await store.insertSessions(fresh);
    const growing = await store.growSessions(grown);
    this.synthesis.noteNewSessions(inserted + growing);
    const written = new Set([...fresh, ...grown].map((s) => s.id));
    const served = await this.linkRecalls(ctx.ns(opts.namespace), parsed, unique, placedId, written, before);
    if (ctx.config.lifecycle.judgedTrials && served.length)
      await this.creditJudgedTasks(ctx.ns(opts.namespace), served, opts.finished !== false);
    // Already present: a session refused because another one holds its id is a problem, not counted here.
    const skipped = unique.length - inserted - growing - conflicts;
    const result: IngestResult = {
      file: path,
      format: parsed.format,
      inserted,
      ...(growing ? { grown: growing } : {}),
      skipped: skipped + (parsed.sessions.length - unique.length),
      problems,
      detected: parsed.detected,
      formats: parsed.formats,
      // Each record names the id its session is stored under (a task stored before it ended keeps its first name).
      records: parsed.records.map(({ finalAnswer: _f, contentNames: _n, unfinished: _u, ...r }, i) => ({
        ...r,
        sessionId: placedId.get(parsed.sessions[i]) ?? r.sessionId,
      })),
      notes: parsed.notes,
      unread: parsed.unread,
      judged: judgement && {
        judge: judgement.judge,
        judged: judgement.judged,
        success: judgement.success,
        failure: judgement.failure,
        unknown: judgement.unknown,
      },
    };
    return { result, placedId };
  }

  /**
   * Gives the recalls a hook made under an agent's session id (`recall --hook`, `--session`) to the tasks of that
   * session just stored: each to the task it served (domain/recall-tasks.ts), so that a task's outcome credits the
   * skills served for it. The recalls under the session's tasks are placed again as the transcript grows (one
   * made before its prompt was in the transcript went to the task then running); none is ever copied.
   */
  private async linkRecalls(
    namespace: string,
    parsed: PreparedCapture['parsed'],
    unique: readonly Session[],
    placedId: ReadonlyMap<Session, string>,
    written: ReadonlySet<string>,
    before: Readonly<Record<string, string[]>> = {},
  ): Promise<ServedTask[]> {
    const baseOf = new Map(parsed.sessions.map((s, i) => [s as Session, parsed.bases[i]!]));
    const tasks = new Map<string, SessionTask[]>();
    const listOf = (base: string) => {
      let list = tasks.get(base);
      if (!list) tasks.set(base, (list = []));
      return list;
    };
    for (const base of Object.keys(before)) listOf(base);
    for (const s of unique) {
      const id = placedId.get(s);
      const base = baseOf.get(s);
      if (id === undefined || base === undefined) continue;
      listOf(base).push({ id, goal: s.goal, startedAt: s.startedAt ?? null });
    }
    if (tasks.size === 0) return [];
    const store = this.ctx.requireStore();
    const earlier = Object.values(before).flat();
    const held = await store.recallsHeldBy(namespace, [
      ...new Set([...tasks].flatMap(([base, list]) => [base, ...(before[base] ?? []), ...list.map((t) => t.id)])),
    ]);
    if (held.length === 0) return [];
    if (earlier.length) {
      // The tasks stored from the transcript's lines before this read, as stored, go first (the file's order).
      const stored = new Map((await store.sessionHeads(namespace, earlier)).map((s) => [s.id, s]));
      for (const [base, ids] of Object.entries(before)) {
        const heads = ids.flatMap((id) => {
          const s = stored.get(id);
          return s ? [{ id, goal: s.goal, startedAt: s.startedAt ?? null }] : [];
        });
        tasks.set(base, [...heads, ...listOf(base)]);
      }
    }
    const moves: { recallId: number; from: string; to: string }[] = [];
    const served: ServedTask[] = [];
    for (const [base, list] of tasks) {
      const ids = new Set([base, ...list.map((t) => t.id)]);
      const mine = held.filter((r) => r.sessionId !== null && ids.has(r.sessionId));
      const placed = assignRecallsToTasks(mine, list, base);
      for (const m of placed) if (m.from !== null) moves.push({ ...m, from: m.from });
      // The tasks that hold a recall now, each with whether a later task of its session followed it, and whether
      // it or the task after it was written now (a task that grew, or one a new task made complete); else a task
      // read again, complete and credited before.
      const movedTo = new Map(placed.map((m) => [m.recallId, m.to]));
      const holding = new Set(mine.map((r) => movedTo.get(r.id) ?? r.sessionId));
      list.forEach((t, i) => {
        const news = written.has(t.id) || (i + 1 < list.length && written.has(list[i + 1]!.id));
        if (holding.has(t.id)) served.push({ id: t.id, followed: i < list.length - 1, news });
      });
    }
    const moved = await store.moveRecalls(namespace, moves, { actor: 'capture', at: this.ctx.now().toISOString() });
    if (moved) this.ctx.log.child('capture').debug('recalls given to their tasks', { moved });
    return served;
  }

  /**
   * lifecycle.judgedTrials: a complete task's judged outcome is one trial of each skill recalled for it (actor
   * `judge`), as a reported outcome is. A task is complete once it can no longer grow: a later task of its session
   * is stored, or the log is whole (`finished`); the task a Stop hook's transcript ends with may still go on, and
   * gets its trial from a later ingest. Given again, the same judgement changes nothing; a newer one of a task that
   * grew replaces it (an `unknown` one takes it back), and the task's reported outcome replaces either (a reported
   * trial is final).
   */
  private async creditJudgedTasks(namespace: string, served: readonly ServedTask[], finished: boolean): Promise<void> {
    // After each reply the Stop hook reads the whole transcript again: only the tasks it changed, or that a task
    // it stored made complete, are judged there; a whole log judges every task once more (the same trial is a no-op).
    const complete = served.filter((t) => finished || (t.followed && t.news)).map((t) => t.id);
    if (complete.length === 0) return;
    for (const s of await this.ctx.requireStore().getSessions(namespace, complete))
      if (s.outcomeSource === 'judged' && s.outcome !== 'unknown')
        await this.catalog.creditRecalledSkills(s.id, s.outcome, namespace, JUDGE_ACTOR);
      // A task the judge read as unknown (it grew past the judged ending): a judged trial it gave before is taken
      // back. Only the judge's: a reported trial stays (the store keeps it), and a task with none changes nothing.
      else if (s.outcome === 'unknown')
        await this.catalog.creditRecalledSkills(s.id, 'unknown', namespace, JUDGE_ACTOR);
  }

  /** The outcome judge for captured sessions without an outcome: `capture.judge`, or the mode asked for (off: none). */
  private async outcomeJudge(mode?: 'rule' | 'llm' | 'off' | OutcomeJudge): Promise<OutcomeJudge | null> {
    if (mode && typeof mode === 'object') return mode;
    const config = this.ctx.config;
    const cfg = mode ? { ...config.capture.judge, mode } : config.capture.judge;
    if (cfg.mode === 'off') return null;
    // One judge per mode for the memory's lifetime: a local model is loaded once, and closed with the memory.
    let judge = this.judges.get(cfg.mode);
    if (!judge) {
      const { createJudge } = await import('../capture/judge.js');
      judge = this.ctx.own(createJudge(cfg, config.llm, { log: this.ctx.log.child('judge') }));
      this.judges.set(cfg.mode, judge);
    }
    return judge;
  }

  /** Opens a live session; every call is stored as it happens (crash-safe), idempotent by position. */
  async startSession(opts: StartSessionOptions): Promise<SessionRecorder> {
    const { ctx } = this;
    if (typeof opts?.goal !== 'string' || !opts.goal.trim())
      throw new InputError('startSession: goal must be a non-empty string');
    const badId = opts.id === undefined ? null : sessionIdProblem(opts.id);
    if (badId) throw new InputError(`startSession: ${badId}`);
    // Memory off (config.disabled, SKILLSMITH_DISABLED=1): the agent runs as it would, and nothing is stored.
    if (!ctx.storing) return this.unrecorded(opts.id ?? `s_${randomUUID()}`);
    const store = ctx.requireStore();
    const privacy = ctx.config.capture.privacy;
    const limits = ctx.config.capture;
    if (opts.goal.length > limits.maxRecordBytes)
      throw new InputError(
        `startSession: goal is ${opts.goal.length} characters, over the ${limits.maxRecordBytes} limit`,
      );
    // Ids, agent ids and sources are stored as keys: one that holds a secret or personal data becomes a keyed hash.
    const id = opts.id ? ctx.sessionKey(opts.id) : `s_${randomUUID()}`;
    const namespace = ctx.ns(opts.namespace);
    const asked = wellFormed(opts.goal);
    const goal = protectGoal(privacy, asked);
    await store.beginSession({
      id,
      namespace,
      goal,
      cue:
        opts.cue?.trim() && opts.cue.trim() !== opts.goal.trim()
          ? protectGoal(privacy, wellFormed(opts.cue.trim()))
          : null,
      outcome: 'unknown',
      reward: null,
      agentId: protectId(privacy, opts.agentId ?? null, 'agent'),
      source: protectId(privacy, opts.source ?? 'library', 'source'),
      startedAt: ctx.now().toISOString(),
      endedAt: null,
      labels: null,
    });
    const existing = await store.getSession(namespace, id);
    // Re-opening a live session (a restarted agent) continues it; an ended one has its outcome and stays closed.
    if (existing?.endedAt)
      throw new SessionStateError(`session ${id} already ended (${existing.outcome}); start a new session`);
    // A restarted agent continues its task; another goal under the same id is another task, not a continuation. The
    // goal it holds is not quoted: in a shared memory (a fleet, a REST server) the caller reusing the id may be another
    // agent, and the goal another client's words; the session's owner reads it through the session routes.
    if (existing && existing.goal !== goal && existing.goal !== asked)
      throw new SessionStateError(
        `session ${id} is already recording another goal (not repeated here: it may be another client's); continue it with the goal it was started with, or start a new session (another id) for this one`,
      );
    let position = existing ? nextPosition(existing) : 0;
    let ended = false;
    this.synthesis.noteFirstUse();
    return {
      id,
      recall: (goal, o = {}) =>
        this.catalog.recall(goal ?? opts.goal, { topK: o.topK, tools: o.tools, namespace, sessionId: id }),
      call: async (c) => {
        if (ended) throw new SessionStateError(`session ${id} already ended; record into a new session`);
        const at = position++;
        try {
          const stored = await this.appendAfterLast(namespace, id, c, at);
          // Another writer of the session took the position: the calls of this recorder go after the last one.
          if (stored !== at) position = Math.max(position, stored + 1);
        } catch (e) {
          // Not stored: the next call takes its place, unless one already went after it.
          if (position === at + 1) position = at;
          throw e;
        }
      },
      end: async (outcome, reward = null, o = {}) => {
        const wrong = outcomeProblem(outcome, reward);
        if (wrong) throw new InputError(`end: ${wrong}`);
        // Once: a second end would flip the outcome after the recalled skills were credited.
        if (ended) throw new SessionStateError(`session ${id} already ended; an outcome is reported once`);
        ended = true;
        const source = o.source ?? 'reported';
        try {
          await store.endSession(namespace, id, outcome, reward, ctx.now().toISOString(), source);
        } catch (e) {
          // Not stored (a busy database, say): the session is still open, and end may be called again.
          ended = false;
          throw e;
        }
        // A reported outcome is a trial of the skills recalled for the session; a judged one is when
        // lifecycle.judgedTrials is on (the session has ended: it is complete), until the truth replaces it.
        if (source === 'reported') await this.catalog.creditRecalledSkills(id, outcome, namespace);
        else if (ctx.config.lifecycle.judgedTrials)
          await this.catalog.creditRecalledSkills(id, outcome, namespace, JUDGE_ACTOR);
        this.synthesis.noteNewSessions(1);
      },
    };
  }

  /**
   * The recorder of a disabled memory: calls are checked as they would be and not stored, the end is taken once,
   * and a recall serves nothing (as `memory.recall` does when disabled).
   */
  private unrecorded(id: string): SessionRecorder {
    let ended = false;
    let position = 0;
    return {
      id,
      recall: async () => [],
      call: async (c) => {
        if (ended) throw new SessionStateError(`session ${id} already ended; record into a new session`);
        this.prepareCall(id, c, position++);
      },
      end: async (outcome, reward = null) => {
        const wrong = outcomeProblem(outcome, reward);
        if (wrong) throw new InputError(`end: ${wrong}`);
        if (ended) throw new SessionStateError(`session ${id} already ended; an outcome is reported once`);
        ended = true;
      },
    };
  }

  /**
   * Why a call would be refused whatever its session (a tool name no API gives, nesting too deep, over
   * `capture.maxRecordBytes`), or null. A surface that opens a session with its first call asks first, so a refused
   * call leaves no empty session behind.
   */
  callProblem(c: RecordedCall): string | null {
    return this.inspectCall(c).problem;
  }

  /** The call's result as stored text, and why the call would be refused (null: it would not). */
  private inspectCall(c: RecordedCall): { problem: string | null; result: string } {
    const result = c.result == null ? '' : typeof c.result === 'string' ? c.result : JSON.stringify(c.result);
    const wrongName = toolNameProblem(c.tool);
    if (wrongName) return { problem: wrongName, result };
    if (exceedsDepth(c.args)) return { problem: depthReason('args'), result };
    if (exceedsDepth(c.result)) return { problem: depthReason('result'), result };
    const limit = this.ctx.config.capture.maxRecordBytes;
    const bytes =
      Buffer.byteLength(result) + Buffer.byteLength(JSON.stringify(c.args ?? {})) + Buffer.byteLength(c.error ?? '');
    if (bytes > limit)
      return {
        problem: `${bytes} bytes of arguments, result and error, over the ${limit}-byte limit (capture.maxRecordBytes)`,
        result,
      };
    return { problem: null, result };
  }

  /** Validates one call against the capture limits and applies capture privacy: what `appendCall` stores. */
  private prepareCall(sessionId: string, c: RecordedCall, position: number): ToolCall {
    const limits = this.ctx.config.capture;
    // Bounded: a call is refused with its reason (never stored in part, never a crash).
    const { problem, result } = this.inspectCall(c);
    if (problem) throw new InputError(`call: ${problem}`);
    if (position >= limits.maxCallsPerSession)
      throw new InputError(
        `call: session ${sessionId} already has ${limits.maxCallsPerSession} calls, the limit per session (capture.maxCallsPerSession)`,
      );
    // Capture privacy (capture.privacy) before anything is stored; the result is capped after redaction.
    return protectCall(
      limits.privacy,
      answeredAsStatus({
        position,
        tool: c.tool,
        args: c.args ?? {},
        result,
        ok: c.ok ?? !c.error,
        error: c.error ?? null,
        durationMs: c.durationMs ?? null,
        at: this.ctx.now().toISOString(),
      }),
      limits.resultChars,
    );
  }

  /** A recorded session that has not ended (MemorySessions.requireOpen). */
  async requireOpenSession(sessionId: string, opts: { namespace?: string } = {}): Promise<Session> {
    const ns = this.ctx.ns(opts.namespace);
    const session = await this.ctx.requireStore().getSession(ns, this.ctx.sessionKey(sessionId));
    if (!session) throw new NotFoundError(`no session with this id in namespace ${ns}: start it first`);
    if (session.endedAt)
      throw new SessionStateError(
        `session ${session.id} already ended (${session.outcome}): a recall for it would count in no trial; recall for a session still running`,
      );
    return session;
  }

  /**
   * Records one call of a stored, still open session at a given position (for surfaces that hold no
   * recorder between requests, such as REST). Idempotent: a position already recorded is a no-op
   * (`recorded: false`); without a position the call goes after the last one; a position past the next
   * one is refused (a call went missing).
   */
  async recordCall(
    sessionId: string,
    c: RecordedCall & { position?: number },
    opts: { namespace?: string } = {},
  ): Promise<{ sessionId: string; position: number; recorded: boolean }> {
    const store = this.ctx.requireStore();
    const ns = this.ctx.ns(opts.namespace);
    const id = this.ctx.sessionKey(sessionId);
    const session = await store.getSession(ns, id);
    if (!session) throw new NotFoundError(`no session with this id in namespace ${ns}: start it first`);
    const next = nextPosition(session);
    const position = c.position ?? next;
    if (position < next) return this.recordedBefore(session, c, position);
    if (session.endedAt)
      throw new SessionStateError(`session ${id} already ended (${session.outcome}); record into a new session`);
    if (position > next)
      throw new SessionStateError(
        `call position ${position} skips ahead: session ${id} has ${next} calls, so the next position is ${next}`,
      );
    // Without a position, concurrent requests each get their own place after the last call.
    if (c.position === undefined)
      return { sessionId: id, position: await this.appendAfterLast(ns, id, c, next), recorded: true };
    if (await store.appendCall(ns, id, this.prepareCall(id, c, position)))
      return { sessionId: id, position, recorded: true };
    // Another request recorded this position between the read and the write: judged as a retry would be.
    return this.recordedBefore((await store.getSession(ns, id)) ?? session, c, position);
  }

  /**
   * A call sent for a position already recorded: a retry of the same call is a no-op; another call there is a
   * client's mistake that would otherwise lose it without a word.
   */
  private recordedBefore(
    session: Session,
    c: RecordedCall,
    position: number,
  ): { sessionId: string; position: number; recorded: false } {
    const stored = session.calls.find((x) => x.position === position);
    if (stored && stored.tool !== c.tool)
      throw new SessionStateError(
        `position ${position} of session ${session.id} already holds a call of another tool than ${c.tool}: each position is recorded once (the next one is ${nextPosition(session)})`,
      );
    return { sessionId: session.id, position, recorded: false };
  }

  /**
   * Stores a call at `from`, or after the last call of the session when another writer (a second process on the
   * same session, parallel hooks, concurrent REST requests) took that position first: the store keeps the first
   * call of a position, so without this the later one was dropped without a word. Returns the position taken.
   */
  private async appendAfterLast(namespace: string, id: string, c: RecordedCall, from: number): Promise<number> {
    const store = this.ctx.requireStore();
    let position = from;
    // Every lost race means another call was stored, so this ends; the bound is for a store that misbehaves.
    for (let attempt = 0; attempt < APPEND_ATTEMPTS; attempt++) {
      if (await store.appendCall(namespace, id, this.prepareCall(id, c, position))) return position;
      const now = await store.getSession(namespace, id);
      position = Math.max(position + 1, now ? nextPosition(now) : 0);
    }
    throw new SessionStateError(
      `call: session ${id} had no free position for ${c.tool} after ${APPEND_ATTEMPTS} attempts (other writers took each one)`,
    );
  }

  /**
   * Reports a session's outcome (now or later): it is stored, and each skill recalled for the session gets one
   * trial (pass on success, fail on failure). An unknown outcome changes nothing.
   */
  async reportOutcome(
    sessionId: string,
    outcome: Outcome,
    opts: { reward?: number | null; namespace?: string } = {},
  ): Promise<{ credited: string[] }> {
    const reward = opts.reward;
    const wrong = outcomeProblem(outcome, reward);
    if (wrong) throw new InputError(wrong);
    // Memory off: no session was stored, and no skill is credited.
    if (!this.ctx.storing) return { credited: [] };
    const store = this.ctx.requireStore();
    const ns = this.ctx.ns(opts.namespace);
    sessionId = this.ctx.sessionKey(sessionId);
    const session = await store.getSession(ns, sessionId);
    if (!session) throw new NotFoundError(`no session with this id in namespace ${ns}`);
    // A reported outcome is final: the same report again is a no-op; a different one is refused (it would
    // flip the outcome after the recalled skills were credited). A judged or unknown outcome may be replaced.
    if (session.endedAt && session.outcome !== 'unknown' && (session.outcomeSource ?? 'reported') === 'reported') {
      // The same report again is a no-op; with another reward it is a change, refused as any other.
      if (session.outcome === outcome && (reward == null || reward === session.reward)) return { credited: [] };
      if (session.outcome === outcome)
        throw new SessionStateError(
          `session ${sessionId} already ended as ${outcome} with reward ${session.reward ?? 'none'}; a reported outcome is not changed`,
        );
      throw new SessionStateError(
        `session ${sessionId} already ended as ${session.outcome}; a reported outcome is not changed`,
      );
    }
    // A reported outcome replaces a judged one (outcome_source becomes 'reported').
    await store.endSession(
      ns,
      sessionId,
      outcome,
      opts.reward ?? session.reward,
      session.endedAt ?? this.ctx.now().toISOString(),
      'reported',
    );
    if (!session.endedAt) this.synthesis.noteNewSessions(1);
    return { credited: await this.catalog.creditRecalledSkills(sessionId, outcome, ns) };
  }

  /**
   * Forgets a session: its goal, calls, results, cluster membership, recalls and cached goal embeddings are
   * deleted; a skill learned from it keeps its row and says a parent was forgotten (explain's
   * `parents.forgotten`); an audit record names it only by its opaque reference. Waits for no pass: while one
   * runs on the namespace it is refused (PassLockedError), since the pass could write the session back into
   * a skill's lineage. Null when there is no such session.
   */
  async forgetSession(
    sessionId: string,
    opts: { namespace?: string; actor?: string } = {},
  ): Promise<{ ref: string; calls: number; skills: string[] } | null> {
    const ns = this.ctx.ns(opts.namespace);
    const [result] = await this.forgetStored(ns, [this.ctx.sessionKey(sessionId)], opts.actor ?? 'user');
    return result ? { ref: result.ref, calls: result.calls, skills: result.skills } : null;
  }

  /**
   * Retention: forgets every session of the namespace that ended before `before`, or, still open, was last active
   * (its last call, else its start) before it, each as `forgetSession` does (domain/retention.ts); a session whose
   * stored time reads as no date is kept and listed in `undated`. A dry run lists them, forgetting nothing.
   */
  async forgetBefore(
    before: Date,
    opts: { namespace?: string; actor?: string; dryRun?: boolean } = {},
  ): Promise<RetentionResult> {
    const ns = this.ctx.ns(opts.namespace);
    const { expiredSessions, sessionTimeOf } = await import('../domain/retention.js');
    const select = async () => expiredSessions(await this.ctx.requireStore().sessionTimes(ns), before);
    if (opts.dryRun) {
      const { expired, undated } = await select();
      const forgotten = expired.map((e) => ({ ...e, ref: null, calls: null, skills: [] }));
      return { before: before.toISOString(), undated, dryRun: true, forgotten };
    }
    // Chosen under the lock, so a pass or a change that held it meanwhile is seen; each batch judges its sessions
    // again as it reads them, so one that became active since it was chosen (a call recorded) is kept.
    let expiry: Awaited<ReturnType<typeof select>> = { expired: [], undated: [] };
    const done = await this.forgetStored(
      ns,
      async () => {
        expiry = await select();
        return expiry.expired.map((e) => e.id);
      },
      opts.actor ?? 'retention',
      (s) => expiredSessions([sessionTimeOf(s)], before).expired.length === 1,
    );
    const at = new Map(expiry.expired.map((e) => [e.id, e.at]));
    return {
      before: before.toISOString(),
      undated: expiry.undated,
      dryRun: false,
      forgotten: done.map((d) => ({ ...d, at: at.get(d.id)! })),
    };
  }

  /**
   * Forgets the stored sessions `select` names, chosen and forgotten under one hold of the namespace's change lock
   * (renewed once a batch, so a long run keeps it), 500 to a store transaction with the namespace's statistics
   * rewritten once each (pipeline/forget.ts); those already gone, or that `still` no longer takes, are skipped.
   */
  private async forgetStored(
    ns: string,
    select: readonly string[] | (() => Promise<readonly string[]>),
    actor: string,
    still?: (s: Session) => boolean,
  ): Promise<{ id: string; ref: string; calls: number; skills: string[] }[]> {
    const { ctx } = this;
    if (typeof select !== 'function' && select.length === 0) return [];
    const store = ctx.requireStore();
    const lock = await this.lock.acquireForChange(ns, 'forget');
    if (!lock)
      throw new PassLockedError(
        `a synthesis pass is running on namespace ${ns} (or another change held it for 5 s); forget the session when it is done`,
      );
    let done: { id: string; ref: string; calls: number; skills: string[] }[];
    try {
      const storedIds = typeof select === 'function' ? await select() : select;
      const { forgetSessions } = await import('../pipeline/forget.js');
      const { thinkTools, toolWeight } = ctx.config.synthesis;
      const deps = { store, embedder: ctx.embedder, thinkTools, toolWeight };
      done = storedIds.length
        ? await forgetSessions(deps, ns, storedIds, {
            actor,
            at: () => ctx.now().toISOString(),
            renew: lock.renew,
            still,
          })
        : [];
    } finally {
      await lock();
    }
    if (done.length === 0) return [];
    await this.changes.sessionsForgotten(ns, done);
    // Only the skills named, by id: every skill with its parents cost as much as the forget itself in a large memory.
    const ids = [...new Set(done.flatMap((d) => d.skills))];
    const named = new Map(ids.length ? (await store.recallSkills(ns, ids)).map((s) => [s.id, s.name]) : []);
    return done.map(({ id, ref, calls, skills: skillIds }) => {
      const skills = skillIds.flatMap((k) => (named.has(k) ? [named.get(k)!] : []));
      ctx.log.child('forget').info('session forgotten', { ref, calls, skills });
      return { id, ref, calls, skills };
    });
  }

  // ── reading sessions ─────────────────────────────────────────────────────

  /** Stored sessions, newest first, a page at a time. */
  async listSessions(opts: { namespace?: string; limit?: number; offset?: number } = {}): Promise<Session[]> {
    return this.ctx
      .requireStore()
      .listSessions(this.ctx.ns(opts.namespace), { limit: opts.limit, offset: opts.offset });
  }

  /** The skills recalled for a stored session, in the order they were served (MemorySessions.recalled). */
  async recalledFor(storedId: string, namespace?: string): Promise<SessionRecall[]> {
    const store = this.ctx.store;
    if (!store) return [];
    return (await store.recalledForSession(this.ctx.ns(namespace), storedId)).map((r) => ({
      skill: r.name ?? r.skillId,
      similarity: Math.round(r.similarity * 10000) / 10000,
      at: r.at,
    }));
  }

  /** How many sessions are stored (0 when nothing is stored). */
  async countSessions(namespace?: string): Promise<number> {
    return (await this.ctx.store?.countSessions(this.ctx.ns(namespace))) ?? 0;
  }

  /** One stored session by its stored id (`sessionKey` of a caller's id); null when absent or nothing is stored. */
  /**
   * A stored session by its id, or by the opaque reference a SKILL.md names it by (`ses-` and 16 hex digits,
   * `parents-episodic`): found among the sources of the namespace's skills, as an exported skill's reader would
   * look it up.
   */
  async getSession(id: string, namespace?: string): Promise<Session | null> {
    const store = this.ctx.store;
    if (!store) return null;
    const ns = this.ctx.ns(namespace);
    const found = await store.getSession(ns, id);
    if (found || !SESSION_REF.test(id)) return found ?? null;
    for (const skill of await store.listSkills(ns, { includeSuperseded: true }))
      for (const source of skill.sourceSessions) if (sessionRef(source) === id) return store.getSession(ns, source);
    return null;
  }
}

const MARKED_FORMATS: readonly MarkedFormat[] = ['claude-code', 'codex', 'gemini'];
const isMarkedFormat = (f: string): f is MarkedFormat => (MARKED_FORMATS as readonly string[]).includes(f);

/** The key of a transcript format's reader among a read's resume objects. */
const readerOf = (f: MarkedFormat) => (f === 'claude-code' ? 'claudeCode' : f);

/** The checkpoint the reader of `format` gave a read (where the next read may start, and what it must know), or null. */
function checkpointOf(
  format: MarkedFormat,
  resume: { claudeCode: ClaudeCodeResume; codex: CodexResume; gemini: GeminiResume },
): { line: number; mark: MarkContext } | null {
  if (format === 'claude-code') {
    const c = resume.claudeCode.checkpoint;
    return c ? { line: c.line, mark: { format, context: c.context } } : null;
  }
  if (format === 'codex') {
    const c = resume.codex.checkpoint;
    return c ? { line: c.line, mark: { format, context: c.context } } : null;
  }
  const c = resume.gemini.checkpoint;
  return c ? { line: c.line, mark: { format, context: c.context } } : null;
}

/** How many positions a call tries before it is refused: each failed try means another writer stored a call. */
const APPEND_ATTEMPTS = 64;

/** The position after a session's last call (positions need not be dense: an ingested session may skip some). */
function nextPosition(s: Session): number {
  return s.calls.length === 0 ? 0 : s.calls[s.calls.length - 1].position + 1;
}

/** What is wrong with a session id a caller gives, or null. */
function sessionIdProblem(id: unknown): string | null {
  if (typeof id !== 'string' || !id) return 'id must be a non-empty string';
  if (id.length > 500) return `id is ${id.length} characters, over 500`;
  // A URL path cannot hold them: REST and the dashboard could never open such a session.
  if (id === '.' || id === '..') return `id ${JSON.stringify(id)} cannot name a session (no URL can address it)`;
  return null;
}

/** What is wrong with an outcome and its reward as a caller reports them, or null: one of OUTCOMES, a reward in [0,1]. */
function outcomeProblem(outcome: unknown, reward: unknown): string | null {
  if (!OUTCOMES.includes(outcome as Outcome))
    return `outcome must be one of ${OUTCOMES.join(', ')}, got ${JSON.stringify(outcome)}`;
  if (reward != null && !(typeof reward === 'number' && reward >= 0 && reward <= 1))
    return `reward must be a number in [0,1], got ${JSON.stringify(reward)}`;
  return null;
}

/** Why a session handed to `ingest` cannot be stored (over a limit), or null. */
/**
 * A call reported failed whose command answered by its exit status (`npm outdated` or `grep` exiting 1:
 * commands.ts, answeredByExit) is stored as succeeded, as a log file's is at ingest, with the exit line kept in its
 * result: recorded live or from a file, one session teaches one procedure (not "do not run `npm outdated`").
 */
function answeredAsStatus(call: ToolCall): ToolCall {
  if (answeredByExit(call) === null) return call;
  const exit = call.error ?? '';
  const result = exit && !call.result.includes(exit) ? (call.result ? `${call.result}\n${exit}` : exit) : call.result;
  return { ...call, ok: true, error: null, result };
}

function sessionProblem(s: Session, limits: { maxRecordBytes: number; maxCallsPerSession: number }): string | null {
  if (!s || typeof s !== 'object' || typeof s.id !== 'string' || !s.id || typeof s.goal !== 'string')
    return 'not a session (needs id, goal and calls)';
  const badId = sessionIdProblem(s.id);
  if (badId) return badId;
  if (typeof s.namespace !== 'string' || !s.namespace) return 'namespace must be a non-empty string';
  const wrongOutcome = outcomeProblem(s.outcome, s.reward);
  if (wrongOutcome) return wrongOutcome;
  if (typeof s.startedAt !== 'string' || !s.startedAt) return 'startedAt must be a time (an ISO 8601 string)';
  if (!Array.isArray(s.calls)) return 'calls must be an array';
  const positions = new Set<number>();
  for (const [i, c] of s.calls.entries()) {
    const wrong = toolNameProblem(c?.tool);
    if (wrong) return `calls[${i}].tool: ${wrong}`;
    const position = c.position ?? i;
    if (!Number.isInteger(position) || position < 0)
      return `calls[${i}].position: must be a whole number of 0 or more (or left out: its place in the list)`;
    if (positions.has(position)) return `calls[${i}].position: ${position} is taken by an earlier call`;
    positions.add(position);
  }
  if (s.calls.length > limits.maxCallsPerSession)
    return `${s.calls.length} calls exceed the limit of ${limits.maxCallsPerSession} per session (capture.maxCallsPerSession)`;
  // One walk bounds the whole record's depth and size. Only a record near a limit (or one the walk cannot
  // bound) is measured field by field and serialised to count its bytes exactly.
  if (jsonBytesWithin(s, limits.maxRecordBytes) >= 0) return null;
  if (exceedsDepth(s.labels)) return depthReason('labels');
  for (const c of s.calls) if (exceedsDepth(c?.args)) return depthReason(`calls[${c.position}].args`);
  const bytes = Buffer.byteLength(JSON.stringify(s));
  if (bytes > limits.maxRecordBytes) return `session is ${bytes} bytes, over the ${limits.maxRecordBytes}-byte limit`;
  return null;
}

/** The content names (start and end) a log's records gave each session read from it. */
function namesOf(parsed: PreparedCapture['parsed']): Map<Session, ContentNames | undefined> {
  return new Map(parsed.sessions.map((s, i) => [s, parsed.records[i]?.contentNames]));
}

/** A task that holds a recall after an ingest, and whether a later task of its session followed it in the log. */
interface ServedTask {
  id: string;
  followed: boolean;
  /** It, or a later task of its session, was stored or grew in this ingest. */
  news: boolean;
}

/** What ingest does with a session read from a log, given what the memory holds under its names. */
type Placement =
  | { kind: 'new'; session: Session }
  | { kind: 'grow'; session: Session }
  | { kind: 'present'; id: string }
  | { kind: 'conflict' };

/**
 * A session read from a log, against the stored sessions under its id, or, for a task named by its content, under
 * either of its names (a copy sent before the task ended was stored under its start). The same copy, or an
 * earlier one, is present. A copy further on grows the stored session, unless that one's outcome was reported
 * (a session with a reported outcome has ended). A task named by its content that matches none is new: under its
 * own id, or its end name when another task holds its start name.
 */
function placeCopy(s: Session, names: ContentNames | undefined, stored: ReadonlyMap<string, Session>): Placement {
  for (const id of names ? [s.id, names.start, names.end] : [s.id]) {
    const held = stored.get(id);
    if (!held) continue;
    const standing = copyStanding(held, s);
    if (standing === 'same' || standing === 'behind') return { kind: 'present', id };
    if (standing === 'ahead' && (held.outcome === 'unknown' || held.outcomeSource === 'judged'))
      return { kind: 'grow', session: { ...s, id } };
    // A task stored with a step missing (a line of its log could not be read: left unjudged) is made whole.
    if (standing === 'other' && held.outcome === 'unknown' && held.outcomeSource === 'judged' && fillsGaps(held, s))
      return { kind: 'grow', session: { ...s, id } };
    if (!names) return { kind: 'conflict' };
  }
  if (!names || !stored.has(s.id)) return { kind: 'new', session: s };
  return stored.has(names.end) ? { kind: 'conflict' } : { kind: 'new', session: { ...s, id: names.end } };
}

/** The opaque reference of a session, as SKILL.md files name their sources (session-ref.ts). */
const SESSION_REF = /^ses-[0-9a-f]{16}$/;
