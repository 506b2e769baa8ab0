// Backing up a memory and restoring it, as an operator does it with the built CLI (README "Backing up a memory"):
// `skillsmith migrate` is the backup. A copy only reads its source: a memory an earlier release wrote (a backup kept
// from before an upgrade, a fleet not yet upgraded) is left as that release wrote it.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestPgSchemaVersion } from '../src/store/postgres/migrations.js';
import { migratePg } from '../src/store/postgres/pg-store.js';
import { latestSchemaVersion } from '../src/store/sqlite/migrations.js';
import { migrate } from '../src/store/sqlite/sqlite-store.js';
import { runBuiltCli } from './support/built-cli.js';
import { startPgServer, type PgServer } from './support/pg-server.js';

let dir: string;
let server: PgServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'skillsmith-backup-'));
  server = await startPgServer();
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[]) {
  return runBuiltCli(args, {
    cwd: dir,
    env: { HOME: dir, XDG_CACHE_HOME: join(dir, '.cache'), XDG_DATA_HOME: join(dir, '.local', 'share') },
    unset: ['SKILLSMITH_TOKEN'],
  });
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

const OLD_SESSION = `INSERT INTO sessions (namespace, id, goal, outcome, started_at, ended_at)
  VALUES ('default', 'kept-1', 'Return the office chair that came broken', 'success', '2025-01-01T00:00:00Z', '2025-01-01T00:01:00Z')`;

describe('migrate from a memory an earlier release wrote', () => {
  it('copies a SQLite file one schema version behind and upgrades the copy, leaving the file byte for byte', () => {
    const old = join(dir, 'earlier.db');
    const raw = new Database(old);
    migrate(raw, latestSchemaVersion - 1);
    raw.exec(OLD_SESSION);
    raw.close();
    const before = sha256(old);

    const copy = join(dir, 'earlier-copy.db');
    const r = cli(['migrate', '--from', old, '--to', copy]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Verified:');
    // The earlier release can still open it: not upgraded, not touched, no -wal or -shm left beside it.
    expect(sha256(old)).toBe(before);
    expect(existsSync(`${old}-wal`) || existsSync(`${old}-shm`)).toBe(false);
    const check = new Database(old, { readonly: true });
    expect(check.prepare('SELECT MAX(version) AS v FROM schema_migrations').get()).toEqual({
      v: latestSchemaVersion - 1,
    });
    check.close();
    // The copy is current and holds what the file held.
    const listed = cli(['sessions', 'list', '--db', copy, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { items: { id: string }[] }).items.map((s) => s.id)).toEqual(['kept-1']);
    const current = new Database(copy, { readonly: true });
    expect(current.prepare('SELECT MAX(version) AS v FROM schema_migrations').get()).toEqual({
      v: latestSchemaVersion,
    });
    current.close();
  }, 60_000);

  it('refuses a PostgreSQL memory one schema version behind, and leaves it as it was', async () => {
    const url = await server.createDatabase();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      await migratePg(pool, latestPgSchemaVersion - 1);
      await pool.query(OLD_SESSION);
    } finally {
      await pool.end();
    }
    const target = join(dir, 'fleet-backup.db');
    const r = cli(['migrate', '--from', url, '--to', target]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `is at schema version ${latestPgSchemaVersion - 1}, an earlier release's (this one writes version ${latestPgSchemaVersion}), and copying it would upgrade it in place; nothing was changed`,
    );
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect((await client.query('SELECT MAX(version) AS v FROM schema_migrations')).rows).toEqual([
        { v: latestPgSchemaVersion - 1 },
      ]);
    } finally {
      await client.end();
    }
    expect(existsSync(target)).toBe(false);
  }, 60_000);
});
