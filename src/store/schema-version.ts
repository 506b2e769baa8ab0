import { BackendUnavailableError } from '../errors/backend-unavailable-error.js';

/**
 * Refuses a memory that a newer release of Skillsmith wrote: its schema has versions this release does not know,
 * so writing to it could break what the newer one stored (a fleet upgrading one host at a time). Thrown before any
 * migration runs; the store's open names the memory.
 */
export function refuseNewerSchema(applied: Iterable<number>, latest: number): void {
  let newest = 0;
  for (const v of applied) if (v > newest) newest = v;
  if (newest > latest)
    throw new BackendUnavailableError(
      `it was written by a newer Skillsmith (schema version ${newest}; this version knows up to ${latest}): ` +
        'upgrade skillsmith where this command runs, or use another memory; nothing was changed',
    );
}
