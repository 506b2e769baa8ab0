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
