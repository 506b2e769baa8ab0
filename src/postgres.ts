// PostgreSQL entry point (`skillsmith/postgres`): the store shared by a fleet of agents. It is kept out of the
// main entry so that importing `skillsmith` never loads the `pg` driver; `openMemory({ db: 'postgres://...' })`
// loads it on demand.

/** Opens (and migrates) the PostgreSQL store at a postgres:// URL; pass it to `openMemory({ db })`. */
export { openPgStore, PgStore, type PgStoreOptions } from './store/postgres/pg-store.js';
