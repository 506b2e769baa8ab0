import { CALL_COLUMNS, FEEDBACK_INSERT_COLUMNS, SESSION_COLUMNS, type Row } from '../rows.js';
import { SERVED_COLUMNS, skillInsertSql, VECTOR_COLUMNS } from '../skill-row.js';
import { STATE_CLEARED_ON_REEMBED_SQL } from '../state-key.js';
import { FORGOTTEN_PARENT, type SkillFilter } from '../store.js';
import type { Dialect, RowColumn } from './dialect.js';

/**
 * The arguments of a call whose tool name may be a command runner (bash, shell, exec, command, cmd, terminal),
 * else NULL: a cheap filter in SQL, the exact test in commands.ts.
 */
const RUNNER_ARGS = `CASE WHEN ${['sh', 'exec', 'command', 'cmd', 'terminal']
  .map((w) => `lower(c.tool) LIKE '%${w}%'`)
  .join(' OR ')} THEN c.args END AS args`;

/** One statement in a dialect: its SQL (built once) and its parameters. */
export interface Query {
  sql: string;
  params: unknown[];
  /** A name under which PostgreSQL keeps the statement prepared on each connection (SQLite caches them all). */
  name?: string;
}

/** What a driver hands back for a statement: its rows (of a SELECT or a RETURNING) and how many rows it changed. */
export interface QueryResult {
  rows: Row[];
  changes: number;
}

/** Statements run in order, each given the result of the one before; returns what the operation answers. */
export type Script<T> = Generator<Query, T, QueryResult>;

/** The PostgreSQL types of `CALL_COLUMNS`, in order (multi-row inserts bind one typed array per column). */
export const CALL_TYPES = ['text', 'text', 'int', 'text', 'text', 'text', 'bool', 'text', 'float8', 'text'] as const;

const CALL_ROW_COLUMNS: RowColumn[] = CALL_COLUMNS.map((name, i) => ({ name, type: CALL_TYPES[i] }));
const PROVENANCE_COLUMNS: RowColumn[] = ['skill_id', 'source_kind', 'source_id', 'version', 'created_at'].map(
  (name) => ({ name, type: 'text' }),
);
const EMBEDDING_CACHE_COLUMNS: RowColumn[] = [
  { name: 'embedder_id', type: 'text' },
  { name: 'text_hash', type: 'text' },
  { name: 'vector', type: 'bytea' },
];
const CLUSTER_MEMBER_COLUMNS: RowColumn[] = ['namespace', 'session_id', 'cluster_id'].map((name) => ({
  name,
  type: 'text',
}));
const RECALL_ITEM_COLUMNS: RowColumn[] = [
  { name: 'recall_id', type: 'bigint' },
  { name: 'skill_id', type: 'text' },
  { name: 'rank', type: 'int' },
  { name: 'similarity', type: 'float8' },
];

/** A statement's SQL for each list length the dialect needs, built the first time that length is met. */
function perListLength(d: Dialect, build: (inList: (column: string) => string) => string) {
  const built = new Map<number, string>();
  return (n: number): string => {
    const key = d.listKey(n);
    let sql = built.get(key);
    if (sql === undefined) {
      sql = d.numbered(build((column) => d.inList(column, key)));
      built.set(key, sql);
    }
    return sql;
  };
}

/** The statements of both back ends, in a dialect. */
export function sqlPlan(d: Dialect) {
  const sql = d.numbered;
  const list = (build: (inList: (column: string) => string) => string) => perListLength(d, build);

  /** Multi-row inserts into `table`: as many statements as the dialect needs, each SQL built once per row count. */
  const rowInserts = (table: string, columns: RowColumn[], onConflict: string) => {
    const built = new Map<number, string>();
    return (rows: unknown[][]): Query[] => {
      const out: Query[] = [];
      for (let i = 0; i < rows.length; i += d.maxRowsPerInsert) {
        const chunk = rows.slice(i, i + d.maxRowsPerInsert);
        let text = built.get(chunk.length);
        if (text === undefined) {
          text = sql(d.insertRowsSql(table, columns, chunk.length, onConflict));
          built.set(chunk.length, text);
        }
        out.push({ sql: text, params: d.insertRowsParams(columns, chunk) });
      }
      return out;
    };
  };

  const upsertState = sql(
    'INSERT INTO state (namespace, key, value) VALUES (?, ?, ?) ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value',
  );
  const skillById = sql(`SELECT ${d.skillColumns} FROM skills s WHERE s.namespace = ? AND s.id = ?`);
  const skillByName = sql(
    `SELECT ${d.skillColumns} FROM skills s WHERE s.namespace = ? AND s.name = ?
     ORDER BY (s.superseded_by IS NULL) DESC, (s.corpus = 'internal') DESC, s.created_at DESC LIMIT 1`,
  );
  const revision = sql(`SELECT (SELECT id FROM store_identity LIMIT 1) AS store_id,
    COALESCE((SELECT MAX(revision) FROM skill_changes WHERE namespace = ?), 0) AS revision`);
  const lockSessions = d.lockSessionsSql === null ? null : sql(d.lockSessionsSql);
  const forgetParent = sql(
    `UPDATE provenance SET source_id = ? WHERE skill_id = ? AND source_kind = 'episodic' AND source_id = ?`,
  );
  const forgetParents = d.forgetParentsSql === null ? null : sql(d.forgetParentsSql);
  const rewriteAuditRow = sql('UPDATE audit SET detail = ? WHERE id = ?');
  const rewriteAudit = d.rewriteAuditSql === null ? null : sql(d.rewriteAuditSql);

  const statements = {
    schemaVersion: sql('SELECT MAX(version) AS v FROM schema_migrations'),
    changeCounter: sql('SELECT value FROM change_counter WHERE id = 1'),

    // ── sessions and calls ──────────────────────────────────────────────────
    insertSession: sql(
      `INSERT INTO sessions (${SESSION_COLUMNS.join(', ')}) VALUES (${SESSION_COLUMNS.map(() => '?').join(', ')}) ON CONFLICT (namespace, id) DO NOTHING`,
    ),
    /** The namespaces' session locks, taken before sessions are inserted (where the dialect needs them). */
    lockSessions: (namespaces: string[]): Query | null =>
      lockSessions === null ? null : { sql: lockSessions, params: d.listParams([...new Set(namespaces)].sort()) },
    sessionById: sql('SELECT * FROM sessions WHERE namespace = ? AND id = ?'),
    growSession: sql(
      'UPDATE sessions SET goal = ?, cue = ?, outcome = ?, outcome_source = ?, reward = ?, ended_at = ?, labels = ? WHERE namespace = ? AND id = ?',
    ),
    dirtyClusterOf: sql(
      'UPDATE clusters SET dirty = ? WHERE namespace = ? AND id IN (SELECT cluster_id FROM cluster_members WHERE namespace = ? AND session_id = ?)',
    ),
    deleteCalls: sql('DELETE FROM tool_calls WHERE namespace = ? AND session_id = ?'),
    endSession: sql(
      'UPDATE sessions SET outcome = ?, outcome_source = ?, reward = ?, ended_at = ? WHERE namespace = ? AND id = ?',
    ),
    sessionsIn: list((inList) => `SELECT * FROM sessions WHERE namespace = ? AND ${inList('id')} ORDER BY seq`),
    sessionIdsIn: list((inList) => `SELECT id FROM sessions WHERE namespace = ? AND ${inList('id')}`),
    // Still open (domain/open-session.ts): not ended, and no outcome reported or judged.
    openSessionIdsIn: list(
      (inList) =>
        `SELECT id FROM sessions WHERE namespace = ? AND ${inList('id')} AND ended_at IS NULL AND outcome = 'unknown' AND outcome_source <> 'judged'`,
    ),
    sessionHeadsIn: list(
      (inList) => `SELECT id, goal, started_at, seq FROM sessions WHERE namespace = ? AND ${inList('id')}`,
    ),
    // A session still open is dated by its latest call too (retention.ts): read by the calls' primary key. Latest by
    // the instant each names, not as text (`10:00+02:00` is before `09:30Z`); by text only among times that read as none.
    sessionTimes: sql(
      `SELECT s.id, s.started_at, s.ended_at, CASE WHEN s.ended_at IS NULL THEN
         (SELECT c.at FROM tool_calls c WHERE c.namespace = s.namespace AND c.session_id = s.id AND c.at IS NOT NULL
          ORDER BY ${d.instant('c.at')} DESC NULLS LAST, c.at DESC LIMIT 1) END AS last_call_at
       FROM sessions s WHERE s.namespace = ? ORDER BY s.seq`,
    ),
    outlinesAfter: sql(
      `SELECT seq, id, goal, outcome FROM sessions${d.seqRange} WHERE namespace = ? AND seq > ? ORDER BY seq LIMIT ?`,
    ),
    outlineCalls: sql(
      // Arguments only of calls whose tool may run command lines (commands.ts decides): a pass reads every call.
      `SELECT c.session_id, c.tool, c.ok, ${RUNNER_ARGS} FROM sessions s${d.seqRange}
       ${d.joinInOrder} tool_calls c ON c.namespace = s.namespace AND c.session_id = s.id
       WHERE s.namespace = ? AND s.seq > ? AND s.seq <= ? ORDER BY s.seq, c.position`,
    ),
    listSessions: sql('SELECT * FROM sessions WHERE namespace = ? ORDER BY seq DESC LIMIT ? OFFSET ?'),
    countSessions: sql('SELECT COUNT(*) AS n FROM sessions WHERE namespace = ?'),
    callsIn: list(
      (inList) =>
        `SELECT * FROM tool_calls WHERE namespace = ? AND ${inList('session_id')} ORDER BY session_id, position`,
    ),
    insertCalls: rowInserts('tool_calls', CALL_ROW_COLUMNS, 'ON CONFLICT DO NOTHING'),

    // ── facts and synthesis state ───────────────────────────────────────────
    addFact: sql(
      'INSERT INTO facts (namespace, id, text, source, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
    ),
    listFacts: sql('SELECT * FROM facts WHERE namespace = ? ORDER BY created_at, id'),
    factsIn: list((inList) => `SELECT * FROM facts WHERE namespace = ? AND ${inList('id')}`),
    getState: sql('SELECT value FROM state WHERE namespace = ? AND key = ?'),
    setState: upsertState,
    cachedEmbeddingsIn: list(
      (inList) => `SELECT text_hash, vector FROM embedding_cache WHERE embedder_id = ? AND ${inList('text_hash')}`,
    ),
    putCachedEmbeddings: rowInserts(
      'embedding_cache',
      EMBEDDING_CACHE_COLUMNS,
      'ON CONFLICT (embedder_id, text_hash) DO UPDATE SET vector = excluded.vector',
    ),
    loadClusters: sql('SELECT * FROM clusters WHERE namespace = ? AND embedder_id = ? ORDER BY id'),
    upsertCluster: sql(
      `INSERT INTO clusters (namespace, id, embedder_id, centroid, goal_centroid, size, dirty, skill_id, last_pass_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (namespace, id) DO UPDATE SET centroid = excluded.centroid, goal_centroid = excluded.goal_centroid,
         size = excluded.size, dirty = excluded.dirty`,
    ),
    addClusterMembers: rowInserts(
      'cluster_members',
      CLUSTER_MEMBER_COLUMNS,
      'ON CONFLICT (namespace, session_id) DO UPDATE SET cluster_id = excluded.cluster_id',
    ),
    clusterMembers: sql(
      `SELECT m.session_id FROM cluster_members m ${d.joinInOrder} sessions s ON s.namespace = m.namespace AND s.id = m.session_id
       WHERE m.namespace = ? AND m.cluster_id = ? ORDER BY s.seq`,
    ),
    markClusterPassed: sql('UPDATE clusters SET last_pass_at = ?, dirty = ? WHERE namespace = ? AND id = ?'),

    // ── skills ──────────────────────────────────────────────────────────────
    skillById,
    skillByName,
    skillByIdLocked: sql(`SELECT ${d.skillColumns} FROM skills s WHERE s.namespace = ? AND s.id = ?${d.lockSkillRows}`),
    skillByNameLocked: sql(
      `SELECT ${d.skillColumns} FROM skills s WHERE s.namespace = ? AND s.name = ?
       ORDER BY (s.superseded_by IS NULL) DESC, (s.corpus = 'internal') DESC, s.created_at DESC LIMIT 1${d.lockSkillRows}`,
    ),
    sourceSessions: sql(
      `SELECT source_id FROM provenance WHERE skill_id = ? AND source_kind = 'episodic' AND source_id NOT LIKE '${FORGOTTEN_PARENT}%' ORDER BY created_at, source_id`,
    ),
    supersededBy: sql(`SELECT s.superseded_by FROM skills s WHERE s.namespace = ? AND s.id = ?${d.lockSkillRows}`),
    upsertSkill: sql(skillInsertSql(() => '?', { upsert: true })),
    insertProvenance: rowInserts('provenance', PROVENANCE_COLUMNS, 'ON CONFLICT DO NOTHING'),
    // A version written again (a pass amends the version it wrote when it adds branches) holds its latest text;
    // the reason and time of its first write stay.
    insertVersion: sql(
      `INSERT INTO skill_versions (skill_id, version, skill_md, tool_sequence, reason, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (skill_id, version) DO UPDATE SET skill_md = excluded.skill_md, tool_sequence = excluded.tool_sequence`,
    ),
    insertSkillFile: sql('INSERT INTO skill_files (skill_id, version, path, bytes, executable) VALUES (?, ?, ?, ?, ?)'),
    touchSkill: sql('UPDATE skills SET last_used_at = ? WHERE namespace = ? AND id = ?'),
    touchSkillsIn: list((inList) => `UPDATE skills SET last_used_at = ? WHERE namespace = ? AND ${inList('id')}`),
    provenance: sql('SELECT * FROM provenance WHERE skill_id = ? ORDER BY created_at, source_id'),
    skillFiles: sql('SELECT path, bytes, executable FROM skill_files WHERE skill_id = ? AND version = ? ORDER BY path'),
    skillVersions: sql('SELECT * FROM skill_versions WHERE skill_id = ? ORDER BY created_at, version'),
    updateEmbedding: sql(
      'UPDATE skills SET embedder_id = ?, embedding = ?, exemplars = ?, exemplar_sources = ?, cluster_id = NULL WHERE namespace = ? AND id = ?',
    ),
    deleteClusterMembers: sql('DELETE FROM cluster_members WHERE namespace = ?'),
    deleteClusters: sql('DELETE FROM clusters WHERE namespace = ?'),
    clearReembedState: sql(`DELETE FROM state WHERE namespace = ? AND ${STATE_CLEARED_ON_REEMBED_SQL}`),

    // ── feedback, recalls, audit and events ─────────────────────────────────
    insertFeedback: sql(
      `INSERT INTO feedback (${FEEDBACK_INSERT_COLUMNS.join(', ')}) VALUES (${FEEDBACK_INSERT_COLUMNS.map(() => '?').join(', ')})`,
    ),
    // The trial a session gave a skill (one that counts: a replaced judged trial does not).
    sessionTrial: list(
      (inList) =>
        `SELECT id, signal, actor FROM feedback WHERE skill_id = ? AND session_id = ? AND ${inList('signal')} AND replaced_by IS NULL ORDER BY id DESC LIMIT 1`,
    ),
    // The feedback a namespace holds under an idempotency key (one at most: a unique index), with its skill's name.
    feedbackByKey: sql(
      `SELECT f.skill_id, f.signal, f.value, s.name FROM feedback f LEFT JOIN skills s ON s.id = f.skill_id
       WHERE f.namespace = ? AND f.feedback_key = ?`,
    ),
    lockFeedbackKey: d.lockFeedbackKeySql === null ? null : sql(d.lockFeedbackKeySql),
    feedbackHistory: sql('SELECT * FROM feedback WHERE skill_id = ? ORDER BY id'),
    countedFeedback: sql('SELECT * FROM feedback WHERE skill_id = ? AND replaced_by IS NULL ORDER BY id'),
    // A replaced judged trial points at the row that took its place: the skill's newest, just written.
    markReplaced: sql(
      'UPDATE feedback SET replaced_by = (SELECT MAX(id) FROM feedback WHERE skill_id = ?) WHERE id = ?',
    ),
    // Taken back with nothing in its place: it names itself.
    markWithdrawn: sql('UPDATE feedback SET replaced_by = id WHERE id = ?'),
    restateFeedback: sql(
      'UPDATE feedback SET eta_before = ?, eta_after = ?, status_before = ?, status_after = ?, utility_before = ?, utility_after = ? WHERE id = ?',
    ),
    // Where the skill last came back from retirement (any signal that took it out of 'retired'), and its latest
    // trials since then, newest first.
    lastReturn: sql(
      `SELECT MAX(id) AS id FROM feedback WHERE skill_id = ? AND status_before = 'retired' AND status_after <> 'retired' AND replaced_by IS NULL`,
    ),
    recentTrials: sql(
      `SELECT signal FROM feedback WHERE skill_id = ? AND id > ? AND signal IN ('trial.pass', 'trial.fail') AND replaced_by IS NULL ORDER BY id DESC LIMIT ?`,
    ),
    insertRecall: sql(`INSERT INTO recalls (namespace, session_id, goal, at) VALUES (?, ?, ?, ?)${d.returningId}`),
    insertRecallItems: rowInserts('recall_items', RECALL_ITEM_COLUMNS, 'ON CONFLICT DO NOTHING'),
    servedForSession: sql(
      `SELECT DISTINCT i.skill_id FROM recalls r JOIN recall_items i ON i.recall_id = r.id
       WHERE r.namespace = ? AND r.session_id = ? ORDER BY i.skill_id`,
    ),
    recallsHeldIn: list(
      (inList) =>
        `SELECT id, session_id, goal, at FROM recalls WHERE namespace = ? AND ${inList('session_id')} ORDER BY id`,
    ),
    moveRecall: sql('UPDATE recalls SET session_id = ? WHERE namespace = ? AND id = ? AND session_id = ?'),
    recalledFor: sql(
      `SELECT r.id, r.at, i.skill_id, i.rank, i.similarity, s.name FROM recalls r
       JOIN recall_items i ON i.recall_id = r.id LEFT JOIN skills s ON s.id = i.skill_id
       WHERE r.namespace = ? AND r.session_id = ? ORDER BY r.at, r.id, i.rank`,
    ),
    insertAudit: sql(
      'INSERT INTO audit (namespace, at, actor, action, subject_kind, subject_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    insertEvent: sql('INSERT INTO events (namespace, at, type, skill_id, payload) VALUES (?, ?, ?, ?, ?)'),
    audit: sql('SELECT * FROM audit WHERE namespace = ? ORDER BY id DESC LIMIT ?'),
    auditOf: sql('SELECT * FROM audit WHERE namespace = ? AND subject_id = ? ORDER BY id DESC LIMIT ?'),
    auditSince: sql('SELECT * FROM audit WHERE id > ? ORDER BY id LIMIT ?'),
    events: sql('SELECT * FROM events WHERE namespace = ? AND id > ? ORDER BY id LIMIT ?'),
    lastEventId: sql('SELECT COALESCE(MAX(id), 0) AS id FROM events'),
    // From the newest row back to the namespace's newest: a few rows where the namespace is busy.
    lastEventIdIn: sql('SELECT id FROM events WHERE namespace = ? ORDER BY id DESC LIMIT 1'),

    // ── recall index ────────────────────────────────────────────────────────
    skillRevision: revision,
    changesPrunedThrough: sql('SELECT through FROM skill_changes_pruned'),
    vectorsAll: sql(`SELECT ${VECTOR_COLUMNS} FROM skills WHERE namespace = ?`),
    changedSkillIds: sql('SELECT DISTINCT skill_id FROM skill_changes WHERE namespace = ? AND revision > ?'),
    vectorsIn: list((inList) => `SELECT ${VECTOR_COLUMNS} FROM skills WHERE namespace = ? AND ${inList('id')}`),
    servedIn: list((inList) => `SELECT ${SERVED_COLUMNS} FROM skills WHERE namespace = ? AND ${inList('id')}`),

    // ── forgetting sessions: a batch at a time, a statement per table (one session is a batch of one) ──
    deleteSessionsIn: list((inList) => `DELETE FROM sessions WHERE namespace = ? AND ${inList('id')} RETURNING id`),
    deleteCallsIn: list(
      (inList) => `DELETE FROM tool_calls WHERE namespace = ? AND ${inList('session_id')} RETURNING session_id`,
    ),
    leaveClustersIn: list(
      (inList) =>
        `DELETE FROM cluster_members WHERE namespace = ? AND ${inList('session_id')} RETURNING session_id, cluster_id`,
    ),
    // The clusters sessions belong to, the members of such clusters, and sessions outlined as a pass reads them: what a
    // forget recomputes the centroids of the clusters they leave from.
    clustersOfIn: list(
      (inList) =>
        `SELECT m.session_id, m.cluster_id, c.embedder_id FROM cluster_members m ${d.joinInOrder} clusters c
         ON c.namespace = m.namespace AND c.id = m.cluster_id WHERE m.namespace = ? AND ${inList('m.session_id')}`,
    ),
    membersOfClustersIn: list(
      (inList) =>
        `SELECT m.session_id, m.cluster_id FROM cluster_members m ${d.joinInOrder} sessions s
         ON s.namespace = m.namespace AND s.id = m.session_id WHERE m.namespace = ? AND ${inList('m.cluster_id')}
         ORDER BY s.seq`,
    ),
    outlinesIn: list(
      (inList) => `SELECT id, goal, outcome, seq FROM sessions WHERE namespace = ? AND ${inList('id')} ORDER BY seq`,
    ),
    outlineCallsIn: list(
      (inList) =>
        `SELECT c.session_id, c.tool, c.ok, ${RUNNER_ARGS} FROM tool_calls c WHERE c.namespace = ? AND ${inList('c.session_id')}
         ORDER BY c.session_id, c.position`,
    ),
    shrinkClusterBy: sql(`UPDATE clusters SET size = ${d.greatest}(size - ?, 0) WHERE namespace = ? AND id = ?`),
    // Only while the cluster holds the members they were computed from (as many as when they were).
    setCentroidsIfSize: sql(
      'UPDATE clusters SET centroid = ?, goal_centroid = ? WHERE namespace = ? AND id = ? AND size = ?',
    ),
    // Not while a skill names it (a retired one is revived by its cluster's id): a later pass could give the id to
    // another group.
    dropClusterIfEmpty: sql(
      `DELETE FROM clusters WHERE namespace = ? AND id = ? AND size = 0 AND skill_id IS NULL
       AND NOT EXISTS (SELECT 1 FROM skills s WHERE s.namespace = clusters.namespace AND s.cluster_id = clusters.id)`,
    ),
    deleteRecallItemsOfIn: list(
      (inList) =>
        `DELETE FROM recall_items WHERE recall_id IN (SELECT id FROM recalls WHERE namespace = ? AND ${inList('session_id')})`,
    ),
    deleteRecallsOfIn: list((inList) => `DELETE FROM recalls WHERE namespace = ? AND ${inList('session_id')}`),
    anonymiseFeedbackIn: list(
      (inList) => `UPDATE feedback SET session_id = NULL WHERE namespace = ? AND ${inList('session_id')}`,
    ),
    auditNamingSessions: sql(d.auditNamingSessionsSql),
    /** Audit records given a new detail, each `[id, detail]`: the statements to run. */
    rewriteAudit: (rows: readonly (readonly [number, string])[]): Query[] => {
      if (rows.length === 0) return [];
      if (rewriteAudit !== null) return [{ sql: rewriteAudit, params: [rows.map((r) => r[0]), rows.map((r) => r[1])] }];
      return rows.map(([id, detail]) => ({ sql: rewriteAuditRow, params: [detail, id] }));
    },
    deleteCachedEmbeddingsIn: list(
      (inList) => `DELETE FROM embedding_cache WHERE embedder_id = ? AND ${inList('text_hash')}`,
    ),
    parentsOfIn: list(
      (inList) =>
        `SELECT p.source_id, p.skill_id, s.name FROM provenance p JOIN skills s ON s.id = p.skill_id
         WHERE s.namespace = ? AND p.source_kind = 'episodic' AND ${inList('p.source_id')} ORDER BY p.source_id, p.skill_id`,
    ),
    exemplarsIn: list(
      (inList) =>
        `SELECT id, embedder_id, exemplars, exemplar_sources FROM skills WHERE namespace = ? AND ${inList('id')} AND exemplars IS NOT NULL`,
    ),
    setExemplars: sql('UPDATE skills SET exemplars = ?, exemplar_sources = ? WHERE namespace = ? AND id = ?'),
    successorsIn: list(
      (inList) =>
        `SELECT DISTINCT superseded_by FROM skills WHERE namespace = ? AND ${inList('id')} AND superseded_by IS NOT NULL`,
    ),
    // A list with an unknown entry holds the word null outside any string; one inside an id only costs an embedding.
    parentsOfUnsourcedExemplarsIn: list(
      (inList) =>
        `SELECT DISTINCT p.source_id FROM provenance p JOIN skills s ON s.id = p.skill_id
         WHERE s.namespace = ? AND p.source_kind = 'episodic' AND ${inList('p.source_id')}
           AND s.exemplars IS NOT NULL AND (s.exemplar_sources IS NULL OR s.exemplar_sources LIKE '%null%')`,
    ),
    /** Provenance rows made forgotten-parent markers, each `[skill id, session id, marker]`: the statements to run. */
    forgetParents: (rows: readonly (readonly [string, string, string])[]): Query[] => {
      if (rows.length === 0) return [];
      if (forgetParents !== null)
        return [{ sql: forgetParents, params: [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])] }];
      return rows.map(([skillId, sessionId, marker]) => ({ sql: forgetParent, params: [marker, skillId, sessionId] }));
    },
  };

  return { dialect: d, ...statements, skillList: skillListSql(d) };
}

/**
 * The statements of `listSkills` for a filter: the skill rows and, where the dialect reads them apart, their
 * live episodic parents. Built once per shape of filter (which conditions it has, how many statuses).
 */
function skillListSql(d: Dialect) {
  const built = new Map<string, { skills: string; parents: string }>();
  return (namespace: string, filter: SkillFilter): { skills: Query; parents: Query } => {
    const statuses = filter.status?.length ? d.listKey(filter.status.length) : 0;
    const shape = `${!!filter.corpus} ${!!filter.includeSuperseded} ${filter.enabled !== undefined} ${statuses}`;
    let sql = built.get(shape);
    if (!sql) {
      const where = ['s.namespace = ?'];
      if (filter.corpus) where.push('s.corpus = ?');
      if (!filter.includeSuperseded) where.push('s.superseded_by IS NULL');
      if (filter.enabled !== undefined) where.push('s.enabled = ?');
      if (statuses) where.push(d.inList('s.status', statuses));
      const all = where.join(' AND ');
      sql = {
        skills: d.numbered(`SELECT ${d.skillColumns} FROM skills s WHERE ${all} ORDER BY s.created_at, s.id`),
        parents: d.numbered(
          `SELECT p.skill_id, p.source_id FROM provenance p JOIN skills s ON s.id = p.skill_id
           WHERE ${all} AND p.source_kind = 'episodic' AND p.source_id NOT LIKE '${FORGOTTEN_PARENT}%' ORDER BY p.created_at, p.source_id`,
        ),
      };
      built.set(shape, sql);
    }
    const params: unknown[] = [namespace];
    if (filter.corpus) params.push(filter.corpus);
    if (filter.enabled !== undefined) params.push(d.bool(filter.enabled));
    if (statuses) params.push(...d.listParams(filter.status ?? []));
    return { skills: { sql: sql.skills, params }, parents: { sql: sql.parents, params } };
  };
}

/** The store's statements in one dialect (`sqlPlan`). */
export type SqlPlan = ReturnType<typeof sqlPlan>;
