import { chmodSync, mkdirSync, statSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { openRecallOnly, type RecallOnlyMemory } from '../../app/recall-only.js';
import { answerRecall } from './commands/recall.js';
import { errorOutcome } from './output.js';
import { privateDir, type RecallAnswer, type RecallRequest } from './recall-client.js';

/*
 * The recall daemon of one memory file (see recall-client.ts): `node recall-daemon.js SOCKET DB`. It answers
 * each request as `skillsmith recall` would in its own process (same text, exit code and log lines, the
 * recall recorded, the audit and index files brought up to date before it answers), one request at a time.
 * It reads the store's change token on every recall, as any recall does, so writes by other processes are
 * seen; a memory file replaced under it (another inode) is opened again. It stops after
 * SKILLSMITH_RECALL_DAEMON_IDLE_MS (default ten minutes) without a request, or on SIGTERM / SIGINT.
 */

const IDLE_MS = Number(process.env.SKILLSMITH_RECALL_DAEMON_IDLE_MS) || 600_000;
/** Settings kept open at once (one memory each); the least recently used is closed beyond this. */
const MAX_OPEN = 4;

const [socket, db] = process.argv.slice(2);

/** The memory file the open memories read: a replaced file (another inode) is opened afresh. */
let fileId = '';
const open = new Map<string, RecallOnlyMemory>();
/** Log lines of the request being answered. */
let logged = '';
let idle: NodeJS.Timeout | null = null;
let queue: Promise<unknown> = Promise.resolve();

async function answer(request: RecallRequest): Promise<RecallAnswer> {
  if (request.db !== db) return { fallback: true };
  let id: string;
  try {
    const st = statSync(db);
    id = `${st.dev}:${st.ino}`;
  } catch {
    return { fallback: true };
  }
  if (id !== fileId) {
    await closeAll();
    fileId = id;
  }
  const key = JSON.stringify([request.config, request.logLevel]);
  let memory = open.get(key);
  logged = '';
  if (!memory) {
    memory =
      (await openRecallOnly({
        db,
        config: request.config,
        logLevel: request.logLevel,
        logSink: (line) => {
          logged += `${line}\n`;
        },
      }).catch(() => null)) ?? undefined;
    if (!memory) return { fallback: true };
  }
  open.delete(key);
  open.set(key, memory);
  while (open.size > MAX_OPEN) {
    const [oldest, old] = open.entries().next().value!;
    open.delete(oldest);
    await old.close().catch(() => {});
  }
  let result: { stdout: string; error: string; code: number };
  try {
    const stdout = await answerRecall(memory, {
      goal: request.goal,
      topK: request.topK,
      tools: request.tools,
      json: request.json,
      hook: !!request.hook,
      ...(typeof request.session === 'string' && request.session ? { session: request.session } : {}),
    });
    result = { stdout, error: '', code: 0 };
  } catch (e) {
    const { stderr, code } = errorOutcome(e, request.json);
    result = { stdout: '', error: stderr, code };
  }
  await memory.sync();
  return { stdout: result.stdout, stderr: logged + result.error, code: result.code };
}

async function closeAll(): Promise<void> {
  for (const memory of open.values()) await memory.close().catch(() => {});
  open.clear();
}

function restartIdleTimer(): void {
  if (idle) clearTimeout(idle);
  idle = setTimeout(() => void stop(), IDLE_MS);
}

async function stop(): Promise<void> {
  server.close();
  await queue.catch(() => {});
  await closeAll();
  try {
    unlinkSync(socket);
  } catch {
    // Already gone (another daemon took the name over).
  }
  process.exit(0);
}

function serve(conn: Socket): void {
  let text = '';
  let asked = false;
  conn.setEncoding('utf8');
  const ask = () => {
    if (asked) return;
    asked = true;
    restartIdleTimer();
    let request: RecallRequest;
    try {
      request = JSON.parse(text) as RecallRequest;
    } catch {
      conn.destroy();
      return;
    }
    queue = queue
      .then(() => answer(request))
      .catch((): RecallAnswer => ({ fallback: true }))
      .then((reply) => {
        if (!conn.destroyed) conn.end(`${JSON.stringify(reply)}\n`);
      });
  };
  conn.on('data', (chunk) => {
    text += chunk;
    if (text.includes('\n')) ask();
  });
  conn.on('end', ask);
  conn.on('error', () => {});
}

const server = createServer(serve);

/** Listens on the socket; a socket left by a daemon that died is replaced, a live daemon is left alone. */
function listen(retry = true): void {
  server.once('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EADDRINUSE' || !retry) process.exit(1);
    const probe = connect(socket);
    probe.on('connect', () => process.exit(0));
    probe.on('error', () => {
      try {
        unlinkSync(socket);
      } catch {
        // Someone else removed it first.
      }
      listen(false);
    });
  });
  server.listen(socket, () => {
    chmodSync(socket, 0o600);
    restartIdleTimer();
  });
}

if (!socket || !db) {
  process.stderr.write('usage: recall-daemon.js SOCKET DB\n');
  process.exit(2);
}
mkdirSync(dirname(socket), { recursive: true, mode: 0o700 });
if (!privateDir(dirname(socket))) process.exit(1);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void stop());
listen();
