// A throwaway PostgreSQL cluster for tests and benchmarks: initdb into a temporary directory, started on a
// free local port as a non-root user (the `postgres` account when run as root), stopped and deleted
// afterwards. Nothing is skipped: when PostgreSQL cannot start, startPgServer() throws and says why and what
// to do. Tests reach it through test/support/pg-server.ts; it lives here so `node dist/bench/pg-bench.js`
// can start one too.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface PgServer {
  readonly host: string;
  readonly port: number;
  /** Connection URL of a database of this cluster (default: the `postgres` maintenance database). */
  url(database?: string): string;
  /** Creates a fresh, empty database and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server but keeps its data (restart tests); `start()` brings it back on the same port. */
  pause(): void;
  start(): void;
  readonly running: boolean;
  /** Stops the server and deletes the cluster. */
  stop(): Promise<void>;
}

const INSTALL_HINT =
  'Install the PostgreSQL server (Debian: `apt-get update && apt-get install -y postgresql-15`), ' +
  'or point SKILLSMITH_PG_BIN at a directory holding initdb and pg_ctl.';

/** Directory of initdb/pg_ctl: SKILLSMITH_PG_BIN, else PostgreSQL 15, else the newest installed version. */
export function findPgBin(): string {
  const fromEnv = process.env.SKILLSMITH_PG_BIN;
  if (fromEnv) {
    if (!existsSync(join(fromEnv, 'pg_ctl'))) throw new Error(`SKILLSMITH_PG_BIN=${fromEnv} holds no pg_ctl. ${INSTALL_HINT}`);
    return fromEnv;
  }
  const root = '/usr/lib/postgresql';
  const preferred = join(root, '15', 'bin');
  if (existsSync(join(preferred, 'pg_ctl'))) return preferred;
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v) && Number(v) >= 13 && existsSync(join(root, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length) return join(root, versions[0], 'bin');
  throw new Error(`PostgreSQL server binaries not found (looked in ${preferred} and ${root}/*/bin). ${INSTALL_HINT}`);
}

/** The account that runs the server: initdb and postgres refuse to run as root. */
function serverAccount(): { uid: number; gid: number; wrap: (cmd: string, args: string[]) => [string, string[]] } {
  const uid = process.getuid?.() ?? 0;
  if (uid !== 0) return { uid, gid: process.getgid?.() ?? uid, wrap: (cmd, args) => [cmd, args] };
  let ids: string;
  try {
    ids = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim() + ':' + execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('tests run as root and there is no `postgres` account to run PostgreSQL as (initdb refuses root). ' + INSTALL_HINT);
  }
  const [u, g] = ids.split(':').map(Number);
  return { uid: u, gid: g, wrap: (cmd, args) => ['runuser', ['-u', 'postgres', '--', cmd, ...args]] };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

const live = new Set<() => void>();
process.once('exit', () => {
  for (const kill of live) kill();
});

export async function startPgServer(): Promise<PgServer> {
  const bin = findPgBin();
  const account = serverAccount();
  const base = mkdtempSync(join(tmpdir(), 'skillsmith-pg-'));
  chownSync(base, account.uid, account.gid);
  const data = join(base, 'data');
  const logFile = join(base, 'server.log');
  const run = (tool: string, args: string[], what: string) => {
    const [cmd, argv] = account.wrap(join(bin, tool), args);
    const r = spawnSync(cmd, argv, { encoding: 'utf8', cwd: base, env: { ...process.env, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' } });
    if (r.status !== 0) {
      const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n') : '';
      throw new Error(
        `PostgreSQL could not ${what}: ${tool} exited with ${r.status ?? r.signal}${r.error ? ` (${r.error.message})` : ''}\n` +
          `${r.stderr ?? ''}${r.stdout ?? ''}${log ? `\nserver log:\n${log}` : ''}\n${INSTALL_HINT}`,
      );
    }
  };

  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions'], 'create a cluster');
  const host = '127.0.0.1';
  let port = 0;
  let running = false;
  const startOn = (p: number) =>
    run(
      'pg_ctl',
      [
        '-D', data, '-l', logFile, '-w', '-t', '60',
        '-o', `-p ${p} -k ${base} -c listen_addresses=${host} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`,
        'start',
      ],
      'start',
    );
  // The free port can be taken between probing and binding: try a few.
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      startOn(port);
      break;
    } catch (e) {
      if (attempt >= 2) {
        rmSync(base, { recursive: true, force: true });
        throw e;
      }
    }
  }
  running = true;
  const kill = () => {
    if (running) {
      const [cmd, argv] = account.wrap(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      spawnSync(cmd, argv, { stdio: 'ignore' });
      running = false;
    }
    rmSync(base, { recursive: true, force: true });
  };
  live.add(kill);

  const url = (database = 'postgres') => `postgres://postgres@${host}:${port}/${database}`;
  let counter = 0;
  return {
    host,
    get port() {
      return port;
    },
    get running() {
      return running;
    },
    url,
    async createDatabase(name?: string) {
      const db = name ?? `t_${process.pid}_${++counter}_${Date.now().toString(36)}`;
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${db.replace(/"/g, '')}"`);
      } finally {
        await client.end();
      }
      return url(db);
    },
    pause() {
      if (!running) return;
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop'], 'stop');
      running = false;
    },
    start() {
      if (running) return;
      startOn(port);
      running = true;
    },
    async stop() {
      live.delete(kill);
      if (running) {
        try {
          run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop'], 'stop');
          running = false;
        } catch {
          // kill() below stops it the hard way.
        }
      }
      kill();
    },
  };
}
