import { ConfigError } from '../../errors/config-error.js';
import { FIRST_MIGRATION_NAME, isSchemaTable, tableList } from '../schema-version.js';
import { pgMigrations } from './migrations.js';

/** Runs one statement: a client, a pool. */
type Querier = { query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }> };

/** Every table name a memory's migrations create, its schema table's first. */
const OWN_TABLES = [
  'schema_migrations',
  ...new Set(
    pgMigrations.flatMap((m) => [...m.sql.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?(\w+)/gi)].map((x) => x[1])),
  ),
];

/**
 * The tables (or other relations) in the schema a memory's tables go to (the first of the search_path) that carry
 * one of Skillsmith's table names and are another program's: an application's own `sessions` or `events`, Rails'
 * `schema_migrations`. Empty when the schema holds a memory, or none of those names. Other tables are no concern: a
 * memory may share a schema with an application's (README, "A schema of its own").
 *
 * Only reads the catalogue and the schema table. A memory is known by its schema table: Skillsmith's columns, its
 * first migration recorded. Empty, it was made by an earlier release that stopped before its first migration
 * committed (the table was made apart from it): what else is there then is another program's.
 */
export async function foreignTables(c: Querier): Promise<{ schema: string | null; tables: string[] }> {
  const [row] = (
    await c.query(
      `SELECT current_schema() AS schema, ARRAY(SELECT r.relname::text FROM pg_class r
         JOIN pg_namespace n ON n.oid = r.relnamespace
         WHERE n.nspname = current_schema() AND r.relname::text = ANY($1::text[]) ORDER BY 1) AS found`,
      [OWN_TABLES],
    )
  ).rows;
  const schema = (row?.schema as string | null) ?? null;
  const found = (row?.found as string[] | undefined) ?? [];
  if (!found.includes('schema_migrations')) return { schema, tables: found };
  const columns = (
    await c.query(
      `SELECT attname::text AS name FROM pg_attribute
       WHERE attrelid = to_regclass(quote_ident(current_schema()) || '.schema_migrations') AND attnum > 0 AND NOT attisdropped`,
    )
  ).rows.map((r) => r.name as string);
  if (isSchemaTable(columns)) {
    const { rows } = await c.query('SELECT version, name FROM schema_migrations ORDER BY version LIMIT 1');
    if (rows.length === 0) return { schema, tables: found.filter((t) => t !== 'schema_migrations') };
    if (rows[0].version === 1 && rows[0].name === FIRST_MIGRATION_NAME) return { schema, tables: [] };
  }
  return { schema, tables: found };
}

/**
 * What a schema holding another program's tables under Skillsmith's names is told: which tables, and how to keep the
 * memory in a schema of its own.
 */
export function foreignTablesError(location: string, schema: string | null, tables: readonly string[]): ConfigError {
  return new ConfigError(
    `the schema ${schema ?? 'public'} of ${location} holds tables of another program under names Skillsmith's memory uses (${tableList(tables)}), and no Skillsmith memory: nothing was written to it. Keep the memory in a schema of its own (README, "A schema of its own"): CREATE SCHEMA skillsmith, then add options=-csearch_path%3Dskillsmith to the URL (or set PGOPTIONS='-c search_path=skillsmith'), or give --db another database`,
  );
}
