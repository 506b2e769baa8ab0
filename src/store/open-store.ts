import { isPostgresUrl } from '../config/default-db.js';
import type { Logger } from '../support/log.js';
import type { PgStoreOptions } from './postgres/pg-store.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

export { isPostgresUrl };

/** Opens the memory at `location`: a PostgreSQL URL (shared by a fleet) or a SQLite file (one host). */
export async function openStore(
  location: string,
  opts: {
    postgres?: PgStoreOptions /** Hears how a SQLite file this account may only read was opened. */;
    log?: Logger;
  } = {},
): Promise<Store> {
  // The PostgreSQL driver loads only for a PostgreSQL memory: a SQLite CLI start does not pay for it.
  if (isPostgresUrl(location))
    return (await import('./postgres/pg-store.js')).openPgStore(location.trim(), opts.postgres);
  return openSqliteStore(location, { log: opts.log });
}
