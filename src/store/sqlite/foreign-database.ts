import type Database from 'better-sqlite3';
import { ConfigError } from '../../errors/config-error.js';
import { FIRST_MIGRATION_NAME, isSchemaTable, tableList } from '../schema-version.js';

/**
 * The tables (and views) of a SQLite database that is no Skillsmith memory: another program's, which a memory must
 * never be written into (a `--db` pointed at an application's database). Null when the database holds nothing yet
 * (a new or empty file: it becomes a memory) or holds a memory of any schema version.
 *
 * Only reads `sqlite_master` and the schema table: call it before any statement that may write (a journal mode, a
 * migration). A memory is known by its schema table, the one table every release made first: `schema_migrations`
 * with Skillsmith's columns and its first migration recorded (`store_identity` is proof too, but only from schema
 * version 6 on). An empty schema table alone is a memory whose first migration never committed (an earlier release
 * made the table apart from it).
 */
export function foreignTables(db: Database.Database): string[] | null {
  // sqlite_* names are SQLite's own (sqlite_sequence, sqlite_stat1, automatic indexes): no program makes them.
  const objects = db
    .prepare(
      `SELECT type, name FROM sqlite_master WHERE lower(substr(name, 1, 7)) <> 'sqlite_' ORDER BY type <> 'table', name`,
    )
    .all() as { type: string; name: string }[];
  if (objects.length === 0) return null;
  const columns = db.prepare(`SELECT name FROM pragma_table_info('schema_migrations')`).pluck().all() as string[];
  if (isSchemaTable(columns)) {
    const first = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version LIMIT 1').get() as
      | { version: unknown; name: unknown }
      | undefined;
    if (first ? first.version === 1 && first.name === FIRST_MIGRATION_NAME : objects.length === 1) return null;
  }
  const tables = objects.filter((o) => o.type === 'table' || o.type === 'view');
  return (tables.length ? tables : objects).map((o) => o.name);
}

/** Refuses a database `foreignTables` finds another program's, naming the file and its tables. */
export function refuseForeignDatabase(db: Database.Database, path: string): void {
  const tables = foreignTables(db);
  if (tables) throw foreignDatabaseError(path, tables);
}

/**
 * What a SQLite database of another program is told: the file, its tables, and what to give instead (`instead`:
 * where the file was named, `--db` unless a command names its memories otherwise, as migrate's --from and --to).
 */
export function foreignDatabaseError(
  path: string,
  tables: readonly string[],
  instead = 'give --db a new file or an existing Skillsmith memory',
): ConfigError {
  return new ConfigError(
    `${path} is a SQLite database of another program (tables: ${tableList(tables)}): Skillsmith keeps its memory in a database of its own, and nothing was written to this one; ${instead}`,
  );
}
