// Shared by the surface tests (http, mcp, dashboard): a memory learned from the bundled real traces, and the
// built CLI started as a child process.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_ENV } from '../../src/config/sources.js';
import { openMemory } from '../../src/app/open-memory.js';

export const ROOT = new URL('../..', import.meta.url).pathname;
export const SAMPLE = join(ROOT, 'examples', 'tau-sample.jsonl');
const MAIN = join(ROOT, 'dist', 'surfaces', 'cli', 'main.js');
const ROUTES = join(ROOT, 'dist', 'surfaces', 'cli', 'routes.js');
const FALLBACK = join(ROOT, 'test', 'fixtures', 'surface-cli.mjs');

/** Ingests the 83 tau sessions into a fresh SQLite file and runs one synthesis pass. */
export async function learnSample(db: string): Promise<void> {
  const memory = await openMemory({ db, logLevel: 'silent', auditFile: null });
  try {
    await memory.ingestFile(SAMPLE);
    await memory.synthesize();
  } finally {
    await memory.close();
  }
}

/** `node <cli>` arguments for a surface command: the real CLI once it dispatches serve/mcp, else the fixture. */
export function cliArgs(args: string[]): string[] {
  if (!existsSync(join(ROOT, 'dist', 'surfaces', 'cli', 'commands', 'serve.js')))
    throw new Error('run `npm run build` first: the surface tests drive dist/');
  // main.js routes through its routing table (routes.js); an older build named the commands in main.js itself.
  const wired =
    existsSync(MAIN) &&
    [MAIN, ROUTES].some((f) => existsSync(f) && readFileSync(f, 'utf8').includes('commands/serve.js'));
  return [wired ? MAIN : FALLBACK, ...args];
}

export interface Child {
  process: ChildProcess;
  /** The first http:// URL the command printed. */
  url: string;
  stop(): Promise<void>;
}

/** Starts a long-running CLI command and waits until it prints the URL it listens on. */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Child> {
  const child = spawn(process.execPath, cliArgs(args), {
    cwd: ROOT,
    env: { ...process.env, SKILLSMITH_TOKEN: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed within 20 s:\n${out}`)), 20_000);
    const look = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /(http:\/\/[^\s/]+(?:\/mcp)?)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({
        process: child,
        url: m[1],
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening:\n${out}`)));
  });
}

/**
 * Runs the built CLI to completion in `cwd`, with none of the SKILLSMITH_* variables of the caller's shell (so a
 * developer's own configuration cannot change what a test sees).
 */
export function runCli(
  args: string[],
  cwd: string,
  /** Written to its stdin (a pipe); bytes as they are (a gzip log piped in). */
  input?: string | Buffer,
): { code: number | null; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['SKILLSMITH_DB', 'SKILLSMITH_CONFIG', ...CONFIG_ENV.map((v) => v.name)]) delete env[name];
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'surfaces', 'cli', 'main.js'), ...args], {
    cwd,
    env,
    encoding: 'utf8',
    input,
  });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
