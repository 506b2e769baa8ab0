import { createHash } from 'node:crypto';
import { stepKey } from '../domain/commands.js';
import { normalizeGoal } from '../domain/normalize-goal.js';
import { GoalMean } from '../domain/goal-mean.js';
import { collapseRepeats } from '../domain/sequence.js';
import { TermStats } from '../domain/term-stats.js';
import { toolTerms } from '../domain/tool-features.js';
import type { Session, SessionOutline } from '../domain/types.js';
import type { Embedder } from '../embedders/embedder.js';
import { PassLockedError } from '../errors/pass-locked-error.js';
import type { ClusterCentroids, ForgottenSession, SessionToForget, Store } from '../store/store.js';
import { centroidsOf, goalWords } from './stages/cluster.js';
import { embedTexts } from './stages/embed.js';
import { stateKey, type StateKey } from '../store/state-key.js';

export interface ForgetSessionDeps {
  store: Store;
  embedder: Embedder;
  /** Tools a pass leaves out of the tool statistics (config.synthesis.thinkTools). */
  thinkTools: readonly string[];
  /** The tool-use share of a session's clustering feature (config.synthesis.toolWeight). */
  toolWeight: number;
}

/**
 * Sessions forgotten in one transaction: a store transaction holds every row it deletes, so a batch stays bounded
 * however many sessions retention forgets; the namespace's statistics are rewritten once a batch, not once a session.
 */
const FORGET_BATCH = 500;

/** The most members a forget keeps read from one batch to the next (a goal embedding: 1.2 KB at 300 dimensions). */
const MEMBERS_KEPT = 20_000;

/**
 * Forgets sessions, `FORGET_BATCH` at a time, each batch in one store transaction (see `Store.forgetSessions`):
 * their rows go with the embedding-cache entries of their goals and cues; those a pass had counted have their words
 * and tools taken back out of the namespace's term statistics, so no word of a goal stays in the store. Run under the
 * namespace's synthesis lock: a pass reading a session meanwhile would write it back into provenance. The sessions
 * forgotten, in the order given; ids of no stored session are skipped.
 */
export async function forgetSessions(
  deps: ForgetSessionDeps,
  namespace: string,
  sessionIds: readonly string[],
  opts: {
    actor: string;
    at: () => string;
    /** After each batch (awaited). */
    onBatch?: (done: number, total: number) => void | Promise<void>;
    /**
     * Renews the lock the forget runs under (HeldLock.renew), called before each batch: false when it was lost, and
     * then the forget stops (PassLockedError) with the batches before it done.
     */
    renew?: () => Promise<boolean>;
    /** Whether a session, as read for its batch, is still to be forgotten (retention re-judges its age): skipped if not. */
    still?: (s: Session) => boolean;
  },
): Promise<(ForgottenSession & { id: string })[]> {
  const { store } = deps;
  const ids = [...new Set(sessionIds)];
  const out: (ForgottenSession & { id: string })[] = [];
  /** Members of the clusters the batches leave that stay, outlined, with their goals' embeddings, by session id. */
  const known = new Map<string, { session: SessionOutline; goal: Float32Array }>();
  for (let i = 0; i < ids.length; i += FORGET_BATCH) {
    if (opts.renew && !(await opts.renew()))
      throw new PassLockedError(
        `the lock of namespace ${namespace} was lost while its sessions were forgotten (${out.length} of ${ids.length} forgotten); forget the rest again`,
      );
    const read = await store.getSessions(namespace, ids.slice(i, i + FORGET_BATCH));
    const sessions = opts.still ? read.filter(opts.still) : read;
    if (sessions.length) {
      // Read once a batch, taken from inside the store's transaction: the lock keeps passes from writing them.
      const meanKey = stateKey.goalMean(deps.embedder.id);
      const [toolStats, goalStats, goalMean, clusters] = await Promise.all([
        store.getState(namespace, stateKey.toolStats),
        store.getState(namespace, stateKey.goalStats),
        store.getState(namespace, meanKey),
        store.clustersOfSessions(
          namespace,
          sessions.map((s) => s.id),
        ),
      ]);
      const byId = new Map(sessions.map((s) => [s.id, s]));
      const toolStatsWithout = (counted: readonly Session[]) => {
        const stats = TermStats.fromJSON(toolStats);
        for (const s of counted) stats.removeDocument(toolTermsOf(s, deps.thinkTools));
        return stats;
      };
      // The clusters they leave, recomputed from the members that stay (their goals embedded as a pass embedded
      // them), under the tool statistics without the batch's sessions: those of this embedder, whose vectors it can
      // make; their goals also leave its mean goal vector.
      const ours = clusters.filter((c) => c.embedderId === deps.embedder.id);
      const clusteredBefore = new Set(clusters.flatMap((c) => c.members.filter((id) => byId.has(id))));
      const statsAfter = clusteredBefore.size
        ? toolStatsWithout([...clusteredBefore].map((id) => byId.get(id)!))
        : null;
      // A cluster that loses sessions in several batches has those that stay read and embedded once.
      const staying = ours.flatMap((c) => c.members).filter((id) => !byId.has(id));
      if (known.size + staying.length > MEMBERS_KEPT) known.clear();
      const unread = staying.filter((id) => !known.has(id));
      if (unread.length) {
        const outlines = await store.sessionOutlines(namespace, unread);
        const vectors = await embedTexts(
          store,
          deps.embedder,
          outlines.map((o) => o.goal),
        );
        for (const [i, o] of outlines.entries()) known.set(o.id, { session: o, goal: vectors[i]! });
      }
      // Those that leave were embedded when they stayed in an earlier batch, else now.
      const leaving = ours.flatMap((c) => c.members).filter((id) => byId.has(id));
      const goalOf = new Map(leaving.flatMap((id) => (known.has(id) ? [[id, known.get(id)!.goal] as const] : [])));
      const unembedded = leaving.filter((id) => !goalOf.has(id));
      if (unembedded.length) {
        const vectors = await embedTexts(
          store,
          deps.embedder,
          unembedded.map((id) => byId.get(id)!.goal),
        );
        for (const [i, id] of unembedded.entries()) goalOf.set(id, vectors[i]!);
      }
      const synthesis = { thinkTools: deps.thinkTools, toolWeight: deps.toolWeight };
      const centroids: ClusterCentroids[] = ours.map((c) => {
        const of = c.members.flatMap((id) => (byId.has(id) || !known.has(id) ? [] : [known.get(id)!]));
        return {
          clusterId: c.id,
          size: of.length,
          ...centroidsOf(of, deps.embedder.dimensions, statsAfter!, synthesis),
        };
      });
      const stateIfClustered = (clustered: readonly string[]) => {
        const writes: { key: StateKey; value: string }[] = [];
        const counted = clustered.map((id) => byId.get(id)!);
        if (toolStats) {
          // As computed for the centroids, unless the store finds other sessions clustered than read before.
          const same = counted.length === clusteredBefore.size && counted.every((s) => clusteredBefore.has(s.id));
          writes.push({
            key: stateKey.toolStats,
            value: (same && statsAfter ? statsAfter : toolStatsWithout(counted)).toJSON(),
          });
        }
        if (goalStats) {
          const stats = TermStats.fromJSON(goalStats);
          for (const s of counted) stats.removeDocument(goalWords(s.goal));
          writes.push({ key: stateKey.goalStats, value: stats.toJSON() });
        }
        const vectors = counted.flatMap((s) => (goalOf.has(s.id) ? [goalOf.get(s.id)!] : []));
        if (goalMean && vectors.length) {
          const mean = GoalMean.fromJSON(goalMean, deps.embedder.dimensions);
          for (const v of vectors) mean.remove(v);
          writes.push({ key: meanKey, value: mean.toJSON() });
        }
        return writes;
      };
      const batch: SessionToForget[] = sessions.map((s) => ({ id: s.id, embeddingHashes: embeddingHashes(s, deps) }));
      // A skill's recall exemplars say the sessions they were taken from, and keep none a forgotten session alone
      // gave; those chosen before exemplars said so are found by vector: the goals and cues of their skills' forgotten
      // parents, embedded as a pass embedded them (from the cache the forget then empties). No other needs embedding.
      const parents = await store.parentsOfUnsourcedExemplarsIn(
        namespace,
        sessions.map((s) => s.id),
      );
      const texts = sessions.filter((s) => parents.has(s.id)).flatMap((s) => [s.goal, ...(s.cue ? [s.cue] : [])]);
      const forgottenVectors = texts.length
        ? { embedderId: deps.embedder.id, vectors: await embedTexts(store, deps.embedder, texts) }
        : undefined;
      const done = await store.forgetSessions(namespace, batch, {
        actor: opts.actor,
        at: opts.at(),
        stateIfClustered,
        forgottenVectors,
        centroids,
      });
      for (const s of sessions) known.delete(s.id);
      // In the order asked for.
      const gone = new Map(done.map((d) => [d.id, d]));
      for (const id of ids.slice(i, i + FORGET_BATCH)) if (gone.has(id)) out.push(gone.get(id)!);
    }
    await opts.onBatch?.(Math.min(i + FORGET_BATCH, ids.length), ids.length);
  }
  return out;
}

/** The cache keys a pass used for a session's goal and cue (stages/embed.ts): a shared entry is recomputed when needed. */
function embeddingHashes(s: Session, deps: ForgetSessionDeps): { embedderId: string; hash: string }[] {
  return [s.goal, ...(s.cue ? [s.cue] : [])].map((t) => ({
    embedderId: deps.embedder.id,
    hash: createHash('sha1').update(normalizeGoal(t)).digest('hex'),
  }));
}

/**
 * The tool terms a pass counted for a session (stages/cluster.ts): each call's step key, so a command runner's
 * calls count by what they run (`bash git`), as the pass's outlines read them.
 */
function toolTermsOf(s: Session, thinkTools: readonly string[]): Set<string> {
  return toolTerms(collapseRepeats(s.calls.filter((c) => !thinkTools.includes(c.tool)).map((c) => stepKey(c))));
}
