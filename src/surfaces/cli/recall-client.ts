import { createHash } from 'node:crypto';
import { existsSync, lstatSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RecallConfig } from '../../config/recall-config.js';
import type { LogLevel } from '../../support/log.js';

/*
 * The client side of the recall daemon (`recall-daemon.ts`): a process that keeps one memory's recall index,
 * word table and SQLite connection loaded and answers `skillsmith recall` over a Unix socket, so a hook that
 * recalls before every prompt pays a Node start and a round trip instead of loading the recall path each time.
 * Started by the first recall that finds none, it stops after SKILLSMITH_RECALL_DAEMON_IDLE_MS (default ten
 * minutes) without a request. SKILLSMITH_RECALL_DAEMON=0 turns it off: every recall then runs in its process.
 */

/** One recall, as the CLI parsed and checked it. */
export interface RecallRequest {
  db: string;
  config: RecallConfig;
  logLevel: LogLevel;
  goal: string;
  topK: number | undefined;
  /** The tools the agent has (--tools): only skills that use none other are served. */
  tools?: string[];
  json: boolean;
  /** Asked by a hook: no text at all when nothing matches. */
  hook?: boolean;
  /** The agent's session the recall is recorded under (--session, a hook's session_id). */
  session?: string;
}

/** What the CLI writes and exits with; `fallback`: the daemon cannot answer this one (run it here). */
export type RecallAnswer = { stdout: string; stderr: string; code: number } | { fallback: true };

const DAEMON = fileURLToPath(new URL('./recall-daemon.js', import.meta.url));

/** How long a client waits for an answer before recalling in its own process. */
const ANSWER_TIMEOUT_MS = 5_000;

/** The daemon is used unless turned off, and only where Unix sockets are (not Windows). */
export function daemonEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.SKILLSMITH_RECALL_DAEMON !== '0' && process.platform !== 'win32';
}

/**
 * The private directory of this user's sockets: $XDG_RUNTIME_DIR/skillsmith, else skillsmith-<uid> in the
 * temporary directory.
 */
export function socketDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.XDG_RUNTIME_DIR?.startsWith('/')
    ? join(env.XDG_RUNTIME_DIR, 'skillsmith')
    : join(tmpdir(), `skillsmith-${process.getuid?.() ?? 'user'}`);
}

/**
 * The socket of the daemon for this memory file and this build of the daemon (a new build never talks to an
 * old daemon: the old one stops when idle).
 */
export function socketPath(db: string, env: NodeJS.ProcessEnv = process.env): string {
  const build = statSync(DAEMON).mtimeMs;
  const key = createHash('sha256')
    .update(`${resolve(db)}\0${build}`)
    .digest('hex')
    .slice(0, 20);
  return join(socketDir(env), `recall-${key}.sock`);
}

/**
 * The directory is this user's alone: owned by them, no access for anyone else. Anyone who could plant a
 * socket there could put text into every prompt, so a socket elsewhere is never used.
 */
export function privateDir(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && st.uid === process.getuid?.() && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/**
 * The daemon's answer, or null when there is none to ask (no daemon, a directory that is not private) or it
 * did not answer in time: the caller recalls in its own process. `missing` says whether no daemon listens.
 */
export function askDaemon(
  socket: string,
  request: RecallRequest,
  timeoutMs = ANSWER_TIMEOUT_MS,
): Promise<{ answer: RecallAnswer | null; missing: boolean }> {
  const dir = resolve(socket, '..');
  if (!existsSync(dir)) return Promise.resolve({ answer: null, missing: true });
  if (!privateDir(dir)) return Promise.resolve({ answer: null, missing: false });
  return new Promise((done) => {
    const conn = connect(socket);
    let text = '';
    let settled = false;
    const finish = (answer: RecallAnswer | null, missing = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      conn.destroy();
      done({ answer, missing });
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    conn.setEncoding('utf8');
    conn.on('connect', () => conn.end(`${JSON.stringify(request)}\n`));
    conn.on('data', (chunk) => {
      text += chunk;
    });
    conn.on('end', () => {
      try {
        finish(JSON.parse(text) as RecallAnswer);
      } catch {
        finish(null);
      }
    });
    conn.on('error', (e: NodeJS.ErrnoException) => finish(null, e.code === 'ENOENT' || e.code === 'ECONNREFUSED'));
  });
}

/** Starts the daemon for this memory in the background (it outlives this process). */
export async function startDaemon(socket: string, db: string): Promise<void> {
  try {
    const { spawn } = await import('node:child_process');
    // Started from / so that it holds no working directory of the caller's.
    spawn(process.execPath, [DAEMON, socket, resolve(db)], { detached: true, stdio: 'ignore', cwd: '/' }).unref();
  } catch {
    // No daemon: the next recall runs in its own process again.
  }
}
