import type { AuditRecord, Skill, SkillStatus } from './types.js';

/**
 * A skill whose sources were later reported failed: a judged success the user then rejected ("No, that's wrong"),
 * or a run whose reported outcome replaced the judge's. Such a session is no longer evidence that the procedure
 * works: it leaves the skill's sources, its success is taken back out of the counts (it stays a follower, one
 * that failed), and a skill left with less evidence than a new one needs to be learned is retired, so that recall
 * stops serving it. Pure.
 */
export interface Revision {
  sourceSessions: string[];
  successCount: number;
  attemptCount: number;
  support: number;
  status: SkillStatus;
  /** The sources taken out, in the skill's order. */
  revoked: string[];
  /** Why the skill was retired; null when it keeps its status. */
  retiredBecause: string | null;
}

export interface RevisionRules {
  /** The successful sessions a skill needs (synthesis.minOccurrences). */
  minOccurrences: number;
  /** The success rate among its followers below which no skill is learned (synthesis.minSuccessRate). */
  minSuccessRate: number;
}

type Counted = Pick<Skill, 'sourceSessions' | 'successCount' | 'attemptCount' | 'support' | 'status'>;

/**
 * The skill without its sources that `failed` holds (the ids of sessions whose stored outcome is no longer a
 * success); null when none of its sources is among them. `keepStatus`: a skill a person edited stays as they
 * left it (its counts are revised all the same).
 */
export function reviseSources(
  skill: Counted,
  failed: ReadonlySet<string>,
  rules: RevisionRules,
  opts: { keepStatus?: boolean } = {},
): Revision | null {
  const revoked = skill.sourceSessions.filter((id) => failed.has(id));
  if (revoked.length === 0) return null;
  const sourceSessions = skill.sourceSessions.filter((id) => !failed.has(id));
  const n = revoked.length;
  const successCount = Math.max(0, skill.successCount - n);
  // A source was a follower that succeeded: it is still a follower (one that failed), so the attempts stay.
  const attemptCount = skill.attemptCount;
  const support = Math.max(0, skill.support - n);
  const rate = attemptCount > 0 ? successCount / attemptCount : 0;
  const reasons: string[] = [];
  if (sourceSessions.length < rules.minOccurrences)
    reasons.push(`${sourceSessions.length} successful session(s) remain, ${rules.minOccurrences} needed`);
  if (rate < rules.minSuccessRate)
    reasons.push(`its success rate is now ${successCount}/${attemptCount}, below the floor ${rules.minSuccessRate}`);
  const retire = reasons.length > 0 && !opts.keepStatus && skill.status !== 'retired';
  const said = `${n} of the ${skill.sourceSessions.length} session(s) it was learned from ${n === 1 ? 'was' : 'were'} reported failed after it was learned`;
  return {
    sourceSessions,
    successCount,
    attemptCount,
    support,
    status: retire ? 'retired' : skill.status,
    revoked,
    retiredBecause: retire ? `${said}: ${reasons.join('; ')}` : null,
  };
}

/**
 * Whether a retired skill was retired for want of evidence (a revise that took failed sources out, above) rather
 * than by its trials or a person: such a skill comes back on probation when its own group of sessions is learned
 * from again. `audit`: the skill's audit records, newest first; the latest one that retired it decides.
 */
export function retiredForEvidence(audit: readonly Pick<AuditRecord, 'action' | 'detail'>[]): boolean {
  for (const a of audit) {
    if (a.action === 'skill.revise' && typeof a.detail.retired === 'string') return true;
    const status = a.detail.status;
    // A trial, a thumb or a person's signal (skill.feedback: [before, after]); a promote or enable brings it back.
    if (Array.isArray(status) && status[1] === 'retired' && status[0] !== 'retired') return false;
    if (a.action === 'skill.promote') return false;
  }
  return false;
}
