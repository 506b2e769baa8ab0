import { randomUUID } from 'node:crypto';
import pg from 'pg';
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
import { createLogger, type Logger } from '../../support/log.js';
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
import { ChangeFeed, CHANGE_CHANNEL } from './change-feed.js';
import { isConnectionError } from './connection-error.js';
import { latestPgSchemaVersion, pgMigrations } from './migrations.js';
import { WriteBehindQueue } from './write-behind.js';

import {
  auditFromRow,
  CALL_COLUMNS,
  callFromRow,
  callRowValues,
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
  skillFromRow as skillFromStoredRow,
  skillInsertSql,
  skillRowValues,
  vectorRowFrom,
  VECTOR_COLUMNS,
} from '../skill-row.js';
import { STATE_CLEARED_ON_REEMBED_SQL, stateKey, stateShapesRecall, type StateKey } from '../state-key.js';
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
import { BackendUnavailableError, NotFoundError, SessionStateError } from '../../errors/index.js';

/** A connection in a transaction, or the store's own retrying autocommit path. */
type Db = { query(text: string, values?: unknown[]): Promise<pg.QueryResult> };

export interface PgStoreOptions {
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** How often the change counter is read as a fallback to LISTEN/NOTIFY, in ms (default 5000; 0 = never). */
  pollMs?: number;
  /** Recall records waiting for an unreachable database, at most (default 10,000; the oldest are dropped). */
  recallQueueLimit?: number;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
  log?: Logger;
}

/** Parses bigint (int8) columns, COUNT(*) and sequences to numbers: ids and seqs stay far below 2^53. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 && format !== 'binary') return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

/**
 * Opens (creating and migrating as needed) a PostgreSQL memory: `postgres://user:pass@host:5432/db`.
 * Waits for the migrations and the change listener; throws with the server's reason when it cannot connect.
 */
export async function openPgStore(url: string, opts: PgStoreOptions = {}): Promise<PgStore> {
  const log = opts.log ?? createLogger('warn', 'skillsmith.store.postgres');
  const config: pg.ClientConfig = {
    connectionString: url,
    application_name: opts.applicationName ?? 'skillsmith',
    types,
    keepAlive: true,
    connectionTimeoutMillis: 10_000,
  };
  const pool = new pg.Pool({ ...config, max: opts.poolSize ?? 10, idleTimeoutMillis: 30_000 });
  // An idle connection that the server drops (restart, network) must not crash the process.
  pool.on('error', (e) => log.debug('idle connection lost', { error: String(e) }));
  // A connection the server drops while it is checked out (57P01 on an admin shutdown or a restart, between
  // two statements of a transaction) emits 'error' on its client, where the pool listens no longer: without
  // a listener of our own that is an unhandled 'error' event and the process dies with a stack trace. The
  // statement that uses the client next fails with a connection error, which the store retries.
  pool.on('connect', (client) => {
    client.on('error', (e) =>
      log.warn(`PostgreSQL connection lost (${connectionLossText(e)}); retrying on a new connection`),
    );
  });
  try {
    await migratePg(pool);
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw new BackendUnavailableError(`cannot open PostgreSQL memory at ${redactUrl(url)}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  const store = new PgStore(pool, redactUrl(url), config, log, opts);
  try {
    await store.start();
  } catch (e) {
    await store.close();
    throw new BackendUnavailableError(`cannot listen for changes on ${redactUrl(url)}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  return store;
}

/**
 * Applies the migrations the database has not seen yet, each in its own transaction. Many processes may
 * open a fresh database at once: an advisory lock lets one of them migrate while the others wait.
 */
export async function migratePg(pool: pg.Pool, upTo = latestPgSchemaVersion): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query(`SELECT pg_advisory_lock(hashtextextended('skillsmith:migrate', 0))`);
    try {
      await client.query(
        `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
      );
      const applied = new Set(
        (await client.query('SELECT version FROM schema_migrations')).rows.map((r) => r.version as number),
      );
      for (const m of pgMigrations) {
        if (m.version > upTo || applied.has(m.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
            m.version,
            m.name,
            new Date().toISOString(),
          ]);
          await client.query('COMMIT');
        } catch (e) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw new Error(`migration ${m.version} (${m.name}) failed: ${(e as Error).message}`, { cause: e });
        }
      }
      const { rows } = await client.query('SELECT MAX(version) AS v FROM schema_migrations');
      return (rows[0].v as number) ?? 0;
    } finally {
      await client.query(`SELECT pg_advisory_unlock(hashtextextended('skillsmith:migrate', 0))`).catch(() => undefined);
    }
  } finally {
    client.release();
  }
}

/** One line for a lost connection: SQLSTATE and the first line of the message. */
export function connectionLossText(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown };
  const code = typeof err?.code === 'string' ? `${err.code} ` : '';
  return `${code}${String(err?.message ?? e).split('\n')[0]}`;
}

/** The URL without its password, for messages and `location`. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
  }
}

/** How PostgreSQL stores a boolean. */
const pgBool = (b: boolean) => b;

/** The PostgreSQL types of `CALL_COLUMNS`, in order. */
const CALL_TYPES = ['text', 'text', 'int', 'text', 'text', 'text', 'bool', 'text', 'float8', 'text'] as const;

const INSERT_SESSION_SQL = `INSERT INTO sessions (${SESSION_COLUMNS.join(', ')}) VALUES (${SESSION_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
  ON CONFLICT (namespace, id) DO NOTHING`;

/** One statement, so one implicit transaction: the namespace's session lock is held until it commits. */
const BEGIN_SESSION_SQL = `WITH l AS (SELECT pg_advisory_xact_lock(hashtextextended('skillsmith:sessions:' || $1::text, 0)))
  INSERT INTO sessions (${SESSION_COLUMNS.join(', ')})
  SELECT ${SESSION_COLUMNS.map((c, i) => `$${i + 1}::${c === 'reward' ? 'float8' : 'text'}`).join(', ')} FROM l
  ON CONFLICT (namespace, id) DO NOTHING`;

const INSERT_CALLS_SQL = `INSERT INTO tool_calls (${CALL_COLUMNS.join(', ')})
  SELECT * FROM unnest(${CALL_TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(', ')}) ON CONFLICT DO NOTHING`;

const APPEND_CALL_SQL = `INSERT INTO tool_calls (${CALL_COLUMNS.join(', ')})
  SELECT ${CALL_TYPES.map((t, i) => `$${i + 1}::${t}`).join(', ')}
  WHERE EXISTS (SELECT 1 FROM sessions WHERE namespace = $1 AND id = $2)
  ON CONFLICT DO NOTHING`;

/** Runs a plan's change to existing rows on a connection (in its transaction). */
function change(c: Db, ch: RowChange) {
  const { text, values } = rowChangeSql(ch, (i) => `$${i + 1}`, pgBool);
  return c.query(text, values);
}

const SKILL_UPSERT = skillInsertSql((i) => `$${i + 1}`, { upsert: true });

const FEEDBACK_INSERT = `INSERT INTO feedback (${FEEDBACK_INSERT_COLUMNS.join(', ')}) VALUES (${FEEDBACK_INSERT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;

const SKILL_COLUMNS = `s.*, (SELECT COALESCE(array_agg(p.source_id ORDER BY p.created_at, p.source_id), '{}')
  FROM provenance p WHERE p.skill_id = s.id AND p.source_kind = 'episodic' AND p.source_id NOT LIKE '${FORGOTTEN_PARENT}%') AS source_sessions`;

const REVISION_SQL = `SELECT (SELECT id FROM store_identity LIMIT 1) AS store_id,
  COALESCE((SELECT MAX(revision) FROM skill_changes WHERE namespace = $1), 0) AS revision`;

interface RecallRecord {
  namespace: string;
  sessionId: string | null;
  goal: string;
  at: string;
  items: { skillId: string; rank: number; similarity: number }[];
}

/**
 * The PostgreSQL back end: the same tables and semantics as the SQLite store, made safe for many processes
 * on many hosts. Sessions of a namespace are numbered in commit order (the synthesis watermark never skips
 * one), events and audit records likewise (a listener reading "after id N" misses nothing), the pass lock
 * is a session-level advisory lock (released by the server when its holder dies), and the change token is
 * local: LISTEN/NOTIFY keeps it current, so recall never waits on a round trip.
 */
export class PgStore implements Store {
  readonly kind = 'postgres';
  private readonly feed: ChangeFeed;
  private readonly recalls: WriteBehindQueue<RecallRecord>;
  private closed = false;

  constructor(
    readonly pool: pg.Pool,
    readonly location: string,
    private readonly clientConfig: pg.ClientConfig,
    private readonly log: Logger,
    opts: PgStoreOptions = {},
  ) {
    this.feed = new ChangeFeed(
      () => new pg.Client(this.clientConfig),
      async () => Number((await this.query('SELECT value FROM change_counter WHERE id = 1')).rows[0].value),
      log.child('changes'),
      { pollMs: opts.pollMs ?? 5_000 },
    );
    this.recalls = new WriteBehindQueue((batch) => this.writeRecalls(batch), log.child('recalls'), {
      limit: opts.recallQueueLimit ?? 10_000,
    });
  }

  /** @internal Starts the change listener (openPgStore does). */
  async start(): Promise<void> {
    await this.feed.start();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.recalls.close();
    await this.feed.stop();
    await this.pool.end().catch(() => undefined);
  }

  async changeToken(): Promise<string> {
    return this.feed.token();
  }

  async schemaVersion(): Promise<number> {
    const { rows } = await this.query('SELECT MAX(version) AS v FROM schema_migrations');
    return (rows[0].v as number) ?? 0;
  }

  /**
   * Runs `fn` in one transaction. Retried from the start when the server breaks a deadlock or a serialization
   * conflict, and when the connection turns out dead before COMMIT was sent (after a server restart the pool
   * may hand out connections the server has already closed): the server rolled such a transaction back.
   */
  private async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const c = await this.connect();
      let broken: Error | undefined;
      let committing = false;
      try {
        await c.query('BEGIN');
        const out = await fn(c);
        committing = true;
        await c.query('COMMIT');
        return out;
      } catch (e) {
        if (isConnectionError(e)) broken = e as Error;
        else await c.query('ROLLBACK').catch((r) => (broken = r as Error));
        const code = (e as { code?: string }).code;
        if ((code === '40P01' || code === '40001') && attempt < 4) continue;
        if (broken && !committing && attempt < this.staleRetries()) continue;
        throw e;
      } finally {
        c.release(broken);
      }
    }
  }

  private async connect(): Promise<pg.PoolClient> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.pool.connect();
      } catch (e) {
        if (!isConnectionError(e) || attempt >= 2) throw e;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  /** Enough attempts to get past every idle connection a restart left dead in the pool. */
  private staleRetries(): number {
    return this.pool.totalCount + 2;
  }

  /**
   * One autocommit statement. Every single statement this store sends is idempotent (reads, upserts, inserts
   * that skip existing keys, updates to given values), so one that met a dead connection is sent again on
   * another connection.
   */
  private async query(text: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.pool.query(text as string, values);
      } catch (e) {
        if (!isConnectionError(e) || attempt >= this.staleRetries()) throw e;
        if (attempt > 0) await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  /**
   * The end of every transaction that writes audit records or events, in ONE statement: it takes the outbox
   * lock (the change counter's row, held until commit), so audit and event ids are handed out in commit order
   * and a reader of "events after id N" never misses one that commits late; with `skillsChanged` it also
   * bumps the counter and notifies every listening process. Every writer takes this lock last (no deadlock),
   * and holds it for this statement and its COMMIT only.
   */
  private async outbox(c: pg.PoolClient, o: Outbox): Promise<number> {
    const { audit, events } = o;
    const { rows } = await c.query(
      `WITH v AS (UPDATE change_counter SET value = value + $1 WHERE id = 1 RETURNING value),
       n AS (SELECT pg_notify('${CHANGE_CHANNEL}', v.value::text) FROM v WHERE $1 > 0),
       a AS (INSERT INTO audit (namespace, at, actor, action, subject_kind, subject_id, detail)
             SELECT u.namespace, u.at, u.actor, u.action, u.subject_kind, u.subject_id, u.detail
             FROM v, unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) WITH ORDINALITY
               AS u(namespace, at, actor, action, subject_kind, subject_id, detail, ord) ORDER BY u.ord RETURNING 1),
       e AS (INSERT INTO events (namespace, at, type, skill_id, payload)
             SELECT u.namespace, u.at, u.type, u.skill_id, u.payload
             FROM v, unnest($9::text[], $10::text[], $11::text[], $12::text[], $13::text[]) WITH ORDINALITY
               AS u(namespace, at, type, skill_id, payload, ord) ORDER BY u.ord RETURNING 1)
       SELECT v.value, (SELECT COUNT(*) FROM n) AS notified, (SELECT COUNT(*) FROM a) AS audited, (SELECT COUNT(*) FROM e) AS evented FROM v`,
      [
        o.skillsChanged ? 1 : 0,
        audit.map((r) => r.namespace),
        audit.map((r) => r.at),
        audit.map((r) => r.actor),
        audit.map((r) => r.action),
        audit.map((r) => r.subjectKind),
        audit.map((r) => r.subjectId),
        audit.map((r) => json(r.detail)),
        events.map((r) => r.namespace),
        events.map((r) => r.at),
        events.map((r) => r.type),
        events.map((r) => r.skillId),
        events.map((r) => json(r.payload)),
      ],
    );
    return Number(rows[0].value);
  }

  // ── capture ────────────────────────────────────────────────────────────────

  /**
   * Session inserts of one namespace are serialized by a transaction-level advisory lock, so `seq` is handed
   * out in commit order: a pass that has read up to seq N can never later meet a committed session below N.
   */
  private lockSessions(c: Db, namespaces: string[]) {
    return c.query(
      // Always in the same (sorted) order, so two batches of several namespaces cannot deadlock.
      `SELECT pg_advisory_xact_lock(hashtextextended('skillsmith:sessions:' || ns, 0)) FROM unnest($1::text[]) AS ns`,
      [[...new Set(namespaces)].sort()],
    );
  }

  async insertSessions(sessions: Session[]): Promise<{ inserted: number; skipped: number }> {
    if (sessions.length === 0) return { inserted: 0, skipped: 0 };
    const inserted = await this.tx(async (c) => {
      await this.lockSessions(
        c,
        sessions.map((s) => s.namespace),
      );
      let n = 0;
      const calls: { namespace: string; sessionId: string; call: ToolCall }[] = [];
      for (const s of sessions) {
        const res = await c.query(INSERT_SESSION_SQL, sessionRowValues(s));
        if (res.rowCount === 0) continue;
        n++;
        for (const call of s.calls) calls.push({ namespace: s.namespace, sessionId: s.id, call });
      }
      for (let i = 0; i < calls.length; i += 1000) await this.insertCallRows(c, calls.slice(i, i + 1000));
      return n;
    });
    return { inserted, skipped: sessions.length - inserted };
  }

  private insertCallRows(c: Db, rows: { namespace: string; sessionId: string; call: ToolCall }[]) {
    const cols: unknown[][] = CALL_COLUMNS.map(() => []);
    for (const { namespace, sessionId, call } of rows) {
      callRowValues(namespace, sessionId, call, pgBool).forEach((v, i) => {
        cols[i].push(v);
      });
    }
    return c.query(INSERT_CALLS_SQL, cols);
  }

  async beginSession(session: Omit<Session, 'calls' | 'seq'>): Promise<void> {
    // One statement, so one implicit transaction: the lock is held until it commits.
    await this.query({
      name: 'skillsmith.beginSession',
      text: BEGIN_SESSION_SQL,
      values: sessionRowValues(session),
    });
  }

  async appendCall(namespace: string, sessionId: string, call: ToolCall): Promise<void> {
    const res = await this.query({
      name: 'skillsmith.appendCall',
      text: APPEND_CALL_SQL,
      values: callRowValues(namespace, sessionId, call, pgBool),
    });
    if (res.rowCount === 0) {
      const known = await this.query('SELECT 1 FROM sessions WHERE namespace = $1 AND id = $2', [namespace, sessionId]);
      if (known.rowCount === 0)
        throw new SessionStateError(
          `session ${sessionId} is not open in namespace ${namespace}: call beginSession first`,
        );
    }
  }

  async endSession(
    namespace: string,
    sessionId: string,
    outcome: Outcome,
    reward: number | null,
    endedAt: string,
    source: OutcomeSource = 'reported',
  ): Promise<void> {
    const res = await this.query({
      name: 'skillsmith.endSession',
      text: 'UPDATE sessions SET outcome = $1, reward = $2, ended_at = $3, outcome_source = $6 WHERE namespace = $4 AND id = $5',
      values: [outcome, reward, endedAt, namespace, sessionId, source],
    });
    if (res.rowCount === 0) throw new NotFoundError(`session ${sessionId} does not exist in namespace ${namespace}`);
  }

  async getSession(namespace: string, id: string): Promise<Session | null> {
    const { rows } = await this.query('SELECT * FROM sessions WHERE namespace = $1 AND id = $2', [namespace, id]);
    return rows.length ? (await this.hydrate(rows))[0] : null;
  }

  async getSessions(namespace: string, ids: string[]): Promise<Session[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.query(
      'SELECT * FROM sessions WHERE namespace = $1 AND id = ANY($2::text[]) ORDER BY seq',
      [namespace, ids],
    );
    return this.hydrate(rows);
  }

  async listSessionOutlinesAfter(namespace: string, afterSeq: number, limit: number): Promise<SessionOutline[]> {
    const { rows } = await this.query(
      'SELECT seq, id, goal, outcome FROM sessions WHERE namespace = $1 AND seq > $2 ORDER BY seq LIMIT $3',
      [namespace, afterSeq, limit],
    );
    if (rows.length === 0) return [];
    const { rows: calls } = await this.query(
      `SELECT c.session_id, c.tool, c.ok FROM sessions s
       JOIN tool_calls c ON c.namespace = s.namespace AND c.session_id = s.id
       WHERE s.namespace = $1 AND s.seq > $2 AND s.seq <= $3 ORDER BY s.seq, c.position`,
      [namespace, afterSeq, rows[rows.length - 1].seq],
    );
    return outlinesFromRows(
      rows,
      calls.map((c) => [c.session_id, c.tool, c.ok]),
    );
  }

  async listSessions(namespace: string, opts: { limit?: number; offset?: number } = {}): Promise<Session[]> {
    const { rows } = await this.query(
      'SELECT * FROM sessions WHERE namespace = $1 ORDER BY seq DESC LIMIT $2 OFFSET $3',
      [namespace, opts.limit ?? 100, opts.offset ?? 0],
    );
    return this.hydrate(rows);
  }

  async countSessions(namespace: string): Promise<number> {
    const { rows } = await this.query('SELECT COUNT(*) AS n FROM sessions WHERE namespace = $1', [namespace]);
    return rows[0].n as number;
  }

  async existingSessionIds(namespace: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const { rows } = await this.query('SELECT id FROM sessions WHERE namespace = $1 AND id = ANY($2::text[])', [
      namespace,
      ids,
    ]);
    return new Set(rows.map((r) => r.id as string));
  }

  /** Loads the calls of many sessions with one query per 1,000 sessions of a namespace. */
  private async hydrate(rows: Row[]): Promise<Session[]> {
    if (rows.length === 0) return [];
    const byKey = new Map<string, ToolCall[]>();
    const key = (ns: string, id: string) => `${ns}\u0000${id}`;
    const byNs = new Map<string, string[]>();
    for (const r of rows) {
      let ids = byNs.get(r.namespace);
      if (!ids) byNs.set(r.namespace, (ids = []));
      ids.push(r.id);
    }
    for (const [ns, ids] of byNs) {
      for (let i = 0; i < ids.length; i += 1000) {
        const { rows: calls } = await this.query(
          'SELECT * FROM tool_calls WHERE namespace = $1 AND session_id = ANY($2::text[]) ORDER BY session_id, position',
          [ns, ids.slice(i, i + 1000)],
        );
        for (const c of calls) {
          const k = key(ns, c.session_id);
          let list = byKey.get(k);
          if (!list) byKey.set(k, (list = []));
          list.push(callFromRow(c));
        }
      }
    }
    return rows.map((r) => sessionFromRow(r, byKey.get(key(r.namespace, r.id)) ?? []));
  }

  async addFact(fact: Fact): Promise<void> {
    await this.query(
      'INSERT INTO facts (namespace, id, text, source, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING',
      [fact.namespace, fact.id, fact.text, fact.source, fact.createdAt],
    );
  }

  async listFacts(namespace: string): Promise<Fact[]> {
    const { rows } = await this.query('SELECT * FROM facts WHERE namespace = $1 ORDER BY created_at, id', [namespace]);
    return rows.map(factFromRow);
  }

  // ── synthesis state ───────────────────────────────────────────────────────

  async getState(namespace: string, key: StateKey): Promise<string | null> {
    const { rows } = await this.query('SELECT value FROM state WHERE namespace = $1 AND key = $2', [namespace, key]);
    return rows.length ? (rows[0].value as string) : null;
  }

  async setState(namespace: string, key: StateKey, value: string): Promise<void> {
    const upsert =
      'INSERT INTO state (namespace, key, value) VALUES ($1, $2, $3) ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value';
    // The mean goal direction shapes every recall vector: recall indexes elsewhere must reload when it moves.
    if (!stateShapesRecall(key)) {
      await this.query(upsert, [namespace, key, value]);
      return;
    }
    const version = await this.tx(async (c) => {
      await c.query(upsert, [namespace, key, value]);
      return this.outbox(c, { audit: [], events: [], skillsChanged: true });
    });
    this.feed.observe(version);
  }

  async getCachedEmbeddings(embedderId: string, hashes: string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    if (hashes.length === 0) return out;
    const { rows } = await this.query(
      'SELECT text_hash, vector FROM embedding_cache WHERE embedder_id = $1 AND text_hash = ANY($2::text[])',
      [embedderId, hashes],
    );
    for (const r of rows) out.set(r.text_hash, fromBuffer(r.vector));
    return out;
  }

  async putCachedEmbeddings(embedderId: string, entries: { hash: string; vector: Float32Array }[]): Promise<void> {
    // The last entry for a hash wins, as with INSERT OR REPLACE (one statement cannot upsert a key twice).
    const latest = new Map(entries.map((e) => [e.hash, e.vector]));
    const all = [...latest];
    for (let i = 0; i < all.length; i += 1000) {
      const chunk = all.slice(i, i + 1000);
      await this.query(
        `INSERT INTO embedding_cache (embedder_id, text_hash, vector) SELECT $1, h, v FROM unnest($2::text[], $3::bytea[]) AS u(h, v)
         ON CONFLICT (embedder_id, text_hash) DO UPDATE SET vector = excluded.vector`,
        [embedderId, chunk.map(([h]) => h), chunk.map(([, v]) => toBuffer(v))],
      );
    }
  }

  async loadClusters(namespace: string, embedderId: string): Promise<ClusterRecord[]> {
    const { rows } = await this.query('SELECT * FROM clusters WHERE namespace = $1 AND embedder_id = $2 ORDER BY id', [
      namespace,
      embedderId,
    ]);
    return rows.map((r) => ({
      id: r.id,
      centroid: fromBuffer(r.centroid),
      goalCentroid: fromBuffer(r.goal_centroid),
      size: r.size,
      dirty: r.dirty === true,
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
    await this.tx(async (c) => {
      for (const cl of clusters) {
        await c.query(
          `INSERT INTO clusters (namespace, id, embedder_id, centroid, goal_centroid, size, dirty, skill_id, last_pass_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
           ON CONFLICT (namespace, id) DO UPDATE SET centroid = excluded.centroid, goal_centroid = excluded.goal_centroid,
             size = excluded.size, dirty = excluded.dirty`,
          [
            namespace,
            cl.id,
            embedderId,
            toBuffer(cl.centroid),
            toBuffer(cl.goalCentroid),
            cl.size,
            cl.dirty,
            cl.skillId,
            cl.lastPassAt,
          ],
        );
        const members = [...new Set(cl.newMembers)];
        for (let i = 0; i < members.length; i += 5000) {
          await c.query(
            `INSERT INTO cluster_members (namespace, session_id, cluster_id) SELECT $1, s, $2 FROM unnest($3::text[]) AS s
             ON CONFLICT (namespace, session_id) DO UPDATE SET cluster_id = excluded.cluster_id`,
            [namespace, cl.id, members.slice(i, i + 5000)],
          );
        }
      }
      await c.query(
        'INSERT INTO state (namespace, key, value) VALUES ($1, $2, $3) ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value',
        [namespace, stateKey.watermark(embedderId), String(watermark)],
      );
    });
  }

  async clusterMembers(namespace: string, clusterId: string): Promise<string[]> {
    const { rows } = await this.query(
      `SELECT m.session_id FROM cluster_members m JOIN sessions s ON s.namespace = m.namespace AND s.id = m.session_id
       WHERE m.namespace = $1 AND m.cluster_id = $2 ORDER BY s.seq`,
      [namespace, clusterId],
    );
    return rows.map((r) => r.session_id as string);
  }

  async replaceEmbeddings(
    namespace: string,
    change: EmbeddingReplacement,
  ): Promise<{ skills: number; clusters: number }> {
    const out = { skills: 0, clusters: 0 };
    const version = await this.tx(async (c) => {
      out.skills = 0;
      for (const v of change.vectors) {
        const r = await c.query(
          'UPDATE skills SET embedder_id = $1, embedding = $2, exemplars = NULL, cluster_id = NULL WHERE namespace = $3 AND id = $4',
          [change.embedderId, toBuffer(v.embedding), namespace, v.skillId],
        );
        out.skills += r.rowCount ?? 0;
      }
      await c.query('DELETE FROM cluster_members WHERE namespace = $1', [namespace]);
      out.clusters = (await c.query('DELETE FROM clusters WHERE namespace = $1', [namespace])).rowCount ?? 0;
      await c.query(`DELETE FROM state WHERE namespace = $1 AND ${STATE_CLEARED_ON_REEMBED_SQL}`, [namespace]);
      return this.outbox(c, planReembed(namespace, change, out));
    });
    this.feed.observe(version);
    return out;
  }

  /**
   * A session-level advisory lock on a connection of its own, kept for the whole pass: exclusive across every
   * process and host of the database, and released by the server the moment its holder's connection dies
   * (a killed process, a lost host), so no expiry is needed: `ttlMs` only dates the `locks` row, which tells
   * people who holds the lock and since when.
   */
  async tryLock(name: string, holder: string, ttlMs: number): Promise<(() => Promise<void>) | null> {
    const client = new pg.Client(this.clientConfig);
    let held = false;
    let lost = false;
    client.on('error', (e) => {
      if (held && !lost)
        this.log.warn('the connection holding a pass lock was lost: the lock is released', {
          name,
          holder,
          error: String(e),
        });
      lost = true;
    });
    await client.connect();
    const key = `skillsmith:lock:${name}`;
    try {
      const { rows } = await client.query('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok', [key]);
      if (!rows[0].ok) {
        await client.end();
        return null;
      }
      await client.query(
        `INSERT INTO locks (name, holder, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at`,
        [name, holder, Date.now() + ttlMs],
      );
      held = true;
    } catch (e) {
      await client.end().catch(() => undefined);
      throw e;
    }
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      try {
        if (!lost) {
          await client.query('DELETE FROM locks WHERE name = $1 AND holder = $2', [name, holder]);
          await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]);
        }
      } catch (e) {
        this.log.debug('releasing a pass lock failed; closing its connection releases it', { name, error: String(e) });
      } finally {
        await client.end().catch(() => undefined);
      }
    };
  }

  async markClusterPassed(namespace: string, clusterId: string, at: string, dirty: boolean): Promise<void> {
    await this.query('UPDATE clusters SET last_pass_at = $1, dirty = $2 WHERE namespace = $3 AND id = $4', [
      at,
      dirty,
      namespace,
      clusterId,
    ]);
  }

  // ── skills ────────────────────────────────────────────────────────────────

  async listSkills(namespace: string, filter: SkillFilter = {}): Promise<Skill[]> {
    await this.recalls.flush();
    const where = ['s.namespace = $1'];
    const args: unknown[] = [namespace];
    if (filter.corpus) {
      args.push(filter.corpus);
      where.push(`s.corpus = $${args.length}`);
    }
    if (!filter.includeSuperseded) where.push('s.superseded_by IS NULL');
    if (filter.enabled !== undefined) {
      args.push(filter.enabled);
      where.push(`s.enabled = $${args.length}`);
    }
    if (filter.status?.length) {
      args.push(filter.status);
      where.push(`s.status = ANY($${args.length}::text[])`);
    }
    const { rows } = await this.query(
      `SELECT ${SKILL_COLUMNS} FROM skills s WHERE ${where.join(' AND ')} ORDER BY s.created_at, s.id`,
      args,
    );
    return rows.map(skillFromRow);
  }

  async getSkill(namespace: string, idOrName: string): Promise<Skill | null> {
    await this.recalls.flush();
    return this.findSkill({ query: (text, values) => this.query(text, values) }, namespace, idOrName);
  }

  /** By id, else the best row of that name (live first, internal first, newest first); optionally locked. */
  private async findSkill(c: Db, namespace: string, idOrName: string, forUpdate = false): Promise<Skill | null> {
    const lock = forUpdate ? ' FOR UPDATE OF s' : '';
    const byId = await c.query(`SELECT ${SKILL_COLUMNS} FROM skills s WHERE s.namespace = $1 AND s.id = $2${lock}`, [
      namespace,
      idOrName,
    ]);
    if (byId.rows.length) return skillFromRow(byId.rows[0]);
    const byName = await c.query(
      `SELECT ${SKILL_COLUMNS} FROM skills s WHERE s.namespace = $1 AND s.name = $2
       ORDER BY (s.superseded_by IS NULL) DESC, (s.corpus = 'internal') DESC, s.created_at DESC LIMIT 1${lock}`,
      [namespace, idOrName],
    );
    return byName.rows.length ? skillFromRow(byName.rows[0]) : null;
  }

  async writeSkill(w: SkillWrite): Promise<Skill> {
    const s = w.skill;
    const version = await this.tx(async (c) => {
      // The row being superseded is locked: of two writers superseding it, the second sees the first's mark.
      const superseded = w.supersedes
        ? (
            await c.query('SELECT superseded_by FROM skills WHERE namespace = $1 AND id = $2 FOR UPDATE', [
              s.namespace,
              w.supersedes,
            ])
          ).rows[0]
        : undefined;
      const plan = accepted(
        planSkillWrite(w, { superseded: superseded ? { supersededBy: superseded.superseded_by } : null }),
      );
      if (plan.supersede) await change(c, plan.supersede);
      await c.query(SKILL_UPSERT, skillRowValues(plan.skill, pgBool));
      if (plan.provenance.length) {
        const p = plan.provenance;
        await c.query(
          `INSERT INTO provenance (skill_id, source_kind, source_id, version, created_at)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) ON CONFLICT DO NOTHING`,
          [
            p.map((r) => r.skillId),
            p.map((r) => r.sourceKind),
            p.map((r) => r.sourceId),
            p.map((r) => r.version),
            p.map((r) => r.createdAt),
          ],
        );
      }
      if (plan.version) {
        const v = plan.version;
        await c.query(
          'INSERT INTO skill_versions (skill_id, version, skill_md, tool_sequence, reason, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING',
          [v.skillId, v.version, v.skillMd, json(v.toolSequence), v.reason, v.createdAt],
        );
      }
      if (plan.files) {
        const f = plan.files;
        await change(c, f.clear);
        for (const file of f.files) {
          await c.query(
            'INSERT INTO skill_files (skill_id, version, path, bytes, executable) VALUES ($1, $2, $3, $4, $5)',
            [f.skillId, f.version, file.path, file.bytes, file.executable ? 1 : 0],
          );
        }
      }
      if (plan.linkCluster) await change(c, plan.linkCluster);
      return this.outbox(c, plan);
    });
    this.feed.observe(version);
    return (await this.getSkill(s.namespace, s.id))!;
  }

  async setSkillEnabled(namespace: string, idOrName: string, enabled: boolean, actor: string): Promise<Skill | null> {
    const skill = await this.getSkill(namespace, idOrName);
    if (!skill) return null;
    const plan = planSetEnabled(skill, enabled, actor, new Date().toISOString());
    const version = await this.tx(async (c) => {
      await change(c, plan.update);
      return this.outbox(c, plan);
    });
    this.feed.observe(version);
    return this.getSkill(namespace, skill.id);
  }

  async touchSkills(namespace: string, ids: string[], at: string): Promise<void> {
    if (ids.length === 0) return;
    await this.query('UPDATE skills SET last_used_at = $1 WHERE namespace = $2 AND id = ANY($3::text[])', [
      at,
      namespace,
      ids,
    ]);
  }

  async provenance(skillId: string): Promise<Provenance[]> {
    const { rows } = await this.query('SELECT * FROM provenance WHERE skill_id = $1 ORDER BY created_at, source_id', [
      skillId,
    ]);
    return rows.map(provenanceFromRow);
  }

  async skillFiles(skillId: string, version: string): Promise<SkillFile[]> {
    const { rows } = await this.query(
      'SELECT path, bytes, executable FROM skill_files WHERE skill_id = $1 AND version = $2 ORDER BY path COLLATE "C"',
      [skillId, version],
    );
    return rows.map((r: { path: string; bytes: Buffer; executable: number }) => ({
      path: r.path,
      bytes: Buffer.from(r.bytes),
      ...(r.executable ? { executable: true } : {}),
    }));
  }

  async skillVersions(skillId: string): Promise<SkillVersion[]> {
    const { rows } = await this.query('SELECT * FROM skill_versions WHERE skill_id = $1 ORDER BY created_at, version', [
      skillId,
    ]);
    return rows.map(versionFromRow);
  }

  async audit(namespace: string, opts: { subjectId?: string; limit?: number } = {}): Promise<AuditRecord[]> {
    const { rows } = opts.subjectId
      ? await this.query('SELECT * FROM audit WHERE namespace = $1 AND subject_id = $2 ORDER BY id DESC LIMIT $3', [
          namespace,
          opts.subjectId,
          opts.limit ?? 100,
        ])
      : await this.query('SELECT * FROM audit WHERE namespace = $1 ORDER BY id DESC LIMIT $2', [
          namespace,
          opts.limit ?? 100,
        ]);
    return rows.map(auditFromRow);
  }

  async skillRevision(namespace: string): Promise<SkillRevision> {
    const { rows } = await this.query(REVISION_SQL, [namespace]);
    return { storeId: rows[0].store_id, revision: Number(rows[0].revision) };
  }

  async skillVectors(
    namespace: string,
    opts: { changedAfter?: number } = {},
  ): Promise<{ revision: SkillRevision; rows: SkillVectorRow[]; changedIds: string[] | null }> {
    // REPEATABLE READ: the revision and the rows come from one snapshot.
    return this.tx(async (c) => {
      await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const r = (await c.query(REVISION_SQL, [namespace])).rows[0];
      const revision = { storeId: r.store_id as string, revision: Number(r.revision) };
      // The log was pruned past `changedAfter` and this namespace changed since: every skill, as for a rebuild.
      const pruned =
        opts.changedAfter !== undefined &&
        revision.revision > opts.changedAfter &&
        opts.changedAfter < Number((await c.query('SELECT through FROM skill_changes_pruned')).rows[0].through);
      if (opts.changedAfter === undefined || pruned) {
        const { rows } = await c.query(`SELECT ${VECTOR_COLUMNS} FROM skills WHERE namespace = $1`, [namespace]);
        return { revision, rows: rows.map(vectorRowFrom), changedIds: null };
      }
      const changed = await c.query(
        'SELECT DISTINCT skill_id FROM skill_changes WHERE namespace = $1 AND revision > $2',
        [namespace, opts.changedAfter],
      );
      const changedIds = changed.rows.map((x) => x.skill_id as string);
      const { rows } = changedIds.length
        ? await c.query(`SELECT ${VECTOR_COLUMNS} FROM skills WHERE namespace = $1 AND id = ANY($2::text[])`, [
            namespace,
            changedIds,
          ])
        : { rows: [] as Row[] };
      return { revision, rows: rows.map(vectorRowFrom), changedIds };
    });
  }

  async recallSkills(namespace: string, ids: string[]): Promise<ServedSkill[]> {
    await this.recalls.flush();
    if (ids.length === 0) return [];
    const { rows } = await this.query(
      `SELECT ${SERVED_COLUMNS} FROM skills WHERE namespace = $1 AND id = ANY($2::text[])`,
      [namespace, [...new Set(ids)]],
    );
    return rows.map(servedSkillFrom);
  }

  async lastEventId(): Promise<number> {
    const { rows } = await this.query('SELECT COALESCE(MAX(id), 0) AS id FROM events');
    return rows[0].id as number;
  }

  async auditSince(afterId: number, limit: number): Promise<AuditRecord[]> {
    const { rows } = await this.query('SELECT * FROM audit WHERE id > $1 ORDER BY id LIMIT $2', [afterId, limit]);
    return rows.map(auditFromRow);
  }

  async appendEvent(
    namespace: string,
    type: string,
    skillId: string | null,
    payload: Record<string, unknown>,
    at: string,
  ): Promise<void> {
    await this.tx((c) =>
      this.outbox(c, { audit: [], events: [{ namespace, at, type, skillId, payload }], skillsChanged: false }),
    );
  }

  async appendAudit(r: AuditRecord): Promise<void> {
    await this.tx((c) => this.outbox(c, { audit: [r], events: [], skillsChanged: false }));
  }

  // ── lifecycle ─────────────────────────────────────────────────────────────

  async applyFeedback(req: FeedbackRequest): Promise<{ before: Skill; after: Skill } | null> {
    await this.recalls.flush();
    const out = await this.tx(async (c) => {
      // Lock the row first: concurrent signals on one skill apply one after the other, each to the state the
      // previous one left, and the once-per-session check below cannot be passed twice.
      const before = await this.findSkill(c, req.namespace, req.idOrName, true);
      if (!before) return null;
      const tried = feedbackNeedsTrialCheck(req)
        ? !!(
            await c.query(
              `SELECT 1 FROM feedback WHERE skill_id = $1 AND session_id = $2 AND signal = ANY($3::text[]) LIMIT 1`,
              [before.id, req.sessionId, TRIAL_SIGNALS],
            )
          ).rowCount
        : false;
      const plan = planFeedback(req, before, { sessionAlreadyTried: tried });
      if (!plan) return null;
      await change(c, plan.update);
      await c.query(FEEDBACK_INSERT, feedbackInsertValues(plan.feedback));
      const version = await this.outbox(c, plan);
      return { before, after: plan.after, version };
    });
    if (!out) return null;
    this.feed.observe(out.version);
    return { before: out.before, after: out.after };
  }

  async feedbackHistory(skillId: string): Promise<FeedbackRecord[]> {
    const { rows } = await this.query('SELECT * FROM feedback WHERE skill_id = $1 ORDER BY id', [skillId]);
    return rows.map(feedbackFromRow);
  }

  /**
   * Queued and written behind the caller (each recall in one transaction, in order): recall answers from its
   * in-memory index without waiting on the database, also while the database restarts. Reads that show what
   * recalls recorded (`skillsServedForSession`, `getSkill`, `listSkills`) write the queue out first.
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
    this.recalls.push({
      namespace,
      sessionId: recall.sessionId,
      goal: recall.goal.slice(0, 2000),
      at: recall.at,
      items: recall.items.map((i) => ({ ...i })),
    });
  }

  private async writeRecalls(batch: RecallRecord[]): Promise<void> {
    await this.tx(async (c) => {
      for (const r of batch) {
        const { rows } = await c.query(
          'INSERT INTO recalls (namespace, session_id, goal, at) VALUES ($1, $2, $3, $4) RETURNING id',
          [r.namespace, r.sessionId, r.goal, r.at],
        );
        if (r.items.length === 0) continue;
        await c.query(
          `INSERT INTO recall_items (recall_id, skill_id, rank, similarity) SELECT $1::bigint, s, k, m FROM unnest($2::text[], $3::int[], $4::float8[]) AS u(s, k, m)
           ON CONFLICT DO NOTHING`,
          [rows[0].id, r.items.map((i) => i.skillId), r.items.map((i) => i.rank), r.items.map((i) => i.similarity)],
        );
        await c.query('UPDATE skills SET last_used_at = $1 WHERE namespace = $2 AND id = ANY($3::text[])', [
          r.at,
          r.namespace,
          r.items.map((i) => i.skillId),
        ]);
      }
    });
  }

  /** Recall records still waiting for the database (they are written as soon as it answers). */
  get pendingRecalls(): number {
    return this.recalls.pending;
  }

  async skillsServedForSession(namespace: string, sessionId: string): Promise<string[]> {
    await this.recalls.flush();
    const { rows } = await this.query(
      `SELECT DISTINCT i.skill_id FROM recalls r JOIN recall_items i ON i.recall_id = r.id
       WHERE r.namespace = $1 AND r.session_id = $2 ORDER BY i.skill_id`,
      [namespace, sessionId],
    );
    return rows.map((r) => r.skill_id as string);
  }

  async getFacts(namespace: string, ids: string[]): Promise<Fact[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.query('SELECT * FROM facts WHERE namespace = $1 AND id = ANY($2::text[])', [
      namespace,
      ids,
    ]);
    const byId = new Map(rows.map((r) => [r.id as string, factFromRow(r)]));
    return ids.map((id) => byId.get(id)).filter((f): f is Fact => !!f);
  }

  // ── forgetting ────────────────────────────────────────────────────────────

  async forgetSession(
    namespace: string,
    sessionId: string,
    opts: ForgetSessionOptions,
  ): Promise<ForgottenSession | null> {
    // A recall still queued for this session must not be written after it is forgotten.
    await this.recalls.flush();
    const out = await this.tx(async (c) => {
      const gone = await c.query('DELETE FROM sessions WHERE namespace = $1 AND id = $2 RETURNING id', [
        namespace,
        sessionId,
      ]);
      if (gone.rowCount === 0) return null;
      const calls =
        (await c.query('DELETE FROM tool_calls WHERE namespace = $1 AND session_id = $2', [namespace, sessionId]))
          .rowCount ?? 0;
      const member = await c.query(
        'DELETE FROM cluster_members WHERE namespace = $1 AND session_id = $2 RETURNING cluster_id',
        [namespace, sessionId],
      );
      const clusterId = (member.rows[0]?.cluster_id as string | undefined) ?? null;
      if (clusterId) {
        await c.query('UPDATE clusters SET size = GREATEST(size - 1, 0) WHERE namespace = $1 AND id = $2', [
          namespace,
          clusterId,
        ]);
        for (const st of opts.stateIfClustered ?? []) {
          await c.query(
            'INSERT INTO state (namespace, key, value) VALUES ($1, $2, $3) ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value',
            [namespace, st.key, st.value],
          );
        }
      }
      await c.query(
        'DELETE FROM recall_items WHERE recall_id IN (SELECT id FROM recalls WHERE namespace = $1 AND session_id = $2)',
        [namespace, sessionId],
      );
      await c.query('DELETE FROM recalls WHERE namespace = $1 AND session_id = $2', [namespace, sessionId]);
      await c.query('UPDATE feedback SET session_id = NULL WHERE namespace = $1 AND session_id = $2', [
        namespace,
        sessionId,
      ]);
      // Feedback audit records named the session by id: they keep its opaque reference instead.
      await c.query(
        `UPDATE audit SET detail = (detail::jsonb || jsonb_build_object('session', $1::text))::text WHERE namespace = $2 AND detail::jsonb ->> 'session' = $3`,
        [sessionRef(sessionId), namespace, sessionId],
      );
      const hashes = opts.embeddingHashes ?? [];
      if (hashes.length) {
        await c.query(
          'DELETE FROM embedding_cache e USING unnest($1::text[], $2::text[]) AS u(m, h) WHERE e.embedder_id = u.m AND e.text_hash = u.h',
          [hashes.map((e) => e.embedderId), hashes.map((e) => e.hash)],
        );
      }
      // Lineage stays honest: the skill keeps a marker that one of its parents was forgotten, not which.
      const parents = (
        await c.query(
          `SELECT p.skill_id, s.name FROM provenance p JOIN skills s ON s.id = p.skill_id
           WHERE s.namespace = $1 AND p.source_kind = 'episodic' AND p.source_id = $2 ORDER BY p.skill_id`,
          [namespace, sessionId],
        )
      ).rows;
      for (const p of parents) {
        await c.query(
          `UPDATE provenance SET source_id = $1 WHERE skill_id = $2 AND source_kind = 'episodic' AND source_id = $3`,
          [`${FORGOTTEN_PARENT}${randomUUID()}`, p.skill_id, sessionId],
        );
      }
      const found = {
        calls,
        clusterId,
        parents: parents.map((p) => ({ skillId: p.skill_id as string, name: p.name as string })),
      };
      const plan = planForgetSession(namespace, sessionRef(sessionId), found, opts);
      return { result: plan.result, version: await this.outbox(c, plan) };
    });
    if (!out) return null;
    this.feed.observe(out.version);
    return out.result;
  }

  async forgetSkill(
    namespace: string,
    idOrName: string,
    opts: ForgetOptions,
  ): Promise<{ id: string; name: string } | null> {
    await this.recalls.flush();
    const out = await this.tx(async (c) => {
      const skill = await this.findSkill(c, namespace, idOrName, true);
      if (!skill) return null;
      const plan = planForgetSkill(skill, opts);
      for (const ch of plan.changes) await change(c, ch);
      const version = await this.outbox(c, plan);
      return { skill: { id: skill.id, name: skill.name }, version };
    });
    if (!out) return null;
    this.feed.observe(out.version);
    return out.skill;
  }

  async events(namespace: string, opts: { afterId?: number; limit?: number } = {}): Promise<SkillEvent[]> {
    const { rows } = await this.query('SELECT * FROM events WHERE namespace = $1 AND id > $2 ORDER BY id LIMIT $3', [
      namespace,
      opts.afterId ?? 0,
      opts.limit ?? 1000,
    ]);
    return rows.map(eventFromRow);
  }
}

/** A skill row read with `SKILL_COLUMNS_SQL` (its live episodic parents aggregated alongside). */
function skillFromRow(r: Row): Skill {
  return skillFromStoredRow(r, r.source_sessions ?? []);
}
