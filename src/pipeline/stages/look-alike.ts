import { lookAlikeGroups, sharedSteps, type LookAlikeStep } from '../../domain/look-alike.js';
import type { SkillsmithConfig } from '../../config/config.js';
import type { Embedder } from '../../embedders/embedder.js';
import { TermStats } from '../../domain/term-stats.js';
import type { ClusterRecord, Store } from '../../store/store.js';
import { stateKey } from '../../store/state-key.js';

/** Sessions that ran the same steps in clusters too small to learn from: one skill if the user says so. */
export interface LookAlike {
  /** Stored ids of the successful sessions, for `skillsmith compile --sessions`. */
  sessions: string[];
  /** Their goals, in the same order. */
  goals: string[];
  /** The steps they all share that few other sessions take, in the order the first of them took them. */
  steps: LookAlikeStep[];
}

/** Groups a pass says, and sessions read per group: a hint, never a scan of the memory. */
export const PASS_LOOK_ALIKES = 3;
const MAX_MEMBERS = 12;

/**
 * Look-alike: of the clusters a pass left because they were too small (`small`, as the pass holds them), the
 * ones whose tool use is alike and whose successful sessions share a telling step, with at least `minOccurrences`
 * of them (look-alike.ts): groups with a cluster the pass added to, or every group with `all`. Reads the member
 * sessions of the few groups found, nothing else.
 */
export async function findLookAlikes(
  store: Store,
  namespace: string,
  small: readonly ClusterRecord[],
  /** Where the tool part of a cluster's centroid starts (the goal embedding's dimensions), and each step's share. */
  features: { goalDims: number; toolShare: (key: string) => number },
  opts: {
    minOccurrences: number;
    thinkTools: readonly string[];
    dryRun: boolean;
    /** Sessions a live skill was learned from (a group compiled already is not said again). */
    learned: ReadonlySet<string>;
    all?: boolean;
    max: number;
  },
): Promise<LookAlike[]> {
  const { goalDims } = features;
  const groups = lookAlikeGroups(
    small.map((c) => ({
      id: c.id,
      tools: c.centroid.subarray(goalDims),
      changed: !!opts.all || c.newMembers.length > 0,
    })),
  );
  const byId = new Map(small.map((c) => [c.id, c]));
  const out: LookAlike[] = [];
  // Groups whose sessions share no telling step are passed over: a few more are read, never all.
  for (const group of groups.slice(0, opts.max * 4)) {
    if (out.length >= opts.max) break;
    const ids: string[] = [];
    for (const id of group) {
      // A dry run stored no membership: the sessions it clustered are the cluster's new members.
      const members = await store.clusterMembers(namespace, id);
      ids.push(...members, ...(opts.dryRun ? byId.get(id)!.newMembers : []));
    }
    const unlearned = [...new Set(ids)].filter((id) => !opts.learned.has(id));
    const sessions = (await store.getSessions(namespace, unlearned.slice(0, MAX_MEMBERS))).filter(
      (s) => s.outcome === 'success',
    );
    const shared = sharedSteps(sessions, features.toolShare, opts.thinkTools);
    if (!shared || shared.sessions.length < opts.minOccurrences) continue;
    const goalOf = new Map(sessions.map((s) => [s.id, s.goal]));
    out.push({ sessions: shared.sessions, goals: shared.sessions.map((id) => goalOf.get(id)!), steps: shared.steps });
  }
  return out;
}

/**
 * Every look-alike group of a namespace as the last pass left its clusters (`skillsmith sessions alike`): the
 * clusters too small to learn from, compared with one another.
 */
export async function lookAlikesNow(
  deps: { store: Store; embedder: Embedder; config: SkillsmithConfig },
  namespace: string,
  max: number,
): Promise<LookAlike[]> {
  const { store, embedder, config } = deps;
  const toolStats = TermStats.fromJSON(await store.getState(namespace, stateKey.toolStats));
  const small = (await store.loadClusters(namespace, embedder.id)).filter(
    (c) => c.size < config.synthesis.minOccurrences && !c.skillId,
  );
  const features = { goalDims: embedder.dimensions, toolShare: (key: string) => toolStats.share(key) };
  return findLookAlikes(store, namespace, small, features, {
    minOccurrences: config.synthesis.minOccurrences,
    thinkTools: config.synthesis.thinkTools,
    dryRun: false,
    learned: learnedSessions(await store.listSkills(namespace, { corpus: 'internal' })),
    all: true,
    max,
  });
}

/** The sessions live skills were learned from. */
export function learnedSessions(skills: readonly { supersededBy: string | null; sourceSessions: string[] }[]) {
  return new Set(skills.filter((s) => !s.supersededBy).flatMap((s) => s.sourceSessions));
}
