import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { shownLocation } from '../../config/default-db.js';
import { ConfigError } from '../../errors/config-error.js';

/**
 * The SSL settings of a PostgreSQL URL, read the way libpq (psql, pg_dump) reads them, so that one URL means the same
 * thing to psql and to Skillsmith. The pg driver reads `sslmode` its own way: `prefer`, `require` and `verify-ca`
 * check the server's certificate and name as `verify-full` does (a managed server's `?sslmode=require` URL fails
 * on a certificate psql accepts) and print a multi-line security warning on every run. So Skillsmith takes the SSL
 * parameters out of the URL it hands the driver and passes the TLS settings they mean itself:
 *
 * | sslmode       | encrypted                                   | server certificate checked                      |
 * | ------------- | ------------------------------------------- | ----------------------------------------------- |
 * | disable       | no                                          | -                                               |
 * | allow         | only when the server refuses a plain login  | no                                              |
 * | prefer        | when the server has SSL on, else plain      | no                                              |
 * | require       | yes                                         | no; with sslrootcert: signed by that CA (as verify-ca) |
 * | verify-ca     | yes                                         | signed by the CA in sslrootcert (any name)      |
 * | verify-full   | yes                                         | signed by sslrootcert's CA (else a public CA Node.js knows) and names the host |
 * | no-verify     | yes (node-postgres's own value)             | no                                              |
 *
 * With no sslmode in the URL, `PGSSLMODE` says; with neither, the connection is not encrypted (the driver's
 * default; libpq's is `prefer`), unless the URL names a certificate file, which asks for `verify-full` as the
 * driver always did. `sslrootcert`, `sslcert`, `sslkey` (else `PGSSLROOTCERT`, `PGSSLCERT`, `PGSSLKEY`) name PEM
 * files, read here: one that cannot be read is a ConfigError naming the parameter and the path.
 * `sslrootcert=system` checks against the public CAs Node.js knows and asks for verify-full, as libpq 16 does.
 * `sslpassword` decrypts the key. Files libpq looks for by default under ~/.postgresql/ are not read.
 */

/** The sslmode values libpq defines, and node-postgres's own `no-verify`. */
export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** The URL parameters read here; the driver never sees them. `ssl` and `uselibpqcompat` are node-postgres's own. */
const SSL_PARAMS = new Set(['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'sslpassword', 'ssl', 'uselibpqcompat']);

/** Names other tools give a schema in a URL (Prisma's `schema`, JDBC's `currentSchema`), none of them PostgreSQL's. */
const SCHEMA_PARAMS = new Set(['schema', 'currentSchema', 'currentschema', 'search_path', 'searchpath']);

/** TLS settings for one connection attempt: false = no TLS; undefined = the driver's default (no TLS). */
export type TlsSetting = false | ConnectionOptions | undefined;

/** How to connect to the PostgreSQL memory at a URL. */
export interface PgConnectionSettings {
  /** The URL the driver reads: the given one without its SSL parameters (password and all else as given). */
  connectionString: string;
  /** The sslmode in effect (the URL's, else PGSSLMODE's); null when neither says. */
  sslmode: SslMode | null;
  /**
   * The CA file the server's certificate is checked against (`system` included), and the setting that named it
   * (`sslrootcert`, or `PGSSLROOTCERT`); null when none did.
   */
  sslrootcert: { path: string; setting: string } | null;
  /**
   * The TLS settings to try, in order. One, except for allow (plain, then TLS when the server refuses a plain
   * login) and prefer (TLS, then plain when the server has SSL off).
   */
  attempts: TlsSetting[];
}

/** Where a setting came from, for messages: a parameter of the URL or an environment variable. */
interface Source {
  value: string;
  /** `sslrootcert` or `PGSSLROOTCERT`. */
  setting: string;
  /** `sslrootcert=/etc/ca.pem in the PostgreSQL URL postgres://app:***@db/x?...` or `PGSSLROOTCERT=/etc/ca.pem`. */
  named: string;
}

const FILE_ROLES: Record<'sslrootcert' | 'sslcert' | 'sslkey', string> = {
  sslrootcert: "the CA certificate (PEM) the server's certificate must be signed by",
  sslcert: "this client's certificate (PEM)",
  sslkey: "the private key (PEM) of this client's certificate",
};

/**
 * Reads a PostgreSQL URL's SSL parameters (and libpq's PGSSL* variables in `env`) into the settings to connect
 * with. Throws a ConfigError, naming the parameter and the URL with its password hidden, for an sslmode no one
 * defines, a certificate file that cannot be read, or a combination libpq refuses too.
 */
export function pgConnectionSettings(url: string, env: NodeJS.ProcessEnv = process.env): PgConnectionSettings {
  const { connectionString, params, others } = takeSslParams(url);
  const shown = shownLocation(url);
  // Other tools' ways to name a schema: the driver ignores them (libpq refuses them), so the tables would land in
  // the user's default schema, and a read would answer from an empty memory there.
  const schema = others.find((name) => SCHEMA_PARAMS.has(name));
  if (schema)
    throw new ConfigError(
      `${schema}= in the PostgreSQL URL ${shown} is not a PostgreSQL connection parameter (it would be ignored, and the memory's tables made in the user's default schema): to keep them in schema NAME, write options=-csearch_path%3DNAME instead (or set PGOPTIONS='-c search_path=NAME')`,
    );
  const fromUrl = (name: string): Source | null => {
    const value = params.get(name);
    return value ? { value, setting: name, named: `${name}=${value} in the PostgreSQL URL ${shown}` } : null;
  };
  const fromEnv = (name: string): Source | null => {
    const value = env[name];
    return value ? { value, setting: name, named: `${name}=${value}` } : null;
  };

  const modeSource = fromUrl('sslmode') ?? fromSslParam(params.get('ssl'), shown) ?? fromEnv('PGSSLMODE');
  if (modeSource && !(SSL_MODES as readonly string[]).includes(modeSource.value)) {
    throw new ConfigError(
      `${modeSource.named}: no such sslmode (use one of ${SSL_MODES.slice(0, 6).join(', ')}; no-verify is node-postgres's name for require)`,
    );
  }
  let mode = (modeSource?.value ?? null) as SslMode | null;
  // A file named in the URL asks for SSL by itself (as the driver always read it); one named only in the
  // environment applies when an sslmode asks for SSL, so a shell set up for psql changes no plain connection.
  const file = (name: 'sslrootcert' | 'sslcert' | 'sslkey') =>
    fromUrl(name) ?? (mode && mode !== 'disable' ? fromEnv(`PG${name.toUpperCase()}`) : null);
  const rootSource = file('sslrootcert');
  const system = rootSource?.value === 'system';
  if (system) {
    // libpq 16: the system's CAs prove nothing unless the name is checked too.
    if (mode && mode !== 'verify-full' && mode !== 'disable')
      throw new ConfigError(
        `${rootSource.named}: sslmode=${mode} may not be used with sslrootcert=system (the public CAs vouch for a name, so use sslmode=verify-full)`,
      );
    mode ??= 'verify-full';
  }
  const certSource = file('sslcert');
  const keySource = file('sslkey');
  if (!mode && (rootSource || certSource || keySource)) mode = 'verify-full';
  const settings = (attempts: TlsSetting[]): PgConnectionSettings => ({
    connectionString,
    sslmode: mode,
    sslrootcert: rootSource ? { path: rootSource.value, setting: rootSource.setting } : null,
    attempts,
  });
  if (!mode) return settings([undefined]);
  if (mode === 'disable') return settings([false]);

  if (Boolean(certSource) !== Boolean(keySource)) {
    const given = (certSource ?? keySource)!;
    throw new ConfigError(
      `${given.named}: a client certificate needs both sslcert (the certificate) and sslkey (its private key); name the other one too`,
    );
  }
  const client: ConnectionOptions = {};
  if (certSource && keySource) {
    client.cert = readPem('sslcert', certSource);
    client.key = readPem('sslkey', keySource);
    const passphrase = params.get('sslpassword');
    if (passphrase) client.passphrase = passphrase;
  }
  const ca = rootSource && !system ? readPem('sslrootcert', rootSource) : undefined;
  const unchecked: ConnectionOptions = { ...client, rejectUnauthorized: false };
  // The chain is checked against the CA; the name is not (checkServerIdentity answering "fine").
  const caOnly = (c: string): ConnectionOptions => ({ ...client, ca: c, checkServerIdentity: () => undefined });
  switch (mode) {
    case 'allow':
      return settings([false, unchecked]);
    case 'prefer':
      return settings([unchecked, false]);
    case 'require':
      // libpq: "if a root CA file exists, the behavior of sslmode=require will be the same as that of verify-ca".
      return settings([ca ? caOnly(ca) : unchecked]);
    case 'no-verify':
      return settings([unchecked]);
    case 'verify-ca':
      if (!ca)
        throw new ConfigError(
          `sslmode=verify-ca in the PostgreSQL URL ${shown} checks the server's certificate against a CA of your own: name its certificate with sslrootcert=PATH (or use verify-full, which also checks the host name, against the public CAs when no sslrootcert is given)`,
        );
      return settings([caOnly(ca)]);
    case 'verify-full':
      return settings([{ ...client, ...(ca ? { ca } : {}) }]);
  }
}

/** node-postgres's `ssl` parameter (`ssl=true`, `ssl=0`, `ssl=no-verify`) as an sslmode, when no sslmode is given. */
function fromSslParam(value: string | undefined, shown: string): Source | null {
  if (value === undefined) return null;
  const named = (v: string) => ({ value: v, setting: 'ssl', named: `ssl=${value} in the PostgreSQL URL ${shown}` });
  if (value === 'true' || value === '1') return named('verify-full');
  if (value === 'false' || value === '0') return named('disable');
  if (value === 'no-verify') return named('no-verify');
  throw new ConfigError(
    `ssl=${value} in the PostgreSQL URL ${shown}: use sslmode=MODE instead (${SSL_MODES.slice(0, 6).join(', ')})`,
  );
}

function readPem(param: keyof typeof FILE_ROLES, source: Source): string {
  try {
    return readFileSync(source.value, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES' || code === 'EPERM'
          ? 'this account may not read it'
          : code === 'EISDIR'
            ? 'it is a directory'
            : (e as Error).message;
    throw new ConfigError(`cannot read ${source.named} (${why}): ${param} names ${FILE_ROLES[param]}`, { cause: e });
  }
}

/**
 * The URL without the SSL parameters, the SSL parameters it had (the last of a repeated one, as the driver reads
 * them), and the names of the others. The query is found as the driver's URL parser finds it (from the first `?`, up to a `#`), and only the
 * SSL parameters are taken out of its text: everything else reaches the driver exactly as given.
 */
function takeSslParams(url: string): { connectionString: string; params: Map<string, string>; others: string[] } {
  const params = new Map<string, string>();
  const others: string[] = [];
  const q = url.indexOf('?');
  const hash = url.indexOf('#');
  if (q < 0 || (hash >= 0 && hash < q)) return { connectionString: url, params, others };
  const end = hash >= 0 ? hash : url.length;
  const kept: string[] = [];
  for (const piece of url.slice(q + 1, end).split('&')) {
    const [entry] = [...new URLSearchParams(piece)];
    if (entry && SSL_PARAMS.has(entry[0])) params.set(entry[0], entry[1]);
    else if (piece) {
      kept.push(piece);
      if (entry) others.push(entry[0]);
    }
  }
  const query = kept.length ? `?${kept.join('&')}` : '';
  return { connectionString: `${url.slice(0, q)}${query}${url.slice(end)}`, params, others };
}
