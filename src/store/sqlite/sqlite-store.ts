import { newestVersion, refuseNewerSchema, upgradedFrom } from '../schema-version.js';
import type Database from 'better-sqlite3';
import { mkdirSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import type { SessionOutline, Session, ToolCall } from '../../domain/types.js';
import { BackendUnavailableError } from '../../errors/backend-unavailable-error.js';
import { ConfigError } from '../../errors/config-error.js';
import { ReadOnlyMemoryError } from '../../errors/read-only-memory-error.js';
import { SessionStateError } from '../../errors/session-state-error.js';
import type { Logger } from '../../support/log.js';
import { callRowValues, json, outlinesFromRows, sessionRowValues, type Row } from '../rows.js';
import { sqliteDialect } from '../sql/dialect.js';
import { sqlPlan, type Query, type QueryResult, type Script } from '../sql/plan.js';
import { endedReason, type RecallRecord, SqlStore, type Written } from '../sql/sql-store.js';
import type { HeldLock, Store } from '../store.js';
import type { Outbox } from '../write-plan.js';
import { fileName, newDatabase } from './database.js';
import { foreignDatabaseError, foreignTables, refuseForeignDatabase } from './foreign-database.js';
import { latestSchemaVersion, migrations } from './migrations.js';
import { cannotWrite, ReadOnlyFile } from './read-only.js';

const plan = sqlPlan(sqliteDialect);

/** Reads of a file read in place as immutable made again when another process wrote it meanwhile, at most. */
const READ_ATTEMPTS = 5;

/** How long recall records wait to be written together (milliseconds). */
const RECALL_FLUSH_MS = 20;

/** Page size of a new database file (bytes). */
const PAGE_SIZE = 32_768;
/** How much write-ahead log builds up before it is copied into the database (bytes). */
const WAL_CHECKPOINT_BYTES = 32 * 1024 * 1024;

/**
 * Opens (creating and migrating as needed) a SQLite memory file. `:memory:` works for throwaway use. A path that
 * cannot be a memory (a folder, a file of another kind) is a BackendUnavailableError naming it and why; SQLite
 * alone says "unable to open database file". A SQLite database of another program (an application's, given by
 * mistake) is a ConfigError naming it and its tables, and is left as it was (foreign-database.ts). A file this
 * account may only read is opened read-only (read-only.ts); `log` hears how.
 */
export function openSqliteStore(path: string, opts: { log?: Logger } = {}): SqliteStore {
  if (path !== ':memory:' && cannotWrite(path)) return openReadOnlyStore(path, opts.log);
  let db: Database.Database | null = null;
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    db = newDatabase(fileName(path));
    // Before anything that writes: WAL mode alone rewrites the file's header.
    db.pragma('busy_timeout = 5000');
    if (path !== ':memory:') refuseForeignDatabase(db, path);
    prepareDatabase(db);
    const { from, to } = upgrade(db);
    const store = new SqliteStore(db, path);
    store.upgradedFrom = upgradedFrom(from, to);
    return store;
  } catch (e) {
    if (db?.open) db.close();
    if (ConfigError.isInstance(e)) throw e;
    throw new BackendUnavailableError(`cannot open SQLite memory at ${path}: ${whyNot(path, e as Error)}`, {
      cause: e,
    });
  }
}

/**
 * A memory file this account may only read, opened read-only: where it lies when SQLite can read it there as a
 * writer committed it, else from a copy in memory (read-only.ts). Recall, listing and export work; a command that
 * writes is refused, naming the file. A file whose schema is not this release's is refused: it cannot be upgraded.
 */
function openReadOnlyStore(path: string, log?: Logger): SqliteStore {
  let file: ReadOnlyFile | null = null;
  try {
    file = new ReadOnlyFile(path, log);
    refuseForeignDatabase(file.db, path);
    const store = new SqliteStore(file.db, path, { readOnly: true, file });
    const applied = store.appliedVersions();
    refuseNewerSchema(applied, latestSchemaVersion);
    const version = newestVersion(applied);
    if (version < latestSchemaVersion)
      throw new BackendUnavailableError(
        `cannot open SQLite memory at ${path}: this account may not write it or its folder, and its schema (version ${version}) needs upgrading to version ${latestSchemaVersion}; open it once where it can be written`,
      );
    return store;
  } catch (e) {
    file?.close();
    if (e instanceof BackendUnavailableError && e.message.startsWith('cannot open')) throw e;
    if (ConfigError.isInstance(e)) throw e;
    throw new BackendUnavailableError(
      `cannot open SQLite memory at ${path} (read-only: this account may not write it or its folder): ${whyNot(path, e as Error)}`,
      { cause: e },
    );
  }
}

/** Why a path did not open as a SQLite memory, in words (SQLite's own message when nothing plainer fits). */
function whyNot(path: string, e: Error): string {
  const code = (e as { code?: string }).code;
  if (code === 'SQLITE_NOTADB') return 'the file is not a SQLite database';
  try {
    if (statSync(path).isDirectory()) return 'it is a directory (give a file path, e.g. --db ./skillsmith.db)';
  } catch {
    // not there: SQLite's message (or mkdir's) says what went wrong
  }
  if (code === 'SQLITE_READONLY' || code === 'EACCES' || code === 'SQLITE_CANTOPEN')
    return `${e.message} (check that this account may write the file and its folder)`;
  return e.message;
}

/**
 * Opens an existing SQLite memory file whose schema is already the latest, without creating or migrating
 * anything: the short start of a process that only recalls. Null when the file is missing or needs
 * migrating (the caller then opens it with `openSqliteStore`). A file this account may only read is opened
 * read-only, as `openSqliteStore` opens it.
 */
export function openCurrentSqliteStore(
  path: string,
  opts: {
    /** How long a write waits for another process's write lock (default 5 s, as every open). */
    busyTimeoutMs?: number;
    /** Hears how a file this account may only read was opened. */
    log?: Logger;
  } = {},
): SqliteStore | null {
  if (cannotWrite(path)) {
    try {
      return openReadOnlyStore(path, opts.log);
    } catch {
      // The full open says why.
      return null;
    }
  }
  let db: Database.Database;
  try {
    db = newDatabase(fileName(path), { fileMustExist: true });
  } catch {
    return null;
  }
  try {
    // Another program's database (or an empty file) is left to the full open, which refuses (or creates) it: asked
    // before `configure`, whose WAL mode would rewrite the file's header.
    if (foreignTables(db) || !hasSchemaTable(db)) {
      db.close();
      return null;
    }
    configure(db);
    if (opts.busyTimeoutMs !== undefined) db.pragma(`busy_timeout = ${Math.max(0, Math.round(opts.busyTimeoutMs))}`);
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

/**
 * The schema version of the SQLite memory at `path` (its newest applied migration), read without changing anything:
 * null when the file cannot be read that way or holds no memory (opening it then says why).
 */
export function sqliteSchemaVersion(path: string): number | null {
  return readUnchanged(path, (db) => {
    if (foreignTables(db)) return null;
    const v = (db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as Row).v;
    return typeof v === 'number' ? v : null;
  });
}

/**
 * Why opening the SQLite file at `path` would refuse it, found without changing anything: the error for a database of
 * another program (foreign-database.ts), else null (also when the file cannot be read: opening it says why).
 */
export function sqliteForeignDatabase(path: string, instead?: string): ConfigError | null {
  return readUnchanged(path, (db) => {
    const tables = foreignTables(db);
    return tables ? foreignDatabaseError(path, tables, instead) : null;
  });
}

/**
 * What `read` finds in the SQLite file at `path`, changing nothing: null when the file cannot be opened or read.
 * A file this account may only read is read as it may be, creating nothing beside it. Otherwise opened for writing,
 * and nothing written: its last close removes the -wal and -shm files a read-only one leaves.
 */
function readUnchanged<T>(path: string, read: (db: Database.Database) => T | null): T | null {
  let db: Database.Database;
  try {
    db = cannotWrite(path) ? new ReadOnlyFile(path).db : newDatabase(fileName(path), { fileMustExist: true });
  } catch {
    return null;
  }
  try {
    db.pragma('busy_timeout = 5000');
    return read(db);
  } catch {
    return null;
  } finally {
    db.close();
  }
}

/**
 * Copies the SQLite memory at `path` to `copyPath` from one consistent snapshot (`VACUUM INTO`: what its write-ahead
 * log holds included, while other processes keep writing), then opens the copy, upgrading it to this version's
 * schema. The file at `path` is only read: an earlier release's memory stays as that release wrote it.
 */
export function openUpgradedCopy(path: string, copyPath: string): SqliteStore {
  let db: Database.Database | null = null;
  try {
    const file = cannotWrite(path) ? new ReadOnlyFile(path) : null;
    db = file ? file.db : newDatabase(fileName(path), { fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    refuseForeignDatabase(db, path);
    refuseNewerSchema(
      (db.prepare('SELECT version FROM schema_migrations').all() as Row[]).map((r) => r.version as number),
      latestSchemaVersion,
    );
    db.prepare('VACUUM INTO ?').run(copyPath);
    if (file && !file.unchanged())
      throw new BackendUnavailableError('another process wrote it while it was copied; run the command again');
  } catch (e) {
    if (ConfigError.isInstance(e)) throw e;
    throw new BackendUnavailableError(`cannot open SQLite memory at ${path}: ${whyNot(path, e as Error)}`, {
      cause: e,
    });
  } finally {
    if (db?.open) db.close();
  }
  return openSqliteStore(copyPath);
}

/** Whether the database has a schema table (an empty file has none yet). */
function hasSchemaTable(db: Database.Database): boolean {
  return (
    db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).get() !== undefined
  );
}

/** The settings of a memory's connection, a new file's page size first. */
function prepareDatabase(db: Database.Database): void {
  // A new file gets 32 KB pages instead of SQLite's 4 KB: a batch of sessions lands on a few wide leaves of the
  // call table rather than splitting many narrow ones, and storing calls took half the time (issue 18, fifth
  // round). Set before WAL mode, it only applies to a file with nothing in it yet; an existing file keeps its size.
  db.pragma(`page_size = ${PAGE_SIZE}`);
  configure(db);
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

/** Applies the migrations the file has not seen yet, each in its own transaction; the version it is at. */
export function migrate(db: Database.Database, upTo = latestSchemaVersion): number {
  return upgrade(db, upTo).to;
}

/** `migrate`, saying the version the file was at before (0: a new file) and the one it is at now. */
function upgrade(db: Database.Database, upTo = latestSchemaVersion): { from: number; to: number } {
  db.exec(
    `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
  );
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as Row[]).map((r) => r.version as number),
  );
  refuseNewerSchema(applied, latestSchemaVersion);
  const from = newestVersion(applied);
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
  return { from, to: (row.v as number) ?? 0 };
}

/**
 * The SQLite back end: runs the shared query plan (`SqlStore`) synchronously, each write in one better-sqlite3
 * transaction, with every statement prepared once and kept. Its own: capture's live calls, the pass lock (a
 * row with an expiry), and recall records written together on the next tick.
 */
export class SqliteStore extends SqlStore implements Store {
  readonly kind = 'sqlite';
  /** The schema version this open upgraded the file from (null: new, or current already). */
  upgradedFrom: number | null = null;
  /** Every statement the plan has run, prepared once, by its SQL. */
  private readonly prepared = new Map<string, Database.Statement>();
  /** Statements with a mode of their own (raw rows, one value), and those of the recall write. */
  private stmts: ReturnType<SqliteStore['prepareOwn']>;
  /** The connection given, or (a file this account may only read) the one `file` keeps. */
  private readonly conn: Database.Database;
  /** A file this account may only read: how it is open, opened again when it changes under an immutable open. */
  private readonly file: ReadOnlyFile | null;

  /** Opened read-only (this account may not write the file or its folder): every write is refused. */
  readonly readOnly: boolean;

  constructor(
    db: Database.Database,
    readonly location: string,
    opts: { readOnly?: boolean; file?: ReadOnlyFile } = {},
  ) {
    super(plan);
    this.conn = db;
    this.file = opts.file ?? null;
    this.readOnly = opts.readOnly ?? false;
    this.stmts = this.prepareOwn();
  }

  /** The SQLite connection. */
  get db(): Database.Database {
    return this.file ? this.file.db : this.conn;
  }

  private prepareOwn() {
    const db = this.db;
    return {
      outlinesAfter: db.prepare(plan.outlinesAfter),
      outlineCalls: db.prepare(plan.outlineCalls).raw(),
      // Prepared once: db.pragma() prepares its statement on every call, and recall asks on every request.
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
      insertRecall: db.prepare(plan.insertRecall),
      // OR IGNORE: a row SQLite cannot store (a NaN similarity reads as NULL) is left out, as a repeat is.
      insertRecallItem: db.prepare(
        'INSERT OR IGNORE INTO recall_items (recall_id, skill_id, rank, similarity) VALUES (?, ?, ?, ?)',
      ),
      touchSkill: db.prepare(plan.touchSkill),
    };
  }

  // ── running the plan ──────────────────────────────────────────────────────

  private statement(sql: string): Database.Statement {
    let stmt = this.prepared.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.prepared.set(sql, stmt);
    }
    return stmt;
  }

  private exec(q: Query): QueryResult {
    const stmt = this.statement(q.sql);
    if (stmt.reader) {
      const rows = stmt.all(q.params) as Row[];
      return { rows, changes: rows.length };
    }
    this.refuseWrite();
    return { rows: [], changes: stmt.run(q.params).changes };
  }

  /** A write to a memory opened read-only: said with the file and what to do, not SQLite's "readonly database". */
  private refuseWrite(): void {
    if (this.readOnly)
      throw new ReadOnlyMemoryError(
        `the SQLite memory at ${this.location} is open read-only (this account may not write it or its folder), and this writes to it; run it where the file can be written, or copy it somewhere writable`,
      );
  }

  private run<T>(script: Script<T>): T {
    let step = script.next();
    while (!step.done) step = script.next(this.exec(step.value));
    return step.value;
  }

  /**
   * Runs a read. On a file read in place as immutable (read-only.ts), the read is taken only if the file is still as
   * the connection found it afterwards: otherwise (another process wrote it meanwhile) the file is opened again and
   * the read made again from the start. A read that failed while the file changed is made again too (pages of two
   * states can look corrupt).
   */
  private consistent<T>(read: () => T): T {
    const file = this.file;
    if (!file) return read();
    for (let attempt = 1; ; attempt++) {
      if (file.refresh()) this.prepareAgain();
      let result: T;
      try {
        result = read();
      } catch (e) {
        if (file.unchanged() || attempt >= READ_ATTEMPTS) throw e;
        continue;
      }
      if (file.unchanged()) return result;
      if (attempt >= READ_ATTEMPTS)
        throw new BackendUnavailableError(
          `the SQLite memory at ${this.location} kept changing while it was read (another process is writing it, and this account may only read it); run the command again`,
        );
    }
  }

  /** After the file was opened again: statements belong to the connection they were prepared on. */
  private prepareAgain(): void {
    this.prepared.clear();
    this.stmts = this.prepareOwn();
  }

  /**
   * Throws when what this connection read may not be what a writer committed: a file read in place as immutable
   * that another process wrote since it was opened (a copy taken from it, e.g. by `migrate`, must be taken again).
   */
  assertUnchanged(): void {
    if (this.file && !this.file.unchanged())
      throw new BackendUnavailableError(
        `the SQLite memory at ${this.location} changed while it was read (another process wrote it); run the command again`,
      );
  }

  /** The schema versions applied to the file (read as every read is). */
  appliedVersions(): number[] {
    return this.consistent(() =>
      (this.db.prepare('SELECT version FROM schema_migrations').all() as Row[]).map((r) => r.version as number),
    );
  }

  protected async read<T>(script: () => Script<T>): Promise<T> {
    return this.consistent(() => this.run(script()));
  }

  protected async write<T>(script: () => Script<Written<T>>): Promise<T> {
    return this.db.transaction(() => {
      const written = this.run(script());
      if (written.outbox) this.writeOutbox(written.outbox);
      return written.result;
    })();
  }

  protected async snapshot<T>(script: () => Script<T>): Promise<T> {
    return this.consistent(() => this.db.transaction(() => this.run(script()))());
  }

  /** Appends a plan's audit records and events (inside the caller's transaction). */
  private writeOutbox(o: Outbox): void {
    for (const a of o.audit)
      this.exec({
        sql: plan.insertAudit,
        params: [a.namespace, a.at, a.actor, a.action, a.subjectKind, a.subjectId, json(a.detail)],
      });
    for (const e of o.events)
      this.exec({ sql: plan.insertEvent, params: [e.namespace, e.at, e.type, e.skillId, json(e.payload)] });
  }

  protected settleRecalls(): void {
    this.flushRecalls();
  }

  protected override afterForget(): void {
    this.scrubFile();
  }

  async close(): Promise<void> {
    this.flushRecalls();
    if (this.db.open) this.db.close();
  }

  async changeToken(): Promise<string> {
    if (!this.file) return String(this.stmts.dataVersion.get());
    // A file read-only: each open starts a count of its own.
    return this.consistent(() => `${this.file!.opens}.${this.stmts.dataVersion.get()}`);
  }

  // ── capture ────────────────────────────────────────────────────────────────

  async beginSession(session: Omit<Session, 'calls' | 'seq'>): Promise<void> {
    this.exec({ sql: plan.insertSession, params: sessionRowValues(session) });
  }

  async appendCall(namespace: string, sessionId: string, call: ToolCall): Promise<boolean> {
    const [row] = this.exec({ sql: plan.sessionById, params: [namespace, sessionId] }).rows;
    if (!row)
      throw new SessionStateError(
        `session ${sessionId} is not open in namespace ${namespace}: call beginSession first`,
      );
    // Another process (or recorder) may have ended it: a call after the end is no part of the run it judged.
    if (row.ended_at) throw new SessionStateError(endedReason(sessionId, String(row.outcome)));
    let stored = 0;
    for (const q of plan.insertCalls([callRowValues(namespace, sessionId, call, sqliteDialect.bool)]))
      stored += this.exec(q).changes;
    return stored > 0;
  }

  /** The shared plan's reads, with the calls read as raw arrays (a pass reads every session's calls). */
  override async listSessionOutlinesAfter(
    namespace: string,
    afterSeq: number,
    limit: number,
  ): Promise<SessionOutline[]> {
    return this.consistent(() => {
      const rows = this.stmts.outlinesAfter.all(namespace, afterSeq, limit) as Row[];
      if (rows.length === 0) return [];
      const calls = this.stmts.outlineCalls.all(namespace, afterSeq, rows[rows.length - 1].seq) as unknown[][];
      return outlinesFromRows(rows, calls);
    });
  }

  // ── the pass lock ─────────────────────────────────────────────────────────

  async tryLock(name: string, holder: string, ttlMs: number): Promise<HeldLock | null> {
    this.refuseWrite();
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
    const release = async () => {
      if (this.db.open) this.db.prepare('DELETE FROM locks WHERE name = ? AND holder = ?').run(name, holder);
    };
    // Still ours while the row names this holder: an expired lock no one else took is extended as well.
    const renew = async () =>
      this.db.open &&
      this.db
        .prepare('UPDATE locks SET expires_at = ? WHERE name = ? AND holder = ?')
        .run(Date.now() + ttlMs, name, holder).changes === 1;
    return Object.assign(release, { renew });
  }

  // ── recall records ────────────────────────────────────────────────────────

  /**
   * Recall records are written behind the caller, batched on the next tick: recall returns without waiting
   * for a write transaction. Anything that reads them (a session's served skills) writes the queue out first,
   * and so does close().
   */
  async recordRecall(namespace: string, recall: Omit<RecallRecord, 'namespace'>): Promise<void> {
    // A read-only memory serves recalls without keeping a record of them (nor a trial for their session).
    if (this.readOnly) return;
    this.pendingRecalls.push({ namespace, ...recall });
    // Written RECALL_FLUSH_MS later, with every recall made meanwhile, in one transaction: a busy server commits
    // once per batch, not once per recall, and a recall does not wait on the write of the one before. Reads
    // that depend on them (stats, last use, a session's served skills) and close() write them first.
    if (this.pendingRecalls.length === 1) setTimeout(() => this.flushRecalls(), RECALL_FLUSH_MS);
  }

  private readonly pendingRecalls: RecallRecord[] = [];

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
