// Shared by the tests that run the built CLI as a user's shell would (test/cli-lean-recall.test.ts,
// test/recall-daemon.test.ts): one way to start it with a clean environment, and private copies of a memory.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CONFIG_ENV } from '../../src/config/sources.js';

const ROOT = new URL('../..', import.meta.url).pathname;
export const BUILT_CLI = join(ROOT, 'dist', 'surfaces', 'cli', 'main.js');
/** A module a child loads with `node --import` to list every module it loads (test/fixtures/log-modules.mjs). */
export const LOG_MODULES = join(ROOT, 'test', 'fixtures', 'log-modules.mjs');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `node [nodeArgs] dist/.../main.js args` in `cwd`, with this process's environment less the variables that
 * choose a memory or its configuration and less `unset`, then `env` on top; `input` on its stdin.
 */
export function runBuiltCli(
  args: string[],
  opts: {
    cwd: string;
    env?: Record<string, string>;
    nodeArgs?: string[];
    unset?: string[];
    input?: string;
    /** The input comes this long after the CLI started, through a shell pipe (a slow hook runner). */
    inputAfterMs?: number;
  },
): Run {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['SKILLSMITH_DB', 'SKILLSMITH_CONFIG', ...(opts.unset ?? []), ...CONFIG_ENV.map((v) => v.name)])
    delete base[name];
  const command = [process.execPath, ...(opts.nodeArgs ?? []), BUILT_CLI, ...args];
  let late: string | null = null;
  if (opts.inputAfterMs !== undefined) {
    late = join(mkdtempSync(join(tmpdir(), 'skillsmith-late-input-')), 'input');
    writeFileSync(late, opts.input ?? '');
  }
  const r = late
    ? spawnSync(
        'sh',
        [
          '-c',
          'f=$1; s=$2; shift 2; (sleep "$s"; cat "$f") | "$@"',
          'sh',
          late,
          String(opts.inputAfterMs! / 1000),
          ...command,
        ],
        { cwd: opts.cwd, env: { ...base, ...opts.env }, encoding: 'utf8' },
      )
    : spawnSync(command[0]!, command.slice(1), {
        cwd: opts.cwd,
        env: { ...base, ...opts.env },
        encoding: 'utf8',
        // Written to the CLI's stdin (a hook's input); else stdin is empty.
        input: opts.input ?? '',
      });
  if (late) rmSync(dirname(late), { recursive: true, force: true });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A copy of a SQLite memory (with its -wal and -shm files) as `dir`/memory.db; `dir` is created. */
export function copyMemory(db: string, dir: string): string {
  mkdirSync(dir);
  const out = join(dir, 'memory.db');
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(db + suffix)) copyFileSync(db + suffix, out + suffix);
  return out;
}
