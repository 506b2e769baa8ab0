// `migrate` and the audit JSONL file beside a SQLite memory. The file is a copy of the audit table, and a mark in
// the memory says how far it was written. The copy carries the table and leaves the mark behind: a laptop memory
// that went to PostgreSQL and came back to the same path writes a complete file again (the mark that travelled with
// it once left the first records out), and a target whose audit file is already there is refused rather than
// mixed into another memory's records.
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuiltCli } from './support/built-cli.js';
import { startPgServer, type PgServer } from './support/pg-server.js';
import { SAMPLE } from './support/surfaces.js';

let dir: string;
let server: PgServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'skillsmith-migrate-audit-'));
  server = await startPgServer();
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[]) {
  const r = runBuiltCli(args, {
    cwd: dir,
    env: { HOME: dir, XDG_CACHE_HOME: join(dir, '.cache'), XDG_DATA_HOME: join(dir, '.local', 'share') },
    unset: ['SKILLSMITH_TOKEN'],
  });
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
}

const auditIds = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { id: number }).id);

async function rows(url: string, text: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

describe('migrate and the audit JSONL file', () => {
  it('a memory back from PostgreSQL at its old path writes every audit record to a new file, once', async () => {
    const laptop = join(dir, 'laptop.db');
    cli(['learn', '--db', laptop, SAMPLE]);
    const first = auditIds(`${laptop}.audit.jsonl`);
    expect(first.length).toBeGreaterThan(0);

    const url = await server.createDatabase();
    cli(['migrate', '--from', laptop, '--to', url]);
    // The mark says how far the file beside the laptop's memory got: it stays with that file.
    expect(await rows(url, `SELECT key FROM state WHERE key LIKE 'audit-file:%'`)).toEqual([]);
    expect(await rows(url, 'SELECT count(*)::int AS n FROM audit')).toEqual([{ n: first.length }]);

    // The fleet changes the memory; then it comes back to the laptop, where the old file was archived.
    const name = JSON.parse(cli(['skills', 'list', '--db', url, '--json']).stdout)[0].name as string;
    cli(['skills', 'forget', name, '--db', url]);
    for (const f of [laptop, `${laptop}-wal`, `${laptop}-shm`]) if (existsSync(f)) rmSync(f);
    renameSync(`${laptop}.audit.jsonl`, join(dir, 'archived.audit.jsonl'));
    cli(['migrate', '--from', url, '--to', laptop]);
    cli(['skills', 'list', '--db', laptop]);
    const all = first.length + 1;
    expect(auditIds(`${laptop}.audit.jsonl`)).toEqual(Array.from({ length: all }, (_, i) => i + 1));
  }, 120_000);

  it('refuses a SQLite target whose audit file is already there, and leaves it as it was', async () => {
    const source = join(dir, 'source.db');
    cli(['learn', '--db', source, SAMPLE]);
    const target = join(dir, 'reused.db');
    const stale = '{"id":1,"namespace":"default","action":"skill.create","detail":{"from":"an older memory"}}\n';
    writeFileSync(`${target}.audit.jsonl`, stale);
    const r = runBuiltCli(['migrate', '--from', source, '--to', target], {
      cwd: dir,
      env: { HOME: dir },
      unset: ['SKILLSMITH_TOKEN'],
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${target}.audit.jsonl is already there, beside the target`);
    expect(r.stderr).toContain('Move it away and run migrate again');
    expect(readFileSync(`${target}.audit.jsonl`, 'utf8')).toBe(stale);
    expect(existsSync(target)).toBe(false);
  }, 60_000);
});
