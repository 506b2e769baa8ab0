import { seedEta } from '../domain/admit.js';
import { restateEvidence } from '../domain/evidence-line.js';
import { learnedByOf, type EditMark } from '../domain/learned-by.js';
import type { Skill } from '../domain/types.js';
import { renderStoredSkill } from './render-skill-md.js';

type Counts = Pick<Skill, 'sourceSessions' | 'successCount' | 'attemptCount' | 'support'>;

/**
 * A skill whose sources and counts grew to `grown` (another group of sessions reinforced it, a consolidation
 * folded another skill into it, its own group distilled it again). Its eta, while no trial or person has moved it
 * from the seed its evidence gave it (seedEta), is the seed of the new evidence. A learned skill's evidence line
 * and the sources its SKILL.md names say so too, as its list of sources and its counts do; a skill whose text no
 * pass wrote (imported: no `learned-by`) keeps its text. `written`: the distiller and group of a text this pass
 * wrote anew (else those its stored text names). `edit`: a person's edit as this pass leaves it (else as its stored
 * text says it).
 */
export function withSupport(
  skill: Skill,
  grown: Counts,
  license: string,
  written?: { learnedBy: string; clusterId: string | null },
  edit?: EditMark | null,
): Skill {
  const seeded = skill.trialsAttempted === 0 && skill.eta === seedEta(skill.successCount, skill.attemptCount);
  const next: Skill = {
    ...skill,
    ...grown,
    ...(seeded ? { eta: seedEta(grown.successCount, grown.attemptCount) } : {}),
  };
  const learnedBy = written?.learnedBy ?? learnedByOf(skill.skillMd);
  if (!learnedBy) return next;
  const body = restateEvidence(next.body, {
    successes: next.sourceSessions.length,
    succeeded: next.successCount,
    followers: next.attemptCount,
  });
  const restated = { ...next, body };
  return {
    ...restated,
    skillMd: renderStoredSkill(restated, { license, learnedBy, clusterId: written?.clusterId, edit }),
  };
}

/**
 * What a group's successful sessions add to a skill they reinforce: the sessions it did not hold yet, counted once
 * (a group that reinforced it on an earlier pass adds only its new sessions), as successes and as followers; its
 * followers that failed are not known apart from those counted before, so the group's own count is a floor.
 */
export function reinforcedCounts(
  skill: Counts,
  group: { sourceSessions: readonly string[]; counts: { successCount: number; attemptCount: number; support: number } },
): Counts {
  const held = new Set(skill.sourceSessions);
  const added = [...new Set(group.sourceSessions)].filter((id) => !held.has(id));
  return {
    sourceSessions: [...skill.sourceSessions, ...added],
    successCount: Math.max(skill.successCount + added.length, group.counts.successCount),
    attemptCount: Math.max(skill.attemptCount + added.length, group.counts.attemptCount),
    support: Math.max(skill.support + added.length, group.counts.support),
  };
}
