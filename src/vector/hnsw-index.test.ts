import { describe, expect, it } from 'vitest';
import { clustered } from './nearest-index.contract.js';
import { HnswIndex } from './hnsw-index.js';

describe('HnswIndex bulk build', () => {
  // USearch's parallel insert raced while the graph was nearly empty: on a loaded machine about one build in
  // 400 of 57 vectors left an entry no search reached, and recall (which asks a small graph for every entry)
  // served another similarity than the exact scan. The first entries now go in on one thread.
  it('a small graph built in bulk answers a search for every entry with every entry, the same on every build', () => {
    const d = 32;
    // Few centres and a small spread: many near-copies, as recall's skills (copies of one goal) are.
    const vectors = clustered(300, d, 6, 0.05, 7);
    const ids = vectors.map((_, i) => `s${i}`);
    const flat = new Float32Array(vectors.length * d);
    vectors.forEach((v, i) => {
      flat.set(v, i * d);
    });
    const queries = clustered(12, d, 6, 0.3, 8);
    let first: string[][] | null = null;
    for (let build = 0; build < 25; build++) {
      const index = new HnswIndex(d, { threads: 0 });
      index.addMany(ids, flat);
      const answers = queries.map((q) => index.search(q, index.size).map((h) => h.id));
      for (const a of answers) expect(new Set(a).size).toBe(vectors.length);
      first ??= answers;
      expect(answers).toEqual(first);
    }
  });
});
