import type {
  AuditRecord,
  Fact,
  Outcome,
  OutcomeSource,
  Provenance,
  ProvenanceKind,
  Session,
  SessionOutline,
  Skill,
  SkillStatus,
  ToolCall,
} from '../domain/types.js';
import type { HeldRecall } from '../domain/recall-tasks.js';
import type { StateKey } from './state-key.js';

/**
 * The store back end behind the memory: four interfaces with one job each, and the connection itself. Every
 * method is async so that a networked back end (PostgreSQL) fits the same contract; the SQLite store answers
 * synchronously inside. Writes that belong together are single methods (one transaction each), never a
 * transaction handle; what a write turns into (rows, audit records, events) is decided once, in
 * `write-plan.ts`, and each back end only executes it.
 */
export interface Store extends SessionStore, PassStateStore, SkillStore, EventLog {
  readonly kind: string;
  readonly location: string;
  /** The schema version opening this memory upgraded it from, to be said once (null or absent: nothing upgraded). */
  readonly upgradedFrom?: number | null;
  /** Opened for reading only (this account may not write the file): reads work, writes are refused. */
  readonly readOnly?: boolean;
  close(): Promise<void>;
  schemaVersion(): Promise<number>;
  /** Changes whenever another connection commits: lets an in-memory index know when to reload. */
  changeToken(): Promise<string>;
}

/** Capture: sessions with their tool calls, and facts. */
export interface SessionStore {
  /** Inserts sessions with their calls in one transaction; a session id already stored is left as it is. */
  insertSessions(sessions: Session[]): Promise<{ inserted: number; skipped: number }>;
  /**
   * Replaces stored sessions by copies of them further on (more calls, or results that had not come back yet), in
   * one transaction: goal, cue, outcome, reward, end, labels and calls. Their place in insertion order, start, agent
   * and source stay. When a pass has put one in a cluster, that cluster is marked dirty, so the next pass distils it
   * again with the whole session. Returns how many were replaced (a copy of no stored session is left out).
   */
  growSessions(sessions: Session[]): Promise<number>;
  /** Opens (or re-opens, idempotently) a live session. */
  beginSession(session: Omit<Session, 'calls' | 'seq'>): Promise<void>;
  /**
   * Records one call; idempotent by (session, position). False when that position already holds a call (a retry,
   * or another writer of the session took it first): nothing is changed then.
   */
  appendCall(namespace: string, sessionId: string, call: ToolCall): Promise<boolean>;
  /**
   * Ends a session with its outcome (or replaces a judged one). When a pass has already put the session in a
   * cluster (it read it while open, or before the outcome came), that cluster is marked dirty to be distilled again.
   */
  endSession(
    namespace: string,
    sessionId: string,
    outcome: Outcome,
    reward: number | null,
    endedAt: string,
    source?: OutcomeSource,
  ): Promise<void>;
  getSession(namespace: string, id: string): Promise<Session | null>;
  /** Many sessions at once, in insertion order; unknown ids are left out. */
  getSessions(namespace: string, ids: string[]): Promise<Session[]>;
  /** The id, goal and start of many sessions at once, without their calls, in insertion order; unknown ids left out. */
  sessionHeads(namespace: string, ids: string[]): Promise<Pick<Session, 'id' | 'goal' | 'startedAt'>[]>;
  /**
   * Every session of the namespace with when it started and ended (as stored), and for one still open the latest of
   * its calls' times, oldest first: what retention reads.
   */
  sessionTimes(namespace: string): Promise<SessionTimes[]>;
  /** Outlines (goal, outcome, each call's tool and ok) of the sessions with seq > afterSeq, in seq order. */
  listSessionOutlinesAfter(namespace: string, afterSeq: number, limit: number): Promise<SessionOutline[]>;
  listSessions(namespace: string, opts?: { limit?: number; offset?: number }): Promise<Session[]>;
  countSessions(namespace: string): Promise<number>;
  existingSessionIds(namespace: string, ids: string[]): Promise<Set<string>>;
  /** Of these sessions, the ones still open (not ended, no outcome reported or judged: domain/open-session.ts). */
  openSessionIds(namespace: string, ids: string[]): Promise<Set<string>>;

  addFact(fact: Fact): Promise<void>;
  listFacts(namespace: string): Promise<Fact[]>;
  getFacts(namespace: string, ids: string[]): Promise<Fact[]>;

  /**
   * Forgets a session in ONE transaction: its row, its tool calls, its cluster membership (the cluster's size
   * drops by one), the recalls made for it, the given embedding-cache entries, and its id on feedback rows
   * (the trial stays in the skill's track record, anonymous). Each skill that named it as a parent keeps its
   * row; the provenance row becomes a forgotten-parent marker (see `FORGOTTEN_PARENT`). Writes one audit
   * record (`session.forget`, subject: the session's opaque reference, never its content) and one
   * `skill.parent_forgotten` event per such skill. Null when the session does not exist.
   */
  forgetSession(namespace: string, sessionId: string, opts: ForgetSessionOptions): Promise<ForgottenSession | null>;
  /**
   * Forgets many sessions in ONE transaction, each exactly as `forgetSession` forgets one (its rows, cluster
   * membership, recalls, cache entries, the ids on feedback rows and audit records, forgotten-parent markers, one
   * `session.forget` audit record and its `skill.parent_forgotten` events), with set-wise statements: a statement per
   * table for the whole batch, not per session. The synthesis state is written once, from `stateIfClustered` given
   * the sessions a pass had clustered. Keep a batch bounded (the pipeline forgets 500 at a time): the transaction
   * holds every row it deletes. The sessions forgotten, in the order given; unknown (or repeated) ids are skipped.
   */
  forgetSessions(
    namespace: string,
    sessions: readonly SessionToForget[],
    opts: ForgetSessionsOptions,
  ): Promise<(ForgottenSession & { id: string })[]>;
  /**
   * Which of these sessions a skill (live or not) holding recall exemplars of unknown source names as an episodic
   * parent: a forget finds such exemplars by the vectors of those sessions' goals and cues (`forgottenVectors`).
   */
  parentsOfUnsourcedExemplarsIn(namespace: string, sessionIds: readonly string[]): Promise<Set<string>>;
  /**
   * The clusters these sessions belong to, each with the embedder it was made by and every member's id (these sessions
   * too), in the order they were stored: a forget recomputes the centroids of the clusters it shrinks from the members
   * that stay (`ForgetSessionsOptions.centroids`), outlined by `sessionOutlines`.
   */
  clustersOfSessions(namespace: string, sessionIds: readonly string[]): Promise<ClusterOfSessions[]>;
  /** These sessions outlined as a pass reads them (`listSessionOutlinesAfter`), in the order they were stored. */
  sessionOutlines(namespace: string, ids: readonly string[]): Promise<SessionOutline[]>;
}

/** A cluster that holds some of the sessions asked about (`clustersOfSessions`). */
export interface ClusterOfSessions {
  id: string;
  embedderId: string;
  /** The id of every member, in seq order. */
  members: string[];
}

/** What synthesis passes keep between runs: state under typed keys, clusters, the embedding cache, the pass lock. */
export interface PassStateStore {
  getState(namespace: string, key: StateKey): Promise<string | null>;
  setState(namespace: string, key: StateKey, value: string): Promise<void>;
  getCachedEmbeddings(embedderId: string, hashes: string[]): Promise<Map<string, Float32Array>>;
  putCachedEmbeddings(embedderId: string, entries: { hash: string; vector: Float32Array }[]): Promise<void>;
  loadClusters(namespace: string, embedderId: string): Promise<ClusterRecord[]>;
  /** Saves cluster centroids/membership and the watermark in one transaction. */
  saveClusters(namespace: string, embedderId: string, clusters: ClusterRecord[], watermark: number): Promise<void>;
  clusterMembers(namespace: string, clusterId: string): Promise<string[]>;
  markClusterPassed(namespace: string, clusterId: string, at: string, dirty: boolean): Promise<void>;
  /**
   * After an embedder change, in ONE transaction: sets `embedder_id` and `embedding` of each listed skill of
   * the namespace (no new version, no provenance, `updated_at` unchanged, `cluster_id` cleared); deletes every
   * cluster and cluster membership of the namespace (whatever their embedder: cluster ids of two embedders
   * collide) and its synthesis state keys `watermark:*`, `tool-stats`, `goal-stats` and `look-alike-open`, so the
   * next pass re-clusters every session with the new embedder; writes one audit record (`skills.reembed`) and one event
   * (`skills.reembedded`). Returns how many skills were updated and clusters deleted.
   */
  replaceEmbeddings(namespace: string, change: EmbeddingReplacement): Promise<{ skills: number; clusters: number }>;

  /**
   * Takes the namespace's synthesis lock (one pass at a time across every process and host sharing the store).
   * Returns the held lock (call it to release it), or null when another holder has it. A holder that died loses it
   * after ttlMs; one that works longer renews it (`HeldLock.renew`) before then.
   */
  tryLock(name: string, holder: string, ttlMs: number): Promise<HeldLock | null>;
}

/** A lock `tryLock` took: called, it is released (once; calling again does nothing). */
export interface HeldLock {
  (): Promise<void>;
  /**
   * Extends the lock's lifetime to the ttlMs it was taken with, from now: a long run renews it as it goes (a forget,
   * once a batch). False when it is no longer held (expired and taken by another holder, its connection lost, or
   * released): the run must stop writing.
   */
  renew(): Promise<boolean>;
}

/** Skills: rows, provenance, versions, files, feedback, recall records and what a recall index reads. */
export interface SkillStore {
  listSkills(namespace: string, filter?: SkillFilter): Promise<Skill[]>;
  getSkill(namespace: string, idOrName: string): Promise<Skill | null>;
  /** The one code path that writes a skill: row, provenance, versions, audit and events in one transaction. */
  writeSkill(write: SkillWrite): Promise<Skill>;
  setSkillEnabled(namespace: string, idOrName: string, enabled: boolean, actor: string): Promise<Skill | null>;
  touchSkills(namespace: string, ids: string[], at: string): Promise<void>;
  provenance(skillId: string): Promise<Provenance[]>;
  skillVersions(skillId: string): Promise<SkillVersion[]>;
  /** The stored folder files of a skill version (imported skills; empty for learned ones), by path. */
  skillFiles(skillId: string, version: string): Promise<SkillFile[]>;

  /**
   * Applies one feedback signal in a transaction: reads the skill, computes its next state with `compute`
   * (pure), writes it with a feedback row, an audit record and events for eta and status changes.
   */
  applyFeedback(req: FeedbackRequest): Promise<FeedbackApplied | null>;
  feedbackHistory(skillId: string): Promise<FeedbackRecord[]>;
  /** Records which skills a recall served (and touches their last_used_at) in one transaction. */
  recordRecall(
    namespace: string,
    recall: {
      sessionId: string | null;
      goal: string;
      at: string;
      items: { skillId: string; rank: number; similarity: number }[];
    },
  ): Promise<void>;
  /** Skills served by recalls made for a session, without repeats. */
  skillsServedForSession(namespace: string, sessionId: string): Promise<string[]>;
  /** The recalls held under these session ids, oldest first (a hook's, under its agent's session id). */
  recallsHeldBy(namespace: string, sessionIds: string[]): Promise<HeldRecall[]>;
  /**
   * Moves each recall to the session it served, in one transaction, with one audit record (`recall.move`) per recall
   * moved, naming it and the sessions it went from and to; a recall no longer held by `from` (another ingest moved
   * it meanwhile) stays where it is, and is not audited. How many moved.
   */
  moveRecalls(
    namespace: string,
    moves: { recallId: number; from: string; to: string }[],
    opts?: { actor?: string; at?: string },
  ): Promise<number>;
  /** What each recall made for a session served, in the order they were made (a skill forgotten since: no name). */
  recalledForSession(namespace: string, sessionId: string): Promise<RecalledForSession[]>;
  /**
   * Forgets a skill (by id, else by name as `getSkill` finds it) in ONE transaction: its row with its vectors
   * and exemplars, its versions, provenance, feedback and the recall items that served it; a cluster linked
   * to it is unlinked. Writes one audit record (`skill.forget`) and one `skill.forgotten` event. Null when the
   * skill does not exist.
   */
  forgetSkill(namespace: string, idOrName: string, opts: ForgetOptions): Promise<{ id: string; name: string } | null>;

  // ── recall index ──────────────────────────────────────────────────────────
  /**
   * Where the namespace's skills stand for a recall index: this database's id (a file built on another database
   * never matches) and the revision of its skill change log, which grows with every change to what recall
   * serves or shows of a skill (not with a recall's touch of last_used_at).
   */
  skillRevision(namespace: string): Promise<SkillRevision>;
  /**
   * What a recall index holds, without bodies: each skill's id, vector and the fields that decide whether it is
   * served, with the revision they were read at (one snapshot). With `changedAfter`, only the skills changed
   * after that revision; `changedIds` then lists every changed id, including ones no longer stored. The change
   * log keeps a window of the last 100,000 changes (migration 9): when it no longer reaches back to
   * `changedAfter` and the namespace changed since, every skill is returned with `changedIds` null (rebuild).
   */
  skillVectors(
    namespace: string,
    opts?: { changedAfter?: number },
  ): Promise<{ revision: SkillRevision; rows: SkillVectorRow[]; changedIds: string[] | null }>;
  /**
   * What recall serves of these skills (its hits), in any order; unknown ids are left out. Only the columns in
   * `ServedSkill`: no vectors, provenance or SKILL.md text, which a recall reads for every hit it ranks.
   */
  recallSkills(namespace: string, ids: string[]): Promise<ServedSkill[]>;
}

/** The append-only event log and audit trail (written with the changes they describe; see write-plan.ts). */
export interface EventLog {
  audit(namespace: string, opts?: { subjectId?: string; limit?: number }): Promise<AuditRecord[]>;
  /** Audit records of every namespace with id > afterId, oldest first (for the append-only JSONL file). */
  auditSince(afterId: number, limit: number): Promise<AuditRecord[]>;
  appendEvent(
    namespace: string,
    type: string,
    skillId: string | null,
    payload: Record<string, unknown>,
    at: string,
  ): Promise<void>;
  appendAudit(record: AuditRecord): Promise<void>;

  events(namespace: string, opts?: { afterId?: number; limit?: number }): Promise<SkillEvent[]>;
  /**
   * Highest event id so far (0 when none): a new listener starts after it. With a namespace, that namespace's
   * newest (what a tenant may be told: the others' activity is not its business).
   */
  lastEventId(namespace?: string): Promise<number>;
}

export interface SkillRevision {
  storeId: string;
  revision: number;
}

/** One skill one recall made for a session served (`Store.recalledForSession`). */
export interface RecalledForSession {
  skillId: string;
  /** Null when the skill was forgotten after it was served. */
  name: string | null;
  similarity: number;
  rank: number;
  at: string;
}

/** A skill as recall reads it to rank and serve it (`Store.recallSkills`; columns: `SERVED_COLUMNS`). */
export type ServedSkill = Pick<
  Skill,
  | 'id'
  | 'name'
  | 'description'
  | 'body'
  | 'version'
  | 'kind'
  | 'corpus'
  | 'status'
  | 'enabled'
  | 'toolsRequired'
  | 'toolSequence'
  | 'eta'
  | 'utility'
  | 'supersededBy'
>;

export type SkillVectorRow = Pick<
  Skill,
  | 'id'
  | 'name'
  | 'description'
  | 'corpus'
  | 'enabled'
  | 'status'
  | 'eta'
  | 'utility'
  | 'supersededBy'
  | 'embedderId'
  | 'embedding'
  | 'exemplars'
  | 'toolSequence'
>;

export interface ForgetOptions {
  actor: string;
  at: string;
}

export interface ForgetSessionOptions extends ForgetOptions {
  /** Embedding-cache entries of its goal and cue. */
  embeddingHashes?: { embedderId: string; hash: string }[];
  /** Synthesis state of the namespace to write when a pass had clustered it (its terms taken back out). */
  stateIfClustered?: { key: StateKey; value: string }[];
}

/** When a session started and ended, as stored; `lastCallAt`: its latest call's time, read only while it is open. */
export interface SessionTimes extends Pick<Session, 'id' | 'startedAt' | 'endedAt'> {
  lastCallAt: string | null;
}

/** A session of a batch `forgetSessions` forgets, with the embedding-cache entries of its goal and cue. */
export interface SessionToForget {
  id: string;
  embeddingHashes?: { embedderId: string; hash: string }[];
}

export interface ForgetSessionsOptions extends ForgetOptions {
  /**
   * The synthesis state of the namespace to write, given the ids of the batch's sessions a pass had clustered (and so
   * counted in its statistics): called inside the transaction, only when there is at least one, and again if the
   * back end retries the transaction, so it must be pure.
   */
  stateIfClustered?: (clustered: readonly string[]) => { key: StateKey; value: string }[];
  /**
   * A skill that had one of the batch's sessions as a parent keeps none of its recall exemplars that name only such
   * sessions as their sources (those of a kept session asked the same way stay). Its exemplars of unknown source go
   * when they are one of these embeddings (by `embedderId`) of the goals and cues of those sessions
   * (`parentsOfUnsourcedExemplarsIn` says which sessions they are needed for).
   */
  forgottenVectors?: { embedderId: string; vectors: readonly Float32Array[] };
  /**
   * The centroids of the clusters the batch's sessions leave, computed from the members that stay (`size` of them;
   * zero vectors when none does): each is written when the cluster is still there with that many members after the
   * batch left it, so nothing of a forgotten session's vectors stays in them.
   */
  centroids?: readonly ClusterCentroids[];
}

/** A cluster's centroids as computed from `size` members (`ForgetSessionsOptions.centroids`). */
export interface ClusterCentroids {
  clusterId: string;
  size: number;
  centroid: Float32Array;
  goalCentroid: Float32Array;
}

export interface ForgottenSession {
  /** The session's opaque reference (as SKILL.md files name it): what the audit record keeps. */
  ref: string;
  calls: number;
  /** Skills that had it as a parent (ids); each keeps its row with a forgotten-parent marker. */
  skills: string[];
  /** The cluster it belonged to, if a pass had clustered it. */
  clusterId: string | null;
}

/** Provenance ids of forgotten parent sessions start with this (`forgotten:<random>`): counted, never resolved. */
export const FORGOTTEN_PARENT = 'forgotten:';

export interface FeedbackRequest {
  namespace: string;
  idOrName: string;
  signal: string;
  value: number | null;
  sessionId: string | null;
  actor: string;
  at: string;
  compute: (
    skill: Skill,
    recent?: RecentTrials,
  ) => Pick<Skill, 'status' | 'eta' | 'utility' | 'trialsAttempted' | 'trialsPassed'>;
  /**
   * How many of the skill's latest trials `compute` is given (`recent`), read in the same transaction: at most this
   * many, newest first, of those since the skill last came back from retirement. 0 or absent: none are read.
   */
  recentTrials?: number;
  /** Skip when this session already gave this skill a trial (an outcome counts once). */
  oncePerSession?: boolean;
  /**
   * With oncePerSession: the session's trial of the skill that one of these `actors` gave (the outcome judge's) is
   * replaced by this one instead of kept, unless it is the same actor's same signal again. The replaced row stays,
   * marked (`replacedBy`), and counts no more; `replay` tells the skill's lifecycle again from that row on, given
   * the rows that count, oldest first, and the replaced one's index: one step per row after it, then this
   * signal's. The rows after it are restated as the replay says, so each row's before is the one before's after.
   */
  replaces?: {
    actors: readonly string[];
    replay: (skill: Skill, history: readonly FeedbackRecord[], taken: number) => LifecycleStep[];
  };
  /**
   * With `replaces`: only take the judged trial back, nothing in its place (no row is written; the replaced row
   * names itself). Without a judged trial to take back, nothing is written.
   */
  withdraw?: boolean;
  /**
   * The idempotency key the feedback was given under (the caller's key, hashed: it is stored). One feedback per key
   * in a namespace: a request whose key a row of the namespace has already is a repeat, answered with the skill as
   * it is and nothing written, when that row gave this skill this signal and value; else a ConflictError.
   */
  feedbackKey?: string | null;
}

/** What `applyFeedback` did: the skill before and after; `repeated` when its key had been given before (no write). */
export interface FeedbackApplied {
  before: Skill;
  after: Skill;
  repeated?: boolean;
}

/** The lifecycle columns of a skill before and after one signal, as a replay tells them. */
export interface LifecycleStep {
  before: Pick<Skill, 'status' | 'eta' | 'utility' | 'trialsAttempted' | 'trialsPassed'>;
  after: Pick<Skill, 'status' | 'eta' | 'utility' | 'trialsAttempted' | 'trialsPassed'>;
}

/** A skill's latest trials (true: passed), newest first, and whether they start where it came back from retirement. */
export interface RecentTrials {
  trials: boolean[];
  restarted: boolean;
}

export interface FeedbackRecord {
  id: number;
  skillId: string;
  signal: string;
  value: number | null;
  sessionId: string | null;
  at: string;
  etaBefore: number;
  etaAfter: number;
  statusBefore: string;
  statusAfter: string;
  utilityAfter: number | null;
  /** Null on a row written before feedback kept it. */
  utilityBefore: number | null;
  /**
   * Who gave it: `outcome` (a reported outcome), `judge` (the outcome judge's, lifecycle.judgedTrials), `user`,
   * `cli`...; null on a row written before feedback kept it.
   */
  actor: string | null;
  /**
   * The row of the trial that replaced this judged one (it counts no more): its own id when it was taken back with
   * nothing in its place (the task's reported outcome gave the skill no trial); null while it counts.
   */
  replacedBy: number | null;
}

export interface EmbeddingReplacement {
  /** The new embedder's id, stored with every vector. */
  embedderId: string;
  /** Each skill's new vector and, when its sessions give them, its new exemplars (else it has none). */
  vectors: {
    skillId: string;
    embedding: Float32Array;
    exemplars?: Float32Array | null;
    /** The sessions of each exemplar (Skill.exemplarSources). */
    exemplarSources?: (string[] | null)[] | null;
  }[];
  actor: string;
  at: string;
}

export interface SkillFilter {
  corpus?: 'internal' | 'external';
  includeSuperseded?: boolean;
  status?: SkillStatus[];
  enabled?: boolean;
}

export interface ClusterRecord {
  id: string;
  /** Normalised mean of the members' clustering features (goal + tool use). */
  centroid: Float32Array;
  /** Normalised mean of the members' goal embeddings (the recall prototype). */
  goalCentroid: Float32Array;
  size: number;
  /** Members added since the cluster was last distilled. */
  dirty: boolean;
  skillId: string | null;
  lastPassAt: string | null;
  /** New member session ids to add (only those; existing membership is kept). */
  newMembers: string[];
}

export type SkillWriteAction =
  | 'add'
  | 'update'
  | 'reinforce'
  | 'supersede'
  | 'import'
  | 'promote'
  | 'rename'
  /** A person's text (skills edit), and the text handed back to the learner (skills edit --revert). */
  | 'edit'
  | 'revert'
  /** Sources reported failed after the skill was learned left it (domain/revoked-sources.ts). */
  | 'revise';

export interface SkillWrite {
  action: SkillWriteAction;
  /** The full row to store (for reinforce: the row with new counts). */
  skill: Skill;
  /** For supersede: the row being superseded. */
  supersedes?: string;
  parents: { kind: ProvenanceKind; id: string }[];
  /** Episodic parents (session ids) that are no longer the skill's sources: their provenance rows are deleted. */
  dropParents?: string[];
  /** The row as it was, for a pass's write to an existing skill: a status it changes is said in a status event too. */
  before?: Pick<Skill, 'status'>;
  actor: string;
  detail: Record<string, unknown>;
  /** Cluster to link to the skill (and clear its dirty flag) in the same transaction. */
  clusterId?: string | null;
  /** The files of an imported skill folder (SKILL.md included), stored byte for byte under this version. */
  files?: SkillFile[];
  at: string;
}

/** One file of a skill folder: its path inside the folder (`/`-separated) and its exact bytes. */
export interface SkillFile {
  path: string;
  bytes: Buffer;
  /** Whether the file was executable (a script run directly); absent means not. */
  executable?: boolean;
}

export interface SkillVersion {
  skillId: string;
  version: string;
  skillMd: string;
  toolSequence: string[];
  reason: string;
  createdAt: string;
}

export interface SkillEvent {
  id: number;
  namespace: string;
  at: string;
  type: string;
  skillId: string | null;
  payload: Record<string, unknown>;
}
