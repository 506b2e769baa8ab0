import pg from 'pg';
import type { Session, ToolCall } from '../../domain/types.js';
import { BackendUnavailableError, ConfigError, ReadOnlyMemoryError, SessionStateError } from '../../errors/index.js';
import { createLogger, type Logger } from '../../support/log.js';
import { shownLocation } from '../../config/default-db.js';
import { newestVersion, refuseNewerSchema, upgradedFrom } from '../schema-version.js';
import { callRowValues, json, sessionRowValues, SESSION_COLUMNS, CALL_COLUMNS } from '../rows.js';
import { pgDialect } from '../sql/dialect.js';
import { CALL_TYPES, sqlPlan, type Query, type QueryResult, type Script } from '../sql/plan.js';
import { endedReason, type RecallRecord, SqlStore, type Written } from '../sql/sql-store.js';
import type { HeldLock, ServedSkill, Store } from '../store.js';
import type { Outbox } from '../write-plan.js';
import { ChangeFeed } from './change-feed.js';
import { type MemoryScope, memoryScope } from './scope.js';
import { connectionLossText, isConnectionError, NO_SCHEMA, openHint, URL_FORM } from './connection-error.js';
import { type PgConnectionSettings, pgConnectionSettings } from './connection-settings.js';
import { foreignTables, foreignTablesError } from './foreign-tables.js';
import { PgClient } from './pg-client.js';
import { latestPgSchemaVersion, pgMigrations } from './migrations.js';
import { WriteBehindQueue } from './write-behind.js';

const plan = sqlPlan(pgDialect);

/** A connection in a transaction, or the store's own retrying autocommit path. */
type Db = { query(text: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult> };

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
 * Opens (creating and migrating as needed) a PostgreSQL memory: `postgres://user:pass@host:5432/db`, its SSL
 * parameters read as libpq reads them (connection-settings.ts). Waits for the migrations and the change listener;
 * throws with the server's reason when it cannot connect, and a ConfigError for SSL settings that cannot be used or
 * a schema whose tables of another program carry Skillsmith's names (foreign-tables.ts; nothing is written then).
 */
export async function openPgStore(url: string, opts: PgStoreOptions = {}): Promise<PgStore> {
  const log = opts.log ?? createLogger('warn', 'skillsmith.store.postgres');
  const settings = pgConnectionSettings(url);
  let config: pg.ClientConfig;
  try {
    config = await settledConfig(url, settings, {
      application_name: opts.applicationName ?? 'skillsmith',
      types,
      keepAlive: true,
      connectionTimeoutMillis: 10_000,
    });
  } catch (e) {
    throw BackendUnavailableError.isInstance(e) ? e : cannotOpen(url, settings, e);
  }
  const pool = readUrl(
    url,
    () => new pg.Pool({ ...config, Client: PgClient, max: opts.poolSize ?? 10, idleTimeoutMillis: 30_000 }),
  );
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
  let versions: { from: number; to: number };
  try {
    const { schema, tables } = await foreignTables(pool);
    if (tables.length) throw foreignTablesError(shownLocation(url), schema, tables);
    versions = await migratePg(pool);
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw ConfigError.isInstance(e) ? e : cannotOpen(url, settings, e);
  }
  let store: PgStore;
  try {
    // The schema the tables are in (search_path) names what this memory's processes meet by (scope.ts). A user
    // granted SELECT only (a recall-only agent, a dashboard, a backup): reads work, writes are refused.
    const [row] = (
      await pool.query(
        `SELECT current_schema() AS schema, has_table_privilege(to_regclass('sessions'), 'INSERT') AS write`,
      )
    ).rows;
    store = new PgStore(pool, shownLocation(url), config, log, { ...opts, scope: memoryScope(row.schema) });
    store.readOnly = row.write === false;
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw new BackendUnavailableError(
      `cannot open PostgreSQL memory at ${shownLocation(url)}: ${(e as Error).message}`,
      {
        cause: e,
      },
    );
  }
  store.upgradedFrom = upgradedFrom(versions.from, versions.to);
  try {
    await store.start();
  } catch (e) {
    await store.close();
    throw new BackendUnavailableError(`cannot listen for changes on ${shownLocation(url)}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  return store;
}

/** Why the memory at `url` cannot be opened: the server's reason, and what to do about it when there is more to say. */
function cannotOpen(url: string, settings: PgConnectionSettings, e: unknown): BackendUnavailableError {
  const hint = openHint(e, { ...urlParts(url), sslmode: settings.sslmode, sslrootcert: settings.sslrootcert });
  return new BackendUnavailableError(
    `cannot open PostgreSQL memory at ${shownLocation(url)}: ${(e as Error).message}${hint ? ` (${hint})` : ''}`,
    { cause: e },
  );
}

/** pg's error when it asked the server for SSL and the server has SSL off. */
const SSL_OFF = 'The server does not support SSL connections';

/**
 * A connected client for `settings`, and the configuration it connected with: the TLS settings tried in turn
 * (sslmode allow and prefer have two), the next one when the server refuses the one before (SSL off, or a login
 * refused: SQLSTATE class 28, as pg_hba.conf's hostssl and hostnossl lines do), as libpq does. The last attempt's
 * error is thrown.
 */
async function connectFirst(
  url: string,
  settings: PgConnectionSettings,
  base: pg.ClientConfig,
): Promise<{ client: pg.Client; config: pg.ClientConfig }> {
  for (let i = 0; ; i++) {
    const ssl = settings.attempts[i];
    const config: pg.ClientConfig = {
      ...base,
      connectionString: settings.connectionString,
      ...(ssl === undefined ? {} : { ssl }),
    };
    const client = readUrl(url, () => new PgClient(config));
    client.on('error', () => undefined);
    try {
      await client.connect();
      return { client, config };
    } catch (e) {
      await client.end().catch(() => undefined);
      const refused = (e as Error)?.message === SSL_OFF || String(errorCode(e)).startsWith('28');
      if (i + 1 >= settings.attempts.length || !refused) throw e;
    }
  }
}

/**
 * The configuration every connection to the memory uses. Its TLS setting is settled once, by connecting, only when
 * the sslmode has two to try (allow, prefer): the server's answer then holds for the life of the store.
 */
async function settledConfig(
  url: string,
  settings: PgConnectionSettings,
  base: pg.ClientConfig,
): Promise<pg.ClientConfig> {
  if (settings.attempts.length === 1) {
    const ssl = settings.attempts[0];
    return { ...base, connectionString: settings.connectionString, ...(ssl === undefined ? {} : { ssl }) };
  }
  const { client, config } = await connectFirst(url, settings, base);
  await client.end().catch(() => undefined);
  return config;
}

/**
 * Makes a client or pool from a URL, saying which URL (password hidden) and what to do when the driver cannot read
 * it: a password with `@`, `/`, `#`, `?` or a space must be percent-encoded (the driver says only "Invalid URL").
 */
function readUrl<T>(url: string, make: () => T): T {
  try {
    return make();
  } catch (e) {
    throw new BackendUnavailableError(
      `cannot read the PostgreSQL URL ${shownLocation(url)} (${(e as Error).message}): ${URL_FORM}`,
      { cause: e },
    );
  }
}

/** Host, port and database a URL names (libpq's defaults where it names none), for a hint. */
function urlParts(url: string): { host: string; port: string; database: string } {
  try {
    const u = new URL(url.trim());
    return {
      host: u.hostname || 'localhost',
      port: u.port || '5432',
      database: decodeURIComponent(u.pathname.replace(/^\//, '')) || 'NAME',
    };
  } catch {
    return { host: 'the host', port: 'its port', database: 'NAME' };
  }
}

/**
 * One question to the server at `url` on a connection of its own, creating nothing: `ask` reads the answer, `failed`
 * says what a connection or query error means for the caller.
 */
async function probe<T>(url: string, ask: (c: pg.Client) => Promise<T>, failed: (e: unknown) => T): Promise<T> {
  const settings = pgConnectionSettings(url);
  let client: pg.Client;
  try {
    client = (await connectFirst(url, settings, { application_name: 'skillsmith', connectionTimeoutMillis: 10_000 }))
      .client;
  } catch (e) {
    if (BackendUnavailableError.isInstance(e)) throw e;
    return failed(e);
  }
  try {
    return await ask(client);
  } catch (e) {
    return failed(e);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const errorCode = (e: unknown) => (e as { code?: unknown }).code;

/**
 * Whether the database at `url` holds a Skillsmith memory (its schema table): a command that only reads answers an
 * empty (or missing) database as an empty memory and leaves it as it was. A server that cannot be reached answers
 * true, so that opening the memory says why; so does a schema with another program's tables under Skillsmith's
 * names (`pgForeignTables`), which opening refuses.
 */
export function pgHoldsMemory(url: string): Promise<boolean> {
  return probe(
    url,
    async (c) =>
      (await c.query(`SELECT to_regclass('schema_migrations') IS NOT NULL AS held`)).rows[0]?.held === true ||
      (await foreignTables(c)).tables.length > 0,
    // A database that does not exist holds no memory either.
    (e) => errorCode(e) !== '3D000',
  );
}

/**
 * The schema version of the memory at `url` (its newest applied migration), without changing anything: null when
 * the database holds no memory (or does not exist). A server that cannot be reached, or a question it cannot answer,
 * answers the latest version, so that opening the memory says why.
 */
export function pgSchemaVersion(url: string): Promise<number | null> {
  return probe<number | null>(
    url,
    async (c) => {
      const [held] = (await c.query(`SELECT to_regclass('schema_migrations') IS NOT NULL AS held`)).rows;
      if (held?.held !== true) return null;
      const [row] = (await c.query('SELECT MAX(version) AS v FROM schema_migrations')).rows;
      return row?.v === null || row?.v === undefined ? null : Number(row.v);
    },
    (e) => (errorCode(e) === '3D000' ? null : latestPgSchemaVersion),
  );
}

/**
 * Why opening the memory at `url` would refuse it, found without changing anything: the error for a schema whose tables
 * of another program carry Skillsmith's names, else null (also when the server cannot say: opening it says why).
 */
export function pgForeignTables(url: string): Promise<ConfigError | null> {
  return probe<ConfigError | null>(
    url,
    async (c) => {
      const { schema, tables } = await foreignTables(c);
      return tables.length ? foreignTablesError(shownLocation(url), schema, tables) : null;
    },
    () => null,
  );
}

/** Whether this user may create a memory at `url` (CREATE on its schema); null when the server cannot say, with why. */
export function pgCanCreate(url: string): Promise<{ can: boolean | null; why?: string }> {
  return probe<{ can: boolean | null; why?: string }>(
    url,
    async (c) => {
      const [row] = (
        await c.query(`SELECT current_schema() AS schema, has_schema_privilege(current_schema(), 'CREATE') AS can`)
      ).rows;
      if (row && row.schema === null) return { can: false, why: NO_SCHEMA };
      return row?.can ? { can: true } : { can: false, why: `no CREATE on schema ${row?.schema ?? 'public'}` };
    },
    (e) =>
      errorCode(e) === '3D000'
        ? { can: false, why: 'the database does not exist (createdb it first)' }
        : { can: null, why: (e as Error).message },
  );
}

/**
 * Applies the migrations the database has not seen yet, each in its own transaction. Many processes may
 * open a fresh database at once: an advisory lock lets one of them migrate while the others wait. Says the
 * version the database was at before (0: a new one) and the one it is at now.
 */
export async function migratePg(pool: pg.Pool, upTo = latestPgSchemaVersion): Promise<{ from: number; to: number }> {
  const client = await pool.connect();
  try {
    // A schema already current is only read: a user that may only read (SELECT) opens it too, and nothing waits
    // on the migration lock.
    const [held] = (await client.query(`SELECT to_regclass('schema_migrations') IS NOT NULL AS held`)).rows;
    if (held?.held) {
      const applied = new Set(
        (await client.query('SELECT version FROM schema_migrations')).rows.map((r) => r.version as number),
      );
      refuseNewerSchema(applied, latestPgSchemaVersion);
      if (pgMigrations.every((m) => m.version > upTo || applied.has(m.version))) {
        const at = newestVersion(applied);
        return { from: at, to: at };
      }
    }
    await client.query(`SELECT pg_advisory_lock(hashtextextended('skillsmith:migrate', 0))`);
    try {
      await client.query(
        `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
      );
      const applied = new Set(
        (await client.query('SELECT version FROM schema_migrations')).rows.map((r) => r.version as number),
      );
      refuseNewerSchema(applied, latestPgSchemaVersion);
      const from = newestVersion(applied);
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
          throw new BackendUnavailableError(
            `PostgreSQL migration ${m.version} (${m.name}) failed and was rolled back: ${(e as Error).message}`,
            { cause: e },
          );
        }
      }
      const { rows } = await client.query('SELECT MAX(version) AS v FROM schema_migrations');
      return { from, to: (rows[0].v as number) ?? 0 };
    } finally {
      await client.query(`SELECT pg_advisory_unlock(hashtextextended('skillsmith:migrate', 0))`).catch(() => undefined);
    }
  } finally {
    client.release();
  }
}

/** One statement, so one implicit transaction: the namespace's session lock is held until it commits. */
const BEGIN_SESSION_SQL = `WITH l AS (SELECT pg_advisory_xact_lock(hashtextextended('skillsmith:sessions:' || $1::text, 0)))
  INSERT INTO sessions (${SESSION_COLUMNS.join(', ')})
  SELECT ${SESSION_COLUMNS.map((c, i) => `$${i + 1}::${c === 'reward' ? 'float8' : 'text'}`).join(', ')} FROM l
  ON CONFLICT (namespace, id) DO NOTHING`;

const APPEND_CALL_SQL = `INSERT INTO tool_calls (${CALL_COLUMNS.join(', ')})
  SELECT ${CALL_TYPES.map((t, i) => `$${i + 1}::${t}`).join(', ')}
  WHERE EXISTS (SELECT 1 FROM sessions WHERE namespace = $1 AND id = $2 AND ended_at IS NULL)
  ON CONFLICT DO NOTHING`;

/**
 * The PostgreSQL back end: the same tables and semantics as the SQLite store, made safe for many processes
 * on many hosts. Sessions of a namespace are numbered in commit order (the synthesis watermark never skips
 * one), events and audit records likewise (a listener reading "after id N" misses nothing), the pass lock
 * is a session-level advisory lock (released by the server when its holder dies), and the change token is
 * local: LISTEN/NOTIFY keeps it current, so recall never waits on a round trip.
 */
export class PgStore extends SqlStore implements Store {
  readonly kind = 'postgres';
  /** The schema version this open upgraded the database from (null: new, current, or another process did it). */
  upgradedFrom: number | null = null;
  /** The user may read and not write this memory (granted SELECT only): writes are refused, recalls not recorded. */
  readOnly = false;
  private readonly feed: ChangeFeed;
  private readonly recalls: WriteBehindQueue<RecallRecord>;
  /** The channel and lock names of this memory's processes (its schema's). */
  private readonly scope: MemoryScope;
  private closed = false;

  constructor(
    readonly pool: pg.Pool,
    readonly location: string,
    private readonly clientConfig: pg.ClientConfig,
    private readonly log: Logger,
    opts: PgStoreOptions & { scope?: MemoryScope } = {},
  ) {
    super(plan);
    this.scope = opts.scope ?? memoryScope('public');
    this.feed = new ChangeFeed(
      () => new PgClient(this.clientConfig),
      async () => Number((await this.query(plan.changeCounter)).rows[0].value),
      log.child('changes'),
      { pollMs: opts.pollMs ?? 5_000, channel: this.scope.channel },
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

  // ── running the plan ──────────────────────────────────────────────────────

  /** Runs a script's statements one after the other on a connection (or the retrying autocommit path). */
  private async run<T>(c: Db, script: Script<T>): Promise<T> {
    let step = script.next();
    while (!step.done) step = script.next(await exec(c, step.value));
    return step.value;
  }

  protected read<T>(script: () => Script<T>): Promise<T> {
    return this.run({ query: (text, values) => this.query(text, values) }, script());
  }

  /** A write by a user that may only read: said with what to do, not the server's "permission denied". */
  private refuseWrite(): void {
    if (this.readOnly)
      throw new ReadOnlyMemoryError(
        `the PostgreSQL memory at ${this.location} is open read-only (this user may not write its tables), and this writes to it; use a user granted INSERT, UPDATE and DELETE on them`,
      );
  }

  protected async write<T>(script: () => Script<Written<T>>): Promise<T> {
    this.refuseWrite();
    let version: number | null = null;
    const result = await this.tx(async (c) => {
      const written = await this.run(c, script());
      version = written.outbox ? await this.outbox(c, written.outbox) : null;
      return written.result;
    });
    if (version !== null) this.feed.observe(version);
    return result;
  }

  protected snapshot<T>(script: () => Script<T>): Promise<T> {
    // REPEATABLE READ: every statement of the script reads the same snapshot.
    return this.tx(async (c) => {
      await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      return this.run(c, script());
    });
  }

  protected settleRecalls(): Promise<void> {
    return this.recalls.flush();
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
       n AS (SELECT pg_notify($14, v.value::text) FROM v WHERE $1 > 0),
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
        this.scope.channel,
      ],
    );
    return Number(rows[0].value);
  }

  // ── capture ────────────────────────────────────────────────────────────────

  async beginSession(session: Omit<Session, 'calls' | 'seq'>): Promise<void> {
    this.refuseWrite();
    // One statement, so one implicit transaction: the lock is held until it commits.
    await this.query({
      name: 'skillsmith.beginSession',
      text: BEGIN_SESSION_SQL,
      values: sessionRowValues(session),
    });
  }

  async appendCall(namespace: string, sessionId: string, call: ToolCall): Promise<boolean> {
    this.refuseWrite();
    const res = await this.query({
      name: 'skillsmith.appendCall',
      text: APPEND_CALL_SQL,
      values: callRowValues(namespace, sessionId, call, pgDialect.bool),
    });
    if (res.rowCount === 0) {
      const known = await this.query(plan.sessionById, [namespace, sessionId]);
      if (known.rowCount === 0)
        throw new SessionStateError(
          `session ${sessionId} is not open in namespace ${namespace}: call beginSession first`,
        );
      if (known.rows[0].ended_at) throw new SessionStateError(endedReason(sessionId, known.rows[0].outcome));
      return false;
    }
    return true;
  }

  // ── the pass lock ─────────────────────────────────────────────────────────

  /**
   * A session-level advisory lock on a connection of its own, kept for the whole pass: exclusive across every
   * process and host of the database, and released by the server the moment its holder's connection dies
   * (a killed process, a lost host), so no expiry is needed: `ttlMs` only dates the `locks` row, which tells
   * people who holds the lock and since when.
   */
  async tryLock(name: string, holder: string, ttlMs: number): Promise<HeldLock | null> {
    this.refuseWrite();
    const client = new PgClient(this.clientConfig);
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
    const key = `${this.scope.lockPrefix}${name}`;
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
    // The advisory lock does not expire: held while its connection lives. Renewing dates the row again.
    const renew = async () => {
      if (released || lost) return false;
      try {
        await client.query('UPDATE locks SET expires_at = $1 WHERE name = $2 AND holder = $3', [
          Date.now() + ttlMs,
          name,
          holder,
        ]);
        return !lost;
      } catch {
        return false;
      }
    };
    const release = async () => {
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
    return Object.assign(release, { renew });
  }

  // ── recall records ────────────────────────────────────────────────────────

  override async recallSkills(namespace: string, ids: string[]): Promise<ServedSkill[]> {
    await this.recalls.flush();
    return super.recallSkills(namespace, ids);
  }

  /**
   * Queued and written behind the caller (each recall in one transaction, in order): recall answers from its
   * in-memory index without waiting on the database, also while the database restarts. Reads that show what
   * recalls recorded (`skillsServedForSession`, `getSkill`, `listSkills`) write the queue out first.
   */
  async recordRecall(namespace: string, recall: Omit<RecallRecord, 'namespace'>): Promise<void> {
    // A user that may only read gets its recalls served and not recorded (nor a trial for their session).
    if (this.readOnly) return;
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
        const { rows } = await c.query(plan.insertRecall, [r.namespace, r.sessionId, r.goal, r.at]);
        if (r.items.length === 0) continue;
        const items = r.items.map((i) => [rows[0].id, i.skillId, i.rank, i.similarity]);
        for (const q of plan.insertRecallItems(items)) await exec(c, q);
        const skillIds = r.items.map((i) => i.skillId);
        await exec(c, { sql: plan.touchSkillsIn(skillIds.length), params: [r.at, r.namespace, skillIds] });
      }
    });
  }

  /** Recall records still waiting for the database (they are written as soon as it answers). */
  get pendingRecalls(): number {
    return this.recalls.pending;
  }
}

/** One statement of the plan on a connection, as the plan reads its result. */
async function exec(c: Db, q: Query): Promise<QueryResult> {
  const r = await c.query(q.name ? { name: q.name, text: q.sql, values: q.params } : q.sql, q.params);
  return { rows: r.rows, changes: r.rowCount ?? 0 };
}
