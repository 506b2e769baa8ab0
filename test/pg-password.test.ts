// Where the CLI finds a PostgreSQL password when the URL has none, as psql does: PGPASSWORD, else the password file
// (~/.pgpass, or the one PGPASSFILE names). A cluster of its own asks the user `fleet` for a password (SCRAM); the
// printed follow-up commands leave the password out of the URL, so they must run as pasted with the file in place.
// The driver's own look-up prints a deprecation warning on every run: the CLI's output carries none. With no password
// at all the CLI says where one goes, and exits at once (it used to wait for the server's minute-long login timeout).
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuiltCli } from './support/built-cli.js';
import { startPgServer, type PgServer } from './support/pg-server.js';
import { SAMPLE } from './support/surfaces.js';

const PASSWORD = 'pgpass-S3cret';
let dir: string;
let server: PgServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'skillsmith-pg-password-'));
  server = await startPgServer({ hba: ['host all fleet 127.0.0.1/32 scram-sha-256'] });
  const admin = new pg.Client({ connectionString: server.url() });
  await admin.connect();
  try {
    await admin.query(`CREATE ROLE fleet LOGIN PASSWORD '${PASSWORD}'`);
  } finally {
    await admin.end();
  }
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh database `fleet` owns, and its URL with no password in it. */
async function fleetDatabase(): Promise<string> {
  const url = await server.createDatabase();
  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: server.url() });
  await admin.connect();
  try {
    await admin.query(`ALTER DATABASE "${name}" OWNER TO fleet`);
  } finally {
    await admin.end();
  }
  return `postgres://fleet@127.0.0.1:${server.port}/${name}`;
}

/** A home of its own whose ~/.pgpass holds `lines` (mode 0600, as libpq requires). */
function homeWith(name: string, lines: string[] | null): string {
  const home = join(dir, name);
  mkdirSync(home, { recursive: true });
  if (lines) {
    writeFileSync(join(home, '.pgpass'), `${lines.join('\n')}\n`);
    chmodSync(join(home, '.pgpass'), 0o600);
  }
  return home;
}

function cli(args: string[], home: string, env: Record<string, string> = {}) {
  const r = runBuiltCli(args, {
    cwd: dir,
    env: { HOME: home, XDG_CACHE_HOME: join(home, '.cache'), XDG_DATA_HOME: join(home, '.local', 'share'), ...env },
    unset: ['SKILLSMITH_TOKEN', 'PGPASSWORD', 'PGPASSFILE', 'PGUSER', 'PGSSLMODE'],
  });
  expect(`${r.stdout}${r.stderr}`).not.toContain(PASSWORD);
  expect(r.stderr).not.toMatch(/DeprecationWarning|pgpass support is deprecated/);
  return r;
}

describe('a PostgreSQL password from PGPASSWORD or the password file', () => {
  it('learns and recalls with the password in ~/.pgpass, and the follow-up command it prints runs as pasted', async () => {
    const url = await fleetDatabase();
    const home = homeWith('pgpass', ['# the fleet', `127.0.0.1:${server.port}:*:fleet:${PASSWORD}`]);
    const learn = cli(['learn', '--db', url, SAMPLE], home);
    expect(learn.code, learn.stderr).toBe(0);
    expect(learn.stdout).toMatch(/89 new sessions/);
    expect(learn.stdout).toContain(`--db ${url}`);
    const recall = cli(['recall', '--db', url, '--json', 'I want to return the headphones I received'], home);
    expect(recall.code, recall.stderr).toBe(0);
    expect(JSON.parse(recall.stdout).length).toBeGreaterThan(0);
  }, 120_000);

  it('PGPASSFILE names another file; PGPASSWORD comes before the file', async () => {
    const url = await fleetDatabase();
    const elsewhere = join(dir, 'fleet.pgpass');
    writeFileSync(elsewhere, `*:*:*:fleet:${PASSWORD}\n`);
    chmodSync(elsewhere, 0o600);
    const home = homeWith('pgpassfile', null);
    expect(cli(['recall', '--db', url, 'x'], home, { PGPASSFILE: elsewhere }).code).toBe(0);
    const wrong = cli(['recall', '--db', url, 'x'], home, { PGPASSFILE: elsewhere, PGPASSWORD: 'not-it' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('password authentication failed for user "fleet"');
    expect(wrong.stderr).toContain('~/.pgpass');
    expect(cli(['recall', '--db', url, 'x'], home, { PGPASSWORD: PASSWORD }).code).toBe(0);
  }, 60_000);

  it('with no password anywhere (no matching line, or a file others may read) it says where a password goes', async () => {
    const url = await fleetDatabase();
    for (const home of [homeWith('no-match', [`db.example:5432:*:fleet:${PASSWORD}`]), homeWith('no-file', null)]) {
      // It ends as soon as it says so: the connection is closed, not left for the server to time out (a minute).
      const started = Date.now();
      const r = cli(['recall', '--db', url, 'x'], home);
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('the server asks for a password and none was given');
      expect(r.stderr).toContain('~/.pgpass');
    }
    const open = homeWith('readable', [`*:*:*:fleet:${PASSWORD}`]);
    chmodSync(join(open, '.pgpass'), 0o644);
    const r = cli(['recall', '--db', url, 'x'], open);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('has group or world access');
  }, 60_000);
});
