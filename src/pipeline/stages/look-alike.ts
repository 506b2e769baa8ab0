import { lookAlikeGroups, sharedSteps, type LookAlikeStep } from '../../domain/look-alike.js';
import type { SkillsmithConfig } from '../../config/config.js';
import type { Embedder } from '../../embedders/embedder.js';
import { TermStats } from '../../domain/term-stats.js';
import type { ClusterRecord, Store } from '../../store/store.js';
import { stateKey } from '../../store/state-key.js';
import { toolCentroidOf } from './cluster.js';

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
/** Times `sessions alike` finds the groups again when some were seeded by clusters found to hold open sessions. */
const MAX_REGROUPS = 4;
/**
 * Small clusters with open sessions a pass keeps for the next (the newest): each is read once by the next pass, and by
 * `sessions alike`.
 */
const MAX_OPEN_KEPT = 256;

/**
 * Look-alike: of the clusters a pass left because they were too small (`small`, as the pass holds them: fewer
 * members than `minOccurrences`, or fewer that ended, admit.ts tooFewEnded), the ones whose tool use is alike and
 * whose successful sessions share a telling step, with at least `minOccurrences` of them (look-alike.ts): groups with
 * a cluster the pass added to, or every group with `all`. Reads the member sessions of the few groups found, the
 * members of small clusters with open sessions and of those big enough by size, and the outlines of the ended
 * members of those with open sessions (the newest of each), nothing else.
 *
 * A session still open (domain/open-session.ts) counts for nothing here either, as in the pass: it is not read as a
 * member, its joining a cluster is no change (its end is one), and its tools are no part of its cluster's tool use
 * until it ends. The stored centroid counts every member, so a small cluster known to hold open sessions (a pass
 * knows which it saw; `sessions alike` reads what the last pass kept) is compared by the tool use of the members that
 * ended, read for it; one of open sessions only is left out of the grouping. With `all`, a group whose seed turns
 * out to hold open sessions all the same (a cluster the last pass did not keep) is found again without those.
 */
export async function findLookAlikes(
  store: Store,
  namespace: string,
  small: readonly ClusterRecord[],
  /**
   * Where the tool part of a cluster's centroid starts (the goal embedding's dimensions), and the namespace's tool
   * statistics (each step's share; a cluster's tool part made again from its members that ended).
   */
  features: { goalDims: number; toolStats: TermStats },
  opts: {
    minOccurrences: number;
    thinkTools: readonly string[];
    dryRun: boolean;
    /** Sessions a live skill was learned from (a group compiled already is not said again). */
    learned: ReadonlySet<string>;
    /**
     * Every group (`sessions alike`), with the clusters the last pass kept as holding open sessions (`holding`): a
     * pass reads which hold some, and keeps them for the next.
     */
    all?: { holding: ReadonlySet<string> };
    max: number;
  },
): Promise<LookAlike[]> {
  const { goalDims, toolStats } = features;
  const byId = new Map(small.map((c) => [c.id, c]));
  const membersOf = new Map<string, string[]>();
  const open = new Set<string>();
  const checked = new Set<string>();
  /**
   * A cluster's members (a dry run stored no membership: the sessions it clustered are its new members; a cluster
   * this pass made holds only those, nothing to read).
   */
  const members = async (id: string) => {
    let ids = membersOf.get(id);
    if (!ids) {
      const c = byId.get(id)!;
      const stored = c.newMembers.length >= c.size ? [] : await store.clusterMembers(namespace, id);
      ids = [...new Set([...stored, ...(opts.dryRun || !stored.length ? c.newMembers : [])])];
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
  const seen = opts.all
    ? { ended: new Set<string>(), holding: new Set([...opts.all.holding].filter((id) => byId.has(id))) }
    : await openSessionsEnded(store, namespace, byId, members, readOpen, open, opts);
  const looked = new Set<string>();
  /** Of these clusters, the ones that hold open sessions (each looked at once). */
  const holdingOpen = async (ids: readonly string[]) => {
    const unseen = [...new Set(ids)].filter((id) => !looked.has(id));
    const lists = new Map<string, string[]>();
    for (const id of unseen) lists.set(id, await members(id));
    await readOpen([...lists.values()].flat());
    for (const id of unseen) looked.add(id);
    return unseen.filter((id) => lists.get(id)!.some((s) => open.has(s)));
  };
  const holding = await holdingOpen([...seen.holding]);
  // A cluster big enough by size is small only while too few of its members have ended; its members read, one whose
  // open sessions have ended since (`sessions alike` after a pass) is not: the next pass learns from it.
  const ended = (id: string) => membersOf.get(id)?.filter((s) => !open.has(s)).length;
  const tooSmall = small.filter((c) => c.size < opts.minOccurrences || (ended(c.id) ?? 0) < opts.minOccurrences);
  const candidates = tooSmall.map((c) => ({
    id: c.id,
    tools: c.centroid.subarray(goalDims),
    changed: !!opts.all || c.newMembers.some((id) => !open.has(id)) || seen.ended.has(c.id),
  }));
  /** Gives these clusters the tool part of their members that ended (the newest of them): all zeros when none did. */
  const toolsOfEnded = async (ids: readonly string[]) => {
    const endedOf = new Map<string, string[]>();
    for (const id of ids) endedOf.set(id, (await members(id)).filter((s) => !open.has(s)).slice(-MAX_MEMBERS));
    const outlines = new Map(
      (await store.sessionOutlines(namespace, [...endedOf.values()].flat())).map((o) => [o.id, o]),
    );
    for (const c of candidates) {
      const ended = endedOf.get(c.id)?.flatMap((id) => outlines.get(id) ?? []);
      if (ended) c.tools = toolCentroidOf(ended, toolStats, opts.thinkTools);
    }
  };
  await toolsOfEnded(holding);
  // Groups whose sessions share no telling step are passed over: a few more are read, never all.
  const budget = opts.max * 4;
  let groups = lookAlikeGroups(candidates);
  // Every small cluster is a seed of `sessions alike`: one whose tool part counted open sessions (the last pass did not
  // keep it) is compared again by the members that ended, and the groups are found again (it may have taken clusters
  // alike to it, not to one another; one of open sessions only is none). A few times; after that such groups are only
  // passed over.
  for (let regrouped = 0; opts.all; ) {
    const holding = await holdingOpen(groups.slice(0, budget).map((g) => g[0]));
    if (!holding.length) break;
    if (++regrouped > MAX_REGROUPS) {
      groups = groups.filter((g) => !holding.includes(g[0]));
      break;
    }
    await toolsOfEnded(holding);
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
    const shared = sharedSteps(sessions, (key) => toolStats.share(key), opts.thinkTools);
    if (!shared || shared.sessions.length < opts.minOccurrences) continue;
    const goalOf = new Map(sessions.map((s) => [s.id, s.goal]));
    out.push({ sessions: shared.sessions, goals: shared.sessions.map((id) => goalOf.get(id)!), steps: shared.steps });
  }
  return out;
}

/**
 * Of the small clusters, the ones a session still open at the last pass has left since (it ended; or it was
 * forgotten), from what that pass kept (`stateKey.lookAlikeOpen`: cluster ids, never a session's), and the ones that
 * hold open sessions now; and keeps those for the next pass (not on a dry run), for it and for `sessions alike`. Marks
 * the open sessions it reads in `open`: the new members of every small cluster, and every member of those the last
 * pass kept and of those big enough by size (small for their open sessions, admit.ts tooFewEnded, which may have
 * joined them when they were not small: deferred, or examined with enough that ended).
 */
async function openSessionsEnded(
  store: Store,
  namespace: string,
  small: ReadonlyMap<string, ClusterRecord>,
  members: (id: string) => Promise<string[]>,
  readOpen: (ids: readonly string[]) => Promise<void>,
  open: ReadonlySet<string>,
  opts: { minOccurrences: number; dryRun: boolean },
): Promise<{ ended: Set<string>; holding: Set<string> }> {
  const kept = parseOpenState(await store.getState(namespace, stateKey.lookAlikeOpen)).filter(([id]) => small.has(id));
  const keptIds = new Set(kept.map(([id]) => id));
  const big = new Map<string, string[]>();
  for (const c of small.values())
    if (c.size >= opts.minOccurrences && !keptIds.has(c.id)) big.set(c.id, await members(c.id));
  await readOpen([...[...small.values()].flatMap((c) => c.newMembers), ...[...big.values()].flat()]);
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
    const fresh = (big.get(c.id) ?? c.newMembers).filter((s) => open.has(s)).length;
    if (fresh && !now.has(c.id)) now.set(c.id, fresh);
  }
  const next = [...now].sort((a, b) => b[0].localeCompare(a[0])).slice(0, MAX_OPEN_KEPT);
  if (!opts.dryRun && (next.length || kept.length))
    await store.setState(namespace, stateKey.lookAlikeOpen, JSON.stringify(next));
  return { ended, holding: new Set(now.keys()) };
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
 * clusters too small to learn from, compared with one another. Those a pass takes: fewer members than a skill needs,
 * or fewer that ended (admit.ts tooFewEnded), known from the clusters the last pass kept as holding open sessions
 * (`look-alike-open`; their members are read, and one whose open sessions have ended since is not small). A cluster
 * big enough by size that record left out (a memory passed before it was kept, or more such clusters than it keeps)
 * is not read: that would read every member of every cluster a pass left dirty (deferred ones of a model distiller,
 * ones in cooldown); the next pass keeps it.
 */
export async function lookAlikesNow(
  deps: { store: Store; embedder: Embedder; config: SkillsmithConfig },
  namespace: string,
  max: number,
): Promise<LookAlike[]> {
  const { store, embedder, config } = deps;
  const toolStats = TermStats.fromJSON(await store.getState(namespace, stateKey.toolStats));
  const holding = new Set(parseOpenState(await store.getState(namespace, stateKey.lookAlikeOpen)).map(([id]) => id));
  const small = (await store.loadClusters(namespace, embedder.id)).filter(
    (c) => !c.skillId && (c.size < config.synthesis.minOccurrences || holding.has(c.id)),
  );
  const features = { goalDims: embedder.dimensions, toolStats };
  return findLookAlikes(store, namespace, small, features, {
    minOccurrences: config.synthesis.minOccurrences,
    thinkTools: config.synthesis.thinkTools,
    dryRun: false,
    learned: learnedSessions(await store.listSkills(namespace, { corpus: 'internal' })),
    all: { holding },
    max,
  });
}

/** The sessions live skills were learned from. */
export function learnedSessions(skills: readonly { supersededBy: string | null; sourceSessions: string[] }[]) {
  return new Set(skills.filter((s) => !s.supersededBy).flatMap((s) => s.sourceSessions));
}
