const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * True when an error means "the server is not reachable right now" (down, restarting, network cut) rather
 * than "this statement is wrong": such work can wait and be retried; the other kind never succeeds.
 */
export function isConnectionError(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | null;
  if (!err || typeof err !== 'object') return false;
  const code = typeof err.code === 'string' ? err.code : '';
  // SQLSTATE class 08 (connection exception), 57P01-57P03 (admin/crash shutdown, cannot connect now).
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return true;
  if (NETWORK_CODES.has(code)) return true;
  const message = typeof err.message === 'string' ? err.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|Client was closed|terminating connection/i.test(
    message,
  );
}

/** One line for a lost connection: SQLSTATE and the first line of the message. */
export function connectionLossText(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown };
  const code = typeof err?.code === 'string' ? `${err.code} ` : '';
  return `${code}${String(err?.message ?? e).split('\n')[0]}`;
}

/**
 * What to do about a failure to open a PostgreSQL memory, by its SQLSTATE or network code; null when there is
 * nothing more useful to say than the server's reason.
 */
/** What to do when the search_path names no schema that exists (current_schema() is null). */
export const NO_SCHEMA =
  'the search_path (options=-csearch_path=... in the URL, or PGOPTIONS) names no schema that exists: create it first (CREATE SCHEMA name AUTHORIZATION user), or name one that does';

/** How to write a URL the driver cannot read (a password pasted with `@`, `/`, `#`, a space). */
export const URL_FORM =
  'write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE, with any of @ : / ? # % or a space in the user name or password percent-encoded (p%40ss for p@ss), or give the password in PGPASSWORD instead';

export function openHint(
  e: unknown,
  where: {
    host: string;
    port: string;
    database: string;
    sslmode?: string | null;
    sslrootcert?: { path: string; setting: string } | null;
  },
): string | null {
  const err = e as { code?: unknown; message?: unknown } | null;
  const code = typeof err?.code === 'string' ? err.code : '';
  const message = typeof err?.message === 'string' ? err.message : '';
  const server = `${where.host}:${where.port}`;
  const tls = tlsHint(code, message, where, server);
  if (tls) return tls;
  if (code === '28P01' || code === '28000')
    return 'check the user name and the password (in the URL, else PGPASSWORD, else ~/.pgpass), and that pg_hba.conf lets this user in';
  // The driver's words when the server asks for a password and it has none (SCRAM; md5 and cleartext say the same).
  if (/client password must be a string|password must be a string/i.test(message))
    return 'the server asks for a password and none was given: put it in the URL, in PGPASSWORD, or in a line host:port:database:user:password of ~/.pgpass (PGPASSFILE names another file; mode 0600, or it is ignored)';
  if (code === '3D000')
    return `create the database first (createdb ${where.database}, or CREATE DATABASE ${where.database}), or name another one in the URL`;
  // "no schema has been selected to create in": the search_path names no schema that exists.
  if (code === '3F000') return NO_SCHEMA;
  if (code === '42501')
    return 'the user may not create tables there: grant it CREATE on the schema, or use its own database';
  if (code === 'ECONNREFUSED') return `is PostgreSQL running and listening on ${server}?`;
  if (code === 'ERR_INVALID_URL' || message === 'Invalid URL') return URL_FORM;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `check the host name ${where.host}`;
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || /timeout/i.test(message))
    return `nothing answered at ${server}: check the host, the port and any firewall between`;
  return null;
}

/** Node's codes for a server certificate that does not chain up to a trusted CA. */
const UNTRUSTED_CERT = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
]);

/** What to do when SSL is what failed: the server has it off, or its certificate is not the one the URL trusts. */
function tlsHint(
  code: string,
  message: string,
  where: { host: string; sslmode?: string | null; sslrootcert?: { path: string; setting: string } | null },
  server: string,
): string | null {
  const mode = where.sslmode ?? 'verify-full';
  const root = where.sslrootcert;
  if (message === 'The server does not support SSL connections')
    return `sslmode=${mode} asks for SSL and the server at ${server} has it off: turn ssl on in its postgresql.conf, or use sslmode=prefer to connect unencrypted when it has none`;
  const against =
    root && root.path !== 'system'
      ? `the CA certificate in ${root.setting}=${root.path}`
      : 'a public CA Node.js knows (no sslrootcert given)';
  if (UNTRUSTED_CERT.has(code)) {
    const unchecked =
      mode === 'require'
        ? 'or leave sslrootcert out (sslmode=require without it encrypts and checks no certificate)'
        : 'or use sslmode=require to encrypt without checking the certificate';
    return `sslmode=${mode}: the server's certificate is not signed by ${against}; name the CA that signed it with sslrootcert=PATH, ${unchecked}`;
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID')
    return `sslmode=${mode}: the server's certificate is not valid today; renew it on the server`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `sslmode=verify-full: the server's certificate does not name ${where.host}; connect by a name it holds, or use sslmode=verify-ca to check only that it is signed by ${against}`;
  return null;
}
