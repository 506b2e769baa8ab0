import { describe, expect, it } from 'vitest';
import { clustered } from './nearest-index.contract.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HnswIndex } from './hnsw-index.js';
import { usearchLoaders } from './usearch.js';

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

describe('loading USearch', () => {
  // The index loads USearch's binary directly (a new process saves the package loader's folder scan); the
  // package's own Index must keep giving the same graph, so an upgrade that changes the binary's interface
  // shows here and not as wrong recalls.
  it("answers through the binary directly as through the package's Index, and each reads the other's file", () => {
    const binary = usearchLoaders.binary();
    const wrapped = usearchLoaders.package();
    expect(binary).not.toBeNull();
    expect(wrapped).not.toBeNull();
    const d = 16;
    const vectors = clustered(200, d, 5, 0.1, 3);
    const flat = new Float32Array(vectors.length * d);
    vectors.forEach((v, i) => {
      flat.set(v, i * d);
    });
    const keys = BigUint64Array.from(vectors, (_, i) => BigInt(i));
    const config = {
      dimensions: d,
      metric: 'ip',
      quantization: 'f32',
      connectivity: 16,
      expansion_add: 64,
      expansion_search: 64,
    };
    const graphs = [binary!.graph(config), wrapped!.graph(config)];
    for (const g of graphs) {
      g.add(keys, flat, 1);
      expect(g.remove(7n)).toBeTruthy();
      expect(g.size()).toBe(199);
    }
    const query = clustered(1, d, 5, 0.3, 9)[0];
    const [a, b] = graphs.map((g) => g.search(query, 10, 1));
    expect(a.keys.length).toBe(10);
    expect([...a.keys]).toEqual([...b.keys]);
    expect([...a.distances]).toEqual([...b.distances]);
    expect([...a.keys]).not.toContain(7n);

    const dir = mkdtempSync(join(tmpdir(), 'usearch-'));
    try {
      graphs[0].save(join(dir, 'binary.usearch'));
      graphs[1].save(join(dir, 'package.usearch'));
      const viewed = [wrapped!.graph(config), binary!.graph(config)];
      viewed[0].view(join(dir, 'binary.usearch'));
      viewed[1].load(join(dir, 'package.usearch'));
      for (const g of viewed) expect([...g.search(query, 10, 1).keys]).toEqual([...a.keys]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
