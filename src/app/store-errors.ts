import { connectionLossText, isConnectionError } from '../store/postgres/connection-error.js';

/**
 * For a surface: an error that means the memory's database cannot be reached right now (a PostgreSQL server down
 * or restarting, the network cut), said in one line with the driver's reason; null for any other error.
 */
export function unreachableStoreText(e: unknown): string | null {
  return isConnectionError(e) ? `the memory's database cannot be reached (${connectionLossText(e)})` : null;
}

/**
 * For a surface: an error that means another process holds the SQLite memory's write lock, and held it longer than
 * a write waits for it (busy_timeout, 5 s): a long pass or import elsewhere. Nothing was written; the same request
 * later goes through. Null for any other error.
 */
export function busyStoreText(e: unknown): string | null {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(code)
    ? "the memory's SQLite file is being written by another process, which held its write lock longer than a write waits (5 s); nothing was written"
    : null;
}
