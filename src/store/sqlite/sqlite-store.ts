import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { hostname } from 'node:os';
import type {
  AuditRecord,
  Fact,
  Outcome,
  OutcomeSource,
  Provenance,
  Session,
  SessionOutline,
  Skill,
  ToolCall,
} from '../../domain/types.js';
import { fromBuffer, toBuffer } from '../../vector/vector-math.js';
import {
  FORGOTTEN_PARENT,
  type ClusterRecord,
  type EmbeddingReplacement,
  type FeedbackRecord,
  type FeedbackRequest,
  type ForgetOptions,
  type ForgetSessionOptions,
  type ForgottenSession,
  type SkillEvent,
  type SkillFilter,
  type SkillFile,
  type ServedSkill,
  type SkillRevision,
  type SkillVectorRow,
  type SkillVersion,
  type SkillWrite,
  type Store,
} from '../store.js';
import { latestSchemaVersion, migrations } from './migrations.js';

import {
  auditFromRow,
  CALL_COLUMNS,
  callFromRow,
  callRowValues,
  pushCallRow,
  eventFromRow,
  factFromRow,
  FEEDBACK_INSERT_COLUMNS,
  feedbackFromRow,
  feedbackInsertValues,
  json,
  outlinesFromRows,
  provenanceFromRow,
  rowChangeSql,
  SESSION_COLUMNS,
  sessionFromRow,
  sessionRef,
  sessionRowValues,
  versionFromRow,
  type Row,
} from '../rows.js';
import {
  SERVED_COLUMNS,
  servedSkillFrom,
  skillFromRow,
  skillInsertSql,
  skillRowValues,
  vectorRowFrom,
  VECTOR_COLUMNS,
} from '../skill-row.js';
import { STATE_CLEARED_ON_REEMBED_SQL, stateKey, type StateKey } from '../state-key.js';
import {
  accepted,
  feedbackNeedsTrialCheck,
  planFeedback,
  planForgetSession,
  planForgetSkill,
  planReembed,
  planSetEnabled,
  planSkillWrite,
  TRIAL_SIGNALS,
  type Outbox,
  type RowChange,
} from '../write-plan.js';
import { NotFoundError } from '../../errors/not-found-error.js';
import { SessionStateError } from '../../errors/session-state-error.js';

/** How SQLite stores a boolean. */
const sqliteBool = (b: boolean) => (b ? 1 : 0);
/** How long recall records wait to be written together (milliseconds). */
const RECALL_FLUSH_MS = 20;
/** Call rows per INSERT statement when whole sessions are stored (10 values each, far under SQLite's limit). */
const CALL_ROWS_PER_INSERT = 50;

/** Page size of a new database file (bytes). */
const PAGE_SIZE = 32_768;
/** How much write-ahead log builds up before it is copied into the database (bytes). */
const WAL_CHECKPOINT_BYTES = 32 * 1024 * 1024;

/** Opens (creating and migrating as needed) a SQLite memory file. `:memory:` works for throwaway use. */
export function openSqliteStore(path: string): SqliteStore {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = openDatabase(path);
  migrate(db);
  return new SqliteStore(db, path);
}

/**
 * Opens an existing SQLite memory file whose schema is already the latest, without creating or migrating
 * anything: the short start of a process that only recalls. Null when the file is missing or needs
 * migrating (the caller then opens it with `openSqliteStore`).
 */
export function openCurrentSqliteStore(path: string): SqliteStore | null {
  let db: Database.Database;
  try {
    db = new Database(path, { fileMustExist: true });
  } catch {
    return null;
  }
  try {
    configure(db);
    const version = (db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as Row).v;
    if (version !== latestSchemaVersion) {
      db.close();
      return null;
    }
    return new SqliteStore(db, path);
  } catch {
    // No schema_migrations table (an empty or foreign file), or a file SQLite cannot read: the full open says why.
    if (db.open) db.close();
    return null;
  }
}

function openDatabase(path: string): Database.Database {
  const db = new Database(path);
  // A new file gets 32 KB pages instead of SQLite's 4 KB: a batch of sessions lands on a few wide leaves of the
  // call table rather than splitting many narrow ones, and storing calls took half the time (issue 18, fifth
  // round). Set before WAL mode, it only applies to a file with nothing in it yet; an existing file keeps its size.
  db.pragma(`page_size = ${PAGE_SIZE}`);
  configure(db);
  return db;
}

/** The connection settings every open applies. */
function configure(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // Deleted and overwritten content is zeroed in the file, so a forgotten session leaves no bytes behind.
  db.pragma('secure_delete = ON');
  // A statement that writes many rows keeps a statement journal (to undo just that statement): in memory, not a
  // temporary file. Ingest writes 50 calls a statement.
  db.pragma('temp_store = MEMORY');
  // The write-ahead log is copied into the database once it holds 32 MB (SQLite's default is 1,000 pages, 4 MB
  // of 4 KB pages): a page that several batches touch is copied once, and ingest ran about 8% faster on 4 KB
  // pages. A log that grew past 64 MB is cut back to that after each copy.
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  db.pragma(`wal_autocheckpoint = ${Math.max(1000, Math.round(WAL_CHECKPOINT_BYTES / pageSize))}`);
  db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
}

/** Applies the migrations the file has not seen yet, each in its own transaction. */
export function migrate(db: Database.Database, upTo = latestSchemaVersion): number {
  db.exec(
    `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
  );
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as Row[]).map((r) => r.version as number),
  );
  for (const m of migrations) {
    if (m.version > upTo || applied.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        m.version,
        m.name,
        new Date().toISOString(),
      );
    })();
  }
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as Row;
  return (row.v as number) ?? 0;
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  private readonly stmts: ReturnType<SqliteStore['prepare']>;
  /** Multi-row call inserts, by their number of rows. */
  private readonly callInserts = new Map<number, Database.Statement>();

  constructor(
    readonly db: Database.Database,
    readonly location: string,
  ) {
    this.stmts = this.prepare();
  }

  private prepare() {
    const db = this.db;
    return {
      insertSession: db.prepare(
        `INSERT INTO sessions (${SESSION_COLUMNS.join(', ')}) VALUES (${SESSION_COLUMNS.map(() => '?').join(', ')}) ON CONFLICT (namespace, id) DO NOTHING`,
      ),
      insertCall: db.prepare(
        `INSERT INTO tool_calls (${CALL_COLUMNS.join(', ')}) VALUES (${CALL_COLUMNS.map(() => '?').join(', ')}) ON CONFLICT DO NOTHING`,
      ),
      sessionById: db.prepare('SELECT * FROM sessions WHERE namespace = ? AND id = ?'),
      // NOT INDEXED and CROSS JOIN keep SQLite on the seq (rowid) range: by the (namespace, id) index it would
      // visit every session, or every call, of the namespace for each page.
      outlinesAfter: db.prepare(
        'SELECT seq, id, goal, outcome FROM sessions NOT INDEXED WHERE namespace = ? AND seq > ? ORDER BY seq LIMIT ?',
      ),
      outlineCalls: db
        .prepare(
          `SELECT c.session_id, c.tool, c.ok FROM sessions s NOT INDEXED
           CROSS JOIN tool_calls c ON c.namespace = s.namespace AND c.session_id = s.id
           WHERE s.namespace = ? AND s.seq > ? AND s.seq <= ? ORDER BY s.seq, c.position`,
        )
        .raw(),
      callsOf: db.prepare('SELECT * FROM tool_calls WHERE namespace = ? AND session_id = ? ORDER BY position'),
      skillById: db.prepare('SELECT * FROM skills WHERE namespace = ? AND id = ?'),
      servedSkill: db.prepare(`SELECT ${SERVED_COLUMNS} FROM skills WHERE namespace = ? AND id = ?`),
      // Prepared once: db.pragma() prepares its statement on every call, and recall asks on every request.
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
      skillByName: db.prepare(
        `SELECT * FROM skills WHERE namespace = ? AND name = ?
         ORDER BY (superseded_by IS NULL) DESC, (corpus = 'internal') DESC, created_at DESC LIMIT 1`,
      ),
      insertAudit: db.prepare(
        'INSERT INTO audit (namespace, at, actor, action, subject_kind, subject_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      insertEvent: db.prepare('INSERT INTO events (namespace, at, type, skill_id, payload) VALUES (?, ?, ?, ?, ?)'),
      upsertSkill: db.prepare(skillInsertSql(() => '?', { upsert: true })),
      insertVersion: db.prepare(
        'INSERT INTO skill_versions (skill_id, version, skill_md, tool_sequence, reason, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      ),
      insertFeedback: db.prepare(
        `INSERT INTO feedback (${FEEDBACK_INSERT_COLUMNS.join(', ')}) VALUES (${FEEDBACK_INSERT_COLUMNS.map(() => '?').join(', ')})`,
      ),
      insertRecall: db.prepare('INSERT INTO recalls (namespace, session_id, goal, at) VALUES (?, ?, ?, ?)'),
      insertRecallItem: db.prepare(
        'INSERT OR IGNORE INTO recall_items (recall_id, skill_id, rank, similarity) VALUES (?, ?, ?, ?)',
      ),
      touchSkill: db.prepare('UPDATE skills SET last_used_at = ? WHERE namespace = ? AND id = ?'),
      skillRevision: db.prepare(
        `SELECT (SELECT id FROM store_identity) AS store_id,
                COALESCE((SELECT MAX(revision) FROM skill_changes WHERE namespace = ?), 0) AS revision`,
      ),
      skillVectors: db.prepare(`SELECT ${VECTOR_COLUMNS} FROM skills WHERE namespace = ?`),
      changedSkillIds: db.prepare('SELECT DISTINCT skill_id FROM skill_changes WHERE namespace = ? AND revision > ?'),
      changesPrunedThrough: db.prepare('SELECT through FROM skill_changes_pruned').pluck(),
      // Prepared once: every skill read runs it (recall reads a few per query).
      sourceSessions: db.prepare(
        `SELECT source_id FROM provenance WHERE skill_id = ? AND source_kind = 'episodic' AND source_id NOT LIKE '${FORGOTTEN_PARENT}%' ORDER BY created_at, source_id`,
      ),
    };
  }

  async close(): Promise<void> {
    this.flushRecalls();
    if (this.db.open) this.db.close();
  }

  async changeToken(): Promise<string> {
    return String(this.stmts.dataVersion.get());
  }

  async schemaVersion(): Promise<number> {
    const row = this.db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as Row;
    return (row.v as number) ?? 0;
  }

  // ── capture ────────────────────────────────────────────────────────────────

  async insertSessions(sessions: Session[]): Promise<{ inserted: number; skipped: number }> {
    let inserted = 0;
    const run = this.db.transaction((batch: Session[]) => {
      // Calls go CALL_ROWS_PER_INSERT rows to a statement: about 8% faster than one statement a call.
      const values: unknown[] = [];
      for (const s of batch) {
        const info = this.stmts.insertSession.run(sessionRowValues(s));
        if (info.changes === 0) continue;
        inserted++;
        for (const c of s.calls) {
          pushCallRow(values, s.namespace, s.id, c, sqliteBool);
          if (values.length === CALL_ROWS_PER_INSERT * CALL_COLUMNS.length) {
            this.insertCallRows(values);
            values.length = 0;
          }
        }
      }
      if (values.length) this.insertCallRows(values);
    });
    run(sessions);
    return { inserted, skipped: sessions.length - inserted };
  }

  /** Inserts the call rows `values` holds (CALL_COLUMNS values each, one row after another) in one statement. */
  private insertCallRows(values: unknown[]) {
    const rows = values.length / CALL_COLUMNS.length;
    let stmt = this.callInserts.get(rows);
    if (!stmt) {
      const row = `(${CALL_COLUMNS.map(() => '?').join(', ')})`;
      stmt = this.db.prepare(
        `INSERT INTO tool_calls (${CALL_COLUMNS.join(', ')}) VALUES ${Array(rows).fill(row).join(', ')} ON CONFLICT DO NOTHING`,
      );
      this.callInserts.set(rows, stmt);
    }
    stmt.run(values);
  }

  private insertCallRow(namespace: string, sessionId: string, c: ToolCall) {
    this.stmts.insertCall.run(...callRowValues(namespace, sessionId, c, sqliteBool));
  }

  async beginSession(session: Omit<Session, 'calls' | 'seq'>): Promise<void> {
    this.stmts.insertSession.run(...sessionRowValues(session));
  }

  async appendCall(namespace: string, sessionId: string, call: ToolCall): Promise<void> {
    const exists = this.stmts.sessionById.get(namespace, sessionId);
    if (!exists)
      throw new SessionStateError(
        `session ${sessionId} is not open in namespace ${namespace}: call beginSession first`,
      );
    this.insertCallRow(namespace, sessionId, call);
  }

  async endSession(
    namespace: string,
    sessionId: string,
    outcome: Outcome,
    reward: number | null,
    endedAt: string,
    source: OutcomeSource = 'reported',
  ): Promise<void> {
    const info = this.db
      .prepare(
        'UPDATE sessions SET outcome = ?, outcome_source = ?, reward = ?, ended_at = ? WHERE namespace = ? AND id = ?',
      )
      .run(outcome, source, reward, endedAt, namespace, sessionId);
    if (info.changes === 0) throw new NotFoundError(`session ${sessionId} does not exist in namespace ${namespace}`);
  }

  async getSession(namespace: string, id: string): Promise<Session | null> {
    const row = this.stmts.sessionById.get(namespace, id) as Row | undefined;
    return row ? this.hydrate([row])[0] : null;
  }

  async getSessions(namespace: string, ids: string[]): Promise<Session[]> {
    const rows: Row[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      rows.push(
        ...(this.db
          .prepare(`SELECT * FROM sessions WHERE namespace = ? AND id IN (${chunk.map(() => '?').join(',')})`)
          .all(namespace, ...chunk) as Row[]),
      );
    }
    rows.sort((a, b) => a.seq - b.seq);
    return this.hydrate(rows);
  }

  async listSessionOutlinesAfter(namespace: string, afterSeq: number, limit: number): Promise<SessionOutline[]> {
    const rows = this.stmts.outlinesAfter.all(namespace, afterSeq, limit) as Row[];
    if (rows.length === 0) return [];
    const calls = this.stmts.outlineCalls.all(namespace, afterSeq, rows[rows.length - 1].seq) as unknown[][];
    return outlinesFromRows(rows, calls);
  }

  async listSessions(namespace: string, opts: { limit?: number; offset?: number } = {}): Promise<Session[]> {
    const rows = this.db
      .prepare('SELECT * FROM sessions WHERE namespace = ? ORDER BY seq DESC LIMIT ? OFFSET ?')
      .all(namespace, opts.limit ?? 100, opts.offset ?? 0) as Row[];
    return this.hydrate(rows);
  }

  async countSessions(namespace: string): Promise<number> {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM sessions WHERE namespace = ?').get(namespace) as Row)
      .n as number;
  }

  async existingSessionIds(namespace: string, ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    const stmt = this.db.prepare('SELECT 1 FROM sessions WHERE namespace = ? AND id = ?');
    for (const id of ids) if (stmt.get(namespace, id)) found.add(id);
    return found;
  }

  /** Loads the calls of many sessions with one query per 500 sessions rather than one per session. */
  private hydrate(rows: Row[]): Session[] {
    if (rows.length === 0) return [];
    const byKey = new Map<string, ToolCall[]>();
    const ns = rows[0].namespace as string;
    const sameNs = rows.every((r) => r.namespace === ns);
    if (sameNs && rows.length > 1) {
      for (let i = 0; i < rows.length; i += 500) {
        const chunk = rows.slice(i, i + 500);
        const marks = chunk.map(() => '?').join(',');
        const calls = this.db
          .prepare(
            `SELECT * FROM tool_calls WHERE namespace = ? AND session_id IN (${marks}) ORDER BY session_id, position`,
          )
          .all(ns, ...chunk.map((r) => r.id)) as Row[];
        for (const c of calls) {
          let list = byKey.get(c.session_id);
          if (!list) byKey.set(c.session_id, (list = []));
          list.push(callFromRow(c));
        }
      }
    } else {
      for (const r of rows) byKey.set(r.id, (this.stmts.callsOf.all(r.namespace, r.id) as Row[]).map(callFromRow));
    }
    return rows.map((r) => sessionFromRow(r, byKey.get(r.id) ?? []));
  }

  async addFact(fact: Fact): Promise<void> {
    this.db
      .prepare(
        'INSERT INTO facts (namespace, id, text, source, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      )
      .run(fact.namespace, fact.id, fact.text, fact.source, fact.createdAt);
  }

  async listFacts(namespace: string): Promise<Fact[]> {
    return (this.db.prepare('SELECT * FROM facts WHERE namespace = ? ORDER BY created_at').all(namespace) as Row[]).map(
      factFromRow,
    );
  }

  // ── synthesis state ───────────────────────────────────────────────────────

  async getState(namespace: string, key: StateKey): Promise<string | null> {
    const row = this.db.prepare('SELECT value FROM state WHERE namespace = ? AND key = ?').get(namespace, key) as
      | Row
      | undefined;
    return row ? (row.value as string) : null;
  }

  async setState(namespace: string, key: StateKey, value: string): Promise<void> {
    this.db
      .prepare(
        'INSERT INTO state (namespace, key, value) VALUES (?, ?, ?) ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value',
      )
      .run(namespace, key, value);
  }

  async getCachedEmbeddings(embedderId: string, hashes: string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    const stmt = this.db.prepare('SELECT vector FROM embedding_cache WHERE embedder_id = ? AND text_hash = ?');
    for (const h of hashes) {
      const row = stmt.get(embedderId, h) as Row | undefined;
      if (row) out.set(h, fromBuffer(row.vector));
    }
    return out;
  }

  async putCachedEmbeddings(embedderId: string, entries: { hash: string; vector: Float32Array }[]): Promise<void> {
    const stmt = this.db.prepare(
      'INSERT OR REPLACE INTO embedding_cache (embedder_id, text_hash, vector) VALUES (?, ?, ?)',
    );
    this.db.transaction(() => {
      for (const e of entries) stmt.run(embedderId, e.hash, toBuffer(e.vector));
    })();
  }

  async loadClusters(namespace: string, embedderId: string): Promise<ClusterRecord[]> {
    const rows = this.db
      .prepare('SELECT * FROM clusters WHERE namespace = ? AND embedder_id = ? ORDER BY id')
      .all(namespace, embedderId) as Row[];
    return rows.map((r) => ({
      id: r.id,
      centroid: fromBuffer(r.centroid),
      goalCentroid: fromBuffer(r.goal_centroid),
      size: r.size,
      dirty: r.dirty === 1,
      skillId: r.skill_id,
      lastPassAt: r.last_pass_at,
      newMembers: [],
    }));
  }

  async saveClusters(
    namespace: string,
    embedderId: string,
    clusters: ClusterRecord[],
    watermark: number,
  ): Promise<void> {
    const upsert = this.db.prepare(
      `INSERT INTO clusters (namespace, id, embedder_id, centroid, goal_centroid, size, dirty, skill_id, last_pass_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (namespace, id) DO UPDATE SET centroid = excluded.centroid, goal_centroid = excluded.goal_centroid,
         size = excluded.size, dirty = excluded.dirty`,
    );
    const member = this.db.prepare(
      'INSERT OR REPLACE INTO cluster_members (namespace, session_id, cluster_id) VALUES (?, ?, ?)',
    );
    this.db.transaction(() => {
      for (const c of clusters) {
        upsert.run(
          namespace,
          c.id,
          embedderId,
          toBuffer(c.centroid),
          toBuffer(c.goalCentroid),
          c.size,
          c.dirty ? 1 : 0,
          c.skillId,
          c.lastPassAt,
        );
        for (const s of c.newMembers) member.run(namespace, s, c.id);
      }
      this.db
        .prepare(
          'INSERT INTO state (namespace, key, value) VALUES (?, ?, ?) ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value',
        )
        .run(namespace, stateKey.watermark(embedderId), String(watermark));
    })();
  }

  async clusterMembers(namespace: string, clusterId: string): Promise<string[]> {
    return (
      this.db
        .prepare(
          // CROSS JOIN: from the cluster's members, not from every session of the namespace in seq order.
          `SELECT m.session_id FROM cluster_members m CROSS JOIN sessions s ON s.namespace = m.namespace AND s.id = m.session_id
           WHERE m.namespace = ? AND m.cluster_id = ? ORDER BY s.seq`,
        )
        .all(namespace, clusterId) as Row[]
    ).map((r) => r.session_id as string);
  }

  async replaceEmbeddings(
    namespace: string,
    change: EmbeddingReplacement,
  ): Promise<{ skills: number; clusters: number }> {
    const db = this.db;
    const out = { skills: 0, clusters: 0 };
    db.transaction(() => {
      const update = db.prepare(
        'UPDATE skills SET embedder_id = ?, embedding = ?, exemplars = NULL, cluster_id = NULL WHERE namespace = ? AND id = ?',
      );
      for (const v of change.vectors)
        out.skills += update.run(change.embedderId, toBuffer(v.embedding), namespace, v.skillId).changes;
      db.prepare('DELETE FROM cluster_members WHERE namespace = ?').run(namespace);
      out.clusters = db.prepare('DELETE FROM clusters WHERE namespace = ?').run(namespace).changes;
      db.prepare(`DELETE FROM state WHERE namespace = ? AND ${STATE_CLEARED_ON_REEMBED_SQL}`).run(namespace);
      this.writeOutbox(planReembed(namespace, change, out));
    })();
    return out;
  }

  async tryLock(name: string, holder: string, ttlMs: number): Promise<(() => Promise<void>) | null> {
    const now = Date.now();
    const taken = this.db
      .transaction(() => {
        const row = this.db.prepare('SELECT holder, expires_at FROM locks WHERE name = ?').get(name) as Row | undefined;
        if (row && row.holder !== holder && row.expires_at > now && holderAlive(row.holder)) return false;
        this.db
          .prepare('INSERT OR REPLACE INTO locks (name, holder, expires_at) VALUES (?, ?, ?)')
          .run(name, holder, now + ttlMs);
        return true;
      })
      .immediate();
    if (!taken) return null;
    return async () => {
      if (this.db.open) this.db.prepare('DELETE FROM locks WHERE name = ? AND holder = ?').run(name, holder);
    };
  }

  async markClusterPassed(namespace: string, clusterId: string, at: string, dirty: boolean): Promise<void> {
    this.db
      .prepare('UPDATE clusters SET last_pass_at = ?, dirty = ? WHERE namespace = ? AND id = ?')
      .run(at, dirty ? 1 : 0, namespace, clusterId);
  }

  // ── skills ────────────────────────────────────────────────────────────────

  async listSkills(namespace: string, filter: SkillFilter = {}): Promise<Skill[]> {
    this.flushRecalls(); // last_used_at must read as the recalls left it
    const where = ['namespace = ?'];
    const args: unknown[] = [namespace];
    if (filter.corpus) {
      where.push('corpus = ?');
      args.push(filter.corpus);
    }
    if (!filter.includeSuperseded) where.push('superseded_by IS NULL');
    if (filter.enabled !== undefined) {
      where.push('enabled = ?');
      args.push(filter.enabled ? 1 : 0);
    }
    if (filter.status?.length) {
      where.push(`status IN (${filter.status.map(() => '?').join(',')})`);
      args.push(...filter.status);
    }
    const rows = this.db
      .prepare(`SELECT * FROM skills WHERE ${where.join(' AND ')} ORDER BY created_at, id`)
      .all(...args) as Row[];
    // One query for every listed skill's parents rather than one per skill.
    const parents = new Map<string, string[]>();
    const prov = this.db
      .prepare(
        `SELECT p.skill_id, p.source_id FROM provenance p JOIN skills s ON s.id = p.skill_id
         WHERE ${where.map((w) => `s.${w}`).join(' AND ')} AND p.source_kind = 'episodic' AND p.source_id NOT LIKE '${FORGOTTEN_PARENT}%' ORDER BY p.created_at, p.source_id`,
      )
      .all(...args) as Row[];
    for (const p of prov) {
      let list = parents.get(p.skill_id);
      if (!list) parents.set(p.skill_id, (list = []));
      list.push(p.source_id);
    }
    return rows.map((r) => this.skillFromRow(r, parents.get(r.id) ?? []));
  }

  async getSkill(namespace: string, idOrName: string): Promise<Skill | null> {
    this.flushRecalls();
    const row = (this.stmts.skillById.get(namespace, idOrName) ?? this.stmts.skillByName.get(namespace, idOrName)) as
      | Row
      | undefined;
    return row ? this.skillFromRow(row) : null;
  }

  async skillRevision(namespace: string): Promise<SkillRevision> {
    const r = this.stmts.skillRevision.get(namespace) as Row;
    return { storeId: r.store_id, revision: r.revision };
  }

  async skillVectors(
    namespace: string,
    opts: { changedAfter?: number } = {},
  ): Promise<{ revision: SkillRevision; rows: SkillVectorRow[]; changedIds: string[] | null }> {
    // One read transaction: the revision and the rows come from the same snapshot.
    return this.db.transaction(() => {
      const r = this.stmts.skillRevision.get(namespace) as Row;
      const revision = { storeId: r.store_id as string, revision: r.revision as number };
      // The log was pruned past `changedAfter` and this namespace changed since: every skill, as for a rebuild.
      const pruned =
        opts.changedAfter !== undefined &&
        revision.revision > opts.changedAfter &&
        opts.changedAfter < (this.stmts.changesPrunedThrough.get() as number);
      if (opts.changedAfter === undefined || pruned) {
        return {
          revision,
          rows: (this.stmts.skillVectors.all(namespace) as Row[]).map(vectorRowFrom),
          changedIds: null,
        };
      }
      const changedIds = (this.stmts.changedSkillIds.all(namespace, opts.changedAfter) as Row[]).map(
        (c) => c.skill_id as string,
      );
      const rows: SkillVectorRow[] = [];
      for (let i = 0; i < changedIds.length; i += 500) {
        const chunk = changedIds.slice(i, i + 500);
        const found = this.db
          .prepare(
            `SELECT ${VECTOR_COLUMNS} FROM skills WHERE namespace = ? AND id IN (${chunk.map(() => '?').join(',')})`,
          )
          .all(namespace, ...chunk) as Row[];
        rows.push(...found.map(vectorRowFrom));
      }
      return { revision, rows, changedIds };
    })();
  }

  async recallSkills(namespace: string, ids: string[]): Promise<ServedSkill[]> {
    // Recall's hits: read without writing the pending recall records first (their last use may lag by up to
    // RECALL_FLUSH_MS), so a recall never waits on the write of the ones before it.
    const out: ServedSkill[] = [];
    for (const id of new Set(ids)) {
      const row = this.stmts.servedSkill.get(namespace, id) as Row | undefined;
      if (row) out.push(servedSkillFrom(row));
    }
    return out;
  }

  private sourceSessions(skillId: string): string[] {
    return (this.stmts.sourceSessions.all(skillId) as Row[]).map((r) => r.source_id as string);
  }

  private skillFromRow(r: Row, sourceSessions?: string[]): Skill {
    return skillFromRow(r, sourceSessions ?? this.sourceSessions(r.id));
  }

  async writeSkill(w: SkillWrite): Promise<Skill> {
    const s = w.skill;
    const db = this.db;
    db.transaction(() => {
      const superseded = w.supersedes
        ? (db
            .prepare('SELECT superseded_by FROM skills WHERE namespace = ? AND id = ?')
            .get(s.namespace, w.supersedes) as Row | undefined)
        : undefined;
      const plan = accepted(
        planSkillWrite(w, { superseded: superseded ? { supersededBy: superseded.superseded_by } : null }),
      );
      if (plan.supersede) this.change(plan.supersede);
      this.stmts.upsertSkill.run(...skillRowValues(plan.skill, sqliteBool));
      const prov = db.prepare(
        'INSERT INTO provenance (skill_id, source_kind, source_id, version, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      );
      for (const p of plan.provenance) prov.run(p.skillId, p.sourceKind, p.sourceId, p.version, p.createdAt);
      if (plan.version) {
        const v = plan.version;
        this.stmts.insertVersion.run(v.skillId, v.version, v.skillMd, json(v.toolSequence), v.reason, v.createdAt);
      }
      if (plan.files) {
        const f = plan.files;
        this.change(f.clear);
        const put = db.prepare(
          'INSERT INTO skill_files (skill_id, version, path, bytes, executable) VALUES (?, ?, ?, ?, ?)',
        );
        for (const file of f.files) put.run(f.skillId, f.version, file.path, file.bytes, file.executable ? 1 : 0);
      }
      if (plan.linkCluster) this.change(plan.linkCluster);
      this.writeOutbox(plan);
    })();
    return (await this.getSkill(s.namespace, s.id))!;
  }

  /** Runs a plan's change to existing rows (inside the caller's transaction). */
  private change(ch: RowChange): number {
    const { text, values } = rowChangeSql(ch, () => '?', sqliteBool);
    return this.db.prepare(text).run(...values).changes;
  }

  /** Appends a plan's audit records and events (inside the caller's transaction). */
  private writeOutbox(o: Outbox): void {
    for (const a of o.audit)
      this.stmts.insertAudit.run(a.namespace, a.at, a.actor, a.action, a.subjectKind, a.subjectId, json(a.detail));
    for (const e of o.events) this.stmts.insertEvent.run(e.namespace, e.at, e.type, e.skillId, json(e.payload));
  }

  async setSkillEnabled(namespace: string, idOrName: string, enabled: boolean, actor: string): Promise<Skill | null> {
    const skill = await this.getSkill(namespace, idOrName);
    if (!skill) return null;
    const plan = planSetEnabled(skill, enabled, actor, new Date().toISOString());
    this.db.transaction(() => {
      this.change(plan.update);
      this.writeOutbox(plan);
    })();
    return this.getSkill(namespace, skill.id);
  }

  async touchSkills(namespace: string, ids: string[], at: string): Promise<void> {
    const stmt = this.db.prepare('UPDATE skills SET last_used_at = ? WHERE namespace = ? AND id = ?');
    this.db.transaction(() => {
      for (const id of ids) stmt.run(at, namespace, id);
    })();
  }

  async provenance(skillId: string): Promise<Provenance[]> {
    return (
      this.db
        .prepare('SELECT * FROM provenance WHERE skill_id = ? ORDER BY created_at, source_id')
        .all(skillId) as Row[]
    ).map(provenanceFromRow);
  }

  async skillFiles(skillId: string, version: string): Promise<SkillFile[]> {
    const rows = this.db
      .prepare('SELECT path, bytes, executable FROM skill_files WHERE skill_id = ? AND version = ? ORDER BY path')
      .all(skillId, version) as { path: string; bytes: Buffer; executable: number }[];
    return rows.map((r) => ({
      path: r.path,
      bytes: Buffer.from(r.bytes),
      ...(r.executable ? { executable: true } : {}),
    }));
  }

  async skillVersions(skillId: string): Promise<SkillVersion[]> {
    return (
      this.db.prepare('SELECT * FROM skill_versions WHERE skill_id = ? ORDER BY created_at').all(skillId) as Row[]
    ).map(versionFromRow);
  }

  async audit(namespace: string, opts: { subjectId?: string; limit?: number } = {}): Promise<AuditRecord[]> {
    const rows = (
      opts.subjectId
        ? this.db
            .prepare('SELECT * FROM audit WHERE namespace = ? AND subject_id = ? ORDER BY id DESC LIMIT ?')
            .all(namespace, opts.subjectId, opts.limit ?? 100)
        : this.db
            .prepare('SELECT * FROM audit WHERE namespace = ? ORDER BY id DESC LIMIT ?')
            .all(namespace, opts.limit ?? 100)
    ) as Row[];
    return rows.map(auditFromRow);
  }

  async lastEventId(): Promise<number> {
    return ((this.db.prepare('SELECT MAX(id) AS id FROM events').get() as Row).id as number) ?? 0;
  }

  async auditSince(afterId: number, limit: number): Promise<AuditRecord[]> {
    return (this.db.prepare('SELECT * FROM audit WHERE id > ? ORDER BY id LIMIT ?').all(afterId, limit) as Row[]).map(
      auditFromRow,
    );
  }

  async appendEvent(
    namespace: string,
    type: string,
    skillId: string | null,
    payload: Record<string, unknown>,
    at: string,
  ): Promise<void> {
    this.writeOutbox({ audit: [], events: [{ namespace, at, type, skillId, payload }], skillsChanged: false });
  }

  async appendAudit(r: AuditRecord): Promise<void> {
    this.writeOutbox({ audit: [r], events: [], skillsChanged: false });
  }

  async applyFeedback(req: FeedbackRequest): Promise<{ before: Skill; after: Skill } | null> {
    const found = await this.getSkill(req.namespace, req.idOrName);
    if (!found) return null;
    return this.db.transaction(() => {
      // Re-read inside the transaction: another writer may have changed the row since.
      const before = this.skillFromRow(this.stmts.skillById.get(req.namespace, found.id) as Row);
      const tried = feedbackNeedsTrialCheck(req)
        ? !!this.db
            .prepare(
              `SELECT 1 FROM feedback WHERE skill_id = ? AND session_id = ? AND signal IN (${TRIAL_SIGNALS.map(() => '?').join(',')})`,
            )
            .get(before.id, req.sessionId, ...TRIAL_SIGNALS)
        : false;
      const plan = planFeedback(req, before, { sessionAlreadyTried: tried });
      if (!plan) return null;
      this.change(plan.update);
      this.stmts.insertFeedback.run(...feedbackInsertValues(plan.feedback));
      this.writeOutbox(plan);
      return { before, after: plan.after };
    })();
  }

  async feedbackHistory(skillId: string): Promise<FeedbackRecord[]> {
    return (this.db.prepare('SELECT * FROM feedback WHERE skill_id = ? ORDER BY id').all(skillId) as Row[]).map(
      feedbackFromRow,
    );
  }

  /**
   * Recall records are written behind the caller, batched on the next tick: recall returns without waiting
   * for a write transaction. Anything that reads them (a session's served skills) writes the queue out first,
   * and so does close().
   */
  async recordRecall(
    namespace: string,
    recall: {
      sessionId: string | null;
      goal: string;
      at: string;
      items: { skillId: string; rank: number; similarity: number }[];
    },
  ): Promise<void> {
    this.pendingRecalls.push({ namespace, ...recall });
    // Written RECALL_FLUSH_MS later, with every recall made meanwhile, in one transaction: a busy server commits
    // once per batch, not once per recall, and a recall does not wait on the write of the one before. Reads
    // that depend on them (stats, last use, a session's served skills) and close() write them first.
    if (this.pendingRecalls.length === 1) setTimeout(() => this.flushRecalls(), RECALL_FLUSH_MS);
  }

  private readonly pendingRecalls: {
    namespace: string;
    sessionId: string | null;
    goal: string;
    at: string;
    items: { skillId: string; rank: number; similarity: number }[];
  }[] = [];

  /** Writes the recalls recorded and not written yet (a long-lived process that answers per request). */
  flushRecalls(): void {
    if (this.pendingRecalls.length === 0 || !this.db.open) return;
    const batch = this.pendingRecalls.splice(0);
    const { insertRecall, insertRecallItem, touchSkill } = this.stmts;
    this.db.transaction(() => {
      for (const r of batch) {
        const info = insertRecall.run(r.namespace, r.sessionId, r.goal.slice(0, 2000), r.at);
        for (const it of r.items) {
          insertRecallItem.run(info.lastInsertRowid, it.skillId, it.rank, it.similarity);
          touchSkill.run(r.at, r.namespace, it.skillId);
        }
      }
    })();
  }

  async skillsServedForSession(namespace: string, sessionId: string): Promise<string[]> {
    this.flushRecalls();
    return (
      this.db
        .prepare(
          `SELECT DISTINCT i.skill_id FROM recalls r JOIN recall_items i ON i.recall_id = r.id
           WHERE r.namespace = ? AND r.session_id = ? ORDER BY i.skill_id`,
        )
        .all(namespace, sessionId) as Row[]
    ).map((r) => r.skill_id as string);
  }

  async getFacts(namespace: string, ids: string[]): Promise<Fact[]> {
    const stmt = this.db.prepare('SELECT * FROM facts WHERE namespace = ? AND id = ?');
    return ids
      .map((id) => stmt.get(namespace, id) as Row | undefined)
      .filter((r): r is Row => !!r)
      .map(factFromRow);
  }

  // ── forgetting ────────────────────────────────────────────────────────────

  async forgetSession(
    namespace: string,
    sessionId: string,
    opts: ForgetSessionOptions,
  ): Promise<ForgottenSession | null> {
    this.flushRecalls();
    const db = this.db;
    const out = db.transaction((): ForgottenSession | null => {
      if (!this.stmts.sessionById.get(namespace, sessionId)) return null;
      const calls = db
        .prepare('DELETE FROM tool_calls WHERE namespace = ? AND session_id = ?')
        .run(namespace, sessionId).changes;
      db.prepare('DELETE FROM sessions WHERE namespace = ? AND id = ?').run(namespace, sessionId);
      const member = db
        .prepare('SELECT cluster_id FROM cluster_members WHERE namespace = ? AND session_id = ?')
        .get(namespace, sessionId) as Row | undefined;
      if (member) {
        db.prepare('DELETE FROM cluster_members WHERE namespace = ? AND session_id = ?').run(namespace, sessionId);
        db.prepare('UPDATE clusters SET size = MAX(size - 1, 0) WHERE namespace = ? AND id = ?').run(
          namespace,
          member.cluster_id,
        );
        const put = db.prepare(
          'INSERT INTO state (namespace, key, value) VALUES (?, ?, ?) ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value',
        );
        for (const st of opts.stateIfClustered ?? []) put.run(namespace, st.key, st.value);
      }
      const recalls = db
        .prepare('SELECT id FROM recalls WHERE namespace = ? AND session_id = ?')
        .all(namespace, sessionId) as Row[];
      for (const r of recalls) db.prepare('DELETE FROM recall_items WHERE recall_id = ?').run(r.id);
      db.prepare('DELETE FROM recalls WHERE namespace = ? AND session_id = ?').run(namespace, sessionId);
      db.prepare('UPDATE feedback SET session_id = NULL WHERE namespace = ? AND session_id = ?').run(
        namespace,
        sessionId,
      );
      // Feedback audit records named the session by id: they keep its opaque reference instead.
      db.prepare(
        `UPDATE audit SET detail = json_set(detail, '$.session', ?) WHERE namespace = ? AND json_valid(detail) AND json_extract(detail, '$.session') = ?`,
      ).run(sessionRef(sessionId), namespace, sessionId);
      for (const e of opts.embeddingHashes ?? [])
        db.prepare('DELETE FROM embedding_cache WHERE embedder_id = ? AND text_hash = ?').run(e.embedderId, e.hash);
      // Lineage stays honest: the skill keeps a marker that one of its parents was forgotten, not which.
      const parents = db
        .prepare(
          `SELECT p.skill_id, p.version, p.created_at, s.name FROM provenance p JOIN skills s ON s.id = p.skill_id
           WHERE s.namespace = ? AND p.source_kind = 'episodic' AND p.source_id = ? ORDER BY p.skill_id`,
        )
        .all(namespace, sessionId) as Row[];
      for (const p of parents) {
        db.prepare(`DELETE FROM provenance WHERE skill_id = ? AND source_kind = 'episodic' AND source_id = ?`).run(
          p.skill_id,
          sessionId,
        );
        db.prepare(
          'INSERT INTO provenance (skill_id, source_kind, source_id, version, created_at) VALUES (?, ?, ?, ?, ?)',
        ).run(p.skill_id, 'episodic', `${FORGOTTEN_PARENT}${randomUUID()}`, p.version, p.created_at);
      }
      const gone = {
        calls,
        clusterId: (member?.cluster_id as string) ?? null,
        parents: parents.map((p) => ({ skillId: p.skill_id as string, name: p.name as string })),
      };
      const plan = planForgetSession(namespace, sessionRef(sessionId), gone, opts);
      this.writeOutbox(plan);
      return plan.result;
    })();
    if (out) this.scrubFile();
    return out;
  }

  async forgetSkill(
    namespace: string,
    idOrName: string,
    opts: ForgetOptions,
  ): Promise<{ id: string; name: string } | null> {
    this.flushRecalls();
    const skill = await this.getSkill(namespace, idOrName);
    if (!skill) return null;
    const db = this.db;
    db.transaction(() => {
      const plan = planForgetSkill(skill, opts);
      for (const ch of plan.changes) this.change(ch);
      this.writeOutbox(plan);
    })();
    this.scrubFile();
    return { id: skill.id, name: skill.name };
  }

  /**
   * Moves the write-ahead log into the file and truncates it: the log still holds the pages as they were before
   * the deletion (secure_delete zeroes the file's pages, not old log frames). Best effort: a reader holding an
   * old snapshot keeps the log until it finishes; the next checkpoint then completes the job.
   */
  private scrubFile(): void {
    if (this.location === ':memory:') return;
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // busy: SQLite checkpoints again on its own
    }
  }

  async events(namespace: string, opts: { afterId?: number; limit?: number } = {}): Promise<SkillEvent[]> {
    const rows = this.db
      .prepare('SELECT * FROM events WHERE namespace = ? AND id > ? ORDER BY id LIMIT ?')
      .all(namespace, opts.afterId ?? 0, opts.limit ?? 1000) as Row[];
    return rows.map(eventFromRow);
  }
}

/**
 * A lock holder is `host:pid:...`. On this host, a holder whose process is gone (killed mid-pass) no longer
 * holds anything; on another host only the expiry can tell.
 */
function holderAlive(holder: string): boolean {
  const [host, pid] = holder.split(':');
  if (host !== hostname() || !/^\d+$/.test(pid ?? '')) return true;
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
