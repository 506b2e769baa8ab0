import { createHash } from 'node:crypto';
import { normalizeGoal } from '../../domain/normalize-goal.js';
import type { Session } from '../../domain/types.js';
import type { Embedder } from '../../embedders/embedder.js';
import type { Store } from '../../store/store.js';
import { MalformedResponseError } from '../../errors/malformed-response-error.js';

/** Embed: each session's normalised goal (see `embedTexts`). */
export async function embedGoals(
  store: Store,
  embedder: Embedder,
  sessions: readonly Pick<Session, 'id' | 'goal'>[],
): Promise<Map<string, Float32Array>> {
  const vectors = await embedTexts(
    store,
    embedder,
    sessions.map((s) => s.goal),
  );
  return new Map(sessions.map((s, i) => [s.id, vectors[i]]));
}

/**
 * Embeds texts (normalised first: typed placeholders), each distinct text once. A model's vectors go through the
 * store's embedding cache, keyed by embedder and text hash; an in-process embedder (`embedSync`, the GloVe default)
 * computes a vector in less time than the cache takes to read or write one, so its vectors are not cached.
 */
export async function embedTexts(store: Store, embedder: Embedder, texts: readonly string[]): Promise<Float32Array[]> {
  const seen = new Map<string, string>();
  const normalised = texts.map((t) => {
    let n = seen.get(t);
    if (n === undefined) seen.set(t, (n = normalizeGoal(t)));
    return n;
  });
  if (embedder.embedSync) {
    const local = new Map<string, Float32Array>();
    return normalised.map((t) => {
      let v = local.get(t);
      if (!v) local.set(t, (v = embedder.embedSync!(t)));
      return v;
    });
  }
  const hashes = normalised.map((t) => createHash('sha1').update(t).digest('hex'));
  const cached = await store.getCachedEmbeddings(embedder.id, [...new Set(hashes)]);
  const missing = [...new Set(hashes.filter((h) => !cached.has(h)))];
  if (missing.length) {
    const textOf = new Map(hashes.map((h, i) => [h, normalised[i]]));
    const vectors = await embedder.embed(missing.map((h) => textOf.get(h)!));
    if (vectors.length !== missing.length)
      throw new MalformedResponseError(
        `embedder ${embedder.id}`,
        `${vectors.length} vectors for ${missing.length} texts (one per text expected)`,
      );
    const entries = missing.map((hash, i) => ({ hash, vector: vectors[i] }));
    await store.putCachedEmbeddings(embedder.id, entries);
    for (const e of entries) cached.set(e.hash, e.vector);
  }
  return hashes.map((h) => cached.get(h)!);
}
