/**
 * The scoring maths of the replay evaluation: pure functions over plain data, pinned by unit tests.
 * Task kinds (labels) appear here only as opaque strings given by the harness; the engine never sees them.
 */
import { collapseRepeats, sequenceF1 } from '../domain/sequence.js';

/** A recalled skill "agrees" with a session when the LCS F1 of their tool sequences reaches this. */
export const AGREE_THRESHOLD = 0.5;

import { PLANNING_TOOLS, REASONING_TOOLS } from '../domain/step-role.js';

/** Reasoning and planning tools, never steps of a procedure (the engine's default `synthesis.thinkTools`). */
export const DEFAULT_THINK_TOOLS: readonly string[] = [...REASONING_TOOLS, ...PLANNING_TOOLS];

/**
 * The essential calls of a session: its successful, non-reasoning calls in order, with immediate repeats
 * collapsed (a repeated lookup is one step). This is what a procedure can be compared with.
 */
export function essentialSequence(
  calls: readonly { tool: string; ok: boolean }[],
  thinkTools: readonly string[] = DEFAULT_THINK_TOOLS,
): string[] {
  const think = new Set(thinkTools);
  return collapseRepeats(calls.filter((c) => c.ok && !think.has(c.tool)).map((c) => c.tool));
}

/** Step agreement: F1 of the longest common subsequence of the skill's and the session's tool sequences. */
export function stepAgreement(skillSequence: readonly string[], sessionSequence: readonly string[]): number {
  return sequenceF1(skillSequence, sessionSequence);
}

/**
 * Steps saved: the calls the session made (all of them: failed, repeated and reasoning calls included)
 * minus the steps the skill prescribes, when the skill agrees with the session's essential calls
 * (agreement >= threshold); null when it does not agree, i.e. the skill would not have replaced this path.
 * Signed: a skill longer than the session's path "saves" a negative number of steps.
 */
export function stepsSaved(
  callsMade: number,
  prescribedSteps: number,
  agreement: number,
  threshold = AGREE_THRESHOLD,
): number | null {
  if (!(agreement >= threshold)) return null;
  return callsMade - prescribedSteps;
}

/**
 * The majority label of a list (null and undefined ignored): the label strictly more frequent than every
 * other. A tie has no majority (label null): a skill learned evenly from two kinds is of neither, so it can
 * never count as a hit. `count` is the top frequency and `share` its fraction of the labelled entries.
 */
export function majorityLabel(labels: readonly (string | null | undefined)[]): {
  label: string | null;
  count: number;
  share: number;
} {
  const counts = new Map<string, number>();
  let total = 0;
  for (const l of labels) {
    if (l == null) continue;
    counts.set(l, (counts.get(l) ?? 0) + 1);
    total++;
  }
  let best: string | null = null;
  let bestCount = 0;
  let tied = false;
  for (const [label, count] of counts) {
    if (count > bestCount) {
      best = label;
      bestCount = count;
      tied = false;
    } else if (count === bestCount) tied = true;
  }
  return { label: tied ? null : best, count: bestCount, share: total ? bestCount / total : 0 };
}

/** A hit: something was recalled and its task kind is the session's (both known). */
export function isHit(sessionKind: string | null, recalledKind: string | null | undefined): boolean {
  return sessionKind != null && recalledKind != null && sessionKind === recalledKind;
}

/** n / d, or null when there is nothing to divide by (an empty query set has no rate). */
export function ratio(n: number, d: number): number | null {
  return d > 0 ? n / d : null;
}

export function mean(xs: readonly number[]): number | null {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

/** Rounds for reports (4 decimals); null stays null. */
export function round4(x: number | null): number | null {
  return x == null ? null : Math.round(x * 10000) / 10000;
}

/** One query of the replay: a successful test session, and what was recalled for it, best first. */
export interface QueryOutcome {
  /** The session's task kind (label), null when unlabelled. */
  kind: string | null;
  /** Every call the session made (failed, repeated and reasoning calls included). */
  callsMade: number;
  /** The session's essential sequence (see essentialSequence). */
  essential: string[];
  /** Recalled procedures, best first, each with the majority kind of the sessions it was learned from. */
  recalled: { kind: string | null; toolSequence: readonly string[] }[];
}

export interface MissBreakdown {
  /** Top-1 misses on unlabelled sessions (can never be hits). */
  unlabelled: number;
  /** No recallable skill of the session's kind exists: a learning miss, not a recall miss. */
  noSkillForKind: number;
  /** Of those, how many recalled another kind's skill anyway (memory should have stayed silent). */
  noSkillForKindRecalledOther: number;
  /** A skill of the kind exists but nothing was recalled (below the recall threshold). */
  nothingRecalled: number;
  /** Something was recalled first, but a skill of another kind (the kind's own skill lost or was not above threshold). */
  wrongKind: number;
}

export interface QuerySetMetrics {
  queries: number;
  /** Queries whose session has a label. */
  labelled: number;
  /** Queries for which at least one skill was recalled. */
  recalled: number;
  hitsTop1: number;
  hitsTopK: number;
  /** recalled / queries */
  recallRate: number | null;
  /** hitsTop1 / queries */
  hitRateTop1: number | null;
  /** hitsTopK / queries */
  hitRateTopK: number | null;
  /** hitsTop1 / recalled: when something is recalled, how often it is of the right kind. */
  precisionTop1: number | null;
  /** Mean LCS F1 of the top-1 skill with the session: over top-1 hits, and over every query that recalled something. */
  /** overHits: mean over top-1 hits; overRecalled: over queries that recalled anything; perQuery: over all queries, a query that recalled nothing counting 0. */
  stepAgreement: { overHits: number | null; overRecalled: number | null; perQuery: number | null };
  stepsSaved: {
    /** Queries whose top-1 skill agrees with the session (agreement >= threshold). */
    agreeing: number;
    /** agreeing / queries */
    agreeRate: number | null;
    /** Mean steps saved over the agreeing queries. */
    meanWhenAgrees: number | null;
    /** Sum of steps saved over all queries (0 where nothing agrees), divided by queries. */
    perQuery: number | null;
  };
  /** Mean calls made per query session, for scale. */
  callsMean: number | null;
  coverage: { kinds: number; kindsHitTop1: number; kindsHitTopK: number; top1: number | null; topK: number | null };
  /** Why top-1 missed; null where the notion does not apply (baselines). The parts sum to queries - hitsTop1. */
  misses: MissBreakdown | null;
}

/**
 * Scores one query set. `topK` bounds the recalled list considered for hit@k. `kindsWithSkill`, when
 * given, is the set of kinds that have a recallable skill (for the miss breakdown).
 */
export function scoreQueries(
  outcomes: readonly QueryOutcome[],
  opts: { topK: number; agreeThreshold?: number; kindsWithSkill?: ReadonlySet<string> },
): QuerySetMetrics {
  const threshold = opts.agreeThreshold ?? AGREE_THRESHOLD;
  let labelled = 0;
  let recalled = 0;
  let hitsTop1 = 0;
  let hitsTopK = 0;
  const agreeHits: number[] = [];
  const agreeRecalled: number[] = [];
  const saved: number[] = [];
  const calls: number[] = [];
  const kinds = new Set<string>();
  const kindsHit1 = new Set<string>();
  const kindsHitK = new Set<string>();
  const misses: MissBreakdown = {
    unlabelled: 0,
    noSkillForKind: 0,
    noSkillForKindRecalledOther: 0,
    nothingRecalled: 0,
    wrongKind: 0,
  };

  for (const q of outcomes) {
    calls.push(q.callsMade);
    if (q.kind != null) {
      labelled++;
      kinds.add(q.kind);
    }
    const list = q.recalled.slice(0, Math.max(1, opts.topK));
    const top = list[0];
    const hit1 = !!top && isHit(q.kind, top.kind);
    const hitK = list.some((r) => isHit(q.kind, r.kind));
    if (top) {
      recalled++;
      const agreement = stepAgreement(top.toolSequence, q.essential);
      agreeRecalled.push(agreement);
      if (hit1) agreeHits.push(agreement);
      const s = stepsSaved(q.callsMade, top.toolSequence.length, agreement, threshold);
      if (s != null) saved.push(s);
    }
    if (hit1) {
      hitsTop1++;
      kindsHit1.add(q.kind!);
    } else if (q.kind == null) misses.unlabelled++;
    else if (opts.kindsWithSkill && !opts.kindsWithSkill.has(q.kind)) {
      misses.noSkillForKind++;
      if (top) misses.noSkillForKindRecalledOther++;
    } else if (!top) misses.nothingRecalled++;
    else misses.wrongKind++;
    if (hitK) {
      hitsTopK++;
      kindsHitK.add(q.kind!);
    }
  }

  const n = outcomes.length;
  const savedSum = saved.reduce((a, b) => a + b, 0);
  return {
    queries: n,
    labelled,
    recalled,
    hitsTop1,
    hitsTopK,
    recallRate: ratio(recalled, n),
    hitRateTop1: ratio(hitsTop1, n),
    hitRateTopK: ratio(hitsTopK, n),
    precisionTop1: ratio(hitsTop1, recalled),
    stepAgreement: {
      overHits: mean(agreeHits),
      overRecalled: mean(agreeRecalled),
      perQuery: n ? agreeRecalled.reduce((a, b) => a + b, 0) / n : null,
    },
    stepsSaved: {
      agreeing: saved.length,
      agreeRate: ratio(saved.length, n),
      meanWhenAgrees: mean(saved),
      perQuery: n ? savedSum / n : null,
    },
    callsMean: mean(calls),
    coverage: {
      kinds: kinds.size,
      kindsHitTop1: kindsHit1.size,
      kindsHitTopK: kindsHitK.size,
      top1: ratio(kindsHit1.size, kinds.size),
      topK: ratio(kindsHitK.size, kinds.size),
    },
    misses: opts.kindsWithSkill ? misses : null,
  };
}

/**
 * Wilson score interval at 95% for `k` of `n`: where the true rate may lie given so few trials (4 of 60 is
 * 0.026-0.159). Rounded to 4 decimals; null when there is nothing to count.
 */
export function wilson95(k: number, n: number): [number, number] | null {
  if (n <= 0) return null;
  const z = 1.959964;
  const p = k / n;
  const z2n = (z * z) / n;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2n / (4 * n))) / (1 + z2n);
  const bound = (x: number) => round4(Math.min(1, Math.max(0, x))) as number;
  return [bound(centre - half), bound(centre + half)];
}

/** False recall: the share of unrelated goals for which anything at all was recalled, and its 95% interval. */
export function falseRecall(recalledPerGoal: readonly number[]): {
  goals: number;
  recalled: number;
  rate: number | null;
  interval95: [number, number] | null;
} {
  const recalled = recalledPerGoal.filter((n) => n > 0).length;
  return {
    goals: recalledPerGoal.length,
    recalled,
    rate: ratio(recalled, recalledPerGoal.length),
    interval95: wilson95(recalled, recalledPerGoal.length),
  };
}

/** Rounds every number of a metrics object to 4 decimals (counts are integers and stay as they are). */
export function roundMetrics(m: QuerySetMetrics): QuerySetMetrics {
  return {
    ...m,
    recallRate: round4(m.recallRate),
    hitRateTop1: round4(m.hitRateTop1),
    hitRateTopK: round4(m.hitRateTopK),
    precisionTop1: round4(m.precisionTop1),
    stepAgreement: {
      overHits: round4(m.stepAgreement.overHits),
      overRecalled: round4(m.stepAgreement.overRecalled),
      perQuery: round4(m.stepAgreement.perQuery),
    },
    stepsSaved: {
      agreeing: m.stepsSaved.agreeing,
      agreeRate: round4(m.stepsSaved.agreeRate),
      meanWhenAgrees: round4(m.stepsSaved.meanWhenAgrees),
      perQuery: round4(m.stepsSaved.perQuery),
    },
    callsMean: round4(m.callsMean),
    coverage: { ...m.coverage, top1: round4(m.coverage.top1), topK: round4(m.coverage.topK) },
  };
}

export interface VMeasure {
  /** Each group holds one class only (1 = pure). */
  homogeneity: number;
  /** Each class sits in one group only (1 = not fragmented). */
  completeness: number;
  /** Harmonic mean of the two. */
  vMeasure: number;
  items: number;
  groups: number;
  classes: number;
}

/**
 * Homogeneity, completeness and V-measure (Rosenberg and Hirschberg, 2007) of a grouping against reference
 * classes, from (group, class) pairs. A single class or a single group is treated as perfectly homogeneous /
 * complete, as the definition's 0/0 cases are.
 */
export function vMeasure(pairs: readonly { group: string; label: string }[]): VMeasure {
  const n = pairs.length;
  const joint = new Map<string, Map<string, number>>();
  const byGroup = new Map<string, number>();
  const byClass = new Map<string, number>();
  for (const { group, label } of pairs) {
    const row = joint.get(group) ?? new Map<string, number>();
    row.set(label, (row.get(label) ?? 0) + 1);
    joint.set(group, row);
    byGroup.set(group, (byGroup.get(group) ?? 0) + 1);
    byClass.set(label, (byClass.get(label) ?? 0) + 1);
  }
  const entropy = (counts: Iterable<number>) => {
    let h = 0;
    for (const c of counts) if (c > 0) h -= (c / n) * Math.log(c / n);
    return h;
  };
  const hClass = entropy(byClass.values());
  const hGroup = entropy(byGroup.values());
  let hClassGivenGroup = 0;
  let hGroupGivenClass = 0;
  for (const [group, row] of joint) {
    for (const [label, c] of row) {
      hClassGivenGroup -= (c / n) * Math.log(c / byGroup.get(group)!);
      hGroupGivenClass -= (c / n) * Math.log(c / byClass.get(label)!);
    }
  }
  const homogeneity = hClass === 0 ? 1 : 1 - hClassGivenGroup / hClass;
  const completeness = hGroup === 0 ? 1 : 1 - hGroupGivenClass / hGroup;
  const v = homogeneity + completeness === 0 ? 0 : (2 * homogeneity * completeness) / (homogeneity + completeness);
  return { homogeneity, completeness, vMeasure: v, items: n, groups: byGroup.size, classes: byClass.size };
}
