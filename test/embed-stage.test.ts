import { afterEach, describe, expect, it } from 'vitest';
import { createGloveEmbedder } from '../src/embedders/glove/glove-embedder.js';
import type { Embedder } from '../src/embedders/embedder.js';
import { openSqliteStore, type SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { tempDbPath } from './support/tau.js';
import { embedTexts } from '../src/pipeline/stages/embed.js';

/** The default embedder with its synchronous path hidden, as a model server's embedder has none, counting texts. */
function modelLike(): Embedder & { embedded: string[] } {
  const glove = createGloveEmbedder();
  const embedded: string[] = [];
  return {
    id: 'model-like@1',
    dimensions: glove.dimensions,
    thresholds: glove.thresholds,
    embedded,
    async embed(texts) {
      embedded.push(...texts);
      return glove.embed(texts);
    },
  };
}

describe('embedTexts', () => {
  const stores: SqliteStore[] = [];
  const open = () => {
    const s = openSqliteStore(tempDbPath());
    stores.push(s);
    return s;
  };
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
  });

  const texts = ['Cancel order #W1234, I changed my mind', 'Cancel order #W9876, I changed my mind', 'Book a flight'];

  it("embeds each distinct normalised text once, and a model's vectors come from the store's cache next time", async () => {
    const store = open();
    const model = modelLike();
    const first = await embedTexts(store, model, texts);
    // The two cancel requests differ only in their order id: one text after normalisation, embedded once.
    expect(model.embedded).toEqual(['Cancel order <id>, I changed my mind', 'Book a flight']);
    expect(first[0]).toEqual(first[1]);
    const again = await embedTexts(store, model, texts);
    expect(model.embedded).toHaveLength(2);
    expect(again).toEqual(first);
  });

  it('computes an in-process embedder’s vectors directly: the same vectors, nothing written to the cache', async () => {
    const store = open();
    const glove = createGloveEmbedder();
    const vectors = await embedTexts(store, glove, texts);
    expect(vectors).toEqual(await embedTexts(open(), modelLike(), texts));
    expect(store.db.prepare('SELECT COUNT(*) FROM embedding_cache').pluck().get()).toBe(0);
  });
});
