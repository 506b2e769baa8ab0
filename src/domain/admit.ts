import { procedurePath, sequenceF1 } from './sequence.js';
import { procedureCalls } from './spans.js';
import { PLANNING_TOOLS } from './step-role.js';
import type { Session, Span } from './types.js';

/**
 * The shrunk gain a procedure needs by default: a hair below 0, a tie. Where nearly every session of a group took
 * the procedure, the followers are the group, and one session that took another path and succeeded put the gain at
 * -0.004 and turned away a procedure 19 of 21 followers succeeded with (whether it was learned then hung on the
 * order the sessions came in). Followers a few points behind the group (-0.019, -0.023 on the dev traces) are
 * still turned away: at -0.025 both were learned, and an airline cancellation skill among them took first place
 * for 2 of 73 retail requests of the retail-extra traces.
 */
export const DEFAULT_MIN_GAIN = -0.01;

export interface AdmitRules {
  minOccurrences: number;
  /** Floor: below this success rate among the sessions that followed it, a procedure is never learned. */
  minSuccessRate: number;
  /**
   * `evidence` (default): enough support, the floor, and following the procedure does no worse than the cluster's
   * baseline than `minGain` allows, the gain shrunk toward 0 for small counts. `absolute`: GAIA's rule,
   * the success rate over the followers alone (its preset floor is 0.8).
   */
  rule?: 'evidence' | 'absolute';
  /** Shrunk gain over the baseline a procedure must reach (evidence rule; default DEFAULT_MIN_GAIN). */
  minGain?: number;
  /** Pseudo-count k of the shrinkage: gain * n / (n + k), n = followers. */
  gainShrinkage?: number;
  /** LCS F1 between a session's path and the candidate procedure above which the session "followed" it. */
  followThreshold: number;
  thinkTools: readonly string[];
  /** Finds secrets in text; a span that holds one is never material. */
  findSecrets: (text: string) => unknown[];
}

export interface Admission {
  admitted: boolean;
  reason: string | null;
  /** Material: spans of successful sessions that passed the deny rules. */
  spans: Span[];
  followers: Session[];
  /** Followers whose span is material and that succeeded: the procedure's sources and its support. */
  successfulFollowers: Session[];
  /**
   * Followers that succeeded, material or not (a span a call too short, or one denied for a secret, still shows
   * that following the procedure worked): the success rate's numerator and the skill's starting track record.
   */
  succeeded: number;
  /** Sessions that took another path and failed: counter-examples, not votes against. */
  counterExamples: Session[];
  successRate: number;
  /** Success rate over every session of the group with a known outcome: the agent's baseline on this kind of goal. */
  baselineRate: number;
  /** Followers' success rate minus the baseline, shrunk toward 0 for small counts. */
  gain: number;
  denied: { sessionId: string; reason: string }[];
}

/**
 * MemOS-style gain: how much better the sessions that followed the procedure did than the group as a whole,
 * shrunk toward 0 by n / (n + k) so that three lucky followers do not outweigh the evidence of thirty.
 */
export function shrunkGain(followerRate: number, baselineRate: number, followers: number, k: number): number {
  if (followers <= 0) return 0;
  return ((followerRate - baselineRate) * followers) / (followers + Math.max(0, k));
}

/**
 * The reliability a new skill starts with, from its evidence: the Beta(1,1) posterior of success among the
 * followers, so 3 of 3 starts at 0.8, 30 of 30 at 0.97 and 3 of 6 at 0.5. Thinly supported skills rank lower
 * until trials speak.
 */
export function seedEta(successfulFollowers: number, followers: number): number {
  return (successfulFollowers + 1) / (followers + 2);
}

/** Deny rules for one span: chain-of-thought, raw tool-JSON dumps, secrets. Returns the reason or null. */
export function denyReason(
  session: Session,
  span: Span,
  rules: Pick<AdmitRules, 'thinkTools' | 'findSecrets'>,
): string | null {
  const think = new Set(rules.thinkTools);
  // Planning calls (a to-do list) are neither reasoning nor work here.
  const planning = session.calls.filter((c) => PLANNING_TOOLS.has(c.tool)).length;
  const thinking = session.calls.filter((c) => think.has(c.tool) && !PLANNING_TOOLS.has(c.tool)).length;
  if (thinking > 0 && thinking >= session.calls.length - planning - thinking)
    return 'chain-of-thought: reasoning calls outnumber actions';
  const goal = session.goal.trim();
  if (/^[[{]/.test(goal)) {
    try {
      JSON.parse(goal);
      return 'raw tool-JSON dump: the goal is a JSON document';
    } catch {
      /* not JSON: fine */
    }
  }
  if (goal.length > 0 && (goal.match(/[{}[\]":,]/g)?.length ?? 0) / goal.length > 0.25)
    return 'raw tool-JSON dump: the goal is mostly JSON punctuation';
  for (const c of span.calls) {
    if (rules.findSecrets(JSON.stringify(c.args ?? {})).length > 0)
      return `holds a secret in the arguments of ${c.tool}`;
  }
  return null;
}

/**
 * Admit: the cluster needs minOccurrences successful sessions with material, and the procedure must work
 * when it is followed: the success rate is taken over the sessions whose path agrees with the procedure and
 * that made every step all the successful ones among them made.
 */
export function admitCluster(
  sessions: Session[],
  spanOf: (s: Session) => Span | null,
  procedure: (spans: Span[]) => string[],
  rules: AdmitRules,
): Admission {
  const denied: Admission['denied'] = [];
  const spans: Span[] = [];
  const spanSessions: Session[] = [];
  for (const s of sessions) {
    const span = spanOf(s);
    if (!span) continue;
    const reason = denyReason(s, span, rules);
    if (reason) denied.push({ sessionId: s.id, reason });
    else {
      spans.push(span);
      spanSessions.push(s);
    }
  }
  const empty = {
    spans,
    followers: [],
    successfulFollowers: [],
    succeeded: 0,
    counterExamples: [],
    successRate: 0,
    baselineRate: 0,
    gain: 0,
    denied,
  };
  if (spans.length < rules.minOccurrences) {
    return {
      ...empty,
      admitted: false,
      reason: `${spans.length} successful sessions with material, ${rules.minOccurrences} needed`,
    };
  }
  const proc = procedurePath(procedure(spans));
  const think = new Set(rules.thinkTools);
  const paths = new Map<Session, string[]>();
  const near: Session[] = [];
  for (const s of sessions) {
    if (s.outcome === 'unknown') continue;
    // A pair of steps repeated for each file (Read, Edit) once, as the procedure has it: a session that edited eight
    // files followed the procedure as one that edited two did.
    const path = procedurePath(procedureCalls(s.calls, think).map((c) => c.tool));
    paths.set(s, path);
    if (sequenceF1(proc, path) >= rules.followThreshold) near.push(s);
  }
  // The steps every successful one of them made (looking up a recipient's address before forwarding to it): a
  // session that skipped such a step took another path, however much of the procedure it shares.
  const successes = near.filter((s) => s.outcome === 'success');
  const everyone = successes.length ? proc.filter((t) => successes.every((s) => paths.get(s)!.includes(t))) : [];
  const followers = near.filter((s) => everyone.every((t) => paths.get(s)!.includes(t)));
  const followed = new Set(followers);
  const counterExamples = sessions.filter((s) => s.outcome === 'failure' && !followed.has(s));
  const spanIds = new Set(spans.map((sp) => sp.sessionId));
  const succeeded = followers.filter((s) => s.outcome === 'success');
  const successfulFollowers = succeeded.filter((s) => spanIds.has(s.id));
  const followerIds = new Set(successfulFollowers.map((s) => s.id));
  // Over outcomes, like the baseline: a follower that succeeded is a success whether or not its span is material.
  const successRate = followers.length ? succeeded.length / followers.length : 0;
  const known = sessions.filter((s) => s.outcome !== 'unknown');
  const baselineRate = known.length ? known.filter((s) => s.outcome === 'success').length / known.length : 0;
  const gain = shrunkGain(successRate, baselineRate, followers.length, rules.gainShrinkage ?? 4);
  const base = {
    spans: spans.filter((sp) => followerIds.has(sp.sessionId)),
    followers,
    successfulFollowers,
    succeeded: succeeded.length,
    counterExamples,
    successRate,
    baselineRate,
    gain,
    denied,
  };
  if (successfulFollowers.length < rules.minOccurrences) {
    return {
      ...base,
      admitted: false,
      reason: `${successfulFollowers.length} successful sessions follow the procedure, ${rules.minOccurrences} needed`,
    };
  }
  if (successRate < rules.minSuccessRate) {
    return {
      ...base,
      admitted: false,
      reason: `success rate ${successRate.toFixed(2)} over ${followers.length} followers, below the floor ${rules.minSuccessRate}`,
    };
  }
  if ((rules.rule ?? 'evidence') === 'evidence' && gain < (rules.minGain ?? DEFAULT_MIN_GAIN)) {
    return {
      ...base,
      admitted: false,
      reason: `no gain: followers succeed ${successRate.toFixed(2)} against a baseline of ${baselineRate.toFixed(2)} (shrunk gain ${gain.toFixed(3)}, ${rules.minGain ?? DEFAULT_MIN_GAIN} needed)`,
    };
  }
  return { ...base, admitted: true, reason: null };
}

/**
 * Whether a reason a cluster was not learned from only says it has too few sessions yet (too few in all, with
 * material, or following the procedure): it may be learned from as more arrive. The reasons are the ones this module
 * and the pass's admission stage give.
 */
export function tooFewSessions(reason: string): boolean {
  return /^(?:not admitted: )?\d+ (?:successful )?sessions(?: with material| follow the procedure)?, \d+ needed$/.test(
    reason,
  );
}
