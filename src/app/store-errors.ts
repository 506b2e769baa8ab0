import { connectionLossText, isConnectionError } from '../store/postgres/connection-error.js';

/**
 * For a surface: an error that means the memory's database cannot be reached right now (a PostgreSQL server down
 * or restarting, the network cut), said in one line with the driver's reason; null for any other error.
 */
export function unreachableStoreText(e: unknown): string | null {
  return isConnectionError(e) ? `the memory's database cannot be reached (${connectionLossText(e)})` : null;
}
