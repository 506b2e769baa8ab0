// SQLite entry point (`skillsmith/sqlite`): the embedded store, the default back end. An application rarely
// needs it: `openMemory({ db: './memory.db' })` opens it. Import it to open a store yourself, e.g. to share one.

/** Opens (and migrates) the SQLite store in a file; pass it to `openMemory({ db })`. */
export { openSqliteStore, SqliteStore } from './store/sqlite/sqlite-store.js';
/** Opens the store a location names: a SQLite file, or a postgres:// URL (loading `pg` only then). */
export { openStore, isPostgresUrl } from './store/open-store.js';
