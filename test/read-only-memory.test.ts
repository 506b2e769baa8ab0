// A memory file this account may only read (a read-only mount, a file another user owns, a shared skills
// library): recall, listing and export work; a command that writes is refused with the file named, and the file is
// left as it was. As root, file modes bind nobody, so the CLI runs as the unprivileged user `nobody` (setpriv).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { CONFIG_ENV } from '../src/config/sources.js';
import { learnSample, ROOT } from './support/surfaces.js';

const asRoot = process.getuid?.() === 0;
let dir: string;
let out: string;
let db: string;

/** The built CLI as an account that may not write `dir` (nobody when the tests run as root). */
function cli(args: string[], input?: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: out };
  for (const name of ['SKILLSMITH_DB', 'SKILLSMITH_CONFIG', ...CONFIG_ENV.map((v) => v.name)]) delete env[name];
  const main = join(ROOT, 'dist', 'surfaces', 'cli', 'main.js');
  const [cmd, argv] = asRoot
    ? ['setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, main, ...args]]
    : [process.execPath, [main, ...args]];
  const r = spawnSync(cmd, argv, { cwd: out, env, encoding: 'utf8', input });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'skillsmith-ro-'));
  out = mkdtempSync(join(tmpdir(), 'skillsmith-ro-out-'));
  db = join(dir, 'skills.db');
  await learnSample(db);
  // Read-only for the account the CLI runs as: the file, and the folder (SQLite's WAL mode writes beside it).
  for (const f of readdirSync(dir)) chmodSync(join(dir, f), 0o444);
  chmodSync(dir, 0o555);
  chmodSync(out, 0o777);
}, 120_000);

afterAll(() => {
  chmodSync(dir, 0o755);
  rmSync(dir, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
});

describe('a memory file this account may only read', () => {
  it('recalls, lists and exports its skills; the file is unchanged', () => {
    const before = digest(db);
    const recall = cli(['recall', 'I want to return a laptop', '--db', db, '--json']);
    expect(recall.stderr).not.toMatch(/readonly|read-only/);
    expect(recall.code).toBe(0);
    const hits = JSON.parse(recall.stdout) as { name: string }[];
    expect(hits.length).toBeGreaterThan(0);
    expect(hits[0].name).toMatch(/return|exchange/);

    const hook = cli(['recall', '--hook', '--db', db], JSON.stringify({ prompt: 'I want to return a laptop' }));
    expect(hook.code).toBe(0);
    expect(hook.stdout).toContain('## Relevant procedures from past runs');

    const list = cli(['skills', 'list', '--db', db, '--json']);
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as unknown[]).length).toBeGreaterThan(0);

    const exported = cli(['skills', 'export', '--out', join(out, 'skills'), '--db', db]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(readdirSync(join(out, 'skills')).length).toBe((JSON.parse(list.stdout) as unknown[]).length);
    expect(digest(db)).toBe(before);
    expect(readdirSync(dir).some((f) => f.endsWith('-wal') || f.endsWith('-shm'))).toBe(false);
  });

  it('refuses a command that writes, naming the file, and stores nothing', () => {
    const before = digest(db);
    for (const args of [
      ['ingest', join(ROOT, 'test', 'fixtures', 'traces', 'bfcl-multi-turn-base.jsonl')],
      ['synthesize'],
      ['skills', 'disable', 'fix-phone-service'],
    ]) {
      const r = cli([...args, '--db', db]);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toContain(`the SQLite memory at ${db} is open read-only`);
      expect(r.stderr).not.toMatch(/attempt to write a readonly database/);
    }
    expect(digest(db)).toBe(before);
  });

  it('serves the dashboard API: reads answer, a write is a 409 that says why', async () => {
    const main = join(ROOT, 'dist', 'surfaces', 'cli', 'main.js');
    const args = [main, 'serve', '--port', '0', '--db', db];
    const child = asRoot
      ? spawn('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...args], {
          env: { ...process.env, HOME: out, SKILLSMITH_TOKEN: '' },
        })
      : spawn(process.execPath, args, { env: { ...process.env, HOME: out, SKILLSMITH_TOKEN: '' } });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stdout.on('data', (c: Buffer) => {
          text += c.toString();
          const m = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(text);
          if (m) resolve(m[1]);
        });
        child.stderr.on('data', (c: Buffer) => (text += c.toString()));
        child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${text}`)));
      });
      const skills = await fetch(`${url}/api/skills`);
      expect(skills.status).toBe(200);
      expect(((await skills.json()) as { total: number }).total).toBeGreaterThan(0);
      const disable = await fetch(`${url}/api/skills/fix-phone-service`, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
        body: JSON.stringify({ enabled: false }),
      });
      expect(disable.status).toBe(409);
      expect(((await disable.json()) as { error: string }).error).toContain('is open read-only');
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('refuses a file whose write-ahead log holds changes it would not see', async () => {
    // Another process is writing: its log is beside the file, not yet copied in.
    chmodSync(dir, 0o755);
    const writer = await openMemory({ db, logLevel: 'silent', auditFile: null });
    try {
      const live = await writer.startSession({ goal: 'Rotate the keys', id: 'late' });
      await live.call({ tool: 'list_keys', args: {}, result: '3 keys' });
      expect(existsSync(`${db}-wal`)).toBe(true);
      chmodSync(dir, 0o555);
      const r = cli(['skills', 'list', '--db', db]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/write-ahead log .* holds changes not yet in the file/);
      expect(r.stderr.match(/cannot open SQLite memory/g)).toHaveLength(1);
    } finally {
      chmodSync(dir, 0o755);
      await writer.close();
      for (const f of readdirSync(dir)) chmodSync(join(dir, f), 0o444);
      chmodSync(dir, 0o555);
    }
  });
});
