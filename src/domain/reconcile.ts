import { toolsetBranchesOf } from './branches.js';
import { stepKeysOf } from './commands.js';
import { sequenceF1 } from './sequence.js';
import { roleOf } from './step-role.js';
import { COMMON_TOOL_SHARE } from './term-stats.js';
import type { Skill } from './types.js';

export interface Candidate {
  /**
   * The candidate's steps as they are compared (comparedSteps): its tool sequence, commands told apart, then a
   * branch on the agent's tools.
   */
  toolSequence: string[];
  successes: number;
  followers: number;
}

export type Decision =
  | { action: 'add' }
  | { action: 'reinforce'; target: Skill; similarity: number }
  | { action: 'update'; target: Skill; similarity: number }
  | { action: 'supersede'; target: Skill; similarity: number };

export interface ReconcileRules {
  /** Procedures agreeing at least this much (LCS F1 of tool sequences) are the same procedure. */
  sameProcedure: number;
  /**
   * A neighbour must share at least this much of the smaller tool set, weighted by how distinctive each tool
   * is, to count as a duplicate at all: two procedures that share only the common lookups are different skills.
   */
  relatedProcedure: number;
  /** How distinctive a tool is (an IDF); equal weights when absent. */
  toolWeight?: (tool: string) => number;
  /** The candidate's success rate must beat the old one's by this much to supersede it. */
  dominanceMargin: number;
  /** The share of the namespace's sessions that call a tool (0..1); none is common when absent. */
  toolShare?: (tool: string) => number;
  /**
   * A tool more than this share of the namespace's sessions call is common: the tools of a coding agent (Read,
   * Edit), which every kind of task uses, and the lookups every procedure starts with. Two procedures alike only
   * in common tools are not the same skill by their tools: their requests must be duplicates.
   */
  commonShare: number;
  /** The recall-vector similarity at which two requests are duplicates (the embedder's duplicate threshold). */
  duplicate?: number;
}

export const defaultReconcileRules: ReconcileRules = {
  sameProcedure: 0.9,
  relatedProcedure: 0.6,
  dominanceMargin: 0.1,
  commonShare: COMMON_TOOL_SHARE,
};

/**
 * Weighted Jaccard of two tool sets: |A ∩ B|w / |A ∪ B|w, each tool weighted by how distinctive it is. Two
 * procedures that share only common lookups score low, and a superset does not swallow its subsets.
 */
export function weightedOverlap(
  a: readonly string[],
  b: readonly string[],
  weight: (t: string) => number = () => 1,
): number {
  const A = new Set(a);
  const B = new Set(b);
  const sum = (xs: Iterable<string>) => [...xs].reduce((acc, t) => acc + Math.max(0, weight(t)), 0);
  const union = sum(new Set([...A, ...B]));
  if (union <= 0) return 0;
  return sum([...A].filter((t) => B.has(t))) / union;
}

/**
 * Two procedures are one skill when their tools overlap enough (weighted Jaccard) and each one's most
 * distinctive tool (its action) is part of the other: a flight change and an escalation share lookups, not
 * their action.
 */
export function sameSkill(
  a: readonly string[],
  b: readonly string[],
  rules: Pick<ReconcileRules, 'relatedProcedure' | 'toolWeight'>,
): boolean {
  const w = rules.toolWeight ?? (() => 1);
  const top = (xs: readonly string[]) => [...xs].sort((x, y) => w(y) - w(x) || x.localeCompare(y))[0];
  // Compared without their hand-offs to a person when they act: a hand-off is how a run ends when the agent
  // may not finish, not the task (a return that ends with a transfer is still a return, and a rare transfer
  // must not make a return and a cancellation look alike).
  const ownA = withoutHandoffs(a);
  const ownB = withoutHandoffs(b);
  if (
    weightedOverlap(ownA, ownB, rules.toolWeight) >= rules.relatedProcedure &&
    ownB.includes(top(ownA)) &&
    ownA.includes(top(ownB))
  )
    return true;
  // The same action reached through another lookup (a user found by email rather than by name and zip code).
  const actA = actionOf(ownA, w);
  return (
    actA !== null &&
    actA === actionOf(ownB, w) &&
    weightedOverlap(ownA, ownB, rules.toolWeight) >= rules.relatedProcedure - 0.2
  );
}

/**
 * Whether two procedures' tools say they do the same task: they share a tool that is not common in the
 * namespace (rules.commonShare), hand-offs to a person aside. Every agent of a namespace whose tools all serve
 * every task (a coding agent's Read, Edit and test run) shares its tools between unrelated tasks: there the
 * requests, not the tools, tell tasks apart.
 */
export function shareDistinctiveTool(
  a: readonly string[],
  b: readonly string[],
  rules: Pick<ReconcileRules, 'toolShare' | 'commonShare'>,
): boolean {
  const share = rules.toolShare;
  const ownB = new Set(withoutHandoffs(b));
  return withoutHandoffs(a).some((t) => ownB.has(t) && (!share || share(t) <= rules.commonShare));
}

/**
 * Two skills (or a draft and a skill) whose requests are `similarity` alike are one skill: the same procedure
 * (sameSkill), and either a tool beyond the common ones in common or requests alike enough to be duplicates.
 */
export function oneSkill(
  a: readonly string[],
  b: readonly string[],
  similarity: number,
  rules: Pick<ReconcileRules, 'relatedProcedure' | 'toolWeight' | 'toolShare' | 'commonShare' | 'duplicate'>,
): boolean {
  return (
    sameSkill(a, b, rules) &&
    (shareDistinctiveTool(a, b, rules) || (rules.duplicate !== undefined && similarity >= rules.duplicate))
  );
}

/**
 * A procedure's steps other than hand-offs to a person, when one of them acts; else all of them (a procedure of
 * lookups and a hand-off is an escalation, and its hand-off is what it does).
 */
function withoutHandoffs(seq: readonly string[]): readonly string[] {
  const own = seq.filter((t) => roleOf(t) !== 'handoff');
  return own.some((t) => roleOf(t) === 'action') ? own : seq;
}

/**
 * The action of a procedure: its last step among the rarer half of its tools, the step the lookups lead to
 * (the same rule the heuristic distiller names a procedure by).
 */
export function actionOf(seq: readonly string[], weight: (t: string) => number = () => 1): string | null {
  if (seq.length === 0) return null;
  const weights = seq.map((t) => weight(t)).sort((x, y) => x - y);
  const median = weights[Math.floor((weights.length - 1) / 2)];
  return [...seq].reverse().find((t) => weight(t) >= median) ?? null;
}

/**
 * What two procedures are compared on: the steps as they align (commands.ts: stepKeysOf), then the path of a
 * branch on the agent's tools. Where agents without a device's tools all look the customer up and talk the user
 * through it, the task is told by what those with the tools do (MMS settings, or a speed test and data saver).
 */
export function comparedSteps(toolSequence: readonly string[], body: string): string[] {
  const toolsets = body ? toolsetBranchesOf(body) : [];
  return [...stepKeysOf(toolSequence, body), ...toolsets.flatMap((b) => b.toolSequence)];
}

/**
 * Reconcile a verified candidate against existing skills (Mem0's ADD/NOOP/UPDATE plus Zep-style supersede;
 * never delete). `own` is the skill this cluster already produced; `neighbours` are other live internal
 * skills whose description embedding is at least the duplicate threshold, best first. Never by name alone.
 */
export function reconcile(
  candidate: Candidate,
  own: Skill | null,
  neighbours: { skill: Skill; similarity: number }[],
  rules: ReconcileRules = defaultReconcileRules,
): Decision {
  let target: Skill | null = own;
  let similarity = 1;
  const crossCluster = !own;
  if (!target) {
    const match = neighbours.find((n) =>
      oneSkill(candidate.toolSequence, comparedSteps(n.skill.toolSequence, n.skill.body), n.similarity, rules),
    );
    if (!match) return { action: 'add' };
    target = match.skill;
    similarity = match.similarity;
  }
  if (sequenceF1(candidate.toolSequence, comparedSteps(target.toolSequence, target.body)) >= rules.sameProcedure)
    return { action: 'reinforce', target, similarity };
  const oldRate = target.attemptCount ? target.successCount / target.attemptCount : 0;
  const newRate = candidate.followers ? candidate.successes / candidate.followers : 0;
  if (newRate >= oldRate + rules.dominanceMargin && candidate.successes >= target.successCount) {
    return { action: 'supersede', target, similarity };
  }
  // Another cluster's weaker variant of a skill supports it; it does not rewrite its procedure.
  return { action: crossCluster ? 'reinforce' : 'update', target, similarity };
}

/**
 * SemVer bump: major for a superseding skill, minor for a new version of the same skill, patch for one whose
 * procedure reads as before (a newer distiller wrote the same text: only its metadata changed).
 */
export function bumpVersion(version: string, part: 'major' | 'minor' | 'patch'): string {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  const [maj, min, pat] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [1, 0, 0];
  return part === 'major' ? `${maj + 1}.0.0` : part === 'minor' ? `${maj}.${min + 1}.0` : `${maj}.${min}.${pat + 1}`;
}

/** A version only bumpVersion's patch step gives (1.0.1, 2.3.4): its procedure reads as the version before it. */
export function sameProcedureVersion(version: string): boolean {
  const m = /^\d+\.\d+\.(\d+)$/.exec(version);
  return !!m && Number(m[1]) > 0;
}
