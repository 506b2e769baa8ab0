// One behavioural suite for every NearestIndex implementation, called with a factory, so the exact scan,
// the IVF partition, the HNSW graph and the tiered recall index cannot drift apart.

import { describe, expect, it } from 'vitest';
import type { NearestIndex, SearchHit } from './nearest-index.js';
import { dot, normalize } from './vector-math.js';
import { mulberry32 } from '../support/random.js';

export interface ContractOptions {
  /** The index may miss some of the exact k best: compared by recall@k instead of equality. */
  approximate: boolean;
  /**
   * Decimal places to which a hit's score equals the exact dot product (default 4; toBeCloseTo's digits). An
   * index holding its vectors in half precision scores within about 1.5e-4 of it: 3.
   */
  scoreDigits?: number;
}

/** Seeded PRNG so every fixture is the same on every run (the project's one PRNG). */
export const rng = mulberry32;

export function randomUnit(d: number, r: () => number): Float32Array {
  const v = new Float32Array(d);
  for (let i = 0; i < d; i++) v[i] = Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
  return normalize(v);
}

/** Unit vectors scattered around `clusters` random centres. */
export function clustered(n: number, d: number, clusters: number, spread: number, seed: number): Float32Array[] {
  const r = rng(seed);
  const centres = Array.from({ length: clusters }, () => randomUnit(d, r));
  return Array.from({ length: n }, () => {
    const c = centres[Math.floor(r() * clusters)];
    const noise = randomUnit(d, r);
    const v = new Float32Array(d);
    for (let i = 0; i < d; i++) v[i] = c[i] + spread * noise[i];
    return normalize(v);
  });
}

export function bruteForce(vectors: Map<string, Float32Array>, q: Float32Array, k: number): SearchHit[] {
  return [...vectors]
    .map(([id, v]) => ({ id, score: dot(v, q) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k);
}

/** Share of the exact k best found, counting a hit that ties the k-th exact score as found. */
export function recallAtK(got: SearchHit[], want: SearchHit[]): number {
  if (want.length === 0) return 1;
  const kth = want[want.length - 1].score;
  return Math.min(want.length, got.filter((h) => h.score >= kth - 1e-5).length) / want.length;
}

export function nearestIndexContract(
  name: string,
  make: (dimensions: number) => NearestIndex,
  opts: ContractOptions,
): void {
  const expectHits = (got: SearchHit[], want: SearchHit[], vectors: Map<string, Float32Array>, query: Float32Array) => {
    // Whatever the index, a hit's score is the true dot product (to its precision) and hits come best first.
    for (const h of got) expect(h.score).toBeCloseTo(dot(vectors.get(h.id)!, query), opts.scoreDigits ?? 4);
    for (let i = 1; i < got.length; i++) expect(got[i - 1].score).toBeGreaterThanOrEqual(got[i].score - 1e-6);
    if (opts.approximate) {
      expect(got.length).toBe(want.length);
      // Ties with the k-th best are judged on exact scores, not on the index's own (maybe half-precision) ones.
      return recallAtK(
        got.map((h) => ({ id: h.id, score: dot(vectors.get(h.id)!, query) })),
        want,
      );
    }
    expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id));
    return 1;
  };

  describe(`${name}: the nearest-index contract`, () => {
    it('returns the k best by dot product, best first', () => {
      const r = rng(1);
      const index = make(32);
      const vectors = new Map<string, Float32Array>();
      for (let i = 0; i < 500; i++) {
        const v = randomUnit(32, r);
        vectors.set(`v${i}`, v);
        index.add(`v${i}`, v);
      }
      expect(index.size).toBe(500);
      let recall = 0;
      for (let q = 0; q < 20; q++) {
        const query = randomUnit(32, r);
        recall += expectHits(index.search(query, 10), bruteForce(vectors, query, 10), vectors, query);
      }
      expect(recall / 20).toBeGreaterThanOrEqual(0.95);
    });

    it('keeps recall@10 >= 0.95 against the exact scan on 6k clustered vectors', () => {
      const data = clustered(6000, 48, 300, 0.35, 5);
      const index = make(48);
      const vectors = new Map<string, Float32Array>();
      data.forEach((v, i) => {
        vectors.set(`v${i}`, v);
        index.add(`v${i}`, v);
      });
      const r = rng(6);
      let recall = 0;
      for (let q = 0; q < 50; q++) {
        const query = data[Math.floor(r() * data.length)];
        recall += recallAtK(index.search(query, 10), bruteForce(vectors, query, 10));
      }
      expect(recall / 50).toBeGreaterThanOrEqual(0.95);
    });

    it('clamps k to the size and returns nothing for k <= 0 or an empty index', () => {
      const r = rng(2);
      const index = make(8);
      expect(index.search(randomUnit(8, r), 5)).toEqual([]);
      for (let i = 0; i < 30; i++) index.add(`v${i}`, randomUnit(8, r));
      const query = randomUnit(8, r);
      expect(index.search(query, 10_000)).toHaveLength(30);
      expect(index.search(query, 0)).toEqual([]);
      expect(index.search(query, -3)).toEqual([]);
    });

    it('applies minScore and filter', () => {
      const r = rng(3);
      const index = make(16);
      const vectors = new Map<string, Float32Array>();
      for (let i = 0; i < 300; i++) {
        const v = randomUnit(16, r);
        vectors.set(`v${i}`, v);
        index.add(`v${i}`, v);
      }
      const query = vectors.get('v7')!;
      const hits = index.search(query, 300, { minScore: 0.2 });
      expect(hits[0]).toMatchObject({ id: 'v7' });
      expect(hits.every((h) => h.score >= 0.2)).toBe(true);
      const above = bruteForce(vectors, query, 300).filter((h) => h.score >= 0.2).length;
      expect(hits.length).toBeGreaterThanOrEqual(opts.approximate ? Math.floor(0.95 * above) : above);
      expect(hits.length).toBeLessThanOrEqual(above);

      const even = index.search(query, 10, { filter: (id) => Number(id.slice(1)) % 2 === 0 });
      expect(even).toHaveLength(10);
      expect(even.every((h) => Number(h.id.slice(1)) % 2 === 0)).toBe(true);
      expect(even.map((h) => h.id)).not.toContain('v7');
    });

    it('replaces an existing id, removes ids and clears', () => {
      const index = make(3);
      index.add('a', normalize(new Float32Array([1, 0, 0])));
      index.add('b', normalize(new Float32Array([0, 1, 0])));
      index.add('c', normalize(new Float32Array([0, 0, 1])));
      expect(index.size).toBe(3);
      index.add('a', normalize(new Float32Array([0, 1, 1])));
      expect(index.size).toBe(3);
      expect(index.search(new Float32Array([0, 1, 0]), 1)[0].id).toBe('b');
      expect(index.search(normalize(new Float32Array([0, 1, 1])), 1)[0]).toMatchObject({ id: 'a' });

      expect(index.remove('a')).toBe(true);
      expect(index.remove('a')).toBe(false);
      expect(index.has('a')).toBe(false);
      expect(index.has('c')).toBe(true);
      expect(index.size).toBe(2);
      expect(index.search(new Float32Array([0, 0, 1]), 1)[0]).toMatchObject({ id: 'c' });
      expect(
        index
          .search(new Float32Array([0, 1, 0]), 5)
          .map((h) => h.id)
          .sort(),
      ).toEqual(['b', 'c']);

      index.clear();
      expect(index.size).toBe(0);
      expect(index.search(new Float32Array([0, 1, 0]), 5)).toEqual([]);
      index.add('d', new Float32Array([1, 0, 0]));
      expect(index.search(new Float32Array([1, 0, 0]), 5)).toEqual([{ id: 'd', score: 1 }]);
    });

    it('copies the vectors it is given', () => {
      const index = make(2);
      const v = new Float32Array([1, 0]);
      index.add('x', v);
      v[0] = 0;
      v[1] = 1;
      expect(index.search(new Float32Array([1, 0]), 1)[0].score).toBeCloseTo(1, 6);
    });

    it('never crashes on zero vectors: they score 0', () => {
      const r = rng(4);
      const index = make(8);
      for (let i = 0; i < 40; i++) index.add(`z${i}`, new Float32Array(8));
      for (let i = 0; i < 40; i++) index.add(`v${i}`, randomUnit(8, r));
      const hits = index.search(new Float32Array(8), 5);
      expect(hits).toHaveLength(5);
      expect(hits.every((h) => Math.abs(h.score) < 1e-6)).toBe(true);
      expect(index.search(new Float32Array(8), 5, { minScore: 0.5 })).toEqual([]);
    });

    it('rejects vectors of the wrong dimension', () => {
      const index = make(4);
      expect(() => index.add('bad', new Float32Array(3))).toThrow(/dimensions/);
      expect(() => index.search(new Float32Array(5), 1)).toThrow(/dimensions/);
    });
  });
}
