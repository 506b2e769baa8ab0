// What a person setting up a fleet meets on the command line and over REST with a PostgreSQL memory: no password in
// any output, a recall index that is kept from the first run, a learn that says what it stored when another host's
// pass holds the memory, a memory a newer release wrote left alone, and a server that says when its database is down.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { serveMcpHttp } from '../src/surfaces/mcp/http.js';
import { latestPgSchemaVersion } from '../src/store/postgres/migrations.js';
import Database from 'better-sqlite3';
import pg from 'pg';
import { migratePg, openPgStore, type PgStore } from '../src/store/postgres/pg-store.js';
import { latestSchemaVersion } from '../src/store/sqlite/migrations.js';
import { migrate } from '../src/store/sqlite/sqlite-store.js';
import { createLogger } from '../src/support/log.js';
import { runBuiltCli } from './support/built-cli.js';
import { startPgServer, type PgServer } from './support/pg-server.js';
import { ROOT, SAMPLE, startCli } from './support/surfaces.js';

const quiet = createLogger('silent');
let server: PgServer;
let home: string;
const stores: PgStore[] = [];

beforeAll(async () => {
  server = await startPgServer();
  home = mkdtempSync(join(tmpdir(), 'skillsmith-cli-pg-'));
}, 120_000);

afterAll(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => undefined);
  if (server && !server.running) server.start();
  await server?.stop();
  rmSync(home, { recursive: true, force: true });
});

/** A fresh database's URL with a password in it (the test cluster trusts local connections, so any password works). */
async function urlWithPassword(): Promise<string> {
  return (await server.createDatabase()).replace('postgres@', 'postgres:s3cret-pw@');
}

/** The built CLI as a new user on a new machine runs it: a home with no ~/.cache yet. */
function cli(args: string[], user: string) {
  const userHome = join(home, user);
  return runBuiltCli(args, {
    cwd: home,
    env: { HOME: userHome, XDG_CACHE_HOME: join(userHome, '.cache'), XDG_DATA_HOME: join(userHome, '.local', 'share') },
    unset: ['SKILLSMITH_TOKEN'],
  });
}

async function sessionCount(url: string): Promise<number> {
  const store = await openPgStore(url, { pollMs: 0, log: quiet });
  try {
    return await store.countSessions('default');
  } finally {
    await store.close();
  }
}

describe('the CLI on a PostgreSQL memory', () => {
  it('learns on a new machine with no password in its output, and keeps the recall index from the first run', async () => {
    const url = await urlWithPassword();
    const r = cli(['learn', '--db', url, SAMPLE], 'first-run');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Ingested .*tau-sample\.jsonl: 89 new sessions/);
    // The follow-up line repeats the memory without its password, so it runs as pasted with PGPASSWORD set.
    expect(r.stdout).toContain(`--db ${url.replace(':s3cret-pw', '')}`);
    expect(`${r.stdout}${r.stderr}`).not.toContain('s3cret-pw');
    // The cache directory did not exist: it is made, and the index saved there (no warning that it could not be).
    expect(r.stderr).not.toContain('could not save the recall index file');
    const cacheDir = join(home, 'first-run', '.cache', 'skillsmith', 'recall');
    expect(readdirSync(cacheDir).some((f) => f.endsWith('.idx'))).toBe(true);

    const recall = cli(['recall', '--db', url, 'I want to return the headphones I received'], 'first-run');
    expect(recall.code, recall.stderr).toBe(0);
    expect(`${recall.stdout}${recall.stderr}`).not.toContain('s3cret-pw');
    expect(recall.stderr).not.toContain('could not save');
  }, 120_000);

  it('a command that only reads leaves an empty database as it is, as it leaves a SQLite path without a file', async () => {
    const url = await urlWithPassword();
    const tables = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query(
          `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = current_schema()`,
        );
        return rows[0].n as number;
      } finally {
        await client.end();
      }
    };
    const recall = cli(['recall', '--db', url, '--json', 'I want to return the headphones I received'], 'empty-pg');
    expect(recall.code, recall.stderr).toBe(0);
    expect(JSON.parse(recall.stdout)).toEqual([]);
    expect(recall.stderr).toMatch(/no memory at postgres:\/\/postgres:\*\*\*@.* yet .*no table was created/);
    for (const args of [['skills', 'list'], ['sessions', 'list'], ['doctor']]) {
      const r = cli([...args, '--db', url], 'empty-pg');
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    const change = cli(['skills', 'disable', 'fix-phone-service', '--db', url], 'empty-pg');
    expect(change.code).toBe(1);
    expect(change.stderr).toMatch(/no memory at .*nothing stored to change; no table was created/);
    expect(`${recall.stderr}${change.stderr}`).not.toContain('s3cret-pw');
    expect(await tables()).toBe(0);
    // Nor does migrate, copying from there (or from a database that does not exist): no memory to copy, said.
    for (const source of [url, url.replace(/\/[^/?]+$/, '/no_such_database')]) {
      const copy = join(home, `copy-${Math.random().toString(36).slice(2)}.db`);
      const migrated = cli(['migrate', '--from', source, '--to', copy], 'empty-pg');
      expect(migrated.code).toBe(1);
      expect(migrated.stderr).toMatch(
        /no memory at postgres:\/\/postgres:\*\*\*@.*: the database does not exist or holds no Skillsmith tables/,
      );
      expect(existsSync(copy)).toBe(false);
    }
    expect(await tables()).toBe(0);
    // A command that stores creates the memory there.
    expect(cli(['ingest', '--db', url, SAMPLE], 'empty-pg').code).toBe(0);
    expect(await tables()).toBeGreaterThan(10);
  }, 120_000);

  it('a user granted SELECT only recalls, lists and serves; a write is refused saying so, and nothing changes', async () => {
    const url = await server.createDatabase();
    expect(cli(['learn', '--db', url, SAMPLE], 'owner').code).toBe(0);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`DO $$ BEGIN CREATE ROLE reader LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
      await admin.query('GRANT USAGE ON SCHEMA public TO reader');
      await admin.query('GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader');
    } finally {
      await admin.end();
    }
    const reader = url.replace('postgres@', 'reader@');
    const recall = cli(['recall', '--db', reader, '--json', 'I want to return the headphones I received'], 'reader');
    expect(recall.code, recall.stderr).toBe(0);
    expect((JSON.parse(recall.stdout) as unknown[]).length).toBeGreaterThan(0);
    for (const args of [['skills', 'list'], ['sessions', 'list'], ['doctor']]) {
      const r = cli([...args, '--db', reader], 'reader');
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      if (args[0] === 'doctor') expect(r.stdout).toMatch(/warn\s+memory\s+postgres memory at .* is open read-only/);
    }
    // On a database with no memory, doctor says this user could not create one (learn would fail there).
    const empty = (await server.createDatabase()).replace('postgres@', 'reader@');
    const doctor = cli(['doctor', '--db', empty], 'reader');
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(
      /FAIL\s+memory\s+no memory at .* yet, and this account may not create one there \(no CREATE on schema public\)/,
    );
    const before = await sessionCount(url);
    const others = join(ROOT, 'test', 'fixtures', 'traces', 'bfcl-multi-turn-base.jsonl');
    for (const args of [['skills', 'disable', 'fix-phone-service'], ['ingest', others], ['synthesize']]) {
      const r = cli([...args, '--db', reader], 'reader');
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toContain('is open read-only (this user may not write its tables)');
    }
    expect(await sessionCount(url)).toBe(before);
  }, 120_000);

  it('masks a password given as a URL parameter too, in the start-up line and in a connection error', () => {
    const dead = `postgres://postgres@127.0.0.1:1/nowhere?password=s3cret-pw`;
    const viaEnv = runBuiltCli(['skills', 'list'], {
      cwd: home,
      env: { SKILLSMITH_DB: dead, HOME: join(home, 'param') },
    });
    expect(viaEnv.code).toBe(1);
    expect(viaEnv.stderr).toContain('skillsmith: memory postgres://postgres@127.0.0.1:1/nowhere?password=***');
    expect(viaEnv.stderr).toMatch(
      /cannot open PostgreSQL memory at postgres:\/\/postgres@127\.0\.0\.1:1\/nowhere\?password=\*\*\*/,
    );
    expect(`${viaEnv.stdout}${viaEnv.stderr}`).not.toContain('s3cret-pw');
    // A password pasted as it is (not percent-encoded), in a URL the driver cannot read: hidden, and told how to write it.
    for (const args of [
      ['recall', 'x'],
      ['learn', SAMPLE],
    ]) {
      const raw = cli([...args, '--db', 'postgres://app:p@ss:w/rd#s3cret@127.0.0.1:abc/fleet'], 'raw-password');
      expect(raw.code).toBe(1);
      expect(raw.stderr).toMatch(
        /cannot (read the PostgreSQL URL|open PostgreSQL memory at) postgres:\/\/app:\*\*\*@127\.0\.0\.1:abc\/fleet/,
      );
      expect(raw.stderr).toContain('percent-encoded (p%40ss for p@ss)');
      expect(`${raw.stdout}${raw.stderr}`).not.toMatch(/s3cret|p@ss:w/);
    }
  });

  it("says what learn stored when another host's pass holds the memory, and how it gets learned", async () => {
    const url = await server.createDatabase();
    const other = await openPgStore(url, { pollMs: 0, log: quiet });
    stores.push(other);
    const release = await other.tryLock('synthesis:default', 'other-host:1:pass', 60_000);
    expect(release).not.toBeNull();

    const text = cli(['learn', '--db', url, SAMPLE], 'locked');
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/Ingested .*tau-sample\.jsonl: 89 new sessions, 0 already present\./);
    expect(text.stderr).toContain('another synthesis pass is running on namespace default; this one was not started');
    expect(text.stderr).toContain(
      `The 89 new sessions this run stored wait for the next pass: run skillsmith synthesize --db ${url}`,
    );
    expect(await sessionCount(url)).toBe(89);

    // --json: the ingest as always, and no pass.
    const copy = join(home, 'copy.jsonl');
    copyFileSync(SAMPLE, copy);
    const json = cli(['learn', '--db', url, '--json', copy], 'locked');
    expect(json.code).toBe(1);
    const out = JSON.parse(json.stdout);
    expect(out.synthesis).toBeNull();
    expect(out.ingest[0]).toMatchObject({ inserted: 0, skipped: 89 });
    // Why no pass ran, as one line of JSON with the code a REST client gets for it: send it again later.
    expect(JSON.parse(json.stderr)).toEqual({
      error:
        'another synthesis pass is running on namespace default; this one was not started (try again when it is done). Nothing new was stored.',
      code: 'PASS_LOCKED',
    });

    // Once the other pass is done, the sessions this run stored are learned.
    await release!();
    const pass = cli(['synthesize', '--db', url], 'locked');
    expect(pass.code, pass.stderr).toBe(0);
    const skills = cli(['skills', 'list', '--db', url, '--json'], 'locked');
    expect(JSON.parse(skills.stdout).length).toBeGreaterThan(3);
  }, 120_000);

  it('leaves a memory a newer release wrote as it is, and says to upgrade', async () => {
    const url = await server.createDatabase();
    expect(cli(['ingest', '--db', url, SAMPLE], 'newer').code).toBe(0);
    const store = await openPgStore(url, { pollMs: 0, log: quiet });
    await store.pool.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
      latestPgSchemaVersion + 1,
      'from-the-future',
      '2027-01-01T00:00:00.000Z',
    ]);
    await store.close();

    const copy = join(home, 'more.jsonl');
    copyFileSync(join(new URL('..', import.meta.url).pathname, 'examples', 'tau-held-back.jsonl'), copy);
    const r = cli(['ingest', '--db', url, copy], 'newer');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `it was written by a newer Skillsmith (schema version ${latestPgSchemaVersion + 1}; this version knows up to ${latestPgSchemaVersion})`,
    );
    const { rows } = await rawQuery(url, 'SELECT COUNT(*)::int AS n FROM sessions');
    expect(rows[0].n).toBe(89);
  }, 120_000);
});

/** A query on a plain connection (the store refuses this database now: it runs migrations on open). */
async function rawQuery(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('skillsmith serve on a PostgreSQL memory whose server stops', () => {
  it('answers 503 saying the database cannot be reached, health included, and 200 again once it is back', async () => {
    const url = await server.createDatabase();
    expect(cli(['learn', '--db', url, SAMPLE], 'serve').code).toBe(0);
    const child = await startCli(['serve', '--db', url, '--port', '0', '--log-level', 'error'], {
      HOME: join(home, 'serve'),
      XDG_CACHE_HOME: join(home, 'serve', '.cache'),
    });
    try {
      const get = async (path: string) => {
        const res = await fetch(`${child.url}${path}`);
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      expect(await get('/api/health')).toMatchObject({ status: 200, body: { ok: true, store: 'ok' } });
      const recall = async (goal: string) => {
        const res = await fetch(`${child.url}/api/recall`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
          body: JSON.stringify({ goal }),
        });
        return { status: res.status, body: (await res.json()) as { skills?: { name: string }[]; error?: string } };
      };
      // One recall loads the index; the server then reads every skill it can serve, behind the caller.
      expect((await recall('my mobile data is not working')).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1500));
      server.pause();
      try {
        // While the database is away, a skill never served before is served all the same.
        const away = await recall('I want to exchange an item I received');
        expect(away.status, away.body.error).toBe(200);
        expect(away.body.skills?.map((k) => k.name)).toContain('exchange-delivered-order-items');
        const health = await get('/api/health');
        expect(health.status).toBe(503);
        expect(health.body).toMatchObject({ ok: false, store: 'unreachable' });
        expect(String(health.body.error)).toMatch(/^the memory's database cannot be reached \(/);
        const sessions = await get('/api/sessions');
        expect(sessions.status).toBe(503);
        expect(String(sessions.body.error)).toMatch(
          /^the memory's database cannot be reached \(.*\); send the request again once it is back$/,
        );
      } finally {
        server.start();
      }
      await expect.poll(async () => (await get('/api/health')).status, { timeout: 20_000, interval: 200 }).toBe(200);
      expect((await get('/api/sessions')).status).toBe(200);
    } finally {
      await child.stop();
    }
  }, 120_000);
});

it('over MCP, a call made while the database is away says so and to send it again, as REST does', async () => {
  const url = await server.createDatabase();
  const memory = await openMemory({ db: url, logLevel: 'silent' });
  const mcp = await serveMcpHttp(memory, { port: 0 });
  const client = new Client({ name: 'pg-outage', version: '1' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
    const call = (tool: string) =>
      client.callTool({ name: 'record_tool_call', arguments: { session_id: 'mcp-pg', goal: 'Rotate keys', tool } });
    expect(((await call('list_keys')) as { isError?: boolean }).isError).toBeFalsy();
    server.pause();
    try {
      const away = (await call('rotate_key')) as {
        isError?: boolean;
        content: { text: string }[];
        _meta?: Record<string, unknown>;
      };
      expect(away.isError).toBe(true);
      expect(away.content[0].text).toMatch(
        /^the memory's database cannot be reached \(.*\); send the call again once it is back$/,
      );
      // The code REST's 503 carries, to branch on without reading the words.
      expect(away._meta?.['skillsmith/error']).toEqual({ error: away.content[0].text, code: 'STORE_UNREACHABLE' });
    } finally {
      server.start();
    }
    await expect
      .poll(async () => ((await call('rotate_key')) as { isError?: boolean }).isError ?? false, { timeout: 20_000 })
      .toBe(false);
  } finally {
    await client.close();
    await mcp.close();
    await memory.close();
  }
}, 60_000);

it('says once that it upgraded a memory an earlier release wrote, on SQLite and on PostgreSQL, doctor included', async () => {
  // A SQLite file one schema version behind.
  const file = join(home, 'older.db');
  const raw = new Database(file);
  migrate(raw, latestSchemaVersion - 1);
  raw.close();
  const first = cli(['skills', 'list', '--db', file], 'upgrade');
  expect(first.code, first.stderr).toBe(0);
  expect(first.stderr).toContain(
    `skillsmith: upgraded the memory at ${file} from schema version ${latestSchemaVersion - 1} to ${latestSchemaVersion} (once; everything it held is kept`,
  );
  expect(cli(['skills', 'list', '--db', file], 'upgrade').stderr).not.toContain('upgraded');
  // doctor reads a memory: when it had to upgrade it, it says so too.
  const other = join(home, 'older-doctor.db');
  const raw2 = new Database(other);
  migrate(raw2, latestSchemaVersion - 1);
  raw2.close();
  expect(cli(['doctor', '--db', other], 'upgrade').stderr).toContain(`upgraded the memory at ${other}`);

  // A PostgreSQL database one version behind, its URL with a password: masked here too.
  const url = await urlWithPassword();
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await migratePg(pool, latestPgSchemaVersion - 1);
  } finally {
    await pool.end();
  }
  const r = cli(['skills', 'list', '--db', url], 'upgrade');
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain(
    `skillsmith: upgraded the memory at ${url.replace('s3cret-pw', '***')} from schema version ${latestPgSchemaVersion - 1} to ${latestPgSchemaVersion}`,
  );
  expect(cli(['skills', 'list', '--db', url], 'upgrade').stderr).not.toContain('upgraded');
}, 120_000);

it('a new memory given the same sessions twice in one run says so, not that it reused a memory', () => {
  const db = join(home, 'twice.db');
  const copy = join(home, 'twice-copy.jsonl');
  copyFileSync(SAMPLE, copy);
  expect(existsSync(db)).toBe(false);
  const r = cli(['learn', '--db', db, SAMPLE, copy], 'twice');
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).not.toContain('This reused an existing memory');
  expect(r.stdout).toContain('89 sessions given more than once in these files: each is stored once.');
  const again = cli(['learn', '--db', db, SAMPLE], 'twice');
  expect(again.stdout).toContain('This reused an existing memory');
}, 120_000);
