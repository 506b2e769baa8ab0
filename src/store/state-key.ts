/**
 * The keys of the synthesis state (`getState` / `setState`), typed: every caller names a key through
 * `stateKey`, so a typo cannot start a second, empty state. The strings are what existing databases hold:
 * never change them.
 */
export type StateKey =
  | 'tool-stats'
  | 'goal-stats'
  | 'look-alike-open'
  | `goal-mean:${string}`
  | `watermark:${string}`
  | `audit-file:${string}`
  | `transcript:${string}`;

export const stateKey = {
  /** Document frequencies of tool terms over the clustered sessions (JSON of `TermStats`). */
  toolStats: 'tool-stats',
  /** Document frequencies of goal words over the clustered sessions (JSON of `TermStats`). */
  goalStats: 'goal-stats',
  /**
   * The clusters too small to learn from (by their size, or by their members that ended) that held sessions still
   * open at the last pass, with how many (JSON of `[clusterId, open][]`): an end of one is a change the look-alike
   * search says, and `sessions alike` compares these as the pass did (stages/look-alike.ts).
   */
  lookAlikeOpen: 'look-alike-open',
  /** The mean goal direction of an embedder's vectors (JSON of `GoalMean`); it shapes every recall vector. */
  goalMean: (embedderId: string): StateKey => `goal-mean:${embedderId}`,
  /** The highest session seq a pass has clustered with an embedder. */
  watermark: (embedderId: string): StateKey => `watermark:${embedderId}`,
  /** The last audit id written to an audit JSONL file (kept in the '' namespace). */
  auditFileMark: (path: string): StateKey => `audit-file:${path}`,
  /** How far a hook has read a transcript an agent appends to (JSON of `TranscriptMark`), by its absolute path. */
  transcriptMark: (path: string): StateKey => `transcript:${path}`,
} as const satisfies Record<string, StateKey | ((arg: string) => StateKey)>;

/** Whether a write of this key changes what recall computes (other processes must reload their index). */
export function stateShapesRecall(key: StateKey): boolean {
  return key.startsWith('goal-mean:');
}

/**
 * The state an embedder change clears with the clusters (every watermark, the term statistics, the clusters that
 * held open sessions, and every embedder's mean goal vector), so the next pass re-clusters every session: as a SQL
 * condition on `key`, the same in both dialects. A mean goes with its embedder's watermark: kept, it was added to again
 * by the pass that reads every session from the start (an embedder switched back to counted each goal twice), and an
 * earlier embedder's mean kept the goals of sessions forgotten since (a forget takes them out of the current one only).
 */
export const STATE_CLEARED_ON_REEMBED_SQL = `(key LIKE 'watermark:%' OR key LIKE 'goal-mean:%' OR key IN ('tool-stats', 'goal-stats', 'look-alike-open'))`;

/**
 * The rows of the state that belong to a place rather than to the memory: the marks of how far each audit JSONL file
 * beside it was written. `migrate` leaves them behind (a copy elsewhere has no file yet), as a SQL condition on `key`.
 */
export const STATE_OF_THE_PLACE_SQL = `key LIKE 'audit-file:%'`;
