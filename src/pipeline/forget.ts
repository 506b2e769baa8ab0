import { createHash } from 'node:crypto';
import { normalizeGoal } from '../domain/normalize-goal.js';
import { collapseRepeats } from '../domain/sequence.js';
import { TermStats } from '../domain/term-stats.js';
import { toolTerms } from '../domain/tool-features.js';
import type { Embedder } from '../embedders/embedder.js';
import type { ForgottenSession, Store } from '../store/store.js';
import { goalWords } from './stages/cluster.js';
import { stateKey, type StateKey } from '../store/state-key.js';

export interface ForgetSessionDeps {
  store: Store;
  embedder: Embedder;
  /** Tools a pass leaves out of the tool statistics (config.synthesis.thinkTools). */
  thinkTools: readonly string[];
}

/**
 * Forgets one session: the store removes its rows (see `Store.forgetSession`), with the embedding-cache entries
 * of its goal and cue; when a pass had counted it, its words and tools are taken back out of the namespace's
 * term statistics, so no word of its goal stays in the store. Run under the namespace's synthesis lock: a pass
 * reading the session meanwhile would write it back into provenance.
 */
export async function forgetSession(
  deps: ForgetSessionDeps,
  namespace: string,
  sessionId: string,
  opts: { actor: string; at: string },
): Promise<ForgottenSession | null> {
  const { store, embedder } = deps;
  const session = await store.getSession(namespace, sessionId);
  if (!session) return null;
  const texts = [session.goal, ...(session.cue ? [session.cue] : [])];
  // The cache key a pass used for these texts (stages/embed.ts): a shared entry is only recomputed when needed.
  const embeddingHashes = texts.map((t) => ({
    embedderId: embedder.id,
    hash: createHash('sha1').update(normalizeGoal(t)).digest('hex'),
  }));
  // Computed before, written by the store in the same transaction, and only when a pass had counted the session.
  const ifClustered: { key: StateKey; value: string }[] = [];
  const toolStats = await store.getState(namespace, stateKey.toolStats);
  if (toolStats) {
    const stats = TermStats.fromJSON(toolStats);
    stats.removeDocument(
      toolTerms(collapseRepeats(session.calls.filter((c) => !deps.thinkTools.includes(c.tool)).map((c) => c.tool))),
    );
    ifClustered.push({ key: stateKey.toolStats, value: stats.toJSON() });
  }
  const goalStats = await store.getState(namespace, stateKey.goalStats);
  if (goalStats) {
    const stats = TermStats.fromJSON(goalStats);
    stats.removeDocument(goalWords(session.goal));
    ifClustered.push({ key: stateKey.goalStats, value: stats.toJSON() });
  }
  const result = await store.forgetSession(namespace, sessionId, {
    ...opts,
    embeddingHashes,
    stateIfClustered: ifClustered,
  });
  return result;
}
