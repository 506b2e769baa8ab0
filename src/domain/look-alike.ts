import { ExactIndex } from '../vector/exact-index.js';
import { dot, normalize } from '../vector/vector-math.js';
import { splitStepKey, stepKey } from './commands.js';
import { COMMON_TOOL_SHARE } from './term-stats.js';
import type { ToolCall } from './types.js';

/**
 * Sessions that did the same thing but were asked for in words too far apart to share a cluster (with GloVe,
 * "upgrade zod to the latest version" and "bump date-fns to the newest version" are 0.43 alike) each wait alone
 * for a second run that never comes. The pass says so, so that the user can learn them as one skill on purpose
 * (`skillsmith compile --sessions`): it never joins them itself, since words that far apart are as often two tasks.
 *
 * Clusters too small to learn from are look-alikes when the tool parts of their centroids (IDF-weighted tool use,
 * tool-features.ts) are at least this alike: below the 0.95 from which clustering takes two sessions as one
 * procedure whatever their words, above what two tasks that share only their lookups reach.
 */
export const LOOK_ALIKE_TOOL_FLOOR = 0.75;

/** Neighbours looked at per cluster that changed. */
const NEIGHBOURS = 8;
/**
 * The most candidates compared, and of them the most that changed, newest first: a first pass over a large history
 * leaves thousands of clusters of one session, and a hint must not cost the pass what learning costs it.
 */
const MAX_CANDIDATES = 2048;
const MAX_SEEDS = 256;

/** A cluster too small to learn from: its tool-use direction, and whether this pass added to it. */
export interface LookAlikeCandidate {
  id: string;
  /** The tool part of its centroid (any length; all zeros when it called no tool). */
  tools: Float32Array;
  changed: boolean;
}

/**
 * Groups of at least two candidates whose tool use is alike, largest first. Each group is a candidate that changed
 * this pass (a group seen before is not said again until it grows) with the candidates at least `floor` alike to
 * it that no larger group took: alike to one, not merely through a chain of others. One index search per changed
 * candidate.
 */
export function lookAlikeGroups(candidates: readonly LookAlikeCandidate[], floor = LOOK_ALIKE_TOOL_FLOOR): string[][] {
  // Changed ones first, then the newest (cluster ids grow with creation).
  const chosen = [...candidates]
    .sort((a, b) => Number(b.changed) - Number(a.changed) || b.id.localeCompare(a.id))
    .slice(0, MAX_CANDIDATES);
  if (chosen.length < 2 || !chosen[0].changed) return [];
  const index = new ExactIndex(chosen[0].tools.length);
  const units = new Map<string, Float32Array>();
  for (const c of chosen) {
    const u = normalize(Float32Array.from(c.tools));
    if (dot(u, u) === 0) continue;
    index.add(c.id, u);
    units.set(c.id, u);
  }
  const near = chosen
    .filter((c) => c.changed && units.has(c.id))
    .slice(0, MAX_SEEDS)
    .map((c) => ({
      id: c.id,
      others: index
        .search(units.get(c.id)!, NEIGHBOURS, { minScore: floor })
        .map((h) => h.id)
        .filter((id) => id !== c.id),
    }))
    .sort((a, b) => b.others.length - a.others.length || a.id.localeCompare(b.id));
  const taken = new Set<string>();
  const groups: string[][] = [];
  for (const { id, others } of near) {
    if (taken.has(id)) continue;
    const group = [id, ...others.filter((o) => !taken.has(o))];
    if (group.length < 2) continue;
    for (const g of group) taken.add(g);
    groups.push(group);
  }
  return groups.sort((a, b) => b.length - a.length || a[0].localeCompare(b[0]));
}

/** A step of a look-alike group: its tool, and for a command run the command's head (`npm install`). */
export interface LookAlikeStep {
  tool: string;
  command?: string;
}

/**
 * Of sessions whose tool use looked alike, the ones that share a step few of the namespace's sessions take (a
 * step most sessions take, a coding agent's Read or Edit, says nothing of the task), with the steps they all
 * share that are as telling, in the order the first of them took them. The shared step held by the most sessions
 * decides which; null when no step is shared that way by two of them.
 */
export function sharedSteps(
  sessions: readonly { id: string; calls: readonly ToolCall[] }[],
  share: (key: string) => number,
  thinkTools: readonly string[] = [],
): { sessions: string[]; steps: LookAlikeStep[] } | null {
  const telling = (c: ToolCall) => c.ok && !thinkTools.includes(c.tool) && share(stepKey(c)) <= COMMON_TOOL_SHARE;
  const keysOf = new Map(sessions.map((s) => [s.id, new Set(s.calls.filter(telling).map(stepKey))]));
  const holders = new Map<string, string[]>();
  for (const [id, keys] of keysOf) for (const k of keys) holders.set(k, [...(holders.get(k) ?? []), id]);
  const [best] = [...holders.entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
  if (!best || best[1].length < 2) return null;
  const members = best[1];
  const first = sessions.find((s) => s.id === members[0])!;
  const steps: LookAlikeStep[] = [];
  const seen = new Set<string>();
  for (const c of first.calls) {
    const key = stepKey(c);
    if (!telling(c) || seen.has(key) || !members.every((id) => keysOf.get(id)!.has(key))) continue;
    seen.add(key);
    steps.push(splitStepKey(key));
  }
  return { sessions: members, steps };
}
