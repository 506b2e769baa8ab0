import { BackendUnavailableError } from '../errors/backend-unavailable-error.js';

/**
 * Refuses a memory that a newer release of Skillsmith wrote: its schema has versions this release does not know,
 * so writing to it could break what the newer one stored (a fleet upgrading one host at a time). Thrown before any
 * migration runs; the store's open names the memory.
 */
export function refuseNewerSchema(applied: Iterable<number>, latest: number): void {
  const newest = newestVersion(applied);
  if (newest > latest)
    throw new BackendUnavailableError(
      `it was written by a newer Skillsmith (schema version ${newest}; this version knows up to ${latest}): ` +
        'upgrade skillsmith where this command runs, or use another memory; nothing was changed',
    );
}

/** The newest schema version a memory's migrations reached (0 for a new memory). */
export function newestVersion(applied: Iterable<number>): number {
  let newest = 0;
  for (const v of applied) if (v > newest) newest = v;
  return newest;
}

/**
 * The version an open upgraded the memory from, to be said once: null for a new memory (nothing to upgrade) or one
 * that was current already.
 */
export function upgradedFrom(from: number, to: number): number | null {
  return from > 0 && to > from ? from : null;
}

/**
 * The columns of Skillsmith's schema table, `schema_migrations`, as every release made it. The name alone proves
 * nothing: Rails keeps a `schema_migrations (version)` and golang-migrate a `schema_migrations (version, dirty)`.
 */
const SCHEMA_TABLE_COLUMNS = ['applied_at', 'name', 'version'];

/** Skillsmith's first migration, as every release recorded it in its schema table (row `version` 1). */
export const FIRST_MIGRATION_NAME = 'core tables';

/** Whether a table named `schema_migrations` has the columns of Skillsmith's (and no others). */
export function isSchemaTable(columns: readonly string[]): boolean {
  return [...columns].sort().join(',') === SCHEMA_TABLE_COLUMNS.join(',');
}

/** Table names for a message: the first few, each cut short, and how many more there are. */
export function tableList(names: readonly string[], max = 8): string {
  const shown = names.slice(0, max).map((n) => (n.length > 64 ? `${n.slice(0, 63)}…` : n));
  return names.length > max ? `${shown.join(', ')} and ${names.length - max} more` : shown.join(', ');
}
