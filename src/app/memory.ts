import type { SkillsmithConfig } from '../config/config.js';
import type { OutcomeJudge } from '../capture/judge.js';
import type { IngestFormat } from '../capture/parse-file.js';
import type { Fact, Outcome, Session, Skill } from '../domain/types.js';
import type { Distiller } from '../distillers/distiller.js';
import type { Embedder, EmbedderThresholds } from '../embedders/embedder.js';
import type { Signal } from '../domain/lifecycle.js';
import type { CompileRequest, CompileResult } from '../pipeline/compile.js';
import type { Explanation } from '../pipeline/explain.js';
import type { RecalledSkill } from '../pipeline/recall.js';
import type { SynthesisReport } from '../pipeline/synthesize.js';
import type { SkillEvent, Store } from '../store/store.js';
import type { EventBus, Listener, SkillEventType } from '../support/event-bus.js';
import type { Logger } from '../support/log.js';
import type { Capture } from './capture.js';
import type { Catalog } from './catalog.js';
import type { RecallIndexes } from './recall-indexes.js';
import type { AppContext } from './context.js';
import type { Outbox } from './outbox.js';
import type { SkillFiles } from './skill-files.js';
import type { Synthesis, SynthesisProgress } from './synthesis.js';
import type { ExportResult, ImportResult, IngestResult, RecordedCall, SessionRecorder } from './types.js';

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

/**
 * The procedural memory: one entry point for capture, synthesis, recall and the skill catalogue. A facade:
 * each method hands over to the service that does the work (see `src/app/`).
 */
export class Memory {
  readonly namespace: string;
  readonly bus: EventBus;
  /** The store (null when disabled). Surfaces use the methods below; this is for tests and tools. */
  readonly store: Store | null;
  readonly config: SkillsmithConfig;
  readonly embedder: Embedder;
  readonly log: Logger;
  private readonly ctx: AppContext;
  private readonly outbox: Outbox;
  private readonly indexes: RecallIndexes;
  private readonly capture: Capture;
  private readonly synthesis: Synthesis;
  private readonly catalog: Catalog;
  private readonly skillFiles: SkillFiles;

  constructor(services: MemoryServices) {
    ({
      ctx: this.ctx,
      outbox: this.outbox,
      indexes: this.indexes,
      capture: this.capture,
      synthesis: this.synthesis,
      catalog: this.catalog,
      skillFiles: this.skillFiles,
    } = services);
    this.namespace = this.ctx.namespace;
    this.store = this.ctx.store;
    this.config = this.ctx.config;
    this.embedder = this.ctx.embedder;
    this.log = this.ctx.log;
    this.bus = this.outbox.bus;
  }

  /**
   * The configured distiller, created on first use: recording and recall never load the distillation code
   * (or a model client), which keeps the CLI's cold start short.
   */
  distiller(): Promise<Distiller> {
    return this.ctx.distiller();
  }

  /** @internal Starts event delivery after the events that exist now. */
  async init(): Promise<this> {
    await this.outbox.init();
    return this;
  }

  /** Subscribes to skill events; a listener that throws never breaks the operation that emitted. */
  on(type: SkillEventType | '*', listener: Listener): () => void {
    return this.outbox.on(type, listener);
  }

  get thresholds(): EmbedderThresholds {
    return this.ctx.thresholds;
  }

  /** True when the memory stores nothing (config.disabled or SKILLSMITH_DISABLED=1). */
  get disabled(): boolean {
    return !this.ctx.store;
  }

  // ── capture ──────────────────────────────────────────────────────────────

  /**
   * Stores whole sessions; a session id already stored is left untouched (idempotent). A session over the
   * limits (calls per session, record size, nesting depth) is not stored and is named in `problems`.
   */
  ingest(
    sessions: Session[],
  ): Promise<{ inserted: number; skipped: number; problems?: { index: number; sessionId: string; reason: string }[] }> {
    return this.capture.ingest(sessions);
  }

  /**
   * The key a session id is stored under: unchanged, or a keyed hash when the id itself holds a secret or
   * personal data (see `protectId`). Every lookup by a caller-supplied id goes through it.
   */
  sessionKey(id: string): string {
    return this.ctx.sessionKey(id);
  }

  /**
   * Ingests a capture file (JSONL interchange, OpenAI or Anthropic messages, OTLP GenAI spans, raw tau-bench
   * results; `auto` detects per record). Capture privacy is applied before anything is stored; sessions
   * without an outcome are judged (`capture.judge`, or `opts.judge`). Bad records are reported with line,
   * JSON path and reason; the valid ones are kept.
   */
  ingestFile(
    path: string,
    opts: { format?: IngestFormat; namespace?: string; judge?: 'rule' | 'llm' | 'off' | OutcomeJudge } = {},
  ): Promise<IngestResult> {
    return this.capture.ingestFile(path, opts);
  }

  /** Opens a live session; every call is stored as it happens (crash-safe), idempotent by position. */
  /** `cue`: the user's own words when `goal` is something else (a ticket title, a task statement). */
  startSession(opts: {
    goal: string;
    cue?: string;
    id?: string;
    agentId?: string;
    source?: string;
    namespace?: string;
  }): Promise<SessionRecorder> {
    return this.capture.startSession(opts);
  }

  /**
   * Records one call of a stored, still open session at a given position (for surfaces that hold no recorder
   * between requests, such as REST). Idempotent by position; a position past the next one is refused.
   */
  recordCall(
    sessionId: string,
    c: RecordedCall & { position?: number },
    opts: { namespace?: string } = {},
  ): Promise<{ sessionId: string; position: number; recorded: boolean }> {
    return this.capture.recordCall(sessionId, c, opts);
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

  /** Stored sessions, newest first, a page at a time. */
  listSessions(opts: { namespace?: string; limit?: number; offset?: number } = {}): Promise<Session[]> {
    return this.capture.listSessions(opts);
  }

  /** One stored session by its stored id (`sessionKey(id)` for a caller's id); null when absent or disabled. */
  getSession(storedId: string, namespace?: string): Promise<Session | null> {
    return this.capture.getSession(storedId, namespace);
  }

  /** How many sessions are stored (0 when disabled). */
  countSessions(namespace?: string): Promise<number> {
    return this.capture.countSessions(namespace);
  }

  // ── forgetting ───────────────────────────────────────────────────────────

  /**
   * Forgets a session: goal, calls, results, cluster membership, recalls and cached goal embeddings are
   * deleted; a skill learned from it keeps its row and a forgotten-parent marker; an audit record names it
   * only by an opaque reference. Refused (PassLockedError) while a pass runs on the namespace. Null when
   * there is no such session.
   */
  forgetSession(
    sessionId: string,
    opts: { namespace?: string; actor?: string } = {},
  ): Promise<{ ref: string; calls: number; skills: string[] } | null> {
    return this.capture.forgetSession(sessionId, opts);
  }

  /**
   * Forgets a skill: its row, SKILL.md versions, provenance, track record, vectors and exemplars are deleted and
   * it is never recalled again; an audit record keeps its id and name. Null when there is no such skill.
   */
  forgetSkill(
    idOrName: string,
    opts: { namespace?: string; actor?: string } = {},
  ): Promise<{ id: string; name: string } | null> {
    return this.catalog.forgetSkill(idOrName, opts);
  }

  // ── synthesis ────────────────────────────────────────────────────────────

  synthesize(
    opts: { dryRun?: boolean; namespace?: string; onProgress?: SynthesisProgress } = {},
  ): Promise<SynthesisReport> {
    return this.synthesis.synthesize(opts);
  }

  /** Resolves when no background pass is running (tests, graceful shutdown). */
  idle(): Promise<void> {
    return this.synthesis.idle();
  }

  // ── recall ───────────────────────────────────────────────────────────────

  /** Goal in, at most topK skills out, best first. No match returns [] and changes nothing. */
  recall(
    goal: string,
    opts: { topK?: number; namespace?: string; sessionId?: string; record?: boolean } = {},
  ): Promise<RecalledSkill[]> {
    return this.catalog.recall(goal, opts);
  }

  /** The prompt block for recalled skills (When / Do / Done, clipped; never raw YAML). */
  formatContext(skills: RecalledSkill[]): string {
    return this.catalog.formatContext(skills);
  }

  /** Union of the recalled skills' tools, for callers that load tools per turn. */
  toolsFor(skills: RecalledSkill[]): string[] {
    return this.catalog.toolsFor(skills);
  }

  // ── lifecycle ────────────────────────────────────────────────────────────

  /** Applies one feedback signal (pass | fail | up | down | reward=<0..1>) to a skill. */
  feedback(
    idOrName: string,
    signal: Signal | string,
    opts: { sessionId?: string; namespace?: string; actor?: string } = {},
  ) {
    return this.catalog.feedback(idOrName, signal, opts);
  }

  /** Explicit compile from session ids, a cue or facts: a dry run unless `commit`. Same pathway as the pass. */
  compile(req: Omit<CompileRequest, 'namespace'> & { namespace?: string }): Promise<CompileResult> {
    return this.catalog.compile(req);
  }

  /** Why a skill exists: parents, facts, versions, supersede chain, trials, eta and utility over time. */
  explain(idOrName: string, namespace?: string): Promise<Explanation | null> {
    return this.catalog.explain(idOrName, namespace);
  }

  /** Records a fact (semantic memory) that can be a parent of a compiled skill. */
  addFact(text: string, opts: { id?: string; source?: string; namespace?: string } = {}): Promise<{ id: string }> {
    return this.catalog.addFact(text, opts);
  }

  /** The stored facts of the namespace. */
  listFacts(namespace?: string): Promise<Fact[]> {
    return this.catalog.listFacts(namespace);
  }

  // ── skills ───────────────────────────────────────────────────────────────

  listSkills(
    opts: { namespace?: string; corpus?: 'internal' | 'external'; includeSuperseded?: boolean } = {},
  ): Promise<Skill[]> {
    return this.catalog.listSkills(opts);
  }

  getSkill(idOrName: string, namespace?: string): Promise<Skill | null> {
    return this.catalog.getSkill(idOrName, namespace);
  }

  setEnabled(
    idOrName: string,
    enabled: boolean,
    opts: { namespace?: string; actor?: string } = {},
  ): Promise<Skill | null> {
    return this.catalog.setEnabled(idOrName, enabled, opts);
  }

  /** A person promotes an imported skill into the internal corpus: from then on it can be recalled. */
  promote(name: string, opts: { namespace?: string; actor?: string } = {}): Promise<Skill> {
    return this.catalog.promote(name, opts);
  }

  /** Writes `<dir>/<name>/SKILL.md` for each live skill (internal by default). Export is always explicit. */
  exportSkills(
    dir: string,
    opts: { namespace?: string; names?: string[]; includeExternal?: boolean } = {},
  ): Promise<ExportResult> {
    return this.skillFiles.exportSkills(dir, opts);
  }

  /**
   * The exported SKILL.md texts of the live skills (internal by default), redacted and validated, without
   * writing anything: what `exportSkills` writes, and what a read-only surface (a download) serves.
   */
  renderSkillFiles(
    opts: { namespace?: string; names?: string[]; includeExternal?: boolean } = {},
  ): Promise<{ files: { skill: Skill; text: string }[]; skipped: { name: string; reason: string }[] }> {
    return this.skillFiles.renderSkillFiles(opts);
  }

  /**
   * Reads skill folders written by other systems into the external corpus: listed and exported, never recalled
   * until a person promotes them (see `SkillFiles.importSkills`).
   */
  importSkills(dir: string, opts: { namespace?: string; actor?: string; force?: boolean } = {}): Promise<ImportResult> {
    return this.skillFiles.importSkills(dir, opts);
  }

  // ── events ───────────────────────────────────────────────────────────────

  events(opts: { namespace?: string; afterId?: number; limit?: number } = {}): Promise<SkillEvent[]> {
    return this.catalog.events(opts);
  }

  /** The id of the newest stored event (0 when there is none, or the memory is disabled). */
  lastEventId(): Promise<number> {
    return this.catalog.lastEventId();
  }

  /**
   * Writes each recall index whose file is behind the changes it applied, so the next process need not apply
   * them again (done on close; a long-lived process may call it when idle).
   */
  async flushIndexes(): Promise<void> {
    this.indexes.persist();
  }

  async close(): Promise<void> {
    await this.synthesis.close();
    await this.outbox.flush().catch((e) => this.log.warn('final flush failed', { error: String(e) }));
    await this.flushIndexes();
    await this.ctx.close();
  }
}
