// A memory file this account may only read (a read-only mount, a file another user owns, a shared skills
// library): recall, listing and export work, reading the file where it lies (not a copy of it in memory) with what
// a writer elsewhere committed; a command that writes is refused with the file named, and the folder is left as it
// was. As root, file modes bind nobody, so the CLI runs as the unprivileged user `nobody` (setpriv), and the test
// process (root) plays the writer elsewhere: another user, or the same memory mounted read-write in another
// container.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  mkdirSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { CONFIG_ENV } from '../src/config/sources.js';
import { learnSample, ROOT } from './support/surfaces.js';

const asRoot = process.getuid?.() === 0;
const MAIN = join(ROOT, 'dist', 'surfaces', 'cli', 'main.js');
const PEAK_RSS = join(ROOT, 'test', 'fixtures', 'peak-rss.mjs');
let out: string;
/** A learned memory, writable: each test reads a copy of it. */
let master: string;
let skillNames: string[];
let sessionCount: number;
const folders: string[] = [];

/** The argv that runs `node ...args` as an account that may not write the test's folders (nobody under root). */
function asReader(args: string[]): [string, string[]] {
  return asRoot
    ? ['setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...args]]
    : [process.execPath, args];
}

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, HOME: out, SKILLSMITH_TOKEN: '', ...extra };
  for (const name of ['SKILLSMITH_DB', 'SKILLSMITH_CONFIG', ...CONFIG_ENV.map((v) => v.name)]) delete e[name];
  return e;
}

/** The built CLI as that account. `peak`: the process's peak RSS (kB) is reported as the last stderr line. */
function cli(args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv; peak?: boolean } = {}) {
  const [cmd, argv] = asReader([...(opts.peak ? ['--import', PEAK_RSS] : []), MAIN, ...args]);
  const r = spawnSync(cmd, argv, { cwd: out, env: env(opts.env), encoding: 'utf8', input: opts.input });
  if (r.error) throw r.error;
  const peak = /^peak-rss-kb (\d+)$/m.exec(r.stderr);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, peakKb: peak ? Number(peak[1]) : null };
}

/** How the CLI said it opened the memory (its debug line), or undefined when it said nothing. */
function openedHow(stderr: string): string | undefined {
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    const l = JSON.parse(line) as { msg?: string; how?: string };
    if (l.msg?.startsWith('SQLite memory opened')) return l.msg.includes('from a copy') ? 'copy' : l.how;
  }
  return undefined;
}

const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Every file of a folder: name, size, modification time and bytes (a file added or removed shows too). */
function folderState(dir: string): Record<string, string> {
  const state: Record<string, string> = {};
  for (const f of readdirSync(dir).sort()) {
    const st = statSync(join(dir, f), { bigint: true });
    state[f] = `${st.size}:${st.mtimeNs}:${digest(join(dir, f))}`;
  }
  return state;
}

/**
 * A copy of the learned memory in a folder of its own, the file made read-only and the folder given `mode` (0o555:
 * nobody may write it; 0o777: anybody may). `padMB`: a table of that many MB added first (a large memory).
 */
function readOnlyCopy(opts: { mode?: number; padMB?: number } = {}): { dir: string; db: string } {
  const dir = mkdtempSync(join(tmpdir(), 'skillsmith-ro-'));
  folders.push(dir);
  const db = join(dir, 'skills.db');
  copyFileSync(master, db);
  if (opts.padMB) {
    const raw = new Database(db);
    raw.exec('CREATE TABLE bulk (b BLOB)');
    const add = raw.prepare('INSERT INTO bulk VALUES (zeroblob(1048576))');
    raw.transaction(() => {
      for (let i = 0; i < opts.padMB!; i++) add.run();
    })();
    raw.close();
  }
  chmodSync(db, 0o444);
  chmodSync(dir, opts.mode ?? 0o555);
  return { dir, db };
}

/** A writer elsewhere: the test process (root), which may write the file. */
const writer = (db: string) => openMemory({ db, logLevel: 'silent', auditFile: null });

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'skillsmith-ro-out-'));
  chmodSync(out, 0o777);
  master = join(out, 'master', 'skills.db');
  await learnSample(master);
  const memory = await writer(master);
  skillNames = (await memory.skills.list()).map((s) => s.name).sort();
  sessionCount = await memory.sessions.count();
  await memory.close();
  expect(skillNames.length).toBeGreaterThan(1);
}, 120_000);

afterAll(() => {
  for (const dir of folders) {
    chmodSync(dir, 0o755);
    rmSync(dir, { recursive: true, force: true });
  }
  rmSync(out, { recursive: true, force: true });
});

const listed = (stdout: string) => (JSON.parse(stdout) as { name: string }[]).map((s) => s.name).sort();

describe('a memory file this account may only read', () => {
  it('in a read-only folder: recall, hook, listing, export and backup read it where it lies; the folder is unchanged', () => {
    const { dir, db } = readOnlyCopy();
    const before = folderState(dir);
    const recall = cli(['recall', 'I want to return a laptop', '--db', db, '--json', '--log-level', 'debug']);
    expect(recall.code, recall.stderr).toBe(0);
    expect(openedHow(recall.stderr)).toBe('immutable');
    const hits = JSON.parse(recall.stdout) as { name: string }[];
    expect(hits.length).toBeGreaterThan(0);
    expect(hits[0].name).toMatch(/return|exchange/);

    const hook = cli(['recall', '--hook', '--db', db], {
      input: JSON.stringify({ prompt: 'I want to return a laptop' }),
    });
    expect(hook.code).toBe(0);
    expect(hook.stdout).toContain('## Relevant procedures from past runs');

    const list = cli(['skills', 'list', '--db', db, '--json', '--log-level', 'debug']);
    expect(list.code, list.stderr).toBe(0);
    expect(openedHow(list.stderr)).toBe('immutable');
    expect(listed(list.stdout)).toEqual(skillNames);

    const exported = cli(['skills', 'export', '--out', join(out, 'skills'), '--db', db]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(readdirSync(join(out, 'skills')).length).toBe(skillNames.length);

    const backup = join(out, 'backup-a.db');
    const migrated = cli(['migrate', '--from', db, '--to', backup]);
    expect(migrated.code, migrated.stderr).toBe(0);
    const fromBackup = cli(['skills', 'list', '--db', backup, '--json']);
    expect(listed(fromBackup.stdout)).toEqual(skillNames);

    expect(folderState(dir)).toEqual(before);
  });

  it('a large one is not copied into memory: the process holds less than the file', () => {
    // 160 MB of other rows: a copy in memory alone would hold all of it (twice: the bytes read, then SQLite's copy).
    const { dir, db } = readOnlyCopy({ padMB: 160 });
    const before = folderState(dir);
    for (const args of [
      ['recall', 'I want to return a laptop', '--db', db, '--json'],
      ['skills', 'list', '--db', db, '--json'],
    ]) {
      const r = cli(args, { peak: true });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.length).toBeGreaterThan(2);
      expect(r.peakKb, args[0]).toBeLessThan(160 * 1024);
    }
    expect(folderState(dir)).toEqual(before);
  });

  it('a file it may not write in a folder it may: read in place, no -wal or -shm left beside it', () => {
    const { dir, db } = readOnlyCopy({ mode: 0o777 });
    const bytes = digest(db);
    const mtime = statSync(db).mtimeMs;
    for (const args of [
      ['recall', 'I want to return a laptop', '--db', db, '--json', '--log-level', 'debug'],
      ['skills', 'list', '--db', db, '--json', '--log-level', 'debug'],
    ]) {
      const r = cli(args);
      expect(r.code, r.stderr).toBe(0);
      expect(openedHow(r.stderr)).toBe('immutable');
    }
    expect(listed(cli(['skills', 'list', '--db', db, '--json']).stdout)).toEqual(skillNames);
    expect(readdirSync(dir).filter((f) => f.endsWith('-wal') || f.endsWith('-shm'))).toEqual([]);
    expect(digest(db)).toBe(bytes);
    expect(statSync(db).mtimeMs).toBe(mtime);
  });

  it('with no index saved beside it, keeps one in its own cache: the next process loads it instead of building it', () => {
    const { dir, db } = readOnlyCopy();
    const before = folderState(dir);
    const cache = join(out, `cache-${folders.length}`);
    mkdirSync(cache, { mode: 0o777 });
    chmodSync(cache, 0o777);
    const ask = () =>
      cli(['recall', 'I want to return a laptop', '--db', db, '--json', '--log-level', 'debug'], {
        env: { XDG_CACHE_HOME: cache, SKILLSMITH_RECALL_DAEMON: '0' },
      });
    const first = ask();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain('could not save the recall index file');
    const saved = join(cache, 'skillsmith', 'recall');
    expect(readdirSync(saved).filter((f) => f.endsWith('.idx'))).toHaveLength(1);
    // A process that built the index again would save it again: loaded, the file is left as it was.
    const kept = folderState(saved);
    const second = ask();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain('recall index file not used');
    expect(folderState(saved)).toEqual(kept);
    expect(JSON.parse(second.stdout)).toEqual(JSON.parse(first.stdout));
    expect(folderState(dir)).toEqual(before);
  });

  it.skipIf(!asRoot)(
    'loads the recall index graph another account saved beside it, rather than rebuilding it',
    async () => {
      // A graph (HNSW) index from the first skill on, as a memory of thousands of skills has; saved by its owner.
      const recall = { annFrom: 1 };
      const config = join(out, 'ann-from-1.json');
      writeFileSync(config, JSON.stringify({ recall }));
      const { dir, db } = readOnlyCopy();
      const memory = await openMemory({ db, logLevel: 'silent', auditFile: null, config: { recall } });
      await memory.recall('I want to return a laptop');
      await memory.close();
      expect(readdirSync(dir).filter((f) => f.endsWith('.hnsw'))).toHaveLength(1);
      for (const f of readdirSync(dir)) chmodSync(join(dir, f), 0o444);
      const before = folderState(dir);
      const r = cli([
        'recall',
        'I want to return a laptop',
        '--db',
        db,
        '--config',
        config,
        '--json',
        '--log-level',
        'debug',
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('recall index file not used');
      expect((JSON.parse(r.stdout) as { name: string }[])[0].name).toMatch(/return|exchange/);
      expect(folderState(dir)).toEqual(before);
    },
  );

  it('refuses a command that writes, naming the file, and stores nothing', () => {
    const { dir, db } = readOnlyCopy();
    const before = folderState(dir);
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
    expect(folderState(dir)).toEqual(before);
  });

  it('reads what a writer elsewhere committed and has not copied into the file yet', async () => {
    const { dir, db } = readOnlyCopy();
    const memory = await writer(db);
    try {
      const live = await memory.startSession({ goal: 'Rotate the keys', id: 'late' });
      await live.call({ tool: 'list_keys', args: {}, result: '3 keys' });
      const [first] = skillNames;
      await memory.skills.setEnabled(first, false);
      expect(statSync(`${db}-wal`).size).toBeGreaterThan(0);
      const before = folderState(dir);

      const sessions = cli(['sessions', 'list', '--db', db, '--json', '--log-level', 'debug']);
      expect(sessions.code, sessions.stderr).toBe(0);
      expect(openedHow(sessions.stderr)).toBe('shared');
      const page = JSON.parse(sessions.stdout) as { total: number; items: { id: string }[] };
      expect(page.total).toBe(sessionCount + 1);
      expect(page.items.map((s) => s.id)).toContain('late');

      const skills = JSON.parse(cli(['skills', 'list', '--db', db, '--json']).stdout) as {
        name: string;
        enabled: boolean;
      }[];
      expect(skills.find((s) => s.name === first)?.enabled).toBe(false);
      const recall = cli(['recall', 'I want to return a laptop', '--db', db, '--json']);
      expect(recall.code, recall.stderr).toBe(0);
      expect(JSON.parse(recall.stdout)).not.toEqual([]);
      // The reader wrote nothing: not the file, not the writer's log or its index.
      expect(folderState(dir)).toEqual(before);
    } finally {
      await memory.close();
    }
  });

  it('refuses a log without its index (a folder copied without -shm), naming both; nothing changes', async () => {
    const source = readOnlyCopy();
    const { dir, db } = readOnlyCopy();
    chmodSync(dir, 0o755);
    const memory = await writer(source.db);
    try {
      await memory.startSession({ goal: 'Rotate the keys', id: 'late' });
      copyFileSync(source.db, db);
      copyFileSync(`${source.db}-wal`, `${db}-wal`);
    } finally {
      await memory.close();
    }
    chmodSync(dir, 0o555);
    const before = folderState(dir);
    const r = cli(['sessions', 'list', '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`its write-ahead log (${db}-wal) holds changes not yet in the file`);
    expect(r.stderr).toContain(`without the index (${db}-shm)`);
    expect(r.stderr.match(/cannot open SQLite memory/g)).toHaveLength(1);
    expect(folderState(dir)).toEqual(before);
  });

  it('with SQLite URI filenames off, it is read from a copy in memory, and the log says so', () => {
    const { dir, db } = readOnlyCopy();
    const before = folderState(dir);
    const r = cli(['skills', 'list', '--db', db, '--json', '--log-level', 'info'], { env: { SQLITE_USE_URI: '0' } });
    expect(r.code, r.stderr).toBe(0);
    expect(openedHow(r.stderr)).toBe('copy');
    expect(r.stderr).toContain('SQLite URI filenames are off in this process');
    expect(listed(r.stdout)).toEqual(skillNames);
    expect(folderState(dir)).toEqual(before);
  });
});

describe('served from a read-only folder while a writer elsewhere writes', () => {
  let child: ChildProcess | null = null;
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  async function serve(db: string): Promise<string> {
    const [cmd, argv] = asReader([MAIN, 'serve', '--port', '0', '--db', db]);
    child = spawn(cmd, argv, { env: env() });
    const proc = child;
    return new Promise<string>((resolve, reject) => {
      let text = '';
      proc.stdout!.on('data', (c: Buffer) => {
        text += c.toString();
        const m = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(text);
        if (m) resolve(m[1]);
      });
      proc.stderr!.on('data', (c: Buffer) => (text += c.toString()));
      proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${text}`)));
    });
  }

  it('answers with what was committed last, whether the writer checkpointed it into the file or not', async () => {
    const { db } = readOnlyCopy();
    const url = await serve(db);
    const sessions = async () => ((await (await fetch(`${url}/api/sessions`)).json()) as { total: number }).total;
    expect(await sessions()).toBe(sessionCount);

    // A writer that comes and goes: on close it copies its log into the file and removes it.
    let memory = await writer(db);
    await memory.startSession({ goal: 'Rotate the keys', id: 'first' });
    await memory.close();
    expect(existsSync(`${db}-wal`)).toBe(false);
    expect(await sessions()).toBe(sessionCount + 1);

    // A writer that stays: what it commits is in its log only.
    memory = await writer(db);
    try {
      await memory.startSession({ goal: 'Rotate the keys again', id: 'second' });
      expect(await sessions()).toBe(sessionCount + 2);
      const [first] = skillNames;
      await memory.skills.setEnabled(first, false);
      const skill = (await (await fetch(`${url}/api/skills/${first}`)).json()) as { enabled: boolean };
      expect(skill.enabled).toBe(false);
      const disable = await fetch(`${url}/api/skills/${skillNames[1]}`, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
        body: JSON.stringify({ enabled: false }),
      });
      expect(disable.status).toBe(409);
      expect(((await disable.json()) as { error: string }).error).toContain('is open read-only');
    } finally {
      await memory.close();
    }
    expect(await sessions()).toBe(sessionCount + 2);
  });
});
