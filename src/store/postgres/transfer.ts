import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { isPostgresUrl } from '../open-store.js';
import { latestSchemaVersion } from '../sqlite/migrations.js';
import {
  openSqliteStore,
  openUpgradedCopy,
  sqliteForeignDatabase,
  sqliteSchemaVersion,
  type SqliteStore,
} from '../sqlite/sqlite-store.js';
import { latestPgSchemaVersion } from './migrations.js';
import { openPgStore, pgSchemaVersion, type PgStore } from './pg-store.js';
import { memoryScope } from './scope.js';
import { shownLocation } from '../../config/default-db.js';
import { TransferError } from '../../errors/transfer-error.js';
import { STATE_OF_THE_PLACE_SQL } from '../state-key.js';

/**
 * Copies a whole memory between back ends (SQLite -> PostgreSQL, PostgreSQL -> SQLite, or same to same):
 * every row of every table with its ids, seqs and bytes, into an empty target, in one transaction, read
 * from one consistent snapshot of the source, which is only read (never upgraded: an earlier release's SQLite file is
 * copied as it is and the copy upgraded; an earlier release's PostgreSQL memory is refused). Then verifies each table by row count and by a checksum of its
 * rows computed on both sides (order-independent: the sum of each row's SHA-256).
 */

/**
 * The tables of a memory, each with its primary key (the copy pages by it) and the rows it leaves behind, if any (a
 * SQL condition). Not copied: schema_migrations, locks.
 */
export const MEMORY_TABLES: { name: string; key: string[]; leave?: string }[] = [
  { name: 'sessions', key: ['seq'] },
  { name: 'tool_calls', key: ['namespace', 'session_id', 'position'] },
  { name: 'facts', key: ['namespace', 'id'] },
  { name: 'skills', key: ['id'] },
  { name: 'provenance', key: ['skill_id', 'source_kind', 'source_id'] },
  { name: 'feedback', key: ['id'] },
  { name: 'audit', key: ['id'] },
  // How far the audit JSONL beside the source was written says nothing about a file beside the target: it is
  // written from the copied audit table, in full, on first use.
  { name: 'state', key: ['namespace', 'key'], leave: STATE_OF_THE_PLACE_SQL },
  { name: 'embedding_cache', key: ['embedder_id', 'text_hash'] },
  { name: 'clusters', key: ['namespace', 'id'] },
  { name: 'cluster_members', key: ['namespace', 'session_id'] },
  { name: 'skill_versions', key: ['skill_id', 'version'] },
  { name: 'skill_files', key: ['skill_id', 'version', 'path'] },
  { name: 'events', key: ['id'] },
  { name: 'recalls', key: ['id'] },
  { name: 'recall_items', key: ['recall_id', 'skill_id'] },
];

/** Identity columns of PostgreSQL whose sequences must continue after the copied ids. */
const SERIALS: [string, string][] = [
  ['sessions', 'seq'],
  ['feedback', 'id'],
  ['audit', 'id'],
  ['events', 'id'],
  ['recalls', 'id'],
];

export interface TableCheck {
  table: string;
  sourceRows: number;
  targetRows: number;
  sourceChecksum: string;
  targetChecksum: string;
  ok: boolean;
}

export interface TransferReport {
  from: string;
  to: string;
  tables: TableCheck[];
  rows: number;
  ok: boolean;
  ms: number;
}

export { TransferError };

type Value = string | number | Buffer | null;

/** One side of a copy, speaking canonical values: booleans as 0/1, integers and reals as numbers, BLOBs as Buffers. */
interface Side {
  readonly label: string;
  columns(table: string): Promise<string[]>;
  count(table: string): Promise<number>;
  /** Rows of `table` after `after` in key order, less those `leave` (a SQL condition) selects. */
  page(
    table: string,
    cols: string[],
    key: string[],
    after: Value[] | null,
    limit: number,
    leave?: string,
  ): Promise<Value[][]>;
  begin(mode: 'read' | 'write'): Promise<void>;
  insert(table: string, cols: string[], rows: Value[][]): Promise<void>;
  /** After a copy into this side, before commit (sequences, change notification). */
  finishWrite(): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  close(): Promise<void>;
}

class SqliteSide implements Side {
  constructor(
    private readonly store: SqliteStore,
    readonly label: string,
    /** A folder of this copy's own (an earlier release's source, upgraded in a private copy), removed on close. */
    private readonly scratch: string | null = null,
  ) {}

  private get db() {
    return this.store.db;
  }

  async columns(table: string): Promise<string[]> {
    return (this.db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
  }

  async count(table: string): Promise<number> {
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  }

  async page(
    table: string,
    cols: string[],
    key: string[],
    after: Value[] | null,
    limit: number,
    leave?: string,
  ): Promise<Value[][]> {
    const where = whereClause([
      after ? `(${key.join(', ')}) > (${key.map(() => '?').join(', ')})` : null,
      leave ? `NOT (${leave})` : null,
    ]);
    const rows = this.db
      .prepare(
        `SELECT ${cols.map((c) => `"${c}"`).join(', ')} FROM ${table} ${where} ORDER BY ${key.join(', ')} LIMIT ?`,
      )
      .raw()
      .all(...(after ?? []), limit) as Value[][];
    // A file this account may only read, read where it lies: no page another process's write may have torn.
    this.store.assertUnchanged();
    return rows;
  }

  async begin(mode: 'read' | 'write'): Promise<void> {
    // A read transaction pins one snapshot (WAL); a write transaction makes the copy all or nothing.
    this.db.exec(mode === 'write' ? 'BEGIN IMMEDIATE' : 'BEGIN');
  }

  async insert(table: string, cols: string[], rows: Value[][]): Promise<void> {
    const stmt = this.db.prepare(
      `INSERT INTO ${table} (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
    );
    for (const r of rows) stmt.run(...r);
  }

  async finishWrite(): Promise<void> {
    // AUTOINCREMENT counters follow explicitly inserted ids by themselves.
  }

  async commit(): Promise<void> {
    if (this.db.inTransaction) this.db.exec('COMMIT');
  }

  async rollback(): Promise<void> {
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
  }

  async close(): Promise<void> {
    await this.store.close();
    if (this.scratch) rmSync(this.scratch, { recursive: true, force: true });
  }
}

class PgSide implements Side {
  private client: pg.PoolClient | null = null;
  private booleans = new Map<string, Set<string>>();

  constructor(
    private readonly store: PgStore,
    readonly label: string,
  ) {}

  private get db(): pg.Pool | pg.PoolClient {
    return this.client ?? this.store.pool;
  }

  async columns(table: string): Promise<string[]> {
    const { rows } = await this.db.query(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
      [table],
    );
    this.booleans.set(
      table,
      new Set(rows.filter((r) => r.data_type === 'boolean').map((r) => r.column_name as string)),
    );
    return rows.map((r) => r.column_name as string);
  }

  async count(table: string): Promise<number> {
    return (await this.db.query(`SELECT COUNT(*) AS n FROM ${table}`)).rows[0].n as number;
  }

  async page(
    table: string,
    cols: string[],
    key: string[],
    after: Value[] | null,
    limit: number,
    leave?: string,
  ): Promise<Value[][]> {
    const bools = this.booleans.get(table) ?? new Set();
    const args: unknown[] = [...(after ?? []), limit];
    const where = whereClause([
      after ? `(${key.join(', ')}) > (${key.map((_, i) => `$${i + 1}`).join(', ')})` : null,
      leave ? `NOT (${leave})` : null,
    ]);
    const { rows } = await this.db.query({
      text: `SELECT ${cols.map((c) => `"${c}"`).join(', ')} FROM ${table} ${where} ORDER BY ${key.join(', ')} LIMIT $${args.length}`,
      values: args,
      rowMode: 'array',
    });
    return (rows as unknown[][]).map((r) =>
      r.map((v, i) => (bools.has(cols[i]) && typeof v === 'boolean' ? (v ? 1 : 0) : (v as Value))),
    );
  }

  async begin(mode: 'read' | 'write'): Promise<void> {
    this.client = await this.store.pool.connect();
    await this.client.query(mode === 'read' ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
  }

  async insert(table: string, cols: string[], rows: Value[][]): Promise<void> {
    const bools = this.booleans.get(table) ?? new Set();
    // At most ~30,000 parameters per statement.
    const per = Math.max(1, Math.floor(30_000 / cols.length));
    for (let i = 0; i < rows.length; i += per) {
      const chunk = rows.slice(i, i + per);
      const values: unknown[] = [];
      const tuples = chunk.map((r) => {
        const marks = r.map((v, j) => {
          values.push(bools.has(cols[j]) && v !== null ? v === 1 || (v as unknown) === true : v);
          return `$${values.length}`;
        });
        return `(${marks.join(', ')})`;
      });
      await this.db.query(
        `INSERT INTO ${table} (${cols.map((c) => `"${c}"`).join(', ')}) VALUES ${tuples.join(', ')}`,
        values,
      );
    }
  }

  async finishWrite(): Promise<void> {
    for (const [table, col] of SERIALS) {
      await this.db.query(
        `SELECT setval(pg_get_serial_sequence('${table}', '${col}'), GREATEST(COALESCE(MAX(${col}), 0), 1), COUNT(*) > 0) FROM ${table}`,
      );
    }
    // Every process recalling from this database reloads its skills.
    const { rows } = await this.db.query(
      'UPDATE change_counter SET value = value + 1 WHERE id = 1 RETURNING value, current_schema() AS schema',
    );
    await this.db.query('SELECT pg_notify($1, $2)', [memoryScope(rows[0].schema).channel, String(rows[0].value)]);
  }

  async commit(): Promise<void> {
    if (!this.client) return;
    await this.client.query('COMMIT');
    this.client.release();
    this.client = null;
  }

  async rollback(): Promise<void> {
    if (!this.client) return;
    await this.client.query('ROLLBACK').catch(() => undefined);
    this.client.release();
    this.client = null;
  }

  async close(): Promise<void> {
    await this.rollback();
    await this.store.close();
  }
}

const whereClause = (conditions: (string | null)[]) => {
  const all = conditions.filter((c) => c !== null);
  return all.length ? `WHERE ${all.join(' AND ')}` : '';
};

async function openSide(location: string, role: 'source' | 'target'): Promise<Side> {
  if (isPostgresUrl(location)) {
    if (role === 'source') {
      // A database without Skillsmith's tables (a mistyped name) is no memory to copy: opening it would create them.
      const version = await pgSchemaVersion(location);
      if (version === null)
        throw new TransferError(
          `no memory at ${shownLocation(location)}: the database does not exist or holds no Skillsmith tables (nothing was ingested or learned there); no table was created`,
        );
      // Opening it would upgrade it in place: a copy leaves its source as it was, and the hosts of a fleet that
      // still run the release that wrote it keep using it.
      if (version < latestPgSchemaVersion)
        throw new TransferError(
          `the memory at ${shownLocation(location)} is at schema version ${version}, an earlier release's (this one writes version ${latestPgSchemaVersion}), and copying it would upgrade it in place; nothing was changed. Copy it with the release that wrote it, or upgrade it first (once every host runs this release: any command upgrades it, e.g. skillsmith doctor --db URL)`,
        );
    }
    const store = await openPgStore(location, { pollMs: 0 });
    return new PgSide(store, store.location);
  }
  // Another program's database, named as migrate names its memories.
  const foreign =
    location !== ':memory:' && existsSync(location)
      ? sqliteForeignDatabase(
          location,
          role === 'source' ? 'give --from an existing Skillsmith memory' : 'give --to a new file',
        )
      : null;
  if (foreign) throw foreign;
  if (role === 'source' && location !== ':memory:') {
    // A source that does not exist would be created empty by opening it: say so instead.
    if (!existsSync(location)) throw new TransferError(`no SQLite memory at ${location}`);
    // An earlier release's file (a backup kept from before an upgrade) is copied as it is and the copy upgraded:
    // opening the file itself would upgrade it in place, and that release could no longer open it.
    const version = sqliteSchemaVersion(location);
    if (version !== null && version < latestSchemaVersion) {
      const scratch = mkdtempSync(join(tmpdir(), 'skillsmith-migrate-'));
      try {
        return new SqliteSide(openUpgradedCopy(location, join(scratch, 'source.db')), location, scratch);
      } catch (e) {
        rmSync(scratch, { recursive: true, force: true });
        throw e;
      }
    }
  }
  return new SqliteSide(openSqliteStore(location), location);
}

/** Canonical text of one row for the checksum: columns in name order, bytes as hex. */
function rowDigest(cols: string[], order: number[], row: Value[]): bigint {
  const parts = order.map((i) => {
    const v = row[i] as unknown;
    if (v === null || v === undefined) return null;
    if (v instanceof Uint8Array) return { hex: Buffer.from(v).toString('hex') };
    if (typeof v === 'bigint') return Number(v);
    return v;
  });
  return BigInt(
    `0x${createHash('sha256')
      .update(JSON.stringify([order.map((i) => cols[i]), parts]))
      .digest('hex')}`,
  );
}

const MOD = 1n << 256n;
const hex = (n: bigint) => n.toString(16).padStart(64, '0');

async function checksumOf(
  side: Side,
  table: string,
  cols: string[],
  key: string[],
  pageSize: number,
  leave?: string,
): Promise<{ rows: number; sum: bigint }> {
  const order = cols.map((_, i) => i).sort((a, b) => (cols[a] < cols[b] ? -1 : 1));
  const keyIdx = key.map((k) => cols.indexOf(k));
  let after: Value[] | null = null;
  let rows = 0;
  let sum = 0n;
  for (;;) {
    const page = await side.page(table, cols, key, after, pageSize, leave);
    for (const r of page) sum = (sum + rowDigest(cols, order, r)) % MOD;
    rows += page.length;
    if (page.length < pageSize) break;
    after = keyIdx.map((i) => page[page.length - 1][i]);
  }
  return { rows, sum };
}

/**
 * Copies the memory at `from` into the empty memory at `to` (each a SQLite path or a postgres:// URL) and
 * verifies it. Throws TransferError when the target already holds data, when the two schemas disagree, or
 * when the copy fails (the target is then left as it was). A report with `ok: false` means the copy was
 * written but did not verify.
 */
export async function transferMemory(
  from: string,
  to: string,
  opts: { pageSize?: number; onTable?: (table: string, rows: number) => void } = {},
): Promise<TransferReport> {
  const started = Date.now();
  const pageSize = opts.pageSize ?? 2_000;
  const source = await openSide(from, 'source');
  let target: Side | null = null;
  try {
    target = await openSide(to, 'target');
    const plan: { name: string; key: string[]; leave?: string; cols: string[] }[] = [];
    const occupied: string[] = [];
    for (const t of MEMORY_TABLES) {
      const cols = await source.columns(t.name);
      const targetCols = await target.columns(t.name);
      const missing = cols.filter((c) => !targetCols.includes(c));
      const extra = targetCols.filter((c) => !cols.includes(c));
      if (missing.length || extra.length) {
        throw new TransferError(
          `table ${t.name} differs: ${missing.length ? `${target.label} lacks ${missing.join(', ')}` : ''}${missing.length && extra.length ? '; ' : ''}` +
            `${extra.length ? `${source.label} lacks ${extra.join(', ')}` : ''} (upgrade skillsmith so both schemas are at the latest version)`,
        );
      }
      const n = await target.count(t.name);
      if (n > 0) occupied.push(`${t.name}: ${n} rows`);
      plan.push({ ...t, cols });
    }
    if (occupied.length) {
      throw new TransferError(
        `${target.label} already holds a memory (${occupied.join(', ')}); migrate copies into an empty one only`,
      );
    }

    const sums = new Map<string, { rows: number; sum: bigint }>();
    await source.begin('read');
    await target.begin('write');
    try {
      for (const t of plan) {
        const order = t.cols.map((_, i) => i).sort((a, b) => (t.cols[a] < t.cols[b] ? -1 : 1));
        const keyIdx = t.key.map((k) => t.cols.indexOf(k));
        let after: Value[] | null = null;
        let rows = 0;
        let sum = 0n;
        for (;;) {
          const page = await source.page(t.name, t.cols, t.key, after, pageSize, t.leave);
          if (page.length) await target.insert(t.name, t.cols, page);
          for (const r of page) sum = (sum + rowDigest(t.cols, order, r)) % MOD;
          rows += page.length;
          if (page.length < pageSize) break;
          after = keyIdx.map((i) => page[page.length - 1][i]);
        }
        sums.set(t.name, { rows, sum });
        opts.onTable?.(t.name, rows);
      }
      await target.finishWrite();
      await target.commit();
    } catch (e) {
      await target.rollback();
      throw new TransferError(`copy failed, nothing was written to ${target.label}: ${(e as Error).message}`);
    } finally {
      await source.rollback();
    }

    // Verify against what the target now holds, read back on its own.
    const tables: TableCheck[] = [];
    for (const t of plan) {
      const src = sums.get(t.name)!;
      const dst = await checksumOf(target, t.name, t.cols, t.key, pageSize, t.leave);
      tables.push({
        table: t.name,
        sourceRows: src.rows,
        targetRows: dst.rows,
        sourceChecksum: hex(src.sum),
        targetChecksum: hex(dst.sum),
        ok: src.rows === dst.rows && src.sum === dst.sum,
      });
    }
    return {
      from: source.label,
      to: target.label,
      tables,
      rows: tables.reduce((n, t) => n + t.targetRows, 0),
      ok: tables.every((t) => t.ok),
      ms: Date.now() - started,
    };
  } finally {
    await source.close();
    await target?.close();
  }
}

/**
 * Per-table counts and checksums of a memory as it is now (the same figures `transferMemory` verifies: the rows it
 * leaves behind left out).
 */
export async function memoryChecksums(
  location: string,
  pageSize = 2_000,
): Promise<{ table: string; rows: number; checksum: string }[]> {
  const side = await openSide(location, 'source');
  try {
    await side.begin('read');
    const out = [];
    for (const t of MEMORY_TABLES) {
      const cols = await side.columns(t.name);
      const { rows, sum } = await checksumOf(side, t.name, cols, t.key, pageSize, t.leave);
      out.push({ table: t.name, rows, checksum: hex(sum) });
    }
    return out;
  } finally {
    await side.rollback();
    await side.close();
  }
}
