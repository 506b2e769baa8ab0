import { createHash } from 'node:crypto';

/**
 * The names a memory's processes meet each other by in the database server: the channel that announces skill
 * changes and the prefix of the pass locks' keys. Advisory locks and LISTEN channels belong to the database, not
 * to a schema, so two memories in two schemas of one database (search_path) each need their own: sharing them, one
 * memory's pass refused the other's, and its change notices (a higher counter) hid the other's own changes. A
 * memory in `public` keeps the names every earlier version used, so a fleet that upgrades one host at a time still
 * meets under them.
 */
export interface MemoryScope {
  /** The LISTEN/NOTIFY channel, a plain identifier (no quoting needed). */
  channel: string;
  /** What pass lock keys start with (`skillsmith:lock:synthesis:default` in public). */
  lockPrefix: string;
}

export function memoryScope(schema: string): MemoryScope {
  if (schema === 'public') return { channel: 'skillsmith_changes', lockPrefix: 'skillsmith:lock:' };
  // A schema's name may be any text up to 63 bytes, and a channel's must be an identifier of as many: a digest.
  const digest = createHash('sha256').update(schema).digest('hex').slice(0, 16);
  return { channel: `skillsmith_changes_${digest}`, lockPrefix: `skillsmith:${schema}:lock:` };
}
