/**
 * The orders in which a pass visits skills where the first visited wins a tie (which skill a branch leads to,
 * which of two alike skills absorbs the other). Ties are broken by name, which comes from what was learned, and
 * only then by id, which is random: two passes over the same history decide alike. Pure.
 */
import type { Skill } from './types.js';

/** More support first; then by name. */
export function strongerFirst(a: Pick<Skill, 'support' | 'name' | 'id'>, b: Pick<Skill, 'support' | 'name' | 'id'>) {
  return b.support - a.support || a.name.localeCompare(b.name) || a.id.localeCompare(b.id);
}

/** More support first; then the older; then by name. */
export function strongerThenOlderFirst(
  a: Pick<Skill, 'support' | 'createdAt' | 'name' | 'id'>,
  b: Pick<Skill, 'support' | 'createdAt' | 'name' | 'id'>,
) {
  return b.support - a.support || a.createdAt.localeCompare(b.createdAt) || strongerFirst(a, b);
}
