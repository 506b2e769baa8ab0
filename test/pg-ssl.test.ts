// A PostgreSQL memory over SSL, as a fleet behind a managed or self-hosted server reaches it: a cluster of its own
// with ssl=on and a self-signed certificate made here by openssl, whose pg_hba.conf refuses the user `sslonly`
// any unencrypted login (so a command that works as that user went over SSL), and a second cluster with SSL off.
// The URL's sslmode means what it means to psql (libpq), the driver's security warning is never printed, and a
// certificate file that cannot be read, or a server certificate the URL does not trust, is an error that says
// which parameter, which file and what to do, with the password hidden.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/errors/index.js';
import { openPgStore, type PgStore } from '../src/store/postgres/pg-store.js';
import { createLogger } from '../src/support/log.js';
import { runBuiltCli } from './support/built-cli.js';
import { startPgServer, type PgServer } from './support/pg-server.js';
import { SAMPLE } from './support/surfaces.js';

const quiet = createLogger('silent');
const PG_SSL_ENV = ['PGSSLMODE', 'PGSSLROOTCERT', 'PGSSLCERT', 'PGSSLKEY', 'PGPASSWORD', 'PGUSER'];
let dir: string;
let secure: PgServer;
let plain: PgServer;
/** The server's certificate: self-signed, for the name `localhost` only (not the address 127.0.0.1). */
let serverCert: string;
/** A self-signed certificate that has nothing to do with the server. */
let otherCert: string;
const stores: PgStore[] = [];

/** A self-signed certificate and its key, made by openssl; the tests need it, so no openssl is a failure. */
function selfSigned(name: string, subjectAltName: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  const r = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-addext',
      `subjectAltName=${subjectAltName}`,
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0)
    throw new Error(
      `openssl could not make a test certificate (${r.error?.message ?? `exit ${r.status}`}): install openssl (Debian: apt-get install openssl)\n${r.stderr ?? ''}`,
    );
  return { cert, key };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'skillsmith-pg-ssl-'));
  const server = selfSigned('localhost', 'DNS:localhost');
  serverCert = server.cert;
  otherCert = selfSigned('someone-else', 'DNS:someone-else').cert;
  [secure, plain] = await Promise.all([
    startPgServer({ ssl: server, hba: ['hostnossl all sslonly 127.0.0.1/32 reject'] }),
    startPgServer(),
  ]);
  const admin = new pg.Client({ connectionString: secure.url() });
  await admin.connect();
  try {
    await admin.query('CREATE ROLE sslonly LOGIN CREATEDB');
  } finally {
    await admin.end();
  }
}, 120_000);

afterAll(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => undefined);
  await Promise.all([secure?.stop(), plain?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh database on the SSL cluster that `sslonly` owns; its URL for that user on `host`, before the query. */
async function sslOnlyDatabase(host = '127.0.0.1', password = ''): Promise<string> {
  const url = await secure.createDatabase();
  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: secure.url() });
  await admin.connect();
  try {
    await admin.query(`ALTER DATABASE "${name}" OWNER TO sslonly`);
  } finally {
    await admin.end();
  }
  return `postgres://sslonly${password ? `:${password}` : ''}@${host}:${secure.port}/${name}`;
}

function cli(args: string[], env: Record<string, string> = {}) {
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  return runBuiltCli(args, {
    cwd: dir,
    env: { HOME: home, XDG_CACHE_HOME: join(home, '.cache'), XDG_DATA_HOME: join(home, '.local', 'share'), ...env },
    unset: ['SKILLSMITH_TOKEN', ...PG_SSL_ENV],
  });
}

async function open(url: string): Promise<PgStore> {
  const store = await openPgStore(url, { pollMs: 0, log: quiet });
  stores.push(store);
  return store;
}

/** Whether the store's connections are encrypted, as the server sees them. */
async function encrypted(store: PgStore): Promise<boolean> {
  const { rows } = await store.pool.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
  return rows[0].ssl as boolean;
}

/** Learns the sample into `url` and recalls from it, through the built CLI; both must work. */
function learnAndRecall(url: string, env: Record<string, string> = {}) {
  const learn = cli(['learn', '--db', url, SAMPLE], env);
  expect(learn.code, learn.stderr).toBe(0);
  expect(learn.stdout).toMatch(/89 new sessions/);
  const recall = cli(['recall', '--db', url, '--json', 'I want to return the headphones I received'], env);
  expect(recall.code, recall.stderr).toBe(0);
  expect(JSON.parse(recall.stdout).length).toBeGreaterThan(0);
  for (const out of [learn.stderr, recall.stderr]) {
    expect(out).not.toMatch(/SECURITY WARNING|Warning:/);
  }
}

describe('a PostgreSQL memory over SSL', () => {
  it('sslmode=require learns and recalls over an encrypted connection, the self-signed certificate unchecked, with no driver warning', async () => {
    const url = `${await sslOnlyDatabase()}?sslmode=require`;
    learnAndRecall(url);
    expect(await encrypted(await open(url))).toBe(true);
  }, 120_000);

  it('sslmode=verify-full with sslrootcert learns and recalls; a wrong root certificate or host name is a clear error', async () => {
    const base = await sslOnlyDatabase('localhost', 's3cret-pw');
    learnAndRecall(`${base}?sslmode=verify-full&sslrootcert=${serverCert}`);

    const wrong = cli(['recall', '--db', `${base}?sslmode=verify-full&sslrootcert=${otherCert}`, 'return headphones']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(
      `the server's certificate is not signed by the CA certificate in sslrootcert=${otherCert}`,
    );
    expect(wrong.stderr).not.toContain('s3cret-pw');
    expect(wrong.stderr).not.toMatch(/\n\s+at /);

    // The certificate names localhost, not 127.0.0.1: verify-full refuses the address, verify-ca checks the CA only.
    const byAddress = base.replace('@localhost:', '@127.0.0.1:');
    const misnamed = cli(['recall', '--db', `${byAddress}?sslmode=verify-full&sslrootcert=${serverCert}`, 'x']);
    expect(misnamed.code).toBe(1);
    expect(misnamed.stderr).toContain("the server's certificate does not name 127.0.0.1");
    expect(misnamed.stderr).toContain('sslmode=verify-ca');
    expect(await encrypted(await open(`${byAddress}?sslmode=verify-ca&sslrootcert=${serverCert}`))).toBe(true);
    // require with a root certificate checks it, as libpq does (the same as verify-ca).
    await expect(open(`${byAddress}?sslmode=require&sslrootcert=${otherCert}`)).rejects.toThrow(
      /not signed by the CA certificate in sslrootcert=/,
    );
  }, 120_000);

  it('prefer encrypts when the server has SSL on and connects plainly when it has it off; allow tries plain first', async () => {
    const sslOnly = await sslOnlyDatabase();
    expect(await encrypted(await open(`${sslOnly}?sslmode=prefer`))).toBe(true);
    expect(await encrypted(await open(`${await plain.createDatabase()}?sslmode=prefer`))).toBe(false);
    // As postgres a plain login is let in; as sslonly it is refused, and allow then goes over SSL.
    expect(await encrypted(await open(`${await secure.createDatabase()}?sslmode=allow`))).toBe(false);
    expect(await encrypted(await open(`${sslOnly}?sslmode=allow`))).toBe(true);
    await expect(open(`${sslOnly}?sslmode=disable`)).rejects.toThrow(/no encryption/);
    // A server with SSL off, asked for it: the error says so.
    await expect(open(`${await plain.createDatabase()}?sslmode=require`)).rejects.toThrow(
      /asks for SSL and the server at .* has it off/,
    );
  }, 60_000);

  it('reads PGSSLMODE and PGSSLROOTCERT as libpq does', async () => {
    const url = await sslOnlyDatabase();
    learnAndRecall(url, { PGSSLMODE: 'require' });
    const wrong = cli(['recall', '--db', url, 'x'], { PGSSLMODE: 'verify-ca', PGSSLROOTCERT: otherCert });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`not signed by the CA certificate in PGSSLROOTCERT=${otherCert}`);
    const missing = cli(['recall', '--db', url, 'x'], { PGSSLMODE: 'verify-ca', PGSSLROOTCERT: join(dir, 'nope.crt') });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`cannot read PGSSLROOTCERT=${join(dir, 'nope.crt')} (no such file)`);
  }, 120_000);

  it('a certificate or key file that cannot be read is named with its parameter and path, the password hidden', async () => {
    const base = await sslOnlyDatabase('127.0.0.1', 's3cret-pw');
    const missing = join(dir, 'missing', 'root.crt');
    const cases: [string, RegExp][] = [
      [
        `sslmode=verify-full&sslrootcert=${missing}`,
        /cannot read sslrootcert=\S*missing\/root\.crt in the PostgreSQL URL .*\(no such file\): sslrootcert names the CA certificate/,
      ],
      [
        `sslmode=require&sslcert=${serverCert}&sslkey=${missing}`,
        /cannot read sslkey=\S*missing\/root\.crt in the PostgreSQL URL .*\(no such file\)/,
      ],
      [
        `sslmode=require&sslcert=${dir}&sslkey=${missing}`,
        /cannot read sslcert=\S+ in the PostgreSQL URL .*\(it is a directory\)/,
      ],
      [`sslmode=require&sslcert=${serverCert}`, /a client certificate needs both sslcert .* and sslkey/],
    ];
    for (const [query, said] of cases) {
      for (const command of [
        ['recall', 'x'],
        ['learn', SAMPLE],
      ]) {
        const r = cli([command[0], '--db', `${base}?${query}`, command[1]]);
        expect(r.code, `${command[0]} ${query}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toMatch(said);
        expect(r.stderr).toContain('postgres://sslonly:***@127.0.0.1');
        expect(r.stderr).not.toContain('s3cret-pw');
        expect(r.stderr).not.toContain('ENOENT');
      }
      const opening = openPgStore(`${base}?${query}`, { pollMs: 0, log: quiet });
      await expect(opening).rejects.toSatisfy((e) => ConfigError.isInstance(e));
      await expect(opening).rejects.toThrow(said);
    }
  }, 120_000);
});
