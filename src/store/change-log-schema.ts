/**
 * The skill change log of both back ends (migrations 6, 7 and 9): which columns of `skills` count as a change a
 * recall index must see, and the window of changes the log keeps. Each dialect's migrations write their own
 * trigger around these; what the trigger watches and prunes is decided here, once.
 */

/**
 * The columns whose change counts (migration 6): those that decide which skills recall serves, with which
 * vector, and what it shows of them. A recall's touch of last_used_at (and a trial's counters) does not count.
 */
export const LOGGED_SKILL_COLUMNS_V6 = [
  'id',
  'namespace',
  'corpus',
  'enabled',
  'status',
  'eta',
  'superseded_by',
  'embedder_id',
  'embedding',
  'utility',
  'name',
  'description',
  'body',
  'version',
  'kind',
  'tools_required',
  'tool_sequence',
] as const;

/** Migration 7 onwards: the recall exemplars are recall vectors too. */
export const LOGGED_SKILL_COLUMNS_V7 = LOGGED_SKILL_COLUMNS_V6.flatMap((c) =>
  c === 'embedding' ? ['embedding', 'exemplars'] : [c],
);

/**
 * The window the log keeps (migration 9): the last 100,000 changes, pruned every 1,000, and each namespace's
 * latest change so its revision never goes back. `skill_changes_pruned.through` says how far it was pruned.
 * `greatest` is the dialect's two-argument maximum (SQLite `MAX`, PostgreSQL `GREATEST`).
 */
export function changeLogWindow(greatest: 'MAX' | 'GREATEST'): { when: string; prune: string } {
  return {
    when: 'NEW.revision % 1000 = 0 AND NEW.revision > 100000',
    prune: `UPDATE skill_changes_pruned SET through = ${greatest}(through, NEW.revision - 100000);
  DELETE FROM skill_changes WHERE revision <= NEW.revision - 100000
    AND revision NOT IN (SELECT MAX(revision) FROM skill_changes GROUP BY namespace);`,
  };
}
