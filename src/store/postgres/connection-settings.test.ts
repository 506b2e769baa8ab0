import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors/config-error.js';
import { pgConnectionSettings } from './connection-settings.js';

const dir = mkdtempSync(join(tmpdir(), 'skillsmith-pg-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CA = join(dir, 'ca.crt');
const CERT = join(dir, 'client.crt');
const KEY = join(dir, 'client.key');
writeFileSync(CA, 'CA PEM');
writeFileSync(CERT, 'CERT PEM');
writeFileSync(KEY, 'KEY PEM');

const URL_ = 'postgres://app:pw@db.example:5432/mem';
const settings = (query: string, env: NodeJS.ProcessEnv = {}) => pgConnectionSettings(`${URL_}${query}`, env);
const only = (query: string, env: NodeJS.ProcessEnv = {}) => {
  const s = settings(query, env);
  expect(s.attempts).toHaveLength(1);
  return s.attempts[0] as ConnectionOptions;
};
/** Whether a TLS setting lets any host name through (the chain may still be checked). */
const anyName = (tls: ConnectionOptions) => tls.checkServerIdentity?.('elsewhere', {} as never) === undefined;

describe('the SSL settings of a PostgreSQL URL, as libpq reads them', () => {
  it('takes the SSL parameters out of the URL the driver reads and leaves every other part as written', () => {
    const s = pgConnectionSettings(
      `postgres://app:p%40ss@db.example:5432/mem?application_name=x&sslmode=require&options=-c%20search_path%3Dteam&sslrootcert=${CA}&uselibpqcompat=true#frag`,
      {},
    );
    expect(s.connectionString).toBe(
      'postgres://app:p%40ss@db.example:5432/mem?application_name=x&options=-c%20search_path%3Dteam#frag',
    );
    expect(pgConnectionSettings(`${URL_}?sslmode=disable`, {}).connectionString).toBe(URL_);
    expect(pgConnectionSettings(URL_, {}).connectionString).toBe(URL_);
  });

  it('no sslmode and no PGSSLMODE: left to the driver (no SSL), unless the URL names a certificate (verify-full)', () => {
    expect(settings('').attempts).toEqual([undefined]);
    expect(settings('').sslmode).toBeNull();
    expect(only(`?sslrootcert=${CA}`)).toEqual({ ca: 'CA PEM' });
    expect(settings(`?sslrootcert=${CA}`).sslmode).toBe('verify-full');
    // A certificate named only in the environment switches nothing on: a shell set up for psql changes no URL.
    expect(settings('', { PGSSLROOTCERT: CA }).attempts).toEqual([undefined]);
  });

  it('each sslmode: what is encrypted and what is checked', () => {
    expect(settings('?sslmode=disable').attempts).toEqual([false]);
    expect(settings('?sslmode=allow').attempts).toEqual([false, { rejectUnauthorized: false }]);
    expect(settings('?sslmode=prefer').attempts).toEqual([{ rejectUnauthorized: false }, false]);
    expect(only('?sslmode=require')).toEqual({ rejectUnauthorized: false });
    expect(only('?sslmode=no-verify')).toEqual({ rejectUnauthorized: false });
    // require with a root certificate checks the chain and not the name, as verify-ca (libpq's rule).
    const requireCa = only(`?sslmode=require&sslrootcert=${CA}`);
    expect(requireCa.ca).toBe('CA PEM');
    expect(requireCa.rejectUnauthorized).toBeUndefined();
    expect(anyName(requireCa)).toBe(true);
    const verifyCa = only(`?sslmode=verify-ca&sslrootcert=${CA}`);
    expect(verifyCa.ca).toBe('CA PEM');
    expect(anyName(verifyCa)).toBe(true);
    // verify-full: Node's own checks (chain and name), against the CA given or the public ones.
    expect(only(`?sslmode=verify-full&sslrootcert=${CA}`)).toEqual({ ca: 'CA PEM' });
    expect(only('?sslmode=verify-full')).toEqual({});
  });

  it('a client certificate goes with every mode that encrypts, its key decrypted by sslpassword', () => {
    const client = { cert: 'CERT PEM', key: 'KEY PEM' };
    expect(only(`?sslmode=require&sslcert=${CERT}&sslkey=${KEY}`)).toEqual({ ...client, rejectUnauthorized: false });
    expect(only(`?sslmode=verify-full&sslcert=${CERT}&sslkey=${KEY}&sslpassword=kp`)).toEqual({
      ...client,
      passphrase: 'kp',
    });
    expect(() => settings(`?sslmode=require&sslcert=${CERT}`)).toThrow(/needs both sslcert .* and sslkey/);
  });

  it('PGSSLMODE and the PGSSL* files apply when the URL does not say; the URL wins', () => {
    expect(only('', { PGSSLMODE: 'require' })).toEqual({ rejectUnauthorized: false });
    expect(settings('?sslmode=disable', { PGSSLMODE: 'require' }).attempts).toEqual([false]);
    const env = { PGSSLMODE: 'verify-ca', PGSSLROOTCERT: CA, PGSSLCERT: CERT, PGSSLKEY: KEY };
    const tls = only('', env);
    expect(tls).toMatchObject({ ca: 'CA PEM', cert: 'CERT PEM', key: 'KEY PEM' });
    expect(settings('', env).sslrootcert).toEqual({ path: CA, setting: 'PGSSLROOTCERT' });
    expect(settings(`?sslrootcert=${CA}`, env).sslrootcert).toEqual({ path: CA, setting: 'sslrootcert' });
  });

  it("node-postgres's ssl parameter, and sslrootcert=system as libpq 16 reads it", () => {
    expect(only('?ssl=true')).toEqual({});
    expect(settings('?ssl=0').attempts).toEqual([false]);
    expect(only('?ssl=no-verify')).toEqual({ rejectUnauthorized: false });
    expect(settings('?ssl=true&sslmode=require').sslmode).toBe('require');
    expect(only('?sslrootcert=system')).toEqual({});
    expect(settings('?sslrootcert=system').sslmode).toBe('verify-full');
    expect(() => settings('?sslmode=require&sslrootcert=system')).toThrow(
      /sslmode=require may not be used with sslrootcert=system/,
    );
  });

  it('refuses, as ConfigErrors naming the parameter and the URL without its password, what cannot be used', () => {
    const refused = (query: string, env: NodeJS.ProcessEnv = {}): string => {
      try {
        settings(query, env);
      } catch (e) {
        expect(ConfigError.isInstance(e)).toBe(true);
        const message = (e as Error).message;
        expect(message).not.toContain(':pw@');
        return message;
      }
      throw new Error(`${query} was accepted`);
    };
    expect(refused('?sslmode=required')).toBe(
      "sslmode=required in the PostgreSQL URL postgres://app:***@db.example:5432/mem?sslmode=required: no such sslmode (use one of disable, allow, prefer, require, verify-ca, verify-full; no-verify is node-postgres's name for require)",
    );
    expect(refused('?ssl=yes')).toMatch(/^ssl=yes in the PostgreSQL URL .*: use sslmode=MODE instead/);
    expect(refused('?sslmode=verify-ca')).toMatch(
      /^sslmode=verify-ca in the PostgreSQL URL .* name its certificate with sslrootcert=PATH/,
    );
    const missing = join(dir, 'nope', 'ca.crt');
    expect(refused(`?sslmode=verify-full&sslrootcert=${missing}`)).toBe(
      `cannot read sslrootcert=${missing} in the PostgreSQL URL postgres://app:***@db.example:5432/mem?sslmode=verify-full&sslrootcert=${missing} (no such file): sslrootcert names the CA certificate (PEM) the server's certificate must be signed by`,
    );
    expect(refused(`?sslmode=require&sslcert=${dir}&sslkey=${KEY}`)).toMatch(
      /^cannot read sslcert=\S+ in the PostgreSQL URL .* \(it is a directory\): sslcert names this client's certificate/,
    );
    expect(refused('', { PGSSLMODE: 'require', PGSSLKEY: missing, PGSSLCERT: CERT })).toBe(
      `cannot read PGSSLKEY=${missing} (no such file): sslkey names the private key (PEM) of this client's certificate`,
    );
    expect(refused('', { PGSSLMODE: 'on' })).toMatch(/^PGSSLMODE=on: no such sslmode/);
    // Nothing is read when nothing encrypts.
    expect(settings(`?sslmode=disable&sslrootcert=${missing}`).attempts).toEqual([false]);
  });

  it("refuses other tools' schema parameters, which the driver would ignore, and says how to name a schema", () => {
    for (const name of ['schema', 'currentSchema', 'search_path']) {
      expect(() => settings(`?${name}=team`)).toThrow(ConfigError);
      expect(() => settings(`?sslmode=require&${name}=team`)).toThrow(
        new RegExp(
          `^${name}= in the PostgreSQL URL postgres://app:\\*\\*\\*@.* write options=-csearch_path%3DNAME instead`,
        ),
      );
    }
    expect(settings('?options=-csearch_path%3Dteam').connectionString).toBe(`${URL_}?options=-csearch_path%3Dteam`);
  });
});
