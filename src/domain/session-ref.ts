import { createHash } from 'node:crypto';

/**
 * The opaque reference of a session (`ses-` and 16 hex digits of its id's SHA-256): how SKILL.md files and the
 * audit record of a forgotten session name it, without its id or content.
 */
export function sessionRef(id: string): string {
  return `ses-${createHash('sha256').update(id).digest('hex').slice(0, 16)}`;
}
