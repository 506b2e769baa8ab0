import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI as CLI, copyMemory, LOG_MODULES, type Run, runBuiltCli } from './support/built-cli.js';

// The recall daemon (src/surfaces/cli/recall-daemon.ts): the first `skillsmith recall` that finds none recalls
// in its own process and starts it; later recalls of the same memory file are answered by it, exactly as the
// full CLI answers them; it stops when idle. Each test gets its own runtime directory, so its daemons are its
// own, and a short idle time, so none outlives the run.

const ROOT = new URL('..', import.meta.url).pathname;
const SAMPLE = join(ROOT, 'examples', 'tau-sample.jsonl');
const IDLE_MS = 2_500;

let tmp: string;
let learnedDb: string;
let goals: string[];
let counter = 0;
const runtimeDirs: string[] = [];

function cli(args: string[], env: Record<string, string>, nodeArgs: string[] = [], input = ''): Run {
  return runBuiltCli(args, {
    cwd: tmp,
    env: { SKILLSMITH_RECALL_DAEMON_IDLE_MS: String(IDLE_MS), ...env },
    nodeArgs,
    unset: ['SKILLSMITH_RECALL_DAEMON'],
    input,
  });
}

/** A runtime directory of the test's own (XDG_RUNTIME_DIR): its daemons' sockets go in skillsmith/ there. */
function runtime(): { env: Record<string, string>; sockets: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'skillsmith-run-'));
  runtimeDirs.push(dir);
  const sockets = () => (existsSync(join(dir, 'skillsmith')) ? readdirSync(join(dir, 'skillsmith')) : []);
  return { env: { XDG_RUNTIME_DIR: dir }, sockets };
}

const copyOf = (db: string) => copyMemory(db, join(tmp, `copy-${++counter}`));

function recallCount(db: string): number {
  const raw = new Database(db, { readonly: true });
  try {
    return (raw.prepare('SELECT COUNT(*) AS n FROM recalls').get() as { n: number }).n;
  } finally {
    raw.close();
  }
}

async function until(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Whether the recall ran in the CLI's own process: it loaded the recall pipeline. */
function recallLoaded(args: string[], env: Record<string, string>, input = ''): { run: Run; inProcess: boolean } {
  const log = join(tmp, `modules-${++counter}.log`);
  const run = cli(args, { ...env, LOG_MODULES_FILE: log }, ['--import', LOG_MODULES], input);
  return { run, inProcess: readFileSync(log, 'utf8').includes('pipeline/recall.js') };
}

beforeAll(() => {
  if (!existsSync(CLI)) execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  tmp = mkdtempSync(join(tmpdir(), 'skillsmith-daemon-'));
  learnedDb = join(tmp, 'learned', 'memory.db');
  const learned = cli(['learn', SAMPLE, '--db', learnedDb], { SKILLSMITH_RECALL_DAEMON: '0' });
  expect(learned.code, learned.stderr).toBe(0);
  goals = readFileSync(SAMPLE, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as { goal: string }).goal)
    .slice(0, 3);
}, 120_000);

afterAll(async () => {
  // Every daemon of these tests stops by itself once idle, and removes its socket.
  for (const dir of runtimeDirs)
    await until(
      'the daemons to stop',
      () => !existsSync(join(dir, 'skillsmith')) || !readdirSync(join(dir, 'skillsmith')).length,
    );
  for (const dir of runtimeDirs) rmSync(dir, { recursive: true, force: true });
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}, 60_000);

describe('the recall daemon', () => {
  it('is started by the first recall, which runs in its own process; it then answers as the full CLI does', async () => {
    const { env, sockets } = runtime();
    const db = copyOf(learnedDb);
    const recorded = recallCount(db);
    const first = recallLoaded(['recall', goals[0], '--db', db], env);
    expect(first.inProcess).toBe(true);
    expect(first.run.code).toBe(0);
    await until('the daemon to listen', () => sockets().length === 1);
    expect(recallCount(db)).toBe(recorded + 1);
    for (const goal of [...goals, 'write a haiku about autumn'])
      for (const extra of [
        [],
        ['--json'],
        ['--top-k', '3', '--json'],
        ['--tools', 'get_customer_by_phone,get_details_by_id'],
      ]) {
        const args = ['recall', goal, '--db', db, ...extra];
        const viaDaemon = recallLoaded(args, env);
        expect(viaDaemon.inProcess).toBe(false);
        const full = cli(args, { ...env, SKILLSMITH_LEAN_RECALL: '0', SKILLSMITH_RECALL_DAEMON: '0' });
        expect(viaDaemon.run).toEqual(full);
      }
    // A hook's request on stdin: the daemon answers it too, with nothing at all when no skill matches.
    for (const [event, prompt] of [
      ['UserPromptSubmit', goals[0]],
      ['UserPromptSubmit', 'write a haiku about autumn'],
      ['BeforeAgent', goals[0]],
    ]) {
      const input = JSON.stringify({ hook_event_name: event, prompt });
      const viaDaemon = recallLoaded(['recall', '--hook', '--db', db], env, input);
      expect(viaDaemon.inProcess).toBe(false);
      const full = cli(
        ['recall', '--hook', '--db', db],
        { ...env, SKILLSMITH_LEAN_RECALL: '0', SKILLSMITH_RECALL_DAEMON: '0' },
        [],
        input,
      );
      expect(viaDaemon.run).toEqual(full);
      expect(viaDaemon.run.stdout === '').toBe(prompt !== goals[0]);
      // Gemini CLI's BeforeAgent hook reads JSON: the daemon's answer is wrapped as the full CLI wraps it.
      if (event === 'BeforeAgent')
        expect(JSON.parse(viaDaemon.run.stdout).hookSpecificOutput.additionalContext).toBeTruthy();
    }
    // Each recall that served skills was recorded before the CLI returned (the daemon's and the full CLI's).
    expect(recallCount(db)).toBeGreaterThan(recorded + 1);
    expect(readFileSync(`${db}.audit.jsonl`, 'utf8').length).toBeGreaterThan(0);
  });

  it('sees what other processes change, and a memory file replaced under it', async () => {
    const { env, sockets } = runtime();
    const db = copyOf(learnedDb);
    cli(['recall', goals[0], '--db', db], env);
    await until('the daemon to listen', () => sockets().length === 1);
    const before = JSON.parse(cli(['recall', goals[0], '--db', db, '--json'], env).stdout) as { name: string }[];
    expect(before.length).toBeGreaterThan(0);
    expect(cli(['skills', 'disable', before[0].name, '--db', db], env).code).toBe(0);
    const after = recallLoaded(['recall', goals[0], '--db', db, '--json'], env);
    expect(after.inProcess).toBe(false);
    expect((JSON.parse(after.run.stdout) as { name: string }[]).map((h) => h.name)).not.toContain(before[0].name);
    // Another file moved into its place: the daemon reads the new one (the skill is enabled there).
    const fresh = copyOf(learnedDb);
    renameSync(fresh, db);
    for (const suffix of ['-wal', '-shm']) rmSync(db + suffix, { force: true });
    const replaced = recallLoaded(['recall', goals[0], '--db', db, '--json'], env);
    expect(replaced.run.code).toBe(0);
    expect(replaced.inProcess).toBe(false);
    expect((JSON.parse(replaced.run.stdout) as { name: string }[])[0].name).toBe(before[0].name);
  });

  it('stops when idle and removes its socket; the next recall runs in its own process again', async () => {
    const { env, sockets } = runtime();
    const db = copyOf(learnedDb);
    cli(['recall', goals[1], '--db', db], env);
    await until('the daemon to listen', () => sockets().length === 1);
    expect(recallLoaded(['recall', goals[1], '--db', db], env).inProcess).toBe(false);
    await until('the daemon to stop', () => sockets().length === 0);
    const again = recallLoaded(['recall', goals[1], '--db', db], env);
    expect(again.inProcess).toBe(true);
    expect(again.run.code).toBe(0);
  });

  it('is not used or started when turned off, or when its directory is not private', async () => {
    const off = runtime();
    const db = copyOf(learnedDb);
    expect(cli(['recall', goals[0], '--db', db], { ...off.env, SKILLSMITH_RECALL_DAEMON: '0' }).code).toBe(0);
    const shared = runtime();
    mkdirSync(join(shared.env.XDG_RUNTIME_DIR, 'skillsmith'), { mode: 0o755 });
    chmodSync(join(shared.env.XDG_RUNTIME_DIR, 'skillsmith'), 0o755);
    const r = recallLoaded(['recall', goals[0], '--db', db], shared.env);
    expect(r.run.code).toBe(0);
    expect(r.inProcess).toBe(true);
    await new Promise((done) => setTimeout(done, 1_000));
    expect(off.sockets()).toEqual([]);
    expect(shared.sockets()).toEqual([]);
  });
});
