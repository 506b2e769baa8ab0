import type { Session } from './types.js';

/**
 * Whether a session is still open: it has not ended and nobody has given it an outcome (no report, no judgement).
 * The agent may still be running, or its end never arrived. A synthesis pass counts it for nothing until it ends
 * (then its cluster is distilled again, with it). A session with an outcome but no time of its end (an imported
 * log that gives none) has ended. Pure.
 */
export function stillOpen(s: Pick<Session, 'endedAt' | 'outcome' | 'outcomeSource'>): boolean {
  return !s.endedAt && s.outcome === 'unknown' && s.outcomeSource !== 'judged';
}
