// Backing up a memory and restoring it, as an operator does it with the built CLI (README "Backing up a memory"):
// `skillsmith migrate` is the backup. A copy only reads its source: a memory an earlier release wrote (a backup kept
// from before an upgrade, a fleet not yet upgraded) is left as that release wrote it.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestPgSchemaVersion } from '../src/store/postgres/migrations.js';
import { migratePg } from '../src/store/postgres/pg-store.js';
import { latestSchemaVersion } from '../src/store/sqlite/migrations.js';
import { migrate } from '../src/store/sqlite/sqlite-store.js';
import { BUILT_CLI, runBuiltCli } from './support/built-cli.js';
import { startPgServer, type PgServer } from './support/pg-server.js';
import { SAMPLE, startCli } from './support/surfaces.js';

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

const userEnv = () => ({
  HOME: dir,
  XDG_CACHE_HOME: join(dir, '.cache'),
  XDG_DATA_HOME: join(dir, '.local', 'share'),
});

function cli(args: string[]) {
  return runBuiltCli(args, { cwd: dir, env: userEnv(), unset: ['SKILLSMITH_TOKEN'] });
}

/** The built CLI without blocking this process (which keeps recording meanwhile). */
async function cliAsync(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...userEnv() };
  for (const name of ['SKILLSMITH_DB', 'SKILLSMITH_CONFIG', 'SKILLSMITH_TOKEN']) delete env[name];
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BUILT_CLI, ...args], { cwd: dir, env });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const failed = e as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const TOOLS = ['find_user_id_by_email', 'get_order_details', 'return_delivered_order_items'];

/** Records sessions through REST, one after another, until `stop()`: each of three calls, then ended. */
function recordUntilStopped(base: string) {
  const ended: string[] = [];
  let stopping = false;
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
      body: JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  };
  const done = (async () => {
    for (let i = 0; !stopping; i++) {
      const id = `live-${i}`;
      await post('/api/sessions', { id, goal: `Return the broken office chair of order ${i}` });
      for (const tool of TOOLS) await post(`/api/sessions/${id}/calls`, { tool, args: { order: i }, result: 'ok' });
      await post(`/api/sessions/${id}/end`, { outcome: 'success' });
      ended.push(id);
    }
  })();
  return {
    ended,
    stop: async () => {
      stopping = true;
      await done;
    },
  };
}

const auditIds = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { id: number }).id);

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

describe('backing up a SQLite memory in use, and restoring it (README "Backing up a memory")', () => {
  it('migrate takes a complete, consistent copy while serve records sessions; the copy opens, recalls and restores', async () => {
    const live = join(dir, 'live', 'skillsmith.db');
    mkdirSync(join(dir, 'live'));
    expect(cli(['learn', '--db', live, SAMPLE]).code).toBe(0);
    const server = await startCli(['serve', '--db', live, '--port', '0'], userEnv());
    const writer = recordUntilStopped(server.url);
    let backup: string;
    let endedBefore: string[];
    try {
      await expect.poll(() => writer.ended.length, { timeout: 20_000 }).toBeGreaterThan(20);
      endedBefore = [...writer.ended];
      backup = join(dir, 'backups', 'skillsmith-1.db');
      const r = await cliAsync(['migrate', '--from', live, '--to', backup]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('Verified:');
      // The writer went on during the copy and after it.
      const endedDuring = writer.ended.length;
      await expect.poll(() => writer.ended.length, { timeout: 20_000 }).toBeGreaterThan(endedDuring + 5);
    } finally {
      await writer.stop();
      await server.stop();
    }

    // One file, nothing beside it yet: no -wal to forget when it is moved or archived.
    expect(existsSync(`${backup}-wal`)).toBe(false);
    const db = new Database(backup, { readonly: true });
    const ids = (db.prepare(`SELECT id FROM sessions WHERE id LIKE 'live-%'`).all() as { id: string }[]).map(
      (r) => r.id,
    );
    // Complete as of a point in time: every session ended before the copy began is in it, and what is in it is
    // whole (an ended session has all its calls; only the one in flight at that moment may lack some).
    for (const id of endedBefore) expect(ids).toContain(id);
    const partial = db
      .prepare(
        `SELECT s.id, s.ended_at IS NOT NULL AS ended, COUNT(c.position) AS calls FROM sessions s
         LEFT JOIN tool_calls c ON c.namespace = s.namespace AND c.session_id = s.id
         WHERE s.id LIKE 'live-%' GROUP BY s.id HAVING calls < 3 OR ended = 0`,
      )
      .all() as { id: string; ended: number; calls: number }[];
    expect(partial.length).toBeLessThanOrEqual(1);
    for (const p of partial) expect(p.ended).toBe(0);
    expect(ids.length).toBeLessThan(writer.ended.length);
    const auditRows = (db.prepare('SELECT COUNT(*) AS n FROM audit').get() as { n: number }).n;
    db.close();

    // The copy is a memory: it recalls, and writes its own audit file, every record of its audit table.
    const recalled = cli(['recall', 'I want to return the office chair, it came broken', '--db', backup, '--json']);
    expect(recalled.code, recalled.stderr).toBe(0);
    expect((JSON.parse(recalled.stdout) as unknown[]).length).toBeGreaterThan(0);
    expect(cli(['skills', 'list', '--db', backup]).code).toBe(0);
    expect(auditIds(`${backup}.audit.jsonl`)).toEqual(Array.from({ length: auditRows }, (_, i) => i + 1));

    // Restoring at the memory's own path: migrate refuses while the lost memory's audit file is there ...
    const lost = join(dir, 'lost');
    mkdirSync(lost);
    for (const f of [live, `${live}-wal`, `${live}-shm`])
      if (existsSync(f)) renameSync(f, join(lost, f.split('/').pop()!));
    const refused = cli(['migrate', '--from', backup, '--to', live]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${live}.audit.jsonl is already there`);
    // ... and copies the backup in once it is moved away; the restored memory learns on.
    renameSync(`${live}.audit.jsonl`, join(lost, 'skillsmith.db.audit.jsonl'));
    const restored = cli(['migrate', '--from', backup, '--to', live]);
    expect(restored.code, restored.stderr).toBe(0);
    const learned = cli(['learn', '--db', live, SAMPLE]);
    expect(learned.code, learned.stderr).toBe(0);
    const again = cli(['recall', 'I want to return the office chair, it came broken', '--db', live, '--json']);
    expect((JSON.parse(again.stdout) as unknown[]).length).toBeGreaterThan(0);
    expect(auditIds(`${live}.audit.jsonl`).slice(0, auditRows)).toEqual(
      Array.from({ length: auditRows }, (_, i) => i + 1),
    );
  }, 120_000);
});

describe('backing up a PostgreSQL memory to a SQLite file', () => {
  it('migrate copies it, as a user granted SELECT only; the file opens and recalls without the database', async () => {
    const url = await server.createDatabase();
    expect(cli(['learn', '--db', url, SAMPLE]).code).toBe(0);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(
        `CREATE ROLE backup_reader LOGIN; GRANT SELECT ON ALL TABLES IN SCHEMA public TO backup_reader`,
      );
    } finally {
      await admin.end();
    }
    const reader = url.replace('postgres@', 'backup_reader@');
    const file = join(dir, 'fleet-2025.db');
    const r = cli(['migrate', '--from', reader, '--to', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Verified:');
    const recalled = cli(['recall', 'I want to return the office chair, it came broken', '--db', file, '--json']);
    expect(recalled.code, recalled.stderr).toBe(0);
    expect((JSON.parse(recalled.stdout) as unknown[]).length).toBeGreaterThan(0);
  }, 120_000);
});
