// A --db (or SKILLSMITH_DB) pointed at another program's database by mistake: a SQLite file with tables none of which
// is Skillsmith's marker, or a PostgreSQL schema holding an application's tables under Skillsmith's names, is refused
// before anything is written, with a message naming it and why, by every command (a recall that only reads too, on
// its short path); the file keeps its bytes and nothing appears beside it. A new or empty file, a memory of any
// earlier schema version, and a PostgreSQL schema shared with unrelated tables open as before.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { ConfigError } from '../src/errors/index.js';
import { latestPgSchemaVersion } from '../src/store/postgres/migrations.js';
import { migratePg, openPgStore } from '../src/store/postgres/pg-store.js';
import { latestSchemaVersion } from '../src/store/sqlite/migrations.js';
import { migrate, openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { runBuiltCli } from './support/built-cli.js';
import { pgRows as sql, startPgServer, type PgServer } from './support/pg-server.js';
import { SAMPLE } from './support/surfaces.js';

let dir: string;
let server: PgServer | null = null;
const GOAL = 'I want to return the headphones I received';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'skillsmith-foreign-db-'));
});

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** A folder of its own, with the home folders a CLI run may write under inside it. */
function folder(name: string): string {
  const path = join(dir, name);
  mkdirSync(path);
  return path;
}

function cli(cwd: string, args: string[], env: Record<string, string> = {}) {
  return runBuiltCli(args, {
    cwd,
    env: {
      HOME: join(cwd, 'home'),
      XDG_CACHE_HOME: join(cwd, 'home', 'cache'),
      XDG_DATA_HOME: join(cwd, 'home', 'data'),
      XDG_RUNTIME_DIR: join(cwd, 'home', 'run'),
      ...env,
    },
    unset: ['SKILLSMITH_TOKEN', 'PGOPTIONS', 'PGSSLMODE'],
  });
}

/** An application's SQLite database: `sql` run on a new file at `path`. */
function appDatabase(path: string, sql: string): void {
  const db = new Database(path);
  db.exec(sql);
  db.close();
}

const foreignMessage = (
  path: string,
  tables: string,
  instead = 'give --db a new file or an existing Skillsmith memory',
) =>
  `${path} is a SQLite database of another program (tables: ${tables}): Skillsmith keeps its memory in a database of its own, and nothing was written to this one; ${instead}`;

describe('a SQLite database of another program', () => {
  it('is refused by recall, ingest, skills list, serve, migrate and doctor, and left byte for byte as it was, nothing beside it', () => {
    const cwd = folder('app');
    const app = join(cwd, 'app.db');
    appDatabase(
      app,
      "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES ('ann')",
    );
    const before = sha256(app);
    const message = foreignMessage(app, 'customers');
    const runs: [string[], Record<string, string>][] = [
      [['recall', GOAL, '--db', app], {}],
      [['recall', GOAL, '--db', app], { SKILLSMITH_RECALL_DAEMON: '1' }],
      [['recall', '--json', GOAL], { SKILLSMITH_DB: app }],
      [['recall', GOAL, '--db', app], { SKILLSMITH_LEAN_RECALL: '0' }],
      [['ingest', SAMPLE, '--db', app], {}],
      [['skills', 'list', '--db', app], {}],
      [['serve', '--port', '0'], { SKILLSMITH_DB: app }],
    ];
    for (const [args, env] of runs) {
      const r = cli(cwd, args, env);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      if (args.includes('--json'))
        expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!)).toEqual({ error: message, code: 'CONFIG_INVALID' });
      else expect(r.stderr).toContain(`skillsmith: ${message}`);
      expect(sha256(app), args.join(' ')).toBe(before);
    }
    // migrate, from it or into it (its failures exit 1, whatever the cause).
    const other = folder('app-source');
    const source = join(other, 'memory.db');
    expect(cli(other, ['ingest', SAMPLE, '--db', source]).code).toBe(0);
    // It names the flag migrate takes (it has no --db).
    for (const [from, to, instead] of [
      [app, join(other, 'copy.db'), 'give --from an existing Skillsmith memory'],
      [source, app, 'give --to a new file'],
    ]) {
      const r = cli(cwd, ['migrate', '--from', from, '--to', to]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`skillsmith: migrate failed: ${foreignMessage(app, 'customers', instead)}`);
      expect(sha256(app)).toBe(before);
    }
    expect(existsSync(join(other, 'copy.db'))).toBe(false);
    const doctor = cli(cwd, ['doctor', '--db', app]);
    expect(doctor.code, doctor.stderr).toBe(1);
    expect(doctor.stdout).toMatch(
      /FAIL\s+memory\s+\S+app\.db is a SQLite database of another program \(tables: customers\)/,
    );
    expect(doctor.stdout).toContain('fix: name a new file or an existing Skillsmith memory with --db');
    expect(sha256(app)).toBe(before);
    // No index file, log or audit copy beside it, no daemon started for it (nor its socket), no index in the cache.
    expect(readdirSync(cwd).filter((f) => f !== 'home')).toEqual(['app.db']);
    const home = join(cwd, 'home');
    const written = existsSync(home) ? readdirSync(home, { recursive: true, withFileTypes: true }) : [];
    expect(written.filter((f) => !f.isDirectory()).map((f) => join(f.parentPath, f.name))).toEqual([]);
    const check = new Database(app, { readonly: true });
    expect(check.prepare(`SELECT name FROM sqlite_master`).pluck().all()).toEqual(['customers']);
    expect(check.prepare('SELECT name FROM customers').pluck().all()).toEqual(['ann']);
    check.close();
  });

  it('is refused by the library as a ConfigError, in WAL mode too, whatever its schema_migrations (Rails, golang-migrate)', async () => {
    const cwd = folder('library');
    const cases: [string, string, string][] = [
      [
        'wal.db',
        'PRAGMA journal_mode = WAL; CREATE TABLE orders (id INTEGER PRIMARY KEY); CREATE VIEW recent AS SELECT * FROM orders',
        'orders, recent',
      ],
      [
        'rails.db',
        "CREATE TABLE schema_migrations (version TEXT PRIMARY KEY); INSERT INTO schema_migrations VALUES ('20240101000000'); CREATE TABLE users (id INTEGER)",
        'schema_migrations, users',
      ],
      // At Skillsmith's newest version number: the short recall path must not take it for a current memory.
      [
        'migrate.db',
        `CREATE TABLE schema_migrations (version INTEGER NOT NULL, dirty BOOLEAN NOT NULL); INSERT INTO schema_migrations VALUES (${latestSchemaVersion}, 0)`,
        'schema_migrations',
      ],
      // Skillsmith's columns, and another program's rows.
      [
        'lookalike.db',
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL); INSERT INTO schema_migrations VALUES (1, 'create users', 'x'); CREATE TABLE sessions (id TEXT)",
        'schema_migrations, sessions',
      ],
    ];
    for (const [name, sql, tables] of cases) {
      const path = join(cwd, name);
      appDatabase(path, sql);
      const before = sha256(path);
      const message = foreignMessage(path, tables);
      const error = await openMemory({ db: path }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(ConfigError.isInstance(error), `${name}: ${String(error)}`).toBe(true);
      expect((error as Error).message).toBe(message);
      expect(() => openSqliteStore(path)).toThrow(message);
      const recall = cli(cwd, ['recall', '--json', GOAL, '--db', path]);
      expect(recall.code, recall.stderr).toBe(2);
      expect(recall.stderr).toContain(message);
      expect(sha256(path), name).toBe(before);
    }
    expect(
      readdirSync(cwd)
        .filter((f) => f !== 'home')
        .sort(),
    ).toEqual(['lookalike.db', 'migrate.db', 'rails.db', 'wal.db']);
  });

  it('a new file, an empty file and an empty database become a memory, as before', async () => {
    const cwd = folder('empty');
    const zero = join(cwd, 'zero.db');
    writeFileSync(zero, '');
    const noTables = join(cwd, 'no-tables.db');
    appDatabase(noTables, 'CREATE TABLE t (x); DROP TABLE t');
    for (const path of [join(cwd, 'new.db'), zero, noTables]) {
      const r = cli(cwd, ['ingest', SAMPLE, '--db', path]);
      expect(r.code, r.stderr).toBe(0);
      const memory = await openMemory({ db: path });
      try {
        expect(await memory.sessions.count()).toBe(89);
      } finally {
        await memory.close();
      }
    }
  });

  it('a memory of every earlier schema version opens and is upgraded, the oldest through the CLI too', async () => {
    const cwd = folder('old');
    for (let version = 1; version < latestSchemaVersion; version++) {
      const path = join(cwd, `v${version}.db`);
      const raw = new Database(path);
      migrate(raw, version);
      raw.close();
      const store = openSqliteStore(path);
      try {
        expect(store.upgradedFrom).toBe(version);
      } finally {
        await store.close();
      }
    }
    const oldest = join(cwd, 'oldest.db');
    const raw = new Database(oldest);
    migrate(raw, 1);
    raw.close();
    const r = cli(cwd, ['ingest', SAMPLE, '--db', oldest]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`upgraded the memory at ${oldest} from schema version 1 to ${latestSchemaVersion}`);
  });

  it('a memory whose first migration never committed (its schema table alone, empty) opens', async () => {
    const path = join(folder('half'), 'half.db');
    appDatabase(
      path,
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
    );
    const store = openSqliteStore(path);
    try {
      expect(await store.schemaVersion()).toBe(latestSchemaVersion);
    } finally {
      await store.close();
    }
  });
});

describe('a PostgreSQL schema shared with an application', () => {
  beforeAll(async () => {
    server = await startPgServer();
  }, 120_000);

  const publicTables = async (url: string) =>
    (
      await sql<{ name: string }>(
        url,
        `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
      )
    ).map((r) => r.name);

  it("holding the application's own sessions table (or Rails' schema_migrations) is refused, nothing created, its table as it was", async () => {
    const cases: [string, string][] = [
      [
        "CREATE TABLE sessions (token text PRIMARY KEY, user_id int); INSERT INTO sessions VALUES ('t1', 7); CREATE TABLE customers (id int)",
        'sessions',
      ],
      [
        "CREATE TABLE schema_migrations (version varchar PRIMARY KEY); INSERT INTO schema_migrations VALUES ('20240101000000'); CREATE TABLE events (id int)",
        'events, schema_migrations',
      ],
      // Skillsmith's schema table, empty, as an earlier release left it when its first migration failed on such a table.
      [
        'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL); CREATE TABLE events (id int)',
        'events',
      ],
    ];
    for (const [setup, tables] of cases) {
      const url = await server!.createDatabase();
      await sql(url, setup);
      const before = await publicTables(url);
      const rows = async () => Promise.all(before.map(async (t) => sql(url, `SELECT * FROM public.${t} ORDER BY 1`)));
      const contents = await rows();
      const message = `the schema public of ${url} holds tables of another program under names Skillsmith's memory uses (${tables}), and no Skillsmith memory: nothing was written to it. Keep the memory in a schema of its own (README, "A schema of its own"): CREATE SCHEMA skillsmith, then add options=-csearch_path%3Dskillsmith to the URL (or set PGOPTIONS='-c search_path=skillsmith'), or give --db another database`;
      const cwd = mkdtempSync(join(dir, 'pg-'));
      for (const args of [
        ['ingest', SAMPLE, '--db', url],
        ['recall', GOAL, '--db', url],
        ['skills', 'list', '--db', url],
      ]) {
        const r = cli(cwd, args);
        expect(r.code, `${args[0]}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toContain(`skillsmith: ${message}`);
      }
      const doctor = cli(cwd, ['doctor', '--db', url]);
      expect(doctor.code, doctor.stderr).toBe(1);
      expect(doctor.stdout).toContain('FAIL  memory');
      expect(doctor.stdout).toContain(`under names Skillsmith's memory uses (${tables})`);
      const error = await openMemory({ db: url }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(ConfigError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toBe(message);
      expect(await publicTables(url)).toEqual(before);
      expect(await rows()).toEqual(contents);
      // Kept apart as the message says, the same database takes the memory.
      await sql(url, 'CREATE SCHEMA skillsmith');
      const apart = cli(cwd, ['ingest', SAMPLE, '--db', `${url}?options=-csearch_path%3Dskillsmith`]);
      expect(apart.code, apart.stderr).toBe(0);
      expect(await sql(url, 'SELECT count(*)::int AS n FROM skillsmith.sessions')).toEqual([{ n: 89 }]);
      expect(await publicTables(url)).toEqual(before);
    }
  });

  it("holding only the application's unrelated tables, or a memory of the first schema version, is used as before", async () => {
    const url = await server!.createDatabase();
    await sql(url, "CREATE TABLE customers (id int, name text); INSERT INTO customers VALUES (1, 'ann')");
    const cwd = mkdtempSync(join(dir, 'pg-'));
    const r = cli(cwd, ['ingest', SAMPLE, '--db', url]);
    expect(r.code, r.stderr).toBe(0);
    expect(await sql(url, 'SELECT count(*)::int AS n FROM sessions')).toEqual([{ n: 89 }]);
    expect(await sql(url, 'SELECT * FROM customers')).toEqual([{ id: 1, name: 'ann' }]);
    const recall = cli(cwd, ['recall', GOAL, '--db', url]);
    expect(recall.code, recall.stderr).toBe(0);

    const old = await server!.createDatabase();
    const pool = new pg.Pool({ connectionString: old, max: 1 });
    try {
      await migratePg(pool, 1);
    } finally {
      await pool.end();
    }
    const store = await openPgStore(old, { pollMs: 0 });
    try {
      expect(store.upgradedFrom).toBe(1);
      expect(await store.schemaVersion()).toBe(latestPgSchemaVersion);
    } finally {
      await store.close();
    }
  });
});
