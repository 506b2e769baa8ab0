import { TRIAL_SIGNALS } from '../../domain/lifecycle.js';
import { type ExemplarSources, exemplarsForgetting } from '../../domain/exemplars.js';
import { randomUUID } from 'node:crypto';
import type {
  AuditRecord,
  Fact,
  Outcome,
  OutcomeSource,
  Provenance,
  Session,
  SessionOutline,
  Skill,
} from '../../domain/types.js';
import type { HeldRecall } from '../../domain/recall-tasks.js';
import { NotFoundError } from '../../errors/not-found-error.js';
import { fromBuffer, toBuffer } from '../../vector/vector-math.js';
import {
  auditFromRow,
  callFromRow,
  clusterFromRow,
  eventFromRow,
  factFromRow,
  feedbackFromRow,
  feedbackInsertValues,
  json,
  outlinesFromRows,
  parseJson,
  provenanceFromRow,
  pushCallRow,
  rowChangeSql,
  sessionFromRow,
  sessionRef,
  sessionRowValues,
  skillFileFromRow,
  versionFromRow,
  type Row,
} from '../rows.js';
import { servedSkillFrom, skillFromRow, skillRowValues, vectorRowFrom } from '../skill-row.js';
import { stateKey, stateShapesRecall, type StateKey } from '../state-key.js';
import {
  FORGOTTEN_PARENT,
  type ClusterOfSessions,
  type ClusterRecord,
  type EmbeddingReplacement,
  type FeedbackApplied,
  type FeedbackRecord,
  type FeedbackRequest,
  type RecentTrials,
  type ForgetOptions,
  type ForgetSessionOptions,
  type ForgetSessionsOptions,
  type ForgottenSession,
  type RecalledForSession,
  type ServedSkill,
  type SkillEvent,
  type SkillFile,
  type SkillFilter,
  type SkillRevision,
  type SkillVectorRow,
  type SkillVersion,
  type SkillWrite,
  type SessionTimes,
  type SessionToForget,
  type Store,
} from '../store.js';
import {
  accepted,
  feedbackKeyStanding,
  feedbackNeedsTrialCheck,
  planFeedback,
  planMoveRecalls,
  trialStanding,
  auditDetailWithout,
  planForgetSession,
  planForgetSkill,
  planReembed,
  planSetEnabled,
  planSkillWrite,
  type Outbox,
  type RowChange,
} from '../write-plan.js';
import type { Query, Script, SqlPlan } from './plan.js';

/** A recall as `recordRecall` takes it, with its namespace: what a driver keeps until it writes it. */
/** Why a call was not appended to a session that has ended (by this process or another). */
export function endedReason(sessionId: string, outcome: string): string {
  return `session ${sessionId} already ended (${outcome}); record into a new session`;
}

export type RecallRecord = { namespace: string } & Parameters<Store['recordRecall']>[1];

/** What a write script returns: its answer and the audit records and events to append in its transaction. */
export interface Written<T> {
  result: T;
  outbox: Outbox | null;
}

const NO_OUTBOX = null;

/**
 * Every operation of the `Store` that both back ends share, written once over the query plan: a driver only
 * says how a script runs (`read`, `write`, `snapshot`: SQLite synchronously in a better-sqlite3 transaction,
 * PostgreSQL with awaits on a pooled connection) and adds what is its own (capture's live calls, the pass lock,
 * recall records written behind, the change token).
 */
export abstract class SqlStore implements Pick<Store, Exclude<keyof Store, SqlStoreOwn>> {
  protected constructor(protected readonly plan: SqlPlan) {}

  abstract readonly kind: string;
  abstract readonly location: string;

  /** Runs a script outside any transaction (each statement on its own). */
  protected abstract read<T>(script: () => Script<T>): Promise<T>;
  /** Runs a script and then its outbox in one transaction (the factory is called again when a driver retries). */
  protected abstract write<T>(script: () => Script<Written<T>>): Promise<T>;
  /** Runs a read-only script in one transaction, from one snapshot. */
  protected abstract snapshot<T>(script: () => Script<T>): Promise<T>;
  /** Writes out the recall records waiting to be written, before a read that shows them. */
  protected abstract settleRecalls(): Promise<void> | void;
  /** After a forget has committed (SQLite scrubs its write-ahead log). */
  protected afterForget(): void {}

  async schemaVersion(): Promise<number> {
    const p = this.plan;
    return this.read(function* () {
      return ((yield q(p.schemaVersion)).rows[0]?.v as number) ?? 0;
    });
  }

  // ── capture ──────────────────────────────────────────────────────────────

  async insertSessions(sessions: Session[]): Promise<{ inserted: number; skipped: number }> {
    if (sessions.length === 0) return { inserted: 0, skipped: 0 };
    const p = this.plan;
    const inserted = await this.write(function* () {
      const lock = p.lockSessions(sessions.map((s) => s.namespace));
      if (lock) yield lock;
      let n = 0;
      const calls: unknown[][] = [];
      for (const s of sessions) {
        if ((yield q(p.insertSession, sessionRowValues(s))).changes === 0) continue;
        n++;
        for (const c of s.calls) calls.push(pushCallRow([], s.namespace, s.id, c, p.dialect.bool));
      }
      for (const insert of p.insertCalls(calls)) yield insert;
      return { result: n, outbox: NO_OUTBOX };
    });
    return { inserted, skipped: sessions.length - inserted };
  }

  async growSessions(sessions: Session[]): Promise<number> {
    if (sessions.length === 0) return 0;
    const p = this.plan;
    return this.write(function* () {
      let grown = 0;
      for (const s of sessions) {
        const labels = s.labels == null ? null : JSON.stringify(s.labels);
        const row = [s.goal, s.cue ?? null, s.outcome, s.outcomeSource ?? 'reported', s.reward, s.endedAt, labels];
        if ((yield q(p.growSession, [...row, s.namespace, s.id])).changes === 0) continue;
        grown++;
        yield q(p.deleteCalls, [s.namespace, s.id]);
        for (const insert of p.insertCalls(s.calls.map((c) => pushCallRow([], s.namespace, s.id, c, p.dialect.bool))))
          yield insert;
        yield q(p.dirtyClusterOf, [p.dialect.bool(true), s.namespace, s.namespace, s.id]);
      }
      return { result: grown, outbox: NO_OUTBOX };
    });
  }

  async endSession(
    namespace: string,
    sessionId: string,
    outcome: Outcome,
    reward: number | null,
    endedAt: string,
    source: OutcomeSource = 'reported',
  ): Promise<void> {
    const p = this.plan;
    const changed = await this.read(function* () {
      const params = [outcome, source, reward, endedAt, namespace, sessionId];
      const n = (yield { ...q(p.endSession, params), name: 'skillsmith.endSession' }).changes;
      // A pass that read the session while it was open saw it unfinished: its cluster is distilled again.
      if (n)
        yield {
          ...q(p.dirtyClusterOf, [p.dialect.bool(true), namespace, namespace, sessionId]),
          name: 'skillsmith.dirtyClusterOf',
        };
      return n;
    });
    if (changed === 0) throw new NotFoundError(`session ${sessionId} does not exist in namespace ${namespace}`);
  }

  async getSession(namespace: string, id: string): Promise<Session | null> {
    const p = this.plan;
    const self = this;
    return this.read(function* () {
      const { rows } = yield q(p.sessionById, [namespace, id]);
      return rows.length ? (yield* self.hydrate(rows))[0] : null;
    });
  }

  async getSessions(namespace: string, ids: string[]): Promise<Session[]> {
    const self = this;
    return this.read(function* () {
      const rows = yield* self.readIn(ids, (chunk) =>
        q(self.plan.sessionsIn(chunk.length), [namespace, ...self.list(chunk)]),
      );
      rows.sort((a, b) => Number(a.seq) - Number(b.seq));
      return yield* self.hydrate(rows);
    });
  }

  async sessionHeads(namespace: string, ids: string[]): Promise<Pick<Session, 'id' | 'goal' | 'startedAt'>[]> {
    const self = this;
    return this.read(function* () {
      const rows = yield* self.readIn(ids, (chunk) =>
        q(self.plan.sessionHeadsIn(chunk.length), [namespace, ...self.list(chunk)]),
      );
      rows.sort((a, b) => Number(a.seq) - Number(b.seq));
      return rows.map((r) => ({
        id: r.id as string,
        goal: r.goal as string,
        startedAt: (r.started_at as string) ?? null,
      }));
    });
  }

  async sessionTimes(namespace: string): Promise<SessionTimes[]> {
    const p = this.plan;
    return this.read(function* () {
      const { rows } = yield q(p.sessionTimes, [namespace]);
      return rows.map((r) => ({
        id: r.id as string,
        startedAt: (r.started_at as string) ?? null,
        endedAt: (r.ended_at as string) ?? null,
        lastCallAt: (r.last_call_at as string) ?? null,
      }));
    });
  }

  async listSessionOutlinesAfter(namespace: string, afterSeq: number, limit: number): Promise<SessionOutline[]> {
    const p = this.plan;
    return this.read(function* () {
      const { rows } = yield q(p.outlinesAfter, [namespace, afterSeq, limit]);
      if (rows.length === 0) return [];
      const calls = yield q(p.outlineCalls, [namespace, afterSeq, rows[rows.length - 1].seq]);
      return outlinesFromRows(
        rows,
        calls.rows.map((c) => [c.session_id, c.tool, c.ok, c.args]),
      );
    });
  }

  async listSessions(namespace: string, opts: { limit?: number; offset?: number } = {}): Promise<Session[]> {
    const self = this;
    return this.read(function* () {
      const { rows } = yield q(self.plan.listSessions, [namespace, opts.limit ?? 100, opts.offset ?? 0]);
      return yield* self.hydrate(rows);
    });
  }

  async countSessions(namespace: string): Promise<number> {
    const p = this.plan;
    return this.read(function* () {
      return Number((yield q(p.countSessions, [namespace])).rows[0].n);
    });
  }

  async existingSessionIds(namespace: string, ids: string[]): Promise<Set<string>> {
    const self = this;
    return this.read(function* () {
      const rows = yield* self.readIn(ids, (chunk) =>
        q(self.plan.sessionIdsIn(chunk.length), [namespace, ...self.list(chunk)]),
      );
      return new Set(rows.map((r) => r.id as string));
    });
  }

  async openSessionIds(namespace: string, ids: string[]): Promise<Set<string>> {
    const self = this;
    return this.read(function* () {
      const rows = yield* self.readIn(ids, (chunk) =>
        q(self.plan.openSessionIdsIn(chunk.length), [namespace, ...self.list(chunk)]),
      );
      return new Set(rows.map((r) => r.id as string));
    });
  }

  /** The sessions of these rows with their calls: one query per namespace and chunk of sessions. */
  private *hydrate(rows: Row[]): Script<Session[]> {
    const byNamespace = new Map<string, string[]>();
    for (const r of rows) {
      let ids = byNamespace.get(r.namespace);
      if (!ids) byNamespace.set(r.namespace, (ids = []));
      ids.push(r.id);
    }
    const key = (ns: string, id: string) => `${ns}\u0000${id}`;
    const calls = new Map<string, ReturnType<typeof callFromRow>[]>();
    for (const [ns, ids] of byNamespace) {
      const found = yield* this.readIn(ids, (chunk) => q(this.plan.callsIn(chunk.length), [ns, ...this.list(chunk)]));
      for (const c of found) {
        const k = key(ns, c.session_id);
        let list = calls.get(k);
        if (!list) calls.set(k, (list = []));
        list.push(callFromRow(c));
      }
    }
    return rows.map((r) => sessionFromRow(r, calls.get(key(r.namespace, r.id)) ?? []));
  }

  async addFact(fact: Fact): Promise<void> {
    const p = this.plan;
    await this.read(function* () {
      yield q(p.addFact, [fact.namespace, fact.id, fact.text, fact.source, fact.createdAt]);
    });
  }

  async listFacts(namespace: string): Promise<Fact[]> {
    const p = this.plan;
    return this.read(function* () {
      return (yield q(p.listFacts, [namespace])).rows.map(factFromRow);
    });
  }

  async getFacts(namespace: string, ids: string[]): Promise<Fact[]> {
    const self = this;
    return this.read(function* () {
      const rows = yield* self.readIn(ids, (chunk) =>
        q(self.plan.factsIn(chunk.length), [namespace, ...self.list(chunk)]),
      );
      const byId = new Map(rows.map((r) => [r.id as string, factFromRow(r)]));
      return ids.map((id) => byId.get(id)).filter((f): f is Fact => !!f);
    });
  }

  // ── synthesis state ──────────────────────────────────────────────────────

  async getState(namespace: string, key: StateKey): Promise<string | null> {
    const p = this.plan;
    return this.read(function* () {
      const { rows } = yield q(p.getState, [namespace, key]);
      return rows.length ? (rows[0].value as string) : null;
    });
  }

  async setState(namespace: string, key: StateKey, value: string): Promise<void> {
    const p = this.plan;
    // The mean goal direction shapes every recall vector: recall indexes elsewhere must reload when it moves.
    const outbox = stateShapesRecall(key) ? { audit: [], events: [], skillsChanged: true } : NO_OUTBOX;
    await this.write(function* () {
      yield q(p.setState, [namespace, key, value]);
      return { result: undefined, outbox };
    });
  }

  async getCachedEmbeddings(embedderId: string, hashes: string[]): Promise<Map<string, Float32Array>> {
    const self = this;
    return this.read(function* () {
      const rows = yield* self.readIn(hashes, (chunk) =>
        q(self.plan.cachedEmbeddingsIn(chunk.length), [embedderId, ...self.list(chunk)]),
      );
      return new Map(rows.map((r) => [r.text_hash as string, fromBuffer(r.vector)]));
    });
  }

  async putCachedEmbeddings(embedderId: string, entries: { hash: string; vector: Float32Array }[]): Promise<void> {
    const p = this.plan;
    // The last entry for a hash wins (one statement cannot upsert a key twice).
    const latest = new Map(entries.map((e) => [e.hash, e.vector]));
    const rows = [...latest].map(([hash, vector]) => [embedderId, hash, toBuffer(vector)]);
    await this.write(function* () {
      for (const insert of p.putCachedEmbeddings(rows)) yield insert;
      return { result: undefined, outbox: NO_OUTBOX };
    });
  }

  async loadClusters(namespace: string, embedderId: string): Promise<ClusterRecord[]> {
    const p = this.plan;
    return this.read(function* () {
      return (yield q(p.loadClusters, [namespace, embedderId])).rows.map(clusterFromRow);
    });
  }

  async saveClusters(
    namespace: string,
    embedderId: string,
    clusters: ClusterRecord[],
    watermark: number,
  ): Promise<void> {
    const p = this.plan;
    const bool = p.dialect.bool;
    await this.write(function* () {
      for (const c of clusters) {
        yield q(p.upsertCluster, [
          namespace,
          c.id,
          embedderId,
          toBuffer(c.centroid),
          toBuffer(c.goalCentroid),
          c.size,
          bool(c.dirty),
          c.skillId,
          c.lastPassAt,
        ]);
        const members = [...new Set(c.newMembers)].map((s) => [namespace, s, c.id]);
        for (const insert of p.addClusterMembers(members)) yield insert;
      }
      yield q(p.setState, [namespace, stateKey.watermark(embedderId), String(watermark)]);
      return { result: undefined, outbox: NO_OUTBOX };
    });
  }

  async clusterMembers(namespace: string, clusterId: string): Promise<string[]> {
    const p = this.plan;
    return this.read(function* () {
      return (yield q(p.clusterMembers, [namespace, clusterId])).rows.map((r) => r.session_id as string);
    });
  }

  async markClusterPassed(namespace: string, clusterId: string, at: string, dirty: boolean): Promise<void> {
    const p = this.plan;
    await this.read(function* () {
      yield q(p.markClusterPassed, [at, p.dialect.bool(dirty), namespace, clusterId]);
    });
  }

  async replaceEmbeddings(
    namespace: string,
    change: EmbeddingReplacement,
  ): Promise<{ skills: number; clusters: number }> {
    const p = this.plan;
    return this.write(function* () {
      const out = { skills: 0, clusters: 0 };
      for (const v of change.vectors)
        out.skills += (yield q(p.updateEmbedding, [
          change.embedderId,
          toBuffer(v.embedding),
          v.exemplars ? toBuffer(v.exemplars) : null,
          v.exemplars && v.exemplarSources ? JSON.stringify(v.exemplarSources) : null,
          namespace,
          v.skillId,
        ])).changes;
      yield q(p.deleteClusterMembers, [namespace]);
      out.clusters = (yield q(p.deleteClusters, [namespace])).changes;
      yield q(p.clearReembedState, [namespace]);
      return { result: out, outbox: planReembed(namespace, change, out) };
    });
  }

  // ── skills ───────────────────────────────────────────────────────────────

  async listSkills(namespace: string, filter: SkillFilter = {}): Promise<Skill[]> {
    await this.settleRecalls(); // last_used_at must read as the recalls left it
    const p = this.plan;
    return this.read(function* () {
      const list = p.skillList(namespace, filter);
      const { rows } = yield list.skills;
      if (p.dialect.parentsInRow) return rows.map((r) => skillFromRow(r, r.source_sessions ?? []));
      // One query for every listed skill's parents rather than one per skill.
      const parents = new Map<string, string[]>();
      for (const r of (yield list.parents).rows) {
        let ids = parents.get(r.skill_id);
        if (!ids) parents.set(r.skill_id, (ids = []));
        ids.push(r.source_id);
      }
      return rows.map((r) => skillFromRow(r, parents.get(r.id) ?? []));
    });
  }

  async getSkill(namespace: string, idOrName: string): Promise<Skill | null> {
    await this.settleRecalls();
    return this.read(() => this.findSkill(namespace, idOrName, false));
  }

  /** By id, else the best row of that name (live first, internal first, newest first); locked to write it. */
  private *findSkill(namespace: string, idOrName: string, forUpdate: boolean): Script<Skill | null> {
    const p = this.plan;
    const byId = yield q(forUpdate ? p.skillByIdLocked : p.skillById, [namespace, idOrName]);
    const row =
      byId.rows[0] ?? (yield q(forUpdate ? p.skillByNameLocked : p.skillByName, [namespace, idOrName])).rows[0];
    if (!row) return null;
    if (p.dialect.parentsInRow) return skillFromRow(row, row.source_sessions ?? []);
    const parents = yield q(p.sourceSessions, [row.id]);
    return skillFromRow(
      row,
      parents.rows.map((r) => r.source_id as string),
    );
  }

  async writeSkill(w: SkillWrite): Promise<Skill> {
    const p = this.plan;
    const s = w.skill;
    const self = this;
    await this.write(function* () {
      // The row being superseded is locked: of two writers superseding it, the second sees the first's mark.
      const superseded = w.supersedes ? (yield q(p.supersededBy, [s.namespace, w.supersedes])).rows[0] : undefined;
      const plan = accepted(
        planSkillWrite(w, { superseded: superseded ? { supersededBy: superseded.superseded_by } : null }),
      );
      if (plan.supersede) yield self.change(plan.supersede);
      yield q(p.upsertSkill, skillRowValues(plan.skill, p.dialect.bool));
      for (const drop of plan.dropProvenance) yield self.change(drop);
      const provenance = plan.provenance.map((r) => [r.skillId, r.sourceKind, r.sourceId, r.version, r.createdAt]);
      for (const insert of p.insertProvenance(provenance)) yield insert;
      const v = plan.version;
      yield q(p.insertVersion, [v.skillId, v.version, v.skillMd, json(v.toolSequence), v.reason, v.createdAt]);
      if (plan.files) {
        const f = plan.files;
        yield self.change(f.clear);
        for (const file of f.files)
          yield q(p.insertSkillFile, [f.skillId, f.version, file.path, file.bytes, file.executable ? 1 : 0]);
      }
      if (plan.linkCluster) yield self.change(plan.linkCluster);
      return { result: undefined, outbox: plan };
    });
    return (await this.getSkill(s.namespace, s.id))!;
  }

  /** A plan's change to existing rows, in the dialect. */
  private change(ch: RowChange): Query {
    const { text, values } = rowChangeSql(ch, () => '?', this.plan.dialect.bool);
    return { sql: this.plan.dialect.numbered(text), params: values };
  }

  async setSkillEnabled(namespace: string, idOrName: string, enabled: boolean, actor: string): Promise<Skill | null> {
    const skill = await this.getSkill(namespace, idOrName);
    if (!skill) return null;
    const plan = planSetEnabled(skill, enabled, actor, new Date().toISOString());
    const self = this;
    await this.write(function* () {
      yield self.change(plan.update);
      return { result: undefined, outbox: plan };
    });
    return this.getSkill(namespace, skill.id);
  }

  async touchSkills(namespace: string, ids: string[], at: string): Promise<void> {
    const self = this;
    await this.write(function* () {
      yield* self.readIn(ids, (chunk) =>
        q(self.plan.touchSkillsIn(chunk.length), [at, namespace, ...self.list(chunk)]),
      );
      return { result: undefined, outbox: NO_OUTBOX };
    });
  }

  async provenance(skillId: string): Promise<Provenance[]> {
    const p = this.plan;
    return this.read(function* () {
      return (yield q(p.provenance, [skillId])).rows.map(provenanceFromRow);
    });
  }

  async skillFiles(skillId: string, version: string): Promise<SkillFile[]> {
    const p = this.plan;
    return this.read(function* () {
      return (yield q(p.skillFiles, [skillId, version])).rows.map(skillFileFromRow);
    });
  }

  async skillVersions(skillId: string): Promise<SkillVersion[]> {
    const p = this.plan;
    return this.read(function* () {
      return (yield q(p.skillVersions, [skillId])).rows.map(versionFromRow);
    });
  }

  async applyFeedback(req: FeedbackRequest): Promise<FeedbackApplied | null> {
    await this.settleRecalls();
    const self = this;
    return this.write<FeedbackApplied | null>(function* () {
      const p = self.plan;
      const key = req.feedbackKey ?? null;
      // A feedback under an idempotency key: two at once of one key (for two skills, whose rows are locked apart)
      // cannot both find it unused.
      if (key !== null && p.lockFeedbackKey) yield q(p.lockFeedbackKey, [req.namespace, key]);
      // Lock the row first: concurrent signals on one skill apply one after the other, each to the state the
      // previous one left, and the once-per-session check below cannot be passed twice.
      const before = yield* self.findSkill(req.namespace, req.idOrName, true);
      if (!before) return { result: null, outbox: NO_OUTBOX };
      if (key !== null) {
        const held = (yield q(p.feedbackByKey, [req.namespace, key])).rows[0];
        const standing = accepted(
          feedbackKeyStanding(
            req,
            before,
            held
              ? {
                  skillId: held.skill_id as string,
                  name: (held.name as string | null) ?? null,
                  signal: held.signal as string,
                  value: held.value == null ? null : Number(held.value),
                }
              : null,
          ),
        );
        // A retried request: answered with the skill as it is, nothing written.
        if (standing === 'repeated') return { result: { before, after: before, repeated: true }, outbox: NO_OUTBOX };
      }
      const found = feedbackNeedsTrialCheck(req)
        ? (yield q(p.sessionTrial(TRIAL_SIGNALS.length), [before.id, req.sessionId, ...self.list(TRIAL_SIGNALS)]))
            .rows[0]
        : undefined;
      const earlier = found
        ? { id: Number(found.id), signal: found.signal as string, actor: found.actor ?? null }
        : null;
      const standing = trialStanding(req, earlier);
      const tried = standing === 'tried';
      // A judged trial replaced: the skill's lifecycle is told again from it on, over the rows that count.
      let replacing: { history: FeedbackRecord[]; taken: number } | undefined;
      if (standing === 'replace') {
        const history = (yield q(p.countedFeedback, [before.id])).rows.map(feedbackFromRow);
        replacing = { history, taken: history.findIndex((h) => h.id === earlier!.id) };
      }
      let recent: RecentTrials | undefined;
      if (!replacing && req.recentTrials && req.recentTrials > 0) {
        const back = (yield q(p.lastReturn, [before.id])).rows[0]?.id;
        const rows = (yield q(p.recentTrials, [before.id, back == null ? 0 : Number(back), req.recentTrials])).rows;
        recent = { trials: rows.map((r) => r.signal === 'trial.pass'), restarted: back != null };
      }
      const plan = planFeedback(req, before, { sessionAlreadyTried: tried, recent, replacing });
      if (!plan) return { result: null, outbox: NO_OUTBOX };
      yield self.change(plan.update);
      if (plan.feedback) yield q(p.insertFeedback, feedbackInsertValues(plan.feedback));
      if (plan.replaced) {
        if (plan.feedback) yield q(p.markReplaced, [before.id, plan.replaced.id]);
        else yield q(p.markWithdrawn, [plan.replaced.id]);
        for (const r of plan.replaced.restated)
          yield q(p.restateFeedback, [
            r.etaBefore,
            r.etaAfter,
            r.statusBefore,
            r.statusAfter,
            r.utilityBefore,
            r.utilityAfter,
            r.id,
          ]);
      }
      return { result: { before, after: plan.after }, outbox: plan };
    });
  }

  async feedbackHistory(skillId: string): Promise<FeedbackRecord[]> {
    const p = this.plan;
    return this.read(function* () {
      return (yield q(p.feedbackHistory, [skillId])).rows.map(feedbackFromRow);
    });
  }

  async skillsServedForSession(namespace: string, sessionId: string): Promise<string[]> {
    await this.settleRecalls();
    const p = this.plan;
    return this.read(function* () {
      return (yield q(p.servedForSession, [namespace, sessionId])).rows.map((r) => r.skill_id as string);
    });
  }

  async recallsHeldBy(namespace: string, sessionIds: string[]): Promise<HeldRecall[]> {
    if (sessionIds.length === 0) return [];
    await this.settleRecalls();
    const self = this;
    return this.read(function* () {
      const rows = yield* self.readIn(sessionIds, (chunk) =>
        q(self.plan.recallsHeldIn(chunk.length), [namespace, ...self.list(chunk)]),
      );
      return rows
        .map((r) => ({
          id: Number(r.id),
          sessionId: r.session_id as string | null,
          goal: r.goal as string,
          at: r.at as string,
        }))
        .sort((a, b) => a.id - b.id);
    });
  }

  async moveRecalls(
    namespace: string,
    moves: { recallId: number; from: string; to: string }[],
    opts: { actor?: string; at?: string } = {},
  ): Promise<number> {
    if (moves.length === 0) return 0;
    await this.settleRecalls();
    const p = this.plan;
    const by = { actor: opts.actor ?? 'capture', at: opts.at ?? new Date().toISOString() };
    return this.write(function* () {
      const moved: typeof moves = [];
      for (const m of moves) if ((yield q(p.moveRecall, [m.to, namespace, m.recallId, m.from])).changes) moved.push(m);
      return { result: moved.length, outbox: moved.length ? planMoveRecalls(namespace, moved, by) : NO_OUTBOX };
    });
  }

  async recalledForSession(namespace: string, sessionId: string): Promise<RecalledForSession[]> {
    await this.settleRecalls();
    const p = this.plan;
    return this.read(function* () {
      return (yield q(p.recalledFor, [namespace, sessionId])).rows.map((r) => ({
        skillId: r.skill_id as string,
        name: (r.name as string | null) ?? null,
        similarity: Number(r.similarity),
        rank: Number(r.rank),
        at: r.at as string,
      }));
    });
  }

  // ── recall index ─────────────────────────────────────────────────────────

  async skillRevision(namespace: string): Promise<SkillRevision> {
    const p = this.plan;
    return this.read(function* () {
      return revisionFrom((yield q(p.skillRevision, [namespace])).rows[0]);
    });
  }

  async skillVectors(
    namespace: string,
    opts: { changedAfter?: number } = {},
  ): Promise<{ revision: SkillRevision; rows: SkillVectorRow[]; changedIds: string[] | null }> {
    const self = this;
    const p = this.plan;
    // One snapshot: the revision and the rows are read together.
    return this.snapshot(function* () {
      const revision = revisionFrom((yield q(p.skillRevision, [namespace])).rows[0]);
      const after = opts.changedAfter;
      // The log was pruned past `changedAfter` and this namespace changed since: every skill, as for a rebuild.
      const pruned =
        after !== undefined &&
        revision.revision > after &&
        after < Number((yield q(p.changesPrunedThrough, [])).rows[0].through);
      if (after === undefined || pruned) {
        return { revision, rows: (yield q(p.vectorsAll, [namespace])).rows.map(vectorRowFrom), changedIds: null };
      }
      const changedIds = (yield q(p.changedSkillIds, [namespace, after])).rows.map((c) => c.skill_id as string);
      const rows = yield* self.readIn(changedIds, (chunk) =>
        q(p.vectorsIn(chunk.length), [namespace, ...self.list(chunk)]),
      );
      return { revision, rows: rows.map(vectorRowFrom), changedIds };
    });
  }

  async recallSkills(namespace: string, ids: string[]): Promise<ServedSkill[]> {
    const self = this;
    return this.read(function* () {
      const rows = yield* self.readIn([...new Set(ids)], (chunk) =>
        q(self.plan.servedIn(chunk.length), [namespace, ...self.list(chunk)]),
      );
      return rows.map(servedSkillFrom);
    });
  }

  // ── audit and events ─────────────────────────────────────────────────────

  async audit(namespace: string, opts: { subjectId?: string; limit?: number } = {}): Promise<AuditRecord[]> {
    const p = this.plan;
    const limit = opts.limit ?? 100;
    return this.read(function* () {
      const read = opts.subjectId ? q(p.auditOf, [namespace, opts.subjectId, limit]) : q(p.audit, [namespace, limit]);
      return (yield read).rows.map(auditFromRow);
    });
  }

  async auditSince(afterId: number, limit: number): Promise<AuditRecord[]> {
    const p = this.plan;
    return this.read(function* () {
      return (yield q(p.auditSince, [afterId, limit])).rows.map(auditFromRow);
    });
  }

  async lastEventId(namespace?: string): Promise<number> {
    const p = this.plan;
    return this.read(function* () {
      if (namespace === undefined) return Number((yield q(p.lastEventId, [])).rows[0].id);
      const row = (yield q(p.lastEventIdIn, [namespace])).rows[0];
      return row ? Number(row.id) : 0;
    });
  }

  async events(namespace: string, opts: { afterId?: number; limit?: number } = {}): Promise<SkillEvent[]> {
    const p = this.plan;
    return this.read(function* () {
      return (yield q(p.events, [namespace, opts.afterId ?? 0, opts.limit ?? 1000])).rows.map(eventFromRow);
    });
  }

  async appendEvent(
    namespace: string,
    type: string,
    skillId: string | null,
    payload: Record<string, unknown>,
    at: string,
  ): Promise<void> {
    await this.appendOutbox({ audit: [], events: [{ namespace, at, type, skillId, payload }], skillsChanged: false });
  }

  async appendAudit(r: AuditRecord): Promise<void> {
    await this.appendOutbox({ audit: [r], events: [], skillsChanged: false });
  }

  private appendOutbox(outbox: Outbox): Promise<void> {
    // biome-ignore lint/correctness/useYield: an outbox alone: the driver writes it
    return this.write(function* () {
      return { result: undefined, outbox };
    });
  }

  // ── forgetting ───────────────────────────────────────────────────────────

  async forgetSession(
    namespace: string,
    sessionId: string,
    opts: ForgetSessionOptions,
  ): Promise<ForgottenSession | null> {
    const { embeddingHashes, stateIfClustered, ...when } = opts;
    const [gone] = await this.forgetSessions(namespace, [{ id: sessionId, embeddingHashes }], {
      ...when,
      stateIfClustered: () => stateIfClustered ?? [],
    });
    if (!gone) return null;
    const { id: _, ...forgotten } = gone;
    return forgotten;
  }

  async forgetSessions(
    namespace: string,
    sessions: readonly SessionToForget[],
    opts: ForgetSessionsOptions,
  ): Promise<(ForgottenSession & { id: string })[]> {
    if (sessions.length === 0) return [];
    // A recall still queued for one of them must not be written after it is forgotten.
    await this.settleRecalls();
    const p = this.plan;
    const self = this;
    const out = await this.write(function* () {
      const asked = [...new Set(sessions.map((s) => s.id))];
      const inList = (ids: readonly string[], statement: (n: number) => string, first: unknown = namespace) =>
        self.readIn(ids, (chunk) => q(statement(chunk.length), [first, ...self.list(chunk)]));
      const deleted = new Set((yield* inList(asked, p.deleteSessionsIn)).map((r) => r.id as string));
      if (deleted.size === 0) return { result: [], outbox: NO_OUTBOX };
      const ids = asked.filter((id) => deleted.has(id));
      const calls = countOf((yield* inList(ids, p.deleteCallsIn)).map((r) => r.session_id as string));
      const clusterOf = new Map(
        (yield* inList(ids, p.leaveClustersIn)).map((r) => [r.session_id as string, r.cluster_id as string]),
      );
      if (clusterOf.size) {
        // A cluster left with no session goes: its centroids were its sessions' goals (no skill was learned from it).
        for (const [clusterId, n] of countOf([...clusterOf.values()])) {
          yield q(p.shrinkClusterBy, [n, namespace, clusterId]);
          yield q(p.dropClusterIfEmpty, [namespace, clusterId]);
        }
        // The centroids of the clusters they leave, from the members that stay: when as many stay as they were
        // computed from (a cluster dropped above is none).
        for (const c of opts.centroids ?? [])
          yield q(p.setCentroidsIfSize, [
            toBuffer(c.centroid),
            toBuffer(c.goalCentroid),
            namespace,
            c.clusterId,
            c.size,
          ]);
        // The statistics a pass counted them in, without them: written once for the batch.
        for (const st of opts.stateIfClustered?.(ids.filter((id) => clusterOf.has(id))) ?? [])
          yield q(p.setState, [namespace, st.key, st.value]);
      }
      yield* inList(ids, p.deleteRecallItemsOfIn);
      yield* inList(ids, p.deleteRecallsOfIn);
      yield* inList(ids, p.anonymiseFeedbackIn);
      // Feedback audit records named a session by id: they keep its opaque reference instead; so do the records of
      // recalls moved from or to it, and a detail that is not JSON holds the reference where it held the id. One
      // pass over the namespace's audit records for the whole batch.
      const refs = new Map(ids.map((id) => [id, sessionRef(id)]));
      const batch = JSON.stringify(ids.map((id) => ({ id, json: JSON.stringify(id).slice(1, -1) })));
      const rewritten: [number, string][] = [];
      for (const r of (yield q(p.auditNamingSessions, [batch, namespace])).rows) {
        const detail = auditDetailWithout(r.action as string, r.detail as string, refs);
        if (detail !== null) rewritten.push([Number(r.id), detail]);
      }
      for (const st of p.rewriteAudit(rewritten)) yield st;
      const hashes = new Map<string, Set<string>>();
      for (const s of sessions)
        if (deleted.has(s.id))
          for (const e of s.embeddingHashes ?? [])
            hashes.set(e.embedderId, (hashes.get(e.embedderId) ?? new Set()).add(e.hash));
      for (const [embedderId, of] of hashes) yield* inList([...of], p.deleteCachedEmbeddingsIn, embedderId);
      // Lineage stays honest: a skill keeps a marker that one of its parents was forgotten, not which.
      const parentsOf = new Map<string, { skillId: string; name: string }[]>();
      const markers: [string, string, string][] = [];
      for (const r of yield* inList(ids, p.parentsOfIn)) {
        const sessionId = r.source_id as string;
        markers.push([r.skill_id as string, sessionId, `${FORGOTTEN_PARENT}${randomUUID()}`]);
        const parent = { skillId: r.skill_id as string, name: r.name as string };
        parentsOf.set(sessionId, [...(parentsOf.get(sessionId) ?? []), parent]);
      }
      for (const st of p.forgetParents(markers)) yield st;
      // Their goals and cues leave the recall exemplars of the skills learned from them: an exemplar that says its
      // sessions loses theirs (and goes with the last), one of unknown source goes when it is one of their vectors.
      if (parentsOf.size) {
        const forgotten = opts.forgottenVectors;
        const gone = new Set(parentsOf.keys());
        // And the skills that superseded them: a successor took its predecessor's wordings (a tool rename), not its
        // parents. Followed by id along the chain, each skill once.
        const skillIds = new Set([...parentsOf.values()].flat().map((x) => x.skillId));
        for (let next = [...skillIds]; next.length; ) {
          const successors = (yield* inList(next, p.successorsIn)).map((r) => r.superseded_by as string);
          next = successors.filter((id) => !skillIds.has(id));
          for (const id of next) skillIds.add(id);
        }
        for (const r of yield* inList([...skillIds], p.exemplarsIn)) {
          const vectors = forgotten && r.embedder_id === forgotten.embedderId ? forgotten.vectors : undefined;
          const stored = {
            exemplars: fromBuffer(r.exemplars as Buffer),
            exemplarSources: parseJson<ExemplarSources | null>(r.exemplar_sources as string | null, null),
          };
          const left = exemplarsForgetting(stored, gone, vectors);
          if (left)
            yield q(p.setExemplars, [
              left.exemplars ? toBuffer(left.exemplars) : null,
              left.exemplarSources ? JSON.stringify(left.exemplarSources) : null,
              namespace,
              r.id,
            ]);
        }
      }
      // Each session's own audit record and events, as forgetting it alone writes them.
      const result: (ForgottenSession & { id: string })[] = [];
      const outbox: Outbox = { audit: [], events: [], skillsChanged: false };
      for (const id of ids) {
        const gone = {
          calls: calls.get(id) ?? 0,
          clusterId: clusterOf.get(id) ?? null,
          parents: parentsOf.get(id) ?? [],
        };
        const plan = planForgetSession(namespace, refs.get(id)!, gone, opts);
        result.push({ id, ...plan.result });
        outbox.audit.push(...plan.audit);
        outbox.events.push(...plan.events);
        outbox.skillsChanged ||= plan.skillsChanged;
      }
      return { result, outbox };
    });
    if (out.length) this.afterForget();
    return out;
  }

  async parentsOfUnsourcedExemplarsIn(namespace: string, sessionIds: readonly string[]): Promise<Set<string>> {
    const p = this.plan;
    const self = this;
    const rows = await this.read(function* () {
      return yield* self.readIn(sessionIds, (chunk) =>
        q(p.parentsOfUnsourcedExemplarsIn(chunk.length), [namespace, ...self.list(chunk)]),
      );
    });
    return new Set(rows.map((r) => r.source_id as string));
  }

  async clustersOfSessions(namespace: string, sessionIds: readonly string[]): Promise<ClusterOfSessions[]> {
    const p = this.plan;
    const self = this;
    return this.read(function* () {
      const of = yield* self.readIn(sessionIds, (chunk) =>
        q(p.clustersOfIn(chunk.length), [namespace, ...self.list(chunk)]),
      );
      const embedderOf = new Map(of.map((r) => [r.cluster_id as string, r.embedder_id as string]));
      if (embedderOf.size === 0) return [];
      const clusterIds = [...embedderOf.keys()];
      const members = new Map(clusterIds.map((id) => [id, [] as string[]]));
      const rows = yield* self.readIn(clusterIds, (chunk) =>
        q(p.membersOfClustersIn(chunk.length), [namespace, ...self.list(chunk)]),
      );
      // In seq order, as the rows are.
      for (const r of rows) members.get(r.cluster_id as string)!.push(r.session_id as string);
      return clusterIds.map((id) => ({ id, embedderId: embedderOf.get(id)!, members: members.get(id)! }));
    });
  }

  async sessionOutlines(namespace: string, ids: readonly string[]): Promise<SessionOutline[]> {
    const p = this.plan;
    const self = this;
    return this.read(function* () {
      const read = (statement: (n: number) => string) =>
        self.readIn(ids, (chunk) => q(statement(chunk.length), [namespace, ...self.list(chunk)]));
      const rows = yield* read(p.outlinesIn);
      if (rows.length === 0) return [];
      const calls = yield* read(p.outlineCallsIn);
      // One seq order across the chunks of a long list.
      return outlinesFromRows(
        rows.sort((a, b) => Number(a.seq) - Number(b.seq)),
        calls.map((c) => [c.session_id, c.tool, c.ok, c.args]),
      );
    });
  }

  async forgetSkill(
    namespace: string,
    idOrName: string,
    opts: ForgetOptions,
  ): Promise<{ id: string; name: string } | null> {
    await this.settleRecalls();
    const self = this;
    const out = await this.write(function* () {
      const skill = yield* self.findSkill(namespace, idOrName, true);
      if (!skill) return { result: null, outbox: NO_OUTBOX };
      const plan = planForgetSkill(skill, opts);
      for (const ch of plan.changes) yield self.change(ch);
      return { result: { id: skill.id, name: skill.name }, outbox: plan };
    });
    if (out) this.afterForget();
    return out;
  }

  // ── helpers ──────────────────────────────────────────────────────────────

  /** The rows a list statement reads for `values`, in chunks the dialect can bind. */
  private *readIn(values: readonly string[], read: (chunk: readonly string[]) => Query): Script<Row[]> {
    const rows: Row[] = [];
    const max = this.plan.dialect.maxList;
    for (let i = 0; i < values.length; i += max) rows.push(...(yield read(values.slice(i, i + max))).rows);
    return rows;
  }

  /** The parameters of a list of values in the dialect. */
  private list(values: readonly unknown[]): unknown[] {
    return this.plan.dialect.listParams(values);
  }
}

/** The methods each driver writes itself. */
type SqlStoreOwn = 'close' | 'changeToken' | 'beginSession' | 'appendCall' | 'tryLock' | 'recordRecall';

/** How many times each value occurs. */
function countOf(values: readonly string[]): Map<string, number> {
  const n = new Map<string, number>();
  for (const v of values) n.set(v, (n.get(v) ?? 0) + 1);
  return n;
}

/** A statement of the plan with its parameters. */
function q(sql: string, params: unknown[] = []): Query {
  return { sql, params };
}

function revisionFrom(r: Row): SkillRevision {
  return { storeId: r.store_id as string, revision: Number(r.revision) };
}
