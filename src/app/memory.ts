import type { SkillsmithConfig } from '../config/config.js';
import type { DryRunResult } from '../capture/ingest.js';
import type { LogLines, LogStream } from '../capture/read-log.js';
import type { Fact, Outcome, Session, Skill } from '../domain/types.js';
import type { Distiller } from '../distillers/distiller.js';
import type { Embedder, EmbedderThresholds } from '../embedders/embedder.js';
import type { Signal } from '../domain/lifecycle.js';
import type { CompileRequest, CompileResult } from '../pipeline/compile.js';
import type { SkillDiff } from '../pipeline/diff.js';
import type { Explanation } from '../pipeline/explain.js';
import type { NearestSkill, RecalledSkill } from '../pipeline/recall.js';
import type { LookAlike } from '../pipeline/stages/look-alike.js';
import type { SynthesisReport } from '../pipeline/synthesize.js';
import type { SkillEvent, Store } from '../store/store.js';
import type { EventBus, Listener, SkillEventType } from '../support/event-bus.js';
import type { Logger } from '../support/log.js';
import type { Capture } from './capture.js';
import type { StartSessionOptions } from '../capture/types.js';
import type { Catalog, EditResult, FeedbackOptions } from './catalog.js';
import type { RecallIndexes } from './recall-indexes.js';
import type { AppContext } from './context.js';
import type { Outbox } from './outbox.js';
import type { SkillFiles } from './skill-files.js';
import type { Synthesis, SynthesisProgress } from './synthesis.js';
import type {
  ExportResult,
  ImportResult,
  IngestResult,
  IngestTextOptions,
  RecallOptions,
  RecordedCall,
  RetentionResult,
  SessionRecall,
  SessionRecorder,
} from './types.js';

/** The services of one memory, each with one job; built by the composition root (`openMemory`). */
export interface MemoryServices {
  ctx: AppContext;
  outbox: Outbox;
  indexes: RecallIndexes;
  capture: Capture;
  synthesis: Synthesis;
  catalog: Catalog;
  skillFiles: SkillFiles;
}

/** `memory.sessions`: the stored sessions, read, recorded into a call at a time, and forgotten (capture.ts). */
export interface MemorySessions {
  /** Stored sessions, newest first, a page at a time. */
  list(opts?: { namespace?: string; limit?: number; offset?: number }): Promise<Session[]>;
  /** One stored session by its stored id (`key(id)` for a caller's id); null when absent or disabled. */
  get(storedId: string, namespace?: string): Promise<Session | null>;
  /** How many sessions are stored (0 when disabled). */
  count(namespace?: string): Promise<number>;
  /**
   * The skills recalled for a stored session (by its stored id), one entry per skill per recall, in the order they
   * were served: what its reported outcome credits (empty when none or disabled).
   */
  recalled(storedId: string, namespace?: string): Promise<SessionRecall[]>;
  /**
   * The key a session id is stored under: unchanged, or a keyed hash when the id itself holds a secret or
   * personal data (see `protectId`). Every lookup by a caller-supplied id goes through it.
   */
  key(id: string): string;
  /**
   * Records one call of a stored, still open session at a given position (for surfaces that hold no recorder
   * between requests, such as REST). Idempotent by position; a position past the next one is refused.
   */
  recordCall(
    sessionId: string,
    c: RecordedCall & { position?: number },
    opts?: { namespace?: string },
  ): Promise<{ sessionId: string; position: number; recorded: boolean }>;
  /**
   * A recorded session that has not ended, for a surface about to record a recall or a call for it: a
   * NotFoundError when there is none (a recall for it would credit a session recorded later under that id), a
   * SessionStateError when it has ended (its outcome already credited what was recalled for it).
   */
  requireOpen(sessionId: string, opts?: { namespace?: string }): Promise<Session>;
  /**
   * Why a call would be refused in any session (a tool name no API gives, nesting too deep, over
   * `capture.maxRecordBytes`), or null: a surface that opens a session with its first call checks it first.
   */
  callProblem(c: RecordedCall): string | null;
  /**
   * Forgets a session: goal, calls, results, cluster membership, recalls and cached goal embeddings are
   * deleted; a skill learned from it keeps its row and a forgotten-parent marker; an audit record names it
   * only by an opaque reference. Refused (PassLockedError) while a pass runs on the namespace. Null when
   * there is no such session.
   */
  forget(
    sessionId: string,
    opts?: { namespace?: string; actor?: string },
  ): Promise<{ ref: string; calls: number; skills: string[] } | null>;
  /**
   * Retention: forgets, as `forget` does, every session that ended before `before`, and every session still open
   * whose latest activity (its last call, else its start) was before it; one whose stored time reads as no date is
   * kept and listed in `undated`. `dryRun` lists them and forgets nothing. Forgets 500 sessions to a transaction,
   * holding the namespace's pass lock throughout. Refused (PassLockedError) while a pass runs on the namespace. Also
   * run after each pass when `capture.retentionDays` is set.
   */
  forgetBefore(before: Date, opts?: { namespace?: string; actor?: string; dryRun?: boolean }): Promise<RetentionResult>;
}

/** `memory.skills`: the skill catalogue, managed by hand, explained, and read or written as SKILL.md folders. */
export interface MemorySkills {
  list(opts?: { namespace?: string; corpus?: 'internal' | 'external'; includeSuperseded?: boolean }): Promise<Skill[]>;
  get(idOrName: string, namespace?: string): Promise<Skill | null>;
  setEnabled(idOrName: string, enabled: boolean, opts?: { namespace?: string; actor?: string }): Promise<Skill | null>;
  /**
   * A person promotes an imported skill into the internal corpus: from then on it can be recalled. An unknown name
   * is a NotFoundError; a skill already internal, or an internal one holding the name, a ConflictError.
   */
  promote(name: string, opts?: { namespace?: string; actor?: string }): Promise<Skill>;
  /**
   * Gives a learned skill another name, kept by every later pass (its SKILL.md says who gave it: `named-by`): a new
   * minor version whose title and description lead say the name. The name it has, or a rename already done (a
   * retry), changes nothing (`changed: false`). An invalid name is an InputError; a name another live skill has, or
   * had before a person renamed it (unless `force`), or an imported skill, a ConflictError; a pass running on the
   * namespace, a PassLockedError. Null when there is no such live skill.
   */
  rename(
    idOrName: string,
    newName: string,
    opts?: { namespace?: string; actor?: string; force?: boolean },
  ): Promise<{ from: string; skill: Skill; changed: boolean } | null>;
  /**
   * A person's SKILL.md for a learned skill: a new minor version of the same skill with their description and body
   * (secrets redacted), its procedure the main path its `## Steps` name ("Call `tool` ..."), marked as edited so
   * that later passes keep the text (they restate its counts, and record when its sessions suggest another
   * procedure: `sessions-suggest`). An empty text, or the text it has, changes nothing (`changed: false`). An invalid
   * SKILL.md, or one that names another skill, is an InputError; an imported skill, a ConflictError; a pass running,
   * a PassLockedError. Null when there is no such live skill.
   */
  edit(idOrName: string, text: string, opts?: { namespace?: string; actor?: string }): Promise<EditResult | null>;
  /**
   * Hands an edited skill back to the learner: the text of its last learned version, under its name and counts
   * now, no longer marked as edited (the next pass may write it again). Not edited: `changed: false`.
   */
  revertEdit(idOrName: string, opts?: { namespace?: string; actor?: string }): Promise<EditResult | null>;
  /**
   * What became of a skill once named `name` (renamed, or superseded) for a lookup by that name that found nothing:
   * the live skill's name now, or null.
   */
  nowKnownAs(name: string, namespace?: string): Promise<{ name: string; how: 'renamed' | 'superseded' } | null>;
  /** Why a skill exists: parents, facts, versions, supersede chain, trials, eta and utility over time. */
  /** `sessions`: only the first that many parent sessions are read and given (`parents.sessionCount`: all). */
  explain(idOrName: string, namespace?: string, opts?: { sessions?: number }): Promise<Explanation | null>;
  /**
   * What changed in a skill's SKILL.md between two of its versions (default: its latest against the one before),
   * as `diff -u` hunks. Null when there is no such skill; a version it never had is a NotFoundError.
   */
  diff(idOrName: string, opts?: { from?: string; to?: string; namespace?: string }): Promise<SkillDiff | null>;
  /** Explicit compile from session ids, a cue or facts: a dry run unless `commit`. Same pathway as the pass. */
  compile(req: Omit<CompileRequest, 'namespace'> & { namespace?: string }): Promise<CompileResult>;
  /**
   * Forgets a skill: its row, SKILL.md versions, provenance, track record, vectors and exemplars are deleted and
   * it is never recalled again; an audit record keeps its id and name. Null when there is no such skill.
   */
  forget(idOrName: string, opts?: { namespace?: string; actor?: string }): Promise<{ id: string; name: string } | null>;
  /**
   * Writes `<dir>/<name>/SKILL.md` for each live skill (internal by default). Export is always explicit. A file
   * there that this memory did not write for that skill (a person's edit) is left, and the skill skipped, unless
   * `force`.
   */
  export(
    dir: string,
    opts?: { namespace?: string; names?: string[]; includeExternal?: boolean; force?: boolean },
  ): Promise<ExportResult>;
  /**
   * The exported SKILL.md texts of the live skills (internal by default), redacted and validated, without
   * writing anything: what `export` writes, and what a read-only surface (a download) serves.
   */
  renderFiles(opts?: {
    namespace?: string;
    names?: string[];
    includeExternal?: boolean;
  }): Promise<{ files: { skill: Skill; text: string }[]; skipped: { name: string; reason: string }[] }>;
  /**
   * Reads skill folders written by other systems into the external corpus: listed and exported, never recalled
   * until a person promotes them (see `SkillFiles.importSkills`).
   */
  import(dir: string, opts?: { namespace?: string; actor?: string; force?: boolean }): Promise<ImportResult>;
}

/** `memory.facts`: facts (semantic memory) that can be parents of a compiled skill. */
export interface MemoryFacts {
  /** Records a fact. */
  add(text: string, opts?: { id?: string; source?: string; namespace?: string }): Promise<{ id: string }>;
  /** The stored facts of the namespace. */
  list(namespace?: string): Promise<Fact[]>;
}

/** `memory.events`: the stored skill events (`memory.on` hears them as they happen). */
export interface MemoryEvents {
  list(opts?: { namespace?: string; afterId?: number; limit?: number }): Promise<SkillEvent[]>;
  /** The id of this namespace's newest event (0 when there is none, or the memory is disabled). */
  lastId(): Promise<number>;
}

/** `memory.synthesis`: the state of synthesis beyond `memory.synthesize()` (synthesis.ts). */
export interface MemorySynthesis {
  /** Resolves when no background pass is running (tests, graceful shutdown). */
  idle(): Promise<void>;
  /** The clusters the passes formed for this memory's embedder, each with its member sessions' stored ids. */
  clusters(namespace?: string): Promise<{ id: string; members: string[] }[]>;
  /**
   * Sessions that ran the same steps, each waiting in a cluster too small to learn from because their requests
   * were worded too far apart to group; `compile` learns a group as one skill when it is one task.
   */
  lookAlike(namespace?: string, max?: number): Promise<LookAlike[]>;
}

/** `memory.parts`: what the memory is built from, for tools, benchmarks and tests; applications need none of it. */
export interface MemoryParts {
  /** The store (null when disabled). */
  readonly store: Store | null;
  readonly embedder: Embedder;
  readonly thresholds: EmbedderThresholds;
  readonly log: Logger;
  readonly bus: EventBus;
  /**
   * The configured distiller, created on first use: recording and recall never load the distillation code
   * (or a model client), which keeps the CLI's cold start short.
   */
  distiller(): Promise<Distiller>;
}

/**
 * The procedural memory: one entry point for capture, synthesis, recall and the skill catalogue. A facade:
 * the calls an agent makes on every run are methods; the rarer ones are grouped by job (`sessions`, `skills`,
 * `facts`, `events`, `synthesis`, `parts`), and each hands over to the service that does the work (src/app/).
 */
export class Memory {
  readonly namespace: string;
  readonly config: SkillsmithConfig;
  readonly sessions: MemorySessions;
  readonly skills: MemorySkills;
  readonly facts: MemoryFacts;
  readonly events: MemoryEvents;
  readonly synthesis: MemorySynthesis;
  readonly parts: MemoryParts;
  private readonly ctx: AppContext;
  private readonly outbox: Outbox;
  private readonly indexes: RecallIndexes;
  private readonly capture: Capture;
  private readonly synthesisService: Synthesis;
  private readonly catalog: Catalog;

  constructor(services: MemoryServices) {
    const { ctx, outbox, capture, catalog, skillFiles } = services;
    this.ctx = ctx;
    this.outbox = outbox;
    this.indexes = services.indexes;
    this.capture = capture;
    this.synthesisService = services.synthesis;
    this.catalog = catalog;
    this.namespace = ctx.namespace;
    this.config = ctx.config;
    this.sessions = {
      list: (opts = {}) => capture.listSessions(opts),
      get: (storedId, namespace) => capture.getSession(storedId, namespace),
      count: (namespace) => capture.countSessions(namespace),
      recalled: (storedId, namespace) => capture.recalledFor(storedId, namespace),
      key: (id) => ctx.sessionKey(id),
      recordCall: (sessionId, c, opts = {}) => capture.recordCall(sessionId, c, opts),
      requireOpen: (sessionId, opts = {}) => capture.requireOpenSession(sessionId, opts),
      callProblem: (c) => capture.callProblem(c),
      forget: (sessionId, opts = {}) => capture.forgetSession(sessionId, opts),
      forgetBefore: (before, opts = {}) => capture.forgetBefore(before, opts),
    };
    this.skills = {
      list: (opts = {}) => catalog.listSkills(opts),
      get: (idOrName, namespace) => catalog.getSkill(idOrName, namespace),
      setEnabled: (idOrName, enabled, opts = {}) => catalog.setEnabled(idOrName, enabled, opts),
      promote: (name, opts = {}) => catalog.promote(name, opts),
      rename: (idOrName, newName, opts = {}) => catalog.rename(idOrName, newName, opts),
      edit: (idOrName, text, opts = {}) => catalog.edit(idOrName, text, opts),
      revertEdit: (idOrName, opts = {}) => catalog.revertEdit(idOrName, opts),
      nowKnownAs: (name, namespace) => catalog.nowKnownAs(name, namespace),
      explain: (idOrName, namespace, opts) => catalog.explain(idOrName, namespace, opts),
      diff: (idOrName, opts) => catalog.diff(idOrName, opts),
      compile: (req) => catalog.compile(req),
      forget: (idOrName, opts = {}) => catalog.forgetSkill(idOrName, opts),
      export: (dir, opts = {}) => skillFiles.exportSkills(dir, opts),
      renderFiles: (opts = {}) => skillFiles.renderSkillFiles(opts),
      import: (dir, opts = {}) => skillFiles.importSkills(dir, opts),
    };
    this.facts = {
      add: (text, opts = {}) => catalog.addFact(text, opts),
      list: (namespace) => catalog.listFacts(namespace),
    };
    this.events = {
      list: (opts = {}) => catalog.events(opts),
      lastId: () => catalog.lastEventId(),
    };
    this.synthesis = {
      idle: () => services.synthesis.idle(),
      clusters: (namespace) => services.synthesis.clusters(namespace),
      lookAlike: (namespace, max) => services.synthesis.lookAlike(namespace, max),
    };
    this.parts = {
      store: ctx.store,
      embedder: ctx.embedder,
      get thresholds() {
        return ctx.thresholds;
      },
      log: ctx.log,
      bus: outbox.bus,
      distiller: () => ctx.distiller(),
    };
  }

  /** True when the memory stores nothing (config.disabled or SKILLSMITH_DISABLED=1). */
  get disabled(): boolean {
    return !this.ctx.store;
  }

  // ── capture ──────────────────────────────────────────────────────────────

  /**
   * Opens a live session; every call is stored as it happens (crash-safe), idempotent by position. `cue`: the
   * user's own words when `goal` is something else (a ticket title, a task statement).
   */
  startSession(opts: StartSessionOptions): Promise<SessionRecorder> {
    return this.capture.startSession(opts);
  }

  /**
   * Stores whole sessions, each in its own `namespace` (a memory opened on another namespace does not count or
   * learn from them); a session id already stored is left untouched (idempotent). A session that is not one (no
   * outcome among success, failure and unknown, no start time, a tool name no API gives) or is over the limits
   * (calls per session, record size, nesting depth) is not stored and is named in `problems`; the others are.
   */
  ingest(
    sessions: Session[],
  ): Promise<{ inserted: number; skipped: number; problems?: { index: number; sessionId: string; reason: string }[] }> {
    return this.capture.ingest(sessions);
  }

  /**
   * Ingests a capture file (JSONL interchange, OpenAI or Anthropic messages, OTLP GenAI spans, raw tau-bench
   * results; `auto` detects per record). Capture privacy is applied before anything is stored; sessions
   * without an outcome are judged (`capture.judge`, or `opts.judge`). Bad records are reported with line,
   * JSON path and reason; the valid ones are kept. A session stored already is skipped, and one a log holds
   * further on (a task stored before it ended) grows in place (`grown`).
   */
  ingestFile(path: string, opts: Omit<IngestTextOptions, 'name'> = {}): Promise<IngestResult> {
    return this.capture.ingestFile(path, opts);
  }

  /**
   * Ingests a transcript its agent appends to, as a hook after every reply does (`ingest --hook`): what `ingestFile`
   * stores, read from the first line of the task the last call for the same file ended in (`readFrom`), so a long
   * session's transcript is not read whole after every reply: a Claude Code transcript, a Codex CLI rollout, a Gemini
   * CLI session log (JSONL). A file replaced, cut shorter or rewritten is read whole; other formats (a Gemini CLI
   * session of the one-document layout among them) always are.
   */
  ingestTranscript(path: string, opts: Omit<IngestTextOptions, 'name'> = {}): Promise<IngestResult> {
    return this.capture.ingestTranscript(path, opts);
  }

  /**
   * Ingests the text of a capture file (any format `ingestFile` reads), named `name` in problems and notes: the
   * logs an application keeps itself (a saved chat, a run history), sent as they are; or a log file read line by line
   * (capture/ingest.ts readLog), as `ingest` reads a JSONL file.
   */
  ingestText(text: string | LogLines | LogStream, opts: IngestTextOptions = {}): Promise<IngestResult> {
    return this.capture.ingestText(text, opts);
  }

  /** What `ingestText` would store from this text (sessions, calls, notes, problems); stores nothing. */
  previewText(text: string, opts: Omit<IngestTextOptions, 'judge'> = {}): Promise<DryRunResult> {
    return this.capture.previewText(text, opts);
  }

  /**
   * Reports a session's outcome (now or later): it is stored, and each skill recalled for the session gets one
   * trial (pass on success, fail on failure). An unknown outcome changes nothing.
   */
  reportOutcome(
    sessionId: string,
    outcome: Outcome,
    opts: { reward?: number | null; namespace?: string } = {},
  ): Promise<{ credited: string[] }> {
    return this.capture.reportOutcome(sessionId, outcome, opts);
  }

  // ── synthesis ────────────────────────────────────────────────────────────

  synthesize(
    opts: { dryRun?: boolean; namespace?: string; onProgress?: SynthesisProgress } = {},
  ): Promise<SynthesisReport> {
    return this.synthesisService.synthesize(opts);
  }

  // ── recall ───────────────────────────────────────────────────────────────

  /**
   * Goal in, at most topK skills out, best first. No match returns [] and changes nothing. A `sessionId` must name a
   * recorded session still running (NotFoundError, SessionStateError): its outcome becomes the served skills' trial,
   * and a recall under an id no session holds yet would credit whatever session is recorded under it later.
   */
  async recall(goal: string, opts: RecallOptions = {}): Promise<RecalledSkill[]> {
    if (opts.sessionId && opts.record !== false && this.ctx.storing)
      await this.capture.requireOpenSession(opts.sessionId, { namespace: opts.namespace });
    return this.catalog.recall(goal, opts);
  }

  /**
   * The skill a goal came nearest to when it recalled none, with its similarity and the threshold it missed (null
   * when there is no skill to recall): why nothing matched. Leaves no trace.
   */
  nearest(goal: string, opts: Pick<RecallOptions, 'namespace' | 'tools'> = {}): Promise<NearestSkill | null> {
    return this.catalog.nearest(goal, opts);
  }

  /** The prompt block for recalled skills (When / Do / Branches / Done within the budget; never raw YAML). */
  formatContext(skills: RecalledSkill[]): string {
    return this.catalog.formatContext(skills);
  }

  /** Union of the recalled skills' tools, for callers that load tools per turn. */
  toolsFor(skills: RecalledSkill[]): string[] {
    return this.catalog.toolsFor(skills);
  }

  /**
   * Applies one feedback signal (pass | fail | up | down | reward=<0..1>) to a skill. With `feedbackId` (an
   * idempotency key), the same feedback sent again is answered `repeated: true` and not counted twice.
   */
  feedback(idOrName: string, signal: Signal | string, opts: FeedbackOptions = {}) {
    return this.catalog.feedback(idOrName, signal, opts);
  }

  // ── events and lifecycle ─────────────────────────────────────────────────

  /** Subscribes to skill events; a listener that throws never breaks the operation that emitted. */
  on(type: SkillEventType | '*', listener: Listener): () => void {
    return this.outbox.on(type, listener);
  }

  /**
   * Writes each recall index whose file is behind the changes it applied, so the next process need not apply
   * them again (done on close; a long-lived process may call it when idle).
   */
  async flushIndexes(): Promise<void> {
    this.indexes.persist();
  }

  /** Waits for the passes running, writes what is pending and closes the store. Once: a second call waits for the first. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.synthesisService.close();
      await this.outbox.flush().catch((e) => this.ctx.log.warn('final flush failed', { error: String(e) }));
      await this.flushIndexes();
      await this.ctx.close();
    })();
    return this.closing;
  }

  private closing: Promise<void> | null = null;
}
