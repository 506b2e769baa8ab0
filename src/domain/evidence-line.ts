/**
 * The line under a learned procedure's title that says what it was learned from and how its followers fared:
 * "Learned from 4 successful sessions; 80% of the 5 sessions that followed this procedure succeeded." Written by
 * the heuristic distiller, and said again when more sessions come to support the skill (a reinforcement, a
 * consolidation), so the text a future agent reads agrees with the skill's counts and its list of sources. Pure.
 */

import { splitFrontmatter } from './skill-md/frontmatter.js';

export interface EvidenceStats {
  /** Successful sessions the procedure was learned from or is supported by. */
  successes: number;
  /** Sessions that followed it and succeeded. */
  succeeded: number;
  /** Sessions that followed it, whatever the outcome. */
  followers: number;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The evidence line of these counts. */
export function evidenceLine(s: EvidenceStats): string {
  const rate = s.followers ? Math.round((100 * s.succeeded) / s.followers) : 0;
  return `Learned from ${plural(s.successes, 'successful session')}; ${rate}% of the ${plural(s.followers, 'session')} that followed this procedure succeeded.`;
}

const LINE =
  /^Learned from \d+ successful sessions?; \d+% of the \d+ sessions? that followed this procedure succeeded\.$/m;

/**
 * How many of the successful sessions showed something (an edge case: "in 2 of the 3 successful sessions"). Said
 * with `atLeast` once more sessions came to support the skill than were read for it: the sessions a
 * reinforcement or a consolidation brought were not read for this item, so what it counted is a floor.
 */
export function shareOfSuccesses(count: number, successes: number, atLeast = false): string {
  return `in ${atLeast ? 'at least ' : ''}${count} of the ${plural(successes, 'successful session')}`;
}

const SHARE = /\(in (?:at least )?(\d+) of the (\d+) successful sessions?\)/g;

/**
 * The body with its evidence line said with these counts, and each share of the successful sessions over their
 * new number (a floor where the number grew: shareOfSuccesses); a body without an evidence line (a model's, a
 * person's) as it is.
 */
export function restateEvidence(body: string, s: EvidenceStats): string {
  if (!LINE.test(body)) return body;
  return body
    .replace(LINE, evidenceLine(s))
    .replace(SHARE, (whole, count: string, of: string) =>
      Number(of) === s.successes ? whole : `(${shareOfSuccesses(Number(count), s.successes, true)})`,
    );
}

const NONE: EvidenceStats = { successes: 0, succeeded: 0, followers: 0 };

/** Whether two bodies say the same but for the counts of their evidence lines. */
export function sameButEvidence(a: string, b: string): boolean {
  return restateEvidence(a, NONE) === restateEvidence(b, NONE);
}

/** The frontmatter lines that list a skill's source sessions (render-skill-md.ts), said again as sessions come. */
const SOURCES = /^[ \t]+parents-episodic(?:-count)?:.*$/gm;

/**
 * Whether two SKILL.md texts say the same but for what more supporting sessions change: the evidence line's counts,
 * the shares of successful sessions, and the source sessions the frontmatter lists. A text exported before a
 * reinforcement amended the skill's version then still reads as this memory's text, not as a person's edit.
 */
export function sameButSupport(a: string, b: string): boolean {
  if (a === b) return true;
  const x = splitFrontmatter(a);
  const y = splitFrontmatter(b);
  return x.ok && y.ok && x.yaml.replace(SOURCES, '') === y.yaml.replace(SOURCES, '') && sameButEvidence(x.body, y.body);
}
