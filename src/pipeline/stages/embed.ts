import { createHash } from 'node:crypto';
import { normalizeGoal } from '../../domain/normalize-goal.js';
import type { Session } from '../../domain/types.js';
import type { Embedder } from '../../embedders/embedder.js';
import type { Store } from '../../store/store.js';

/** Embed: normalised goals in batches, through the store's cache keyed by embedder and text hash. */
export async function embedGoals(
  store: Store,
  embedder: Embedder,
  sessions: Session[],
): Promise<Map<string, Float32Array>> {
  const vectors = await embedTexts(
    store,
    embedder,
    sessions.map((s) => s.goal),
  );
  return new Map(sessions.map((s, i) => [s.id, vectors[i]]));
}

/** Embeds texts (normalised first: typed placeholders) in batches, through the store's embedding cache. */
export async function embedTexts(store: Store, embedder: Embedder, texts: readonly string[]): Promise<Float32Array[]> {
  const normalised = texts.map((t) => normalizeGoal(t));
  const hashes = normalised.map((t) => createHash('sha1').update(t).digest('hex'));
  const cached = await store.getCachedEmbeddings(embedder.id, [...new Set(hashes)]);
  const missing = [...new Set(hashes.filter((h) => !cached.has(h)))];
  if (missing.length) {
    const textOf = new Map(hashes.map((h, i) => [h, normalised[i]]));
    const vectors = await embedder.embed(missing.map((h) => textOf.get(h)!));
    if (vectors.length !== missing.length)
      throw new Error(`embedder ${embedder.id} returned ${vectors.length} vectors for ${missing.length} texts`);
    const entries = missing.map((hash, i) => ({ hash, vector: vectors[i] }));
    await store.putCachedEmbeddings(embedder.id, entries);
    for (const e of entries) cached.set(e.hash, e.vector);
  }
  return hashes.map((h) => cached.get(h)!);
}
