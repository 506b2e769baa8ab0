import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, realpathSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { hostname } from 'node:os';
import { loadConfig, type SkillsmithConfig, type SkillsmithConfigInput } from './config/config.js';
import { formatContextPack } from './domain/context-pack.js';
import { redactText } from './domain/redact.js';
import type { Outcome, OutcomeSource, Session, Skill, ToolCall } from './domain/types.js';
import type { Distiller } from './distillers/distiller.js';
import type { Embedder, EmbedderThresholds } from './embedders/embedder.js';
import { createGloveEmbedder } from './embedders/glove/glove-embedder.js';
import type { IngestFormat, IngestProblem } from './capture/parse-file.js';
import type { DetectedFormat, RecordInfo } from './capture/types.js';
import type { OutcomeJudge } from './capture/judge.js';
import { protectCall, protectGoal, protectId, protectSession, resolvePrivacy } from './capture/privacy.js';
import { depthReason, exceedsDepth } from './domain/json-limits.js';
import { redactSkillMd } from './domain/skill-md/redact-skill-md.js';
import { neutraliseInstructions } from './domain/untrusted-text.js';
import { RecallIndex, type RecalledSkill } from './pipeline/recall.js';
import type { SynthesisReport } from './pipeline/synthesize.js';
import { isPostgresUrl, openStore } from './store/open-store.js';
import type { SkillEvent, Store } from './store/store.js';
import { stateKey } from './store/state-key.js';
import { newSkill } from './domain/new-skill.js';
import { createLogger, type Logger, type LogLevel } from './support/log.js';
import { EventBus, type Listener, type SkillEventType, type BusEvent } from './support/event-bus.js';
import { applySignal, parseSignal, type LifecycleRules, type Signal } from './domain/lifecycle.js';
import { seedEta } from './domain/admit.js';
import type { CompileRequest, CompileResult } from './pipeline/compile.js';
import type { Explanation } from './pipeline/explain.js';

export interface OpenMemoryOptions {
  /** SQLite file path or postgres:// URL (default ./skillsmith.db or SKILLSMITH_DB), or a ready Store. */
  db?: string | Store;
  namespace?: string;
  config?: SkillsmithConfigInput;
  embedder?: Embedder;
  distiller?: Distiller;
  logLevel?: LogLevel;
  logger?: Logger;
  /** Injected clock (tests, replays). */
  now?: () => Date;
  /** Append-only JSONL copy of the audit table (default: `<db>.audit.jsonl` beside a SQLite file; null = none). */
  auditFile?: string | null;
}

export interface IngestResult {
  file: string;
  format: string;
  inserted: number;
  skipped: number;
  problems: IngestProblem[];
  /** Whether the format was detected (`auto`) or given. */
  detected?: boolean;
  /** Sessions per detected format (`format` is `mixed` when there are several). */
  formats?: Partial<Record<DetectedFormat, number>>;
  /** Where each session was read (line, JSON path) and as what. */
  records?: RecordInfo[];
  /** What the outcome judge decided for the sessions whose source gave no outcome (null: not judged). */
  judged?: { judge: string; judged: number; success: number; failure: number; unknown: number } | null;
}

export interface ExportResult {
  dir: string;
  /** `files`: for an imported skill, how many files of its folder were written (byte for byte). */
  written: { name: string; path: string; files?: number }[];
  skipped: { name: string; reason: string }[];
}

export interface ImportResult {
  /** `version` and `files` (how many were kept); `replaces` when `force` stored a new version over an import. */
  imported: { name: string; format: string; version?: string; files?: number; replaces?: string }[];
  /** `refused`: a skill (or the whole folder) that was not imported and should have been: the exit code is 1. */
  skipped: { path: string; reason: string; refused?: boolean }[];
  /** Findings in imported files kept as written: secret-like values, instruction-like text, validation errors. */
  warnings?: { path: string; line?: number; reason: string }[];
}

/** One tool call as a caller records it. */
export interface RecordedCall {
  tool: string;
  args?: Record<string, unknown>;
  result?: unknown;
  ok?: boolean;
  error?: string | null;
  durationMs?: number | null;
}

/** A live recording of one session: record each call as it happens, then end it with an outcome. */
export interface SessionRecorder {
  readonly id: string;
  /** Recall for this session: the skills served become trials when the session ends with an outcome. */
  recall(goal?: string, opts?: { topK?: number }): Promise<RecalledSkill[]>;
  call(call: RecordedCall): Promise<void>;
  /**
   * Ends the session; with a reported success/failure outcome, each skill recalled for it gets a trial.
   * `source: 'judged'` stores an outcome the judge decided (no trial: only reported outcomes move a skill's eta).
   */
  end(outcome: Outcome, reward?: number | null, opts?: { source?: OutcomeSource }): Promise<void>;
}

export class DisabledError extends Error {
  override readonly name = 'DisabledError';
}

export class PassLockedError extends Error {
  override readonly name = 'PassLockedError';
}

/** No such session or skill (in this namespace). */
export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
}

/** The session's state forbids it: already ended with another outcome, or a call position out of order. */
export class SessionStateError extends Error {
  override readonly name = 'SessionStateError';
}

/** The procedural memory: one entry point for capture, synthesis, recall and the skill catalogue. */
export class Memory {
  readonly namespace: string;
  readonly bus: EventBus;
  private readonly recallIndexes = new Map<string, RecallIndex>();
  private lastEventId = 0;
  private background: Promise<void> | null = null;
  private rerun = false;
  private sessionsSinceAuto = 0;
  private firstUse = true;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly recallLog: Logger;
  private readonly judges = new Map<string, OutcomeJudge>();

  constructor(
    readonly store: Store | null,
    readonly config: SkillsmithConfig,
    readonly embedder: Embedder,
    private distillerInstance: Distiller | null,
    readonly log: Logger,
    private readonly now: () => Date,
    private readonly auditFile: string | null = null,
    /** Back ends openMemory created from the configuration: closed with the memory (a model file, a session). */
    private readonly owned: { close?(): Promise<void> }[] = [],
  ) {
    this.namespace = config.namespace;
    this.bus = new EventBus(log.child('events'));
    this.recallLog = log.child('recall');
    const auto = config.synthesis.auto;
    if (store && !config.disabled && auto.intervalMs > 0) {
      this.timer = setInterval(() => this.scheduleSynthesis('interval'), auto.intervalMs);
      this.timer.unref();
    }
  }

  /**
   * The configured distiller, created on first use: recording and recall never load the distillation code
   * (or a model client), which keeps the CLI's cold start short.
   */
  async distiller(): Promise<Distiller> {
    if (!this.distillerInstance) {
      const { createDistiller } = await import('./distillers/create-distiller.js');
      this.distillerInstance = await createDistiller(this.config, { log: this.log });
      this.owned.push(this.distillerInstance);
    }
    return this.distillerInstance;
  }

  /** @internal Starts event delivery after the events that exist now. */
  async init(): Promise<this> {
    if (this.store) this.lastEventId = await this.store.lastEventId();
    return this;
  }

  /** Subscribes to skill events; a listener that throws never breaks the operation that emitted. */
  on(type: SkillEventType | '*', listener: Listener): () => void {
    return this.bus.on(type, listener);
  }

  /**
   * Delivers new events to listeners and appends new audit records to the JSONL audit file. The tables are
   * the source of truth (an outbox): nothing is emitted for a write that did not commit.
   */
  private async flush(): Promise<void> {
    const store = this.store;
    if (!store) return;
    for (;;) {
      const batch = await store.events(this.namespace, { afterId: this.lastEventId, limit: 500 });
      for (const e of batch) this.bus.emit({ ...e, type: e.type as SkillEventType } as BusEvent);
      if (batch.length) this.lastEventId = batch[batch.length - 1].id;
      if (batch.length < 500) break;
    }
    if (this.auditFile) {
      const key = stateKey.auditFileMark(this.auditFile);
      let mark = Number((await store.getState('', key)) ?? 0);
      for (;;) {
        const rows = await store.auditSince(mark, 1000);
        if (rows.length === 0) break;
        appendFileSync(this.auditFile, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
        mark = rows[rows.length - 1].id!;
        await store.setState('', key, String(mark));
        if (rows.length < 1000) break;
      }
    }
  }

  get thresholds(): EmbedderThresholds {
    const t = this.embedder.thresholds;
    return {
      cluster: this.config.thresholds.cluster ?? t.cluster,
      recall: this.config.thresholds.recall ?? t.recall,
      duplicate: this.config.thresholds.duplicate ?? t.duplicate,
    };
  }

  private requireStore(): Store {
    if (!this.store) throw new DisabledError('memory is disabled (config.disabled or SKILLSMITH_DISABLED=1): nothing is stored');
    return this.store;
  }

  private ns(namespace?: string) {
    return namespace ?? this.namespace;
  }

  // ── capture ──────────────────────────────────────────────────────────────

  /**
   * Stores whole sessions; a session id already stored is left untouched
   * (idempotent). A session over the limits (calls per session, record size, nesting depth) is not stored and
   * is named in `problems`; the others are.
   */
  async ingest(sessions: Session[]): Promise<{ inserted: number; skipped: number; problems?: { index: number; sessionId: string; reason: string }[] }> {
    const problems: { index: number; sessionId: string; reason: string }[] = [];
    const policy = resolvePrivacy(this.config.capture.privacy);
    const ok: Session[] = [];
    sessions.forEach((session, index) => {
      const reason = sessionProblem(session, this.config.capture);
      if (reason) problems.push({ index, sessionId: protectId(policy, String(session?.id ?? ''), 'sid'), reason });
      // Ids, agent ids, sources and labels are keys and names shown everywhere: protected here. Goals and
      // calls are stored as the caller gives them (the deny rules must still see a secret in a span; every
      // text is redacted before it reaches evidence, a skill or an export).
      else ok.push({ ...session, id: protectId(policy, session.id, 'sid'), agentId: protectId(policy, session.agentId, 'agent'), source: protectId(policy, session.source, 'source'), labels: protectSession({ ...session, calls: [] }, policy, 0).labels });
    });
    const r = await this.requireStore().insertSessions(ok);
    this.noteNewSessions(r.inserted);
    return problems.length ? { ...r, problems } : r;
  }

  /**
   * The key a session id is stored under: unchanged, or a keyed hash when the id itself holds a secret or
   * personal data (see `protectId`). Every lookup by a caller-supplied id goes through it.
   */
  sessionKey(id: string): string {
    return protectId(this.config.capture.privacy, id, 'sid');
  }

  /**
   * Ingests a capture file (JSONL interchange, OpenAI or Anthropic messages, OTLP GenAI spans, raw tau-bench
   * results; `auto` detects per record). Capture privacy (`capture.privacy`) is applied before anything is
   * stored; sessions without an outcome are judged (`capture.judge`, or `opts.judge`) and stored as judged.
   * Bad records are reported with line, JSON path and reason; the valid ones are kept.
   */
  async ingestFile(path: string, opts: { format?: IngestFormat; namespace?: string; judge?: 'rule' | 'llm' | 'off' | OutcomeJudge } = {}): Promise<IngestResult> {
    const store = this.requireStore();
    const text = readFileSync(path, 'utf8');
    const { prepareCapture } = await import('./capture/ingest.js');
    const { parsed, judgement } = await prepareCapture(text, {
      file: path,
      namespace: this.ns(opts.namespace),
      format: opts.format ?? 'auto',
      maxRecordBytes: this.config.capture.maxRecordBytes,
      resultChars: this.config.capture.resultChars,
      maxCallsPerSession: this.config.capture.maxCallsPerSession,
      now: this.now().toISOString(),
      privacy: this.config.capture.privacy,
      judge: await this.outcomeJudge(opts.judge),
    });
    // Duplicate ids inside one file: the first wins. One that differs from the session already under its id
    // (in this file or in the store) is named: two different sessions must not hide behind one id.
    const first = new Map<string, { session: Session; line: number }>();
    const problems = [...parsed.problems];
    const unique: Session[] = [];
    parsed.sessions.forEach((s, i) => {
      const line = parsed.records[i]?.line ?? 1;
      const prior = first.get(s.id);
      if (!prior) {
        first.set(s.id, { session: s, line });
        unique.push(s);
      } else if (!sameSession(prior.session, s)) {
        problems.push({ file: path, line, reason: `session id ${s.id} was already used at line ${prior.line} by a session with different content; the first is kept` });
      }
    });
    for (const stored of await store.getSessions(this.ns(opts.namespace), unique.map((s) => s.id))) {
      const mine = first.get(stored.id);
      if (mine && !sameSession(stored, mine.session)) {
        problems.push({ file: path, line: mine.line, reason: `session id ${stored.id} is already stored with different content; the stored one is kept` });
      }
    }
    problems.sort((a, b) => a.line - b.line);
    const { inserted, skipped } = await store.insertSessions(unique);
    this.noteNewSessions(inserted);
    return {
      file: path,
      format: parsed.format,
      inserted,
      skipped: skipped + (parsed.sessions.length - unique.length),
      problems,
      detected: parsed.detected,
      formats: parsed.formats,
      records: parsed.records.map(({ finalAnswer: _f, ...r }) => r),
      judged: judgement && { judge: judgement.judge, judged: judgement.judged, success: judgement.success, failure: judgement.failure, unknown: judgement.unknown },
    };
  }

  /** The outcome judge for captured sessions without an outcome: `capture.judge`, or the mode asked for (off: none). */
  private async outcomeJudge(mode?: 'rule' | 'llm' | 'off' | OutcomeJudge): Promise<OutcomeJudge | null> {
    if (mode && typeof mode === 'object') return mode;
    const cfg = mode ? { ...this.config.capture.judge, mode } : this.config.capture.judge;
    if (cfg.mode === 'off') return null;
    // One judge per mode for the memory's lifetime: a local model is loaded once, and closed with the memory.
    let judge = this.judges.get(cfg.mode);
    if (!judge) {
      const { createJudge } = await import('./capture/judge.js');
      judge = createJudge(cfg, this.config.llm, { log: this.log.child('judge') });
      this.judges.set(cfg.mode, judge);
      this.owned.push(judge);
    }
    return judge;
  }

  /** Opens a live session; every call is stored as it happens (crash-safe), idempotent by position. */
  /** `cue`: the user's own words when `goal` is something else (a ticket title, a task statement). */
  async startSession(opts: { goal: string; cue?: string; id?: string; agentId?: string; source?: string; namespace?: string }): Promise<SessionRecorder> {
    const store = this.requireStore();
    if (!opts.goal?.trim()) throw new RangeError('startSession: goal must be a non-empty string');
    const privacy = this.config.capture.privacy;
    const limits = this.config.capture;
    if (opts.goal.length > limits.maxRecordBytes) throw new RangeError(`startSession: goal is ${opts.goal.length} characters, over the ${limits.maxRecordBytes} limit`);
    // Ids, agent ids and sources are stored as keys: one that holds a secret or personal data becomes a keyed hash.
    const id = opts.id ? this.sessionKey(opts.id) : `s_${randomUUID()}`;
    const namespace = this.ns(opts.namespace);
    await store.beginSession({
      id,
      namespace,
      goal: protectGoal(privacy, opts.goal),
      cue: opts.cue?.trim() && opts.cue.trim() !== opts.goal.trim() ? protectGoal(privacy, opts.cue.trim()) : null,
      outcome: 'unknown',
      reward: null,
      agentId: protectId(privacy, opts.agentId ?? null, 'agent'),
      source: protectId(privacy, opts.source ?? 'library', 'source'),
      startedAt: this.now().toISOString(),
      endedAt: null,
      labels: null,
    });
    const existing = await store.getSession(namespace, id);
    // Re-opening a live session (a restarted agent) continues it; an ended one has its outcome and stays closed.
    if (existing?.endedAt) throw new SessionStateError(`session ${id} already ended (${existing.outcome}); start a new session`);
    let position = existing?.calls.length ?? 0;
    let ended = false;
    this.noteFirstUse();
    return {
      id,
      recall: (goal, o = {}) => this.recall(goal ?? opts.goal, { topK: o.topK, namespace, sessionId: id }),
      call: async (c) => {
        if (ended) throw new Error(`session ${id} already ended; record into a new session`);
        const call = this.prepareCall(id, c, position);
        position++;
        await store.appendCall(namespace, id, call);
      },
      end: async (outcome, reward = null, o = {}) => {
        if (reward != null && (reward < 0 || reward > 1)) throw new Error('end: reward must be in [0,1]');
        // Once: a second end would flip the outcome after the recalled skills were credited.
        if (ended) throw new Error(`session ${id} already ended; an outcome is reported once`);
        ended = true;
        const source = o.source ?? 'reported';
        await store.endSession(namespace, id, outcome, reward, this.now().toISOString(), source);
        // Only a reported outcome is a trial of the skills recalled for the session; a judged one waits for the truth.
        if (source === 'reported') await this.creditRecalledSkills(id, outcome, namespace);
        this.noteNewSessions(1);
      },
    };
  }

  /** Validates one call against the capture limits and applies capture privacy: what `appendCall` stores. */
  private prepareCall(sessionId: string, c: RecordedCall, position: number): ToolCall {
    const limits = this.config.capture;
    if (!c.tool) throw new RangeError('call: tool must be a non-empty string');
    // Bounded: a call is refused with its reason (never stored in part, never a crash).
    if (position >= limits.maxCallsPerSession) throw new RangeError(`call: session ${sessionId} already has ${limits.maxCallsPerSession} calls, the limit per session (capture.maxCallsPerSession)`);
    if (exceedsDepth(c.args)) throw new RangeError(`call: ${depthReason('args')}`);
    if (exceedsDepth(c.result)) throw new RangeError(`call: ${depthReason('result')}`);
    const result = c.result == null ? '' : typeof c.result === 'string' ? c.result : JSON.stringify(c.result);
    const bytes = Buffer.byteLength(result) + Buffer.byteLength(JSON.stringify(c.args ?? {})) + Buffer.byteLength(c.error ?? '');
    if (bytes > limits.maxRecordBytes) throw new RangeError(`call: ${bytes} bytes of arguments, result and error, over the ${limits.maxRecordBytes}-byte limit (capture.maxRecordBytes)`);
    // Capture privacy (capture.privacy) before anything is stored; the result is capped after redaction.
    return protectCall(
      limits.privacy,
      { position, tool: c.tool, args: c.args ?? {}, result, ok: c.ok ?? !c.error, error: c.error ?? null, durationMs: c.durationMs ?? null, at: this.now().toISOString() },
      limits.resultChars,
    );
  }

  /**
   * Records one call of a stored, still open session at a given position (for surfaces that hold no
   * recorder between requests, such as REST). Idempotent: a position already recorded is a no-op
   * (`recorded: false`); without a position the call goes after the last one; a position past the next
   * one is refused (a call went missing).
   */
  async recordCall(sessionId: string, c: RecordedCall & { position?: number }, opts: { namespace?: string } = {}): Promise<{ sessionId: string; position: number; recorded: boolean }> {
    const store = this.requireStore();
    const ns = this.ns(opts.namespace);
    const id = this.sessionKey(sessionId);
    const session = await store.getSession(ns, id);
    if (!session) throw new NotFoundError(`no session "${sessionId}" in namespace ${ns}: start it first`);
    const next = session.calls.length;
    const position = c.position ?? next;
    if (position < next) return { sessionId: id, position, recorded: false };
    if (session.endedAt) throw new SessionStateError(`session ${id} already ended (${session.outcome}); record into a new session`);
    if (position > next) throw new SessionStateError(`call position ${position} skips ahead: session ${id} has ${next} calls, so the next position is ${next}`);
    await store.appendCall(ns, id, this.prepareCall(id, c, position));
    return { sessionId: id, position, recorded: true };
  }

  // ── forgetting ───────────────────────────────────────────────────────────

  /**
   * Forgets a session: its goal, calls, results, cluster membership, recalls and cached goal embeddings are
   * deleted; a skill learned from it keeps its row and says a parent was forgotten (explain's
   * `parents.forgotten`); an audit record names it only by its opaque reference. Waits for no pass: while one
   * runs on the namespace it is refused (PassLockedError), since the pass could write the session back into
   * a skill's lineage. Null when there is no such session.
   */
  async forgetSession(sessionId: string, opts: { namespace?: string; actor?: string } = {}): Promise<{ ref: string; calls: number; skills: string[] } | null> {
    const store = this.requireStore();
    const ns = this.ns(opts.namespace);
    const release = await store.tryLock(`synthesis:${ns}`, `${hostname()}:${process.pid}:forget:${randomUUID()}`, 60_000);
    if (!release) throw new PassLockedError(`a synthesis pass is running on namespace ${ns}; forget the session when it is done`);
    let result;
    try {
      const { forgetSession } = await import('./pipeline/forget.js');
      result = await forgetSession({ store, embedder: this.embedder, thinkTools: this.config.synthesis.thinkTools }, ns, this.sessionKey(sessionId), {
        actor: opts.actor ?? 'user',
        at: this.now().toISOString(),
      });
    } finally {
      await release();
    }
    if (!result) return null;
    this.recallIndex(opts.namespace).invalidate();
    await this.flush();
    const names = result.skills.length ? (await store.listSkills(ns, { includeSuperseded: true })).filter((s) => result.skills.includes(s.id)).map((s) => s.name) : [];
    this.log.child('forget').info('session forgotten', { ref: result.ref, calls: result.calls, skills: names });
    return { ref: result.ref, calls: result.calls, skills: names };
  }

  /**
   * Forgets a skill: its row, SKILL.md versions, provenance, track record, vectors and exemplars are deleted and
   * it is never recalled again; an audit record keeps its id and name. Null when there is no such skill.
   */
  async forgetSkill(idOrName: string, opts: { namespace?: string; actor?: string } = {}): Promise<{ id: string; name: string } | null> {
    const store = this.requireStore();
    const res = await store.forgetSkill(this.ns(opts.namespace), idOrName, { actor: opts.actor ?? 'user', at: this.now().toISOString() });
    if (!res) return null;
    this.recallIndex(opts.namespace).invalidate();
    await this.flush();
    this.log.child('forget').info('skill forgotten', res);
    return res;
  }

  // ── synthesis ────────────────────────────────────────────────────────────

  async synthesize(opts: { dryRun?: boolean; namespace?: string; onProgress?: (phase: 'cluster' | 'distil', done: number, total: number) => void } = {}): Promise<SynthesisReport> {
    if (this.config.disabled || !this.store) {
      this.log.child('pass').info('memory disabled: synthesis skipped');
      return { created: [], updated: [], reinforced: [], superseded: [], skipped: [], stats: { newSessions: 0, clusters: 0, dirtyClusters: 0, distilled: 0, dryRun: !!opts.dryRun, ms: 0 } };
    }
    const ns = this.ns(opts.namespace);
    // One pass at a time per namespace, across processes and hosts (a dry run writes nothing and needs no lock).
    const release = opts.dryRun ? null : await this.store.tryLock(`synthesis:${ns}`, `${hostname()}:${process.pid}:${randomUUID()}`, 10 * 60_000);
    if (!opts.dryRun && !release) {
      throw new PassLockedError(`another synthesis pass is running on namespace ${ns}; this one was not started (try again when it is done)`);
    }
    let report: SynthesisReport;
    try {
      const { synthesize } = await import('./pipeline/synthesize.js');
      report = await synthesize(
        { store: this.store, embedder: this.embedder, distiller: await this.distiller(), config: this.config, thresholds: this.thresholds, now: this.now, log: this.log },
        { namespace: ns, dryRun: opts.dryRun, onProgress: opts.onProgress },
      );
    } finally {
      await release?.();
    }
    this.recallIndex(opts.namespace).invalidate();
    await this.flush();
    return report;
  }

  /** Runs a pass in the background (never awaited by recording or recall); one at a time per memory. */
  private scheduleSynthesis(reason: string): void {
    if (this.closed || !this.store || this.config.disabled) return;
    if (this.background) {
      this.rerun = true;
      return;
    }
    this.sessionsSinceAuto = 0;
    this.background = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.synthesize())
      .then(
        (r) => this.log.child('pass').info('background pass done', { reason, created: r.created.length, ms: r.stats.ms }),
        (e) => this.log.child('pass').error('background pass failed', { reason, error: String(e) }),
      )
      .finally(() => {
        this.background = null;
        if (this.rerun) {
          this.rerun = false;
          this.scheduleSynthesis('rerun');
        }
      });
  }

  private noteNewSessions(n: number) {
    const after = this.config.synthesis.auto.afterSessions;
    if (n <= 0 || after <= 0) return;
    this.sessionsSinceAuto += n;
    if (this.sessionsSinceAuto >= after) this.scheduleSynthesis(`${this.sessionsSinceAuto} new sessions`);
  }

  private noteFirstUse() {
    if (!this.firstUse) return;
    this.firstUse = false;
    if (this.config.synthesis.auto.onFirstUse) this.scheduleSynthesis('first use');
  }

  /** Resolves when no background pass is running (tests, graceful shutdown). */
  async idle(): Promise<void> {
    while (this.background) await this.background;
  }

  // ── recall ───────────────────────────────────────────────────────────────

  private recallIndex(namespace?: string): RecallIndex {
    const ns = this.ns(namespace);
    let idx = this.recallIndexes.get(ns);
    if (!idx) this.recallIndexes.set(ns, (idx = new RecallIndex(this.requireStore(), this.embedder, ns, this.config, this.recallLog)));
    return idx;
  }

  /** Goal in, at most topK skills out, best first. No match returns [] and changes nothing. */
  async recall(goal: string, opts: { topK?: number; namespace?: string; sessionId?: string; record?: boolean } = {}): Promise<RecalledSkill[]> {
    if (typeof goal !== 'string') throw new TypeError('recall: goal must be a string');
    if (goal.length > MAX_TEXT_CHARS) throw new Error(`recall: goal is ${goal.length} characters, over the ${MAX_TEXT_CHARS} limit`);
    if (this.config.disabled || !this.store) return [];
    this.noteFirstUse();
    // record: false looks without leaving a trace (no recall row, last_used_at untouched): previews, searches.
    const hits = await this.recallIndex(opts.namespace).recall(goal, {
      topK: opts.topK,
      threshold: this.thresholds.recall,
      now: this.now(),
      sessionId: opts.sessionId && this.sessionKey(opts.sessionId),
      touch: opts.record !== false,
    });
    this.recallLog.debug('recall', { served: hits.map((h) => h.name), session: opts.sessionId ?? null });
    return hits;
  }

  // ── lifecycle ────────────────────────────────────────────────────────────

  /** Applies one feedback signal (pass | fail | up | down | reward=<0..1>) to a skill. */
  async feedback(idOrName: string, signal: Signal | string, opts: { sessionId?: string; namespace?: string; actor?: string } = {}) {
    const store = this.requireStore();
    const sig = typeof signal === 'string' ? parseSignal(signal) : signal;
    if (opts.sessionId) opts = { ...opts, sessionId: this.sessionKey(opts.sessionId) };
    const res = await store.applyFeedback({
      namespace: this.ns(opts.namespace),
      idOrName,
      signal: sig.kind,
      value: sig.kind === 'reward' ? sig.value : null,
      sessionId: opts.sessionId ?? null,
      actor: opts.actor ?? 'user',
      at: this.now().toISOString(),
      compute: (s) => lifecycleStep(s, sig, this.config.lifecycle),
    });
    if (!res) throw new Error(`no skill named "${idOrName}" in namespace ${this.ns(opts.namespace)}`);
    this.log.child('lifecycle').info('feedback', { skill: res.after.name, signal: sig.kind, eta: res.after.eta, status: res.after.status });
    this.recallIndex(opts.namespace).invalidate();
    await this.flush();
    return res;
  }

  /**
   * Reports a session's outcome (now or later): it is stored, and each skill recalled for the session gets one
   * trial (pass on success, fail on failure). An unknown outcome changes nothing.
   */
  async reportOutcome(sessionId: string, outcome: Outcome, opts: { reward?: number | null; namespace?: string } = {}): Promise<{ credited: string[] }> {
    const store = this.requireStore();
    const ns = this.ns(opts.namespace);
    sessionId = this.sessionKey(sessionId);
    const session = await store.getSession(ns, sessionId);
    if (!session) throw new NotFoundError(`no session ${sessionId} in namespace ${ns}`);
    // A reported outcome is final: the same report again is a no-op; a different one is refused (it would
    // flip the outcome after the recalled skills were credited). A judged or unknown outcome may be replaced.
    if (session.endedAt && session.outcome !== 'unknown' && (session.outcomeSource ?? 'reported') === 'reported') {
      if (session.outcome === outcome) return { credited: [] };
      throw new SessionStateError(`session ${sessionId} already ended as ${session.outcome}; a reported outcome is not changed`);
    }
    // A reported outcome replaces a judged one (outcome_source becomes 'reported').
    await store.endSession(ns, sessionId, outcome, opts.reward ?? session.reward, session.endedAt ?? this.now().toISOString(), 'reported');
    if (!session.endedAt) this.noteNewSessions(1);
    return { credited: await this.creditRecalledSkills(sessionId, outcome, ns) };
  }

  private async creditRecalledSkills(sessionId: string, outcome: Outcome, namespace: string): Promise<string[]> {
    if (outcome === 'unknown') return [];
    const store = this.requireStore();
    const sig: Signal = { kind: outcome === 'success' ? 'trial.pass' : 'trial.fail' };
    const credited: string[] = [];
    for (const skillId of await store.skillsServedForSession(namespace, sessionId)) {
      const res = await store.applyFeedback({
        namespace,
        idOrName: skillId,
        signal: sig.kind,
        value: null,
        sessionId,
        actor: 'outcome',
        at: this.now().toISOString(),
        compute: (s) => lifecycleStep(s, sig, this.config.lifecycle),
        oncePerSession: true,
      });
      if (res) credited.push(res.after.name);
    }
    if (credited.length) {
      this.recallIndex(namespace).invalidate();
      await this.flush();
    }
    return credited;
  }

  /** Explicit compile from session ids, a cue or facts: a dry run unless `commit`. Same pathway as the pass. */
  async compile(req: Omit<CompileRequest, 'namespace'> & { namespace?: string }): Promise<CompileResult> {
    const store = this.requireStore();
    const { compile } = await import('./pipeline/compile.js');
    const result = await compile(
      { store, embedder: this.embedder, distiller: await this.distiller(), config: this.config, thresholds: this.thresholds, now: this.now, log: this.log },
      { ...req, sessions: req.sessions?.map((id) => this.sessionKey(id)), namespace: this.ns(req.namespace) },
    );
    if (req.commit) {
      this.recallIndex(req.namespace).invalidate();
      await this.flush();
    }
    return result;
  }

  /** Why a skill exists: parents, facts, versions, supersede chain, trials, eta and utility over time. */
  async explain(idOrName: string, namespace?: string): Promise<Explanation | null> {
    const { explainSkill } = await import('./pipeline/explain.js');
    return explainSkill(this.requireStore(), this.ns(namespace), idOrName);
  }

  /** Records a fact (semantic memory) that can be a parent of a compiled skill. */
  async addFact(text: string, opts: { id?: string; source?: string; namespace?: string } = {}): Promise<{ id: string }> {
    if (typeof text !== 'string' || !text.trim()) throw new Error('addFact: text must be a non-empty string');
    if (text.length > MAX_TEXT_CHARS) throw new Error(`addFact: text is ${text.length} characters, over the ${MAX_TEXT_CHARS} limit`);
    const id = opts.id ?? `f_${randomUUID()}`;
    const privacy = this.config.capture.privacy;
    await this.requireStore().addFact({ id, namespace: this.ns(opts.namespace), text: redactText(text), source: protectId(privacy, opts.source ?? null, 'source'), createdAt: this.now().toISOString() });
    return { id };
  }

  /** The prompt block for recalled skills (When / Do / Done, clipped; never raw YAML). */
  formatContext(skills: RecalledSkill[]): string {
    return formatContextPack(skills, this.config.recall.maxBodyChars);
  }

  /** Union of the recalled skills' tools, for callers that load tools per turn. */
  toolsFor(skills: RecalledSkill[]): string[] {
    return [...new Set(skills.flatMap((s) => s.toolsRequired))];
  }

  // ── skills ───────────────────────────────────────────────────────────────

  async listSkills(opts: { namespace?: string; corpus?: 'internal' | 'external'; includeSuperseded?: boolean } = {}): Promise<Skill[]> {
    return this.requireStore().listSkills(this.ns(opts.namespace), { corpus: opts.corpus, includeSuperseded: opts.includeSuperseded });
  }

  async getSkill(idOrName: string, namespace?: string): Promise<Skill | null> {
    return this.requireStore().getSkill(this.ns(namespace), idOrName);
  }

  async setEnabled(idOrName: string, enabled: boolean, opts: { namespace?: string; actor?: string } = {}): Promise<Skill | null> {
    const s = await this.requireStore().setSkillEnabled(this.ns(opts.namespace), idOrName, enabled, opts.actor ?? 'user');
    this.recallIndex(opts.namespace).invalidate();
    await this.flush();
    return s;
  }

  /** Writes `<dir>/<name>/SKILL.md` for each live skill (internal by default). Export is always explicit. */
  async exportSkills(dir: string, opts: { namespace?: string; names?: string[]; includeExternal?: boolean } = {}): Promise<ExportResult> {
    const root = resolve(dir);
    const rendered = await this.renderSkillFiles(opts);
    const result: ExportResult = { dir: root, written: [], skipped: rendered.skipped };
    const { writeSkillFolder } = await import('./skill-files/skill-folder.js');
    for (const { skill: s, text } of rendered.files) {
      // An imported skill goes out as it came in: its stored folder, byte for byte. A learned one is its
      // SKILL.md. Never through a symlink: a link planted in the output folder (for the skill folder, a
      // subfolder or a file) would make export overwrite a file elsewhere.
      const stored = s.corpus === 'external' ? await this.requireStore().skillFiles(s.id, s.version) : [];
      const files = stored.length ? stored : [{ path: 'SKILL.md', bytes: Buffer.from(text, 'utf8') }];
      const folder = join(root, s.name);
      const path = join(folder, 'SKILL.md');
      const refused = writeSkillFolder(folder, files);
      if (refused) {
        result.skipped.push({ name: s.name, reason: refused });
        continue;
      }
      result.written.push({ name: s.name, path, ...(stored.length ? { files: stored.length } : {}) });
      await this.requireStore().appendEvent(s.namespace, 'skill.exported', s.id, { name: s.name, path }, this.now().toISOString());
    }
    await this.flush();
    return result;
  }

  /**
   * The exported SKILL.md texts of the live skills (internal by default), redacted and validated, without
   * writing anything: what `exportSkills` writes, and what a read-only surface (a download) serves.
   */
  async renderSkillFiles(opts: { namespace?: string; names?: string[]; includeExternal?: boolean } = {}): Promise<{ files: { skill: Skill; text: string }[]; skipped: { name: string; reason: string }[] }> {
    const skills = (await this.listSkills({ namespace: opts.namespace })).filter(
      (s) => (opts.includeExternal || s.corpus === 'internal') && (!opts.names || opts.names.includes(s.name)),
    );
    const out: { files: { skill: Skill; text: string }[]; skipped: { name: string; reason: string }[] } = { files: [], skipped: [] };
    const { validateSkillMd, validateSkillName } = await import('./domain/skill-md/index.js');
    for (const s of skills) {
      // The name becomes a directory: only a valid skill name may, so nothing escapes `dir`.
      const problems = validateSkillName(s.name);
      if (problems.length) {
        out.skipped.push({ name: s.name, reason: problems.join('; ') });
        continue;
      }
      const text = redactSkillMd(s.skillMd, redactText);
      const check = validateSkillMd(text, { dirName: s.name });
      if (!check.valid) {
        out.skipped.push({ name: s.name, reason: check.errors.join('; ') });
        continue;
      }
      out.files.push({ skill: s, text });
    }
    return out;
  }

  /**
   * Reads skill folders written by other systems into the external corpus: listed and exported, never
   * recalled until a person promotes them. Every folder holding a SKILL.md below `dir` is read (dot-folders
   * too), whole: its files are kept byte for byte and exported as they came. The recallable copy (the row's
   * SKILL.md) is the canonical form with secrets redacted and instructions neutralised, its licence as
   * written (none invented); what that changed, and what does not validate, is reported as warnings, the files
   * themselves are never rewritten. A different skill under a name already imported is refused unless
   * `force`, which stores it as the next version of that skill (lineage in its versions).
   */
  async importSkills(dir: string, opts: { namespace?: string; actor?: string; force?: boolean } = {}): Promise<ImportResult> {
    const store = this.requireStore();
    const ns = this.ns(opts.namespace);
    const result: ImportResult = { imported: [], skipped: [], warnings: [] };
    const { parseSkillMd, serializeSkillMd, toCanonicalDoc, validateSkillMd } = await import('./domain/skill-md/index.js');
    const { findSkillFolders, readSkillFolder } = await import('./skill-files/skill-folder.js');
    const { scanSkillFiles } = await import('./skill-files/scan.js');
    const { hasInstructions } = await import('./domain/untrusted-text.js');
    const root = resolve(dir);
    if (!existsSync(root)) throw new Error(`import: ${root} does not exist`);
    const realRoot = realpathSync(root);
    const found = findSkillFolders(root);
    for (const s of found.skipped) result.skipped.push({ path: s.path, reason: s.reason, refused: s.refused ?? false });
    const seenNames = new Map<string, string>();
    for (const folder of found.folders) {
      const file = join(folder, 'SKILL.md');
      // A skill folder must stay inside the import root (no symlink leads out of it).
      const real = realpathSync(file);
      if (real !== realRoot && !real.startsWith(realRoot + sep)) {
        result.skipped.push({ path: file, reason: `refused: a symlink leads out of ${root} (to ${real})`, refused: true });
        continue;
      }
      let read: ReturnType<typeof readSkillFolder>;
      try {
        read = readSkillFolder(folder);
      } catch (e) {
        result.skipped.push({ path: file, reason: (e as Error).message, refused: true });
        continue;
      }
      for (const s of read.skipped) result.skipped.push({ path: join(folder, s.path), reason: s.reason, refused: false });
      const original = read.files.find((f) => f.path === 'SKILL.md')!.bytes.toString('utf8');
      const parsed = parseSkillMd(original);
      const doc = toCanonicalDoc(parsed, { license: parsed.license ?? '' });
      const warn = (reason: string, path = file, line?: number) => result.warnings!.push({ path, ...(line ? { line } : {}), reason });
      // The folder as written is checked, never changed: what does not validate is reported.
      const asWritten = validateSkillMd(original, { dirName: folder.split(sep).pop() });
      for (const err of asWritten.errors) warn(`does not validate as written (kept as is): ${err}`);
      for (const f of scanSkillFiles(read.files, { redact: redactText, hasInstructions: (t) => hasInstructions(t, { source: 'skill' }) })) {
        warn(f.reason, join(folder, ...f.path.split('/')), f.line);
      }
      // The copy that can be recalled once promoted: untrusted text, so secrets redacted and instruction-like
      // sentences neutralised in every value and in the body.
      const text = redactSkillMd(serializeSkillMd(doc), (t) => neutraliseInstructions(redactText(t), { source: 'skill' }));
      const check = validateSkillMd(text);
      if (!check.valid) {
        result.skipped.push({ path: file, reason: check.errors.join('; '), refused: true });
        continue;
      }
      // Two folders whose names sanitise to one skill name: the first wins, the second is named.
      const first = seenNames.get(doc.name);
      if (first) {
        result.skipped.push({ path: file, reason: `same skill name "${doc.name}" as ${first}: rename one of them`, refused: true });
        continue;
      }
      seenNames.set(doc.name, file);
      const existing = (await store.listSkills(ns, { corpus: 'external' })).find((s) => s.name === doc.name);
      const priorFiles = existing ? await store.skillFiles(existing.id, existing.version) : [];
      if (existing && existing.skillMd === text && sameFiles(priorFiles, read.files)) {
        result.skipped.push({ path: file, reason: `already imported as ${doc.name}`, refused: false });
        continue;
      }
      if (existing && !opts.force) {
        result.skipped.push({
          path: file,
          reason: `refused: a different skill named ${doc.name} is already imported (version ${existing.version}); import with --force to store this one as its next version`,
          refused: true,
        });
        continue;
      }
      const promoted = (await store.listSkills(ns, { corpus: 'internal' })).find((s) => s.name === doc.name && s.skillMd === text);
      if (promoted) {
        result.skipped.push({ path: file, reason: `already promoted as ${doc.name}`, refused: false });
        continue;
      }
      const [embedding] = await this.embedder.embed([doc.description]);
      const at = this.now().toISOString();
      const reparsed = parseSkillMd(text);
      const tools = reparsed.toolsRequired;
      const declared = doc.metadata.version ?? '1.0.0';
      const version = existing ? nextVersion(existing.version, declared, (await store.skillVersions(existing.id)).map((v) => v.version)) : declared;
      const skill: Skill = newSkill(at, {
        id: existing?.id,
        namespace: ns,
        name: doc.name,
        description: doc.description,
        skillMd: text,
        body: reparsed.body,
        version,
        kind: reparsed.kind ?? (tools.length ? 'playbook' : 'heuristic'),
        corpus: 'external',
        toolsRequired: tools,
        toolSequence: tools,
        embedderId: this.embedder.id,
        embedding,
        createdAt: existing?.createdAt,
      });
      const detail = { from: file, format: parsed.format, warnings: parsed.warnings, files: read.files.length, ...(existing ? { replaces: existing.version } : {}) };
      await store.writeSkill({ action: 'import', skill, parents: [], actor: opts.actor ?? 'user', detail, files: read.files, at });
      result.imported.push({ name: doc.name, format: parsed.format, version, files: read.files.length, ...(existing ? { replaces: existing.version } : {}) });
    }
    if (found.folders.length === 0) result.skipped.push({ path: root, reason: 'no SKILL.md found in this folder or any folder below it', refused: true });
    await this.flush();
    return result;
  }

  /** A person promotes an imported skill into the internal corpus: from then on it can be recalled. */
  async promote(name: string, opts: { namespace?: string; actor?: string } = {}): Promise<Skill> {
    const store = this.requireStore();
    const ns = this.ns(opts.namespace);
    const ext = (await store.listSkills(ns, { corpus: 'external' })).find((s) => s.name === name || s.id === name);
    if (!ext) throw new Error(`promote: no imported skill named ${name} in namespace ${ns}`);
    const clash = (await store.listSkills(ns, { corpus: 'internal' })).find((s) => s.name === ext.name);
    if (clash) throw new Error(`promote: an internal skill named ${ext.name} already exists (${clash.id}); rename or disable one first`);
    const at = this.now().toISOString();
    const saved = await store.writeSkill({ action: 'promote', skill: { ...ext, corpus: 'internal', updatedAt: at }, parents: [], actor: opts.actor ?? 'user', detail: {}, at });
    this.recallIndex(opts.namespace).invalidate();
    await this.flush();
    return saved;
  }

  async events(opts: { namespace?: string; afterId?: number; limit?: number } = {}): Promise<SkillEvent[]> {
    return this.requireStore().events(this.ns(opts.namespace), opts);
  }

  /**
   * Writes each recall index whose file is behind the changes it applied, so the next process need not apply
   * them again (done on close; a long-lived process may call it when idle).
   */
  async flushIndexes(): Promise<void> {
    for (const idx of this.recallIndexes.values()) idx.persist();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.idle();
    await this.flush().catch((e) => this.log.warn('final flush failed', { error: String(e) }));
    await this.flushIndexes();
    await this.store?.close();
    for (const backEnd of this.owned.splice(0)) await backEnd.close?.().catch((e) => this.log.warn('closing a model back end failed', { error: String(e) }));
  }
}

/** Opens the memory on the embedded defaults unless told otherwise: SQLite file, GloVe embedder, heuristic distiller. */
export async function openMemory(opts: OpenMemoryOptions = {}): Promise<Memory> {
  const config = loadConfig({ ...(opts.config ?? {}), ...(opts.namespace ? { namespace: opts.namespace } : {}) });
  const log = opts.logger ?? createLogger(opts.logLevel ?? config.logLevel);
  // Chosen by configuration, never swapped silently (SPEC "Distil", "Back ends").
  const owned: { close?(): Promise<void> }[] = [];
  const embedder =
    opts.embedder ??
    (config.disabled || config.embedder.provider === 'glove' ? createGloveEmbedder() : own(await (await import('./embedders/create-embedder.js')).createEmbedder(config)));
  // A misconfigured distiller fails here, loudly, rather than at the first pass.
  const distiller = opts.distiller ?? (config.distiller === 'heuristic' ? null : own(await (await import('./distillers/create-distiller.js')).createDistiller(config, { log })));
  let store: Store | null = null;
  let auditFile: string | null = opts.auditFile ?? null;
  if (!config.disabled) {
    const path = typeof opts.db === 'object' ? null : (opts.db ?? process.env.SKILLSMITH_DB ?? './skillsmith.db');
    store = typeof opts.db === 'object' ? opts.db : await openStore(path!, { postgres: { log: log.child('store') } });
    // The JSONL audit copy sits beside a SQLite file; a shared PostgreSQL memory keeps its audit table only.
    if (opts.auditFile === undefined && path && path !== ':memory:' && !isPostgresUrl(path)) auditFile = `${path}.audit.jsonl`;
  }
  return new Memory(store, config, embedder, distiller, log, opts.now ?? (() => new Date()), auditFile, owned).init();

  function own<T extends { close?(): Promise<void> }>(backEnd: T): T {
    owned.push(backEnd);
    return backEnd;
  }
}

/** One lifecycle step of a stored skill: trials update the Beta prior its evidence gave it (seedEta). */
function lifecycleStep(s: Skill, sig: Signal, rules: LifecycleRules) {
  const { prior: _prior, ...next } = applySignal({ ...s, prior: seedEta(s.successCount, s.attemptCount) }, sig, rules);
  return next;
}

/** Why a session handed to `ingest` cannot be stored (over a limit), or null. */
function sessionProblem(s: Session, limits: { maxRecordBytes: number; maxCallsPerSession: number }): string | null {
  if (!s || typeof s !== 'object' || typeof s.id !== 'string' || !s.id || typeof s.goal !== 'string') return 'not a session (needs id, goal and calls)';
  if (s.id.length > 500) return `id is ${s.id.length} characters, over 500`;
  if (!Array.isArray(s.calls)) return 'calls must be an array';
  if (s.calls.length > limits.maxCallsPerSession) return `${s.calls.length} calls exceed the limit of ${limits.maxCallsPerSession} per session`;
  if (exceedsDepth(s.labels)) return depthReason('labels');
  for (const c of s.calls) if (exceedsDepth(c?.args)) return depthReason(`calls[${c.position}].args`);
  const bytes = Buffer.byteLength(JSON.stringify(s));
  if (bytes > limits.maxRecordBytes) return `session is ${bytes} bytes, over the ${limits.maxRecordBytes}-byte limit`;
  return null;
}

/** Longest fact or recall goal accepted (a goal of a recorded session is bounded by capture.maxRecordBytes). */
const MAX_TEXT_CHARS = 64 * 1024;

/** The same files, byte for byte. */
function sameFiles(a: { path: string; bytes: Buffer }[], b: { path: string; bytes: Buffer }[]): boolean {
  if (a.length !== b.length) return false;
  const byPath = new Map(a.map((f) => [f.path, f.bytes]));
  return b.every((f) => byPath.get(f.path)?.equals(f.bytes) === true);
}

/** The version for a forced re-import: the file's own when it is new for this skill, else the next patch. */
function nextVersion(current: string, declared: string, taken: string[]): string {
  if (!taken.includes(declared) && declared !== current) return declared;
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(current);
  const [maj, min] = m ? [Number(m[1]), Number(m[2])] : [1, 0];
  let pat = m ? Number(m[3]) : 0;
  let v: string;
  do v = `${maj}.${min}.${++pat}`;
  while (taken.includes(v));
  return v;
}

/** Same goal and the same tool calls: a re-ingested copy rather than another session under the same id. */
function sameSession(a: Session, b: Session): boolean {
  if (a.goal !== b.goal || a.calls.length !== b.calls.length) return false;
  return a.calls.every((c, i) => c.tool === b.calls[i].tool && c.ok === b.calls[i].ok);
}
