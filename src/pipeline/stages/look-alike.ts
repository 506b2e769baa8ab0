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
/** Times `sessions alike` finds the groups again when some were seeded by clusters of open sessions only. */
const MAX_REGROUPS = 4;
/** Small clusters with open sessions a pass keeps for the next (the newest): each is read once by the next pass. */
const MAX_OPEN_KEPT = 256;

/**
 * Look-alike: of the clusters a pass left because they were too small (`small`, as the pass holds them), the
 * ones whose tool use is alike and whose successful sessions share a telling step, with at least `minOccurrences`
 * of them (look-alike.ts): groups with a cluster the pass added to, or every group with `all`. Reads the member
 * sessions of the few groups found, nothing else.
 *
 * A session still open (domain/open-session.ts) counts for nothing here either, as in the pass: it is not read as a
 * member, its joining a cluster is no change (its end is one), and with `all` a cluster of open sessions only is no
 * seed of a group.
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
  const byId = new Map(small.map((c) => [c.id, c]));
  const membersOf = new Map<string, string[]>();
  const open = new Set<string>();
  const checked = new Set<string>();
  /** A cluster's members (a dry run stored no membership: the sessions it clustered are its new members). */
  const members = async (id: string) => {
    let ids = membersOf.get(id);
    if (!ids) {
      const stored = await store.clusterMembers(namespace, id);
      ids = [...new Set([...stored, ...(opts.dryRun ? byId.get(id)!.newMembers : [])])];
      membersOf.set(id, ids);
    }
    return ids;
  };
  /** Reads which of these sessions are still open, once each. */
  const readOpen = async (ids: readonly string[]) => {
    const unread = [...new Set(ids)].filter((id) => !checked.has(id));
    if (!unread.length) return;
    for (const id of await store.openSessionIds(namespace, unread)) open.add(id);
    for (const id of unread) checked.add(id);
  };
  // A pass: a cluster changed when an ended session joined it, or one that was open at the last pass ended.
  const ended = opts.all
    ? new Set<string>()
    : await openSessionsEnded(store, namespace, byId, members, readOpen, open, opts.dryRun);
  const candidates = small.map((c) => ({
    id: c.id,
    tools: c.centroid.subarray(goalDims),
    changed: !!opts.all || c.newMembers.some((id) => !open.has(id)) || ended.has(c.id),
  }));
  // Groups whose sessions share no telling step are passed over: a few more are read, never all.
  const budget = opts.max * 4;
  let groups = lookAlikeGroups(candidates);
  // Every small cluster is a seed of `sessions alike`: one that holds only open sessions is none, and the groups are
  // found again without it (it may have taken clusters alike to it, not to one another). A few times; after that such
  // groups are only passed over.
  for (let regrouped = 0; opts.all; ) {
    const seedless: string[] = [];
    for (const g of groups.slice(0, budget)) {
      const ids = await members(g[0]);
      await readOpen(ids);
      if (ids.every((id) => open.has(id))) seedless.push(g[0]);
    }
    if (!seedless.length) break;
    for (const c of candidates) if (seedless.includes(c.id)) c.changed = false;
    if (++regrouped > MAX_REGROUPS) {
      groups = groups.filter((g) => !seedless.includes(g[0]));
      break;
    }
    groups = lookAlikeGroups(candidates);
  }
  const out: LookAlike[] = [];
  for (const group of groups.slice(0, budget)) {
    if (out.length >= opts.max) break;
    const ids: string[] = [];
    for (const id of group) ids.push(...(await members(id)));
    await readOpen(ids);
    const counted = [...new Set(ids)].filter((id) => !opts.learned.has(id) && !open.has(id));
    const sessions = (await store.getSessions(namespace, counted.slice(0, MAX_MEMBERS))).filter(
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
 * Of the small clusters, the ones a session still open at the last pass has left since (it ended; or it was
 * forgotten), from what that pass kept (`stateKey.lookAlikeOpen`: cluster ids, never a session's); and keeps what
 * this pass sees for the next one (not on a dry run). Marks the open sessions it reads in `open`: the new members
 * of every small cluster, and the members of those the last pass kept.
 */
async function openSessionsEnded(
  store: Store,
  namespace: string,
  small: ReadonlyMap<string, ClusterRecord>,
  members: (id: string) => Promise<string[]>,
  readOpen: (ids: readonly string[]) => Promise<void>,
  open: ReadonlySet<string>,
  dryRun: boolean,
): Promise<Set<string>> {
  const kept = parseOpenState(await store.getState(namespace, stateKey.lookAlikeOpen)).filter(([id]) => small.has(id));
  await readOpen([...small.values()].flatMap((c) => c.newMembers));
  const now = new Map<string, number>();
  const ended = new Set<string>();
  for (const [id, before] of kept) {
    const ids = await members(id);
    await readOpen(ids);
    const still = ids.filter((s) => open.has(s)).length;
    if (still < before) ended.add(id);
    if (still) now.set(id, still);
  }
  for (const c of small.values()) {
    const fresh = c.newMembers.filter((s) => open.has(s)).length;
    if (fresh && !now.has(c.id)) now.set(c.id, fresh);
  }
  const next = [...now].sort((a, b) => b[0].localeCompare(a[0])).slice(0, MAX_OPEN_KEPT);
  if (!dryRun && (next.length || kept.length))
    await store.setState(namespace, stateKey.lookAlikeOpen, JSON.stringify(next));
  return ended;
}

/** The kept `[clusterId, open]` pairs; none from a value that is not such a list. */
function parseOpenState(value: string | null): [string, number][] {
  if (!value) return [];
  try {
    const parsed: unknown = JSON.parse(value);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (e): e is [string, number] => Array.isArray(e) && typeof e[0] === 'string' && Number.isInteger(e[1]) && e[1] > 0,
    );
  } catch {
    return [];
  }
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
