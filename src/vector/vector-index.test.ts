import { describe, expect, it } from 'vitest';
import { clustered, randomUnit, rng } from './nearest-index.contract.js';
import { ExactIndex } from './exact-index.js';
import { VectorIndex, defaultProbe, nativeCandidates } from './vector-index.js';
import { cosine, dot, fromBuffer, meanVector, normalize, toBuffer } from './vector-math.js';

function bruteForce(vectors: Map<string, Float32Array>, q: Float32Array, k: number) {
  return [...vectors]
    .map(([id, v]) => ({ id, score: dot(v, q) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k);
}

function expectSameHits(got: { id: string; score: number }[], want: { id: string; score: number }[]) {
  expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id));
  got.forEach((h, i) => {
    expect(h.score).toBeCloseTo(want[i].score, 5);
  });
}

describe('VectorIndex: exact scan', () => {
  const r = rng(1);
  const vectors = new Map<string, Float32Array>();
  const index = new VectorIndex(32);
  for (let i = 0; i < 500; i++) {
    const v = randomUnit(32, r);
    vectors.set(`v${i}`, v);
    index.add(`v${i}`, v);
  }

  it('returns the same hits as a brute-force reference, best first', () => {
    for (let q = 0; q < 20; q++) {
      const query = randomUnit(32, r);
      expectSameHits(index.searchExact(query, 10), bruteForce(vectors, query, 10));
      // Below the IVF threshold, search is the exact scan.
      expectSameHits(index.search(query, 10), bruteForce(vectors, query, 10));
    }
    expect(index.partitioned).toBe(false);
  });

  // From NATIVE_SCAN_FROM vectors USearch picks the rows and they are scored again here: the hits, their
  // exact scores and the order of ties must be those of the JavaScript scan alone (below the cut-off).
  it('picks the same hits with the same scores and tie order whether USearch or JavaScript scans', () => {
    const d = 24;
    const base = clustered(40, d, 4, 0.05, 5);
    const rows = [...base, ...base.slice(0, 10), ...base.slice(0, 10)]; // exact duplicates: ties
    const big = new VectorIndex(d);
    rows.forEach((v, i) => {
      big.add(`r${i}`, v);
    });
    for (const q of clustered(15, d, 4, 0.2, 6)) {
      const got = big.searchExact(q, 6);
      const scored = rows.map((v, i) => ({ id: `r${i}`, score: dot(v, q), slot: i }));
      scored.sort((a, b) => b.score - a.score || a.slot - b.slot);
      expect(got.map((h) => h.id)).toEqual(scored.slice(0, 6).map((h) => h.id));
      got.forEach((h, i) => {
        expect(h.score).toBeCloseTo(scored[i].score, 12);
      });
      const floor = scored[2].score - 1e-9;
      const above = big.searchExact(q, 6, { minScore: floor });
      expect(above.map((h) => h.id)).toEqual(
        scored
          .filter((h) => h.score >= floor)
          .slice(0, 6)
          .map((h) => h.id),
      );
    }
  });

  it('keeps the lowest slots of a run of equal vectors longer than the candidates USearch is asked for', () => {
    const d = 16;
    const [same, ...others] = clustered(21, d, 3, 0.2, 13);
    const rows = [...others.slice(0, 10), ...Array.from({ length: 30 }, () => same), ...others.slice(10)];
    const index = new VectorIndex(d);
    const exact = ExactIndex.fromArrays(
      d,
      rows.map((_, i) => `r${i}`),
      new Float32Array(rows.length * d),
    );
    rows.forEach((v, i) => {
      index.add(`r${i}`, v);
      exact.add(`r${i}`, v);
    });
    // USearch is asked for k + 8 rows; 30 equal ones at the boundary could hide others, so the scan is full.
    const flat = new Float32Array(rows.length * d);
    rows.forEach((v, i) => {
      flat.set(v, i * d);
    });
    expect(nativeCandidates(flat, rows.length, d, same, 6)).toBeNull();
    expect(nativeCandidates(flat, rows.length, d, others[0], 1)).not.toBeNull();
    const firstCopies = Array.from({ length: 6 }, (_, i) => `r${10 + i}`);
    expect(index.searchExact(same, 6).map((h) => h.id)).toEqual(firstCopies);
    expect(exact.search(same, 6).map((h) => h.id)).toEqual(firstCopies);
  });

  // USearch's exact scan reads a typed array from the start of its buffer whatever its offset: a view must
  // not be handed to it as is (a loaded index file's vectors were one, and answered with other rows).
  it('answers the same over views into larger buffers, for the vectors and the query', () => {
    const d = 24;
    const rows = clustered(80, d, 5, 0.1, 11);
    const padded = new Float32Array((rows.length + 3) * d);
    rows.forEach((v, i) => {
      padded.set(v, (i + 3) * d);
    });
    const ids = rows.map((_, i) => `r${i}`);
    const fresh = ExactIndex.fromArrays(d, ids, padded.slice(3 * d));
    const viewed = ExactIndex.fromArrays(d, ids, padded.subarray(3 * d));
    const big = new VectorIndex(d);
    rows.forEach((v, i) => {
      big.add(ids[i], v);
    });
    for (const q of clustered(10, d, 5, 0.3, 12)) {
      const inBuffer = new Float32Array(2 * d);
      inBuffer.set(q, d);
      const queryView = inBuffer.subarray(d);
      const want = fresh.search(q, 5);
      expect(viewed.search(q, 5)).toEqual(want);
      expect(fresh.search(queryView, 5)).toEqual(want);
      expect(big.searchExact(queryView, 5).map((h) => h.id)).toEqual(want.map((h) => h.id));
    }
  });

  it('clamps k to the size and returns nothing for k <= 0', () => {
    const query = randomUnit(32, r);
    expect(index.search(query, 10_000)).toHaveLength(500);
    expect(index.search(query, 0)).toEqual([]);
    expect(index.search(query, -3)).toEqual([]);
  });

  it('applies minScore and filter', () => {
    const query = vectors.get('v7')!;
    const hits = index.search(query, 500, { minScore: 0.2 });
    expect(hits[0]).toMatchObject({ id: 'v7' });
    expect(hits.every((h) => h.score >= 0.2)).toBe(true);
    expect(hits.length).toBe(bruteForce(vectors, query, 500).filter((h) => h.score >= 0.2).length);

    const even = index.search(query, 10, { filter: (id) => Number(id.slice(1)) % 2 === 0 });
    expect(even).toHaveLength(10);
    expect(even.every((h) => Number(h.id.slice(1)) % 2 === 0)).toBe(true);
    expect(even.map((h) => h.id)).not.toContain('v7');
  });

  it('rejects vectors of the wrong dimension', () => {
    expect(() => index.add('bad', new Float32Array(31))).toThrow(/dimensions/);
    expect(() => index.search(new Float32Array(33), 1)).toThrow(/dimensions/);
  });
});

describe('VectorIndex: add, replace, remove', () => {
  it('replaces an existing id and removes by swapping in the last vector', () => {
    const index = new VectorIndex(3);
    index.add('a', normalize(new Float32Array([1, 0, 0])));
    index.add('b', normalize(new Float32Array([0, 1, 0])));
    index.add('c', normalize(new Float32Array([0, 0, 1])));
    expect(index.size).toBe(3);

    index.add('a', normalize(new Float32Array([0, 1, 1])));
    expect(index.size).toBe(3);
    expect(Array.from(index.get('a')!)).toEqual(Array.from(normalize(new Float32Array([0, 1, 1]))));

    expect(index.remove('a')).toBe(true);
    expect(index.remove('a')).toBe(false);
    expect(index.has('a')).toBe(false);
    expect(index.size).toBe(2);
    // 'c' was the last slot and moved into a's place: its vector must have moved with it.
    expect(Array.from(index.get('c')!)).toEqual([0, 0, 1]);
    expect(index.search(new Float32Array([0, 0, 1]), 1)).toEqual([{ id: 'c', score: 1 }]);
    expect(index.search(new Float32Array([0, 1, 0]), 5).map((h) => h.id)).toEqual(['b', 'c']);

    index.clear();
    expect(index.size).toBe(0);
    expect(index.search(new Float32Array([0, 1, 0]), 5)).toEqual([]);
  });

  it('get returns a copy, and add copies its input', () => {
    const index = new VectorIndex(2);
    const v = new Float32Array([1, 0]);
    index.add('x', v);
    v[0] = 0;
    index.get('x')![0] = 5;
    expect(Array.from(index.get('x')!)).toEqual([1, 0]);
    expect(index.get('missing')).toBeUndefined();
  });

  it('keeps the IVF lists consistent through removals and replacements', () => {
    const d = 16;
    const r = rng(2);
    // Probing every list must give exactly the exact scan, whatever the bookkeeping did.
    const index = new VectorIndex(d, { ivfThreshold: 64, nProbe: 1_000 });
    const vectors = new Map<string, Float32Array>();
    for (let i = 0; i < 400; i++) {
      const v = randomUnit(d, r);
      vectors.set(`v${i}`, v);
      index.add(`v${i}`, v);
    }
    index.build();
    expect(index.partitioned).toBe(true);
    for (let i = 0; i < 400; i += 3) {
      index.remove(`v${i}`);
      vectors.delete(`v${i}`);
    }
    for (let i = 1; i < 400; i += 7) {
      const v = randomUnit(d, r);
      index.add(`v${i}`, v);
      vectors.set(`v${i}`, v);
    }
    for (let i = 400; i < 450; i++) {
      const v = randomUnit(d, r);
      index.add(`v${i}`, v);
      vectors.set(`v${i}`, v);
    }
    expect(index.partitioned).toBe(true);
    expect(index.size).toBe(vectors.size);
    for (const [id, v] of vectors) expect(Array.from(index.get(id)!)).toEqual(Array.from(v));
    for (let q = 0; q < 20; q++) {
      const query = randomUnit(d, r);
      expectSameHits(index.search(query, 8), bruteForce(vectors, query, 8));
    }
  });

  it('falls back to the exact scan when removals shrink it below the threshold', () => {
    const r = rng(3);
    const index = new VectorIndex(8, { ivfThreshold: 100 });
    for (let i = 0; i < 150; i++) index.add(`v${i}`, randomUnit(8, r));
    index.build();
    expect(index.partitioned).toBe(true);
    for (let i = 0; i < 60; i++) index.remove(`v${i}`);
    expect(index.partitioned).toBe(false);
    expect(index.search(randomUnit(8, r), 3)).toHaveLength(3);
  });
});

describe('VectorIndex: zero vectors', () => {
  it('never crashes on zero vectors, in the exact scan or the IVF partition', () => {
    const r = rng(4);
    const index = new VectorIndex(8, { ivfThreshold: 32 });
    for (let i = 0; i < 40; i++) index.add(`z${i}`, new Float32Array(8));
    for (let i = 0; i < 40; i++) index.add(`v${i}`, randomUnit(8, r));
    const zero = new Float32Array(8);
    const hits = index.search(zero, 5);
    expect(index.partitioned).toBe(true);
    expect(hits.every((h) => h.score === 0)).toBe(true);
    expect(index.searchExact(zero, 5, { minScore: 0.5 })).toEqual([]);
    expect(index.search(index.get('v3')!, 1)[0].id).toBe('v3');

    const allZero = new VectorIndex(4, { ivfThreshold: 8 });
    for (let i = 0; i < 20; i++) allZero.add(`z${i}`, new Float32Array(4));
    expect(allZero.search(new Float32Array(4), 3)).toHaveLength(3);
  });
});

describe('VectorIndex: IVF partition', () => {
  const d = 128;
  const vectors = clustered(20_000, d, 200, 1.0, 5);
  // Queries come from the same clusters as the data: stored vectors, perturbed.
  const queries = Array.from({ length: 200 }, (_, i) => {
    const r = rng(100 + i);
    const base = vectors[Math.floor(r() * vectors.length)];
    const noise = randomUnit(d, r);
    const q = new Float32Array(d);
    for (let j = 0; j < d; j++) q[j] = base[j] + 0.5 * noise[j];
    return normalize(q);
  });

  it('keeps recall@5 >= 0.95 against the exact scan on 20k clustered vectors', () => {
    const index = new VectorIndex(d);
    for (const [i, v] of vectors.entries()) index.add(`v${i}`, v);
    let found = 0;
    for (const q of queries) {
      const exact = index.searchExact(q, 5).map((h) => h.id);
      const approx = new Set(index.search(q, 5).map((h) => h.id));
      found += exact.filter((id) => approx.has(id)).length;
    }
    expect(index.partitioned).toBe(true);
    expect(found / (queries.length * 5)).toBeGreaterThanOrEqual(0.95);
  });

  it('is deterministic: the same inputs give the same partition and hits', () => {
    const build = () => {
      const index = new VectorIndex(d, { ivfThreshold: 1_000 });
      for (const [i, v] of vectors.slice(0, 3_000).entries()) index.add(`v${i}`, v);
      return queries.slice(0, 20).map((q) => index.search(q, 5, { filter: (id) => id !== 'v1' }));
    };
    expect(build()).toEqual(build());
  });

  it('applies filter and minScore through the partition', () => {
    const index = new VectorIndex(d, { ivfThreshold: 1_000 });
    for (const [i, v] of vectors.slice(0, 3_000).entries()) index.add(`v${i}`, v);
    const q = vectors[10];
    const hits = index.search(q, 5, { minScore: 0.3, filter: (id) => id !== 'v10' });
    expect(index.partitioned).toBe(true);
    expect(hits.map((h) => h.id)).not.toContain('v10');
    expect(hits.every((h) => h.score >= 0.3)).toBe(true);
  });

  it('probes at least 8 lists, never more than there are', () => {
    expect(defaultProbe(4)).toBe(4);
    expect(defaultProbe(45)).toBe(8);
    expect(defaultProbe(316)).toBe(18);
  });
});

describe('vector-math', () => {
  it('computes dot, cosine and a zero-safe normalise', () => {
    const a = new Float32Array([3, 4]);
    expect(dot(a, new Float32Array([1, 1]))).toBe(7);
    expect(cosine(a, new Float32Array([6, 8]))).toBeCloseTo(1, 6);
    expect(cosine(a, new Float32Array([0, 0]))).toBe(0);
    expect(Array.from(normalize(a))).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    const zero = new Float32Array(3);
    expect(normalize(zero)).toBe(zero);
    expect(Array.from(zero)).toEqual([0, 0, 0]);
  });

  it('averages vectors', () => {
    const m = meanVector([new Float32Array([1, 2]), new Float32Array([3, 6])]);
    expect(Array.from(m)).toEqual([2, 4]);
    expect(meanVector([])).toHaveLength(0);
  });

  it('round-trips through a Buffer, even from an unaligned offset', () => {
    const v = new Float32Array([0.1, -2.5, 3e-8, 1]);
    const buf = toBuffer(v);
    v[0] = 9; // the Buffer is a copy
    const unaligned = Buffer.alloc(buf.length + 1);
    buf.copy(unaligned, 1);
    const back = fromBuffer(unaligned.subarray(1));
    expect(Array.from(back)).toEqual(Array.from(new Float32Array([0.1, -2.5, 3e-8, 1])));
    expect(() => fromBuffer(Buffer.alloc(5))).toThrow(/float32/);
  });
});
