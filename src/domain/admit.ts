import { collapseRepeats, sequenceF1 } from './sequence.js';
import type { Session, Span } from './types.js';

export interface AdmitRules {
  minOccurrences: number;
  minSuccessRate: number;
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
  successfulFollowers: Session[];
  /** Sessions that took another path and failed: counter-examples, not votes against. */
  counterExamples: Session[];
  successRate: number;
  denied: { sessionId: string; reason: string }[];
}

/** Deny rules for one span: chain-of-thought, raw tool-JSON dumps, secrets. Returns the reason or null. */
export function denyReason(session: Session, span: Span, rules: Pick<AdmitRules, 'thinkTools' | 'findSecrets'>): string | null {
  const think = new Set(rules.thinkTools);
  const thinking = session.calls.filter((c) => think.has(c.tool)).length;
  if (thinking > 0 && thinking >= session.calls.length - thinking) return 'chain-of-thought: reasoning calls outnumber actions';
  const goal = session.goal.trim();
  if (/^[[{]/.test(goal)) {
    try {
      JSON.parse(goal);
      return 'raw tool-JSON dump: the goal is a JSON document';
    } catch {
      /* not JSON: fine */
    }
  }
  if (goal.length > 0 && (goal.match(/[{}[\]":,]/g)?.length ?? 0) / goal.length > 0.25) return 'raw tool-JSON dump: the goal is mostly JSON punctuation';
  for (const c of span.calls) {
    if (rules.findSecrets(JSON.stringify(c.args ?? {})).length > 0) return `holds a secret in the arguments of ${c.tool}`;
  }
  return null;
}

/**
 * Admit: the cluster needs minOccurrences successful sessions with material, and the procedure must work
 * when it is followed: the success rate is taken over the sessions whose path agrees with the procedure.
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
  const empty = { spans, followers: [], successfulFollowers: [], counterExamples: [], successRate: 0, denied };
  if (spans.length < rules.minOccurrences) {
    return { ...empty, admitted: false, reason: `${spans.length} successful sessions with material, ${rules.minOccurrences} needed` };
  }
  const proc = collapseRepeats(procedure(spans));
  const think = new Set(rules.thinkTools);
  const followers: Session[] = [];
  const counterExamples: Session[] = [];
  for (const s of sessions) {
    if (s.outcome === 'unknown') continue;
    const path = collapseRepeats(s.calls.filter((c) => c.ok && !think.has(c.tool)).map((c) => c.tool));
    if (sequenceF1(proc, path) >= rules.followThreshold) followers.push(s);
    else if (s.outcome === 'failure') counterExamples.push(s);
  }
  const spanIds = new Set(spans.map((sp) => sp.sessionId));
  const successfulFollowers = followers.filter((s) => s.outcome === 'success' && spanIds.has(s.id));
  const followerIds = new Set(successfulFollowers.map((s) => s.id));
  const successRate = followers.length ? successfulFollowers.length / followers.length : 0;
  const base = { spans: spans.filter((sp) => followerIds.has(sp.sessionId)), followers, successfulFollowers, counterExamples, successRate, denied };
  if (successfulFollowers.length < rules.minOccurrences) {
    return { ...base, admitted: false, reason: `${successfulFollowers.length} successful sessions follow the procedure, ${rules.minOccurrences} needed` };
  }
  if (successRate < rules.minSuccessRate) {
    return { ...base, admitted: false, reason: `success rate ${successRate.toFixed(2)} over ${followers.length} followers, below ${rules.minSuccessRate}` };
  }
  return { ...base, admitted: true, reason: null };
}
