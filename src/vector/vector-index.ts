// In-memory nearest-neighbour index over unit vectors (cosine = dot product).
// Small indexes are scanned exactly; from `ivfThreshold` vectors on, an IVF partition (spherical k-means
// coarse centroids, ~sqrt(n) lists) limits a search to the `nProbe` lists nearest the query, so recall
// stays sub-millisecond at 10k skills and clustering never compares every pair of sessions.

import { mulberry32 } from '../support/random.js';
import type { NearestIndex, SearchHit, SearchOptions } from './nearest-index.js';
import { loadUsearch } from './usearch.js';
import { InputError } from '../errors/input-error.js';

export type { SearchHit, SearchOptions } from './nearest-index.js';

/**
 * From this many vectors a full exact scan asks USearch for the best rows first (clustering's scans of a few
 * hundred centroids: 10 us against 55 us in JavaScript at 106 x 356; recall's scan of 1k vectors: 0.09 against
 * 0.46 ms), then scores them exactly here. Below it, the JavaScript loop is as fast as the call.
 */
const NATIVE_SCAN_FROM = 32;
/** Candidates asked for beyond k, and how far (in distance) the last must lie from the k-th: see nativeCandidates. */
const NATIVE_SCAN_SPARE = 8;
const NATIVE_SCAN_GAP = 1e-5;

/**
 * The slots of the rows that can be among the `k` best of `data`'s first `n` rows for `query`, in slot order,
 * from USearch's single-precision scan: `k + NATIVE_SCAN_SPARE` candidates. Scored again exactly and pushed in
 * slot order, they give the hits, scores and tie order of a full scan, provided no row left out can tie or beat
 * the k-th: so when the last candidate lies within NATIVE_SCAN_GAP of the k-th (a run of equal vectors at the
 * boundary, or rounding), this returns null and the caller scans everything. Null also without USearch and
 * below NATIVE_SCAN_FROM rows.
 */
export function nativeCandidates(
  data: Float32Array,
  n: number,
  d: number,
  query: Float32Array,
  k: number,
): Int32Array | null {
  // USearch's exact scan reads a typed array from the start of its buffer, whatever its offset: a view into a
  // larger buffer is scanned here instead (the query, small, is copied).
  if (n < NATIVE_SCAN_FROM || k <= 0 || data.byteOffset !== 0) return null;
  const usearch = loadUsearch();
  if (!usearch) return null;
  const want = Math.min(n, k + NATIVE_SCAN_SPARE);
  const q = query.byteOffset === 0 ? query : query.slice();
  const { rows, distances } = usearch.bestRows(data.subarray(0, n * d), q, d, want);
  if (rows.length < want) return null;
  if (want < n && !(distances[want - 1] - distances[Math.min(k, want) - 1] > NATIVE_SCAN_GAP)) return null;
  return Int32Array.from(rows, Number).sort();
}

export interface VectorIndexOptions {
  /** Size from which searches go through the IVF partition (default 2048). */
  ivfThreshold?: number;
  /** Lists probed per IVF search (default: chosen from the number of lists, see `defaultProbe`). */
  nProbe?: number;
  /** Seed of the k-means sampling and initialisation (default 1). */
  seed?: number;
  /** Lloyd iterations per training (default 8). */
  trainIterations?: number;
  /** Training sample size per list (default 32). */
  samplePerList?: number;
}

/** The coarse partition: one list of slots per centroid. */
interface Partition {
  nlist: number;
  centroids: Float32Array;
  lists: number[][];
  /** Per slot: its list and its position in that list (for O(1) removal). */
  listOf: number[];
  posInList: number[];
  /** Size the partition was trained at; doubling past it triggers a retrain. */
  trainedAt: number;
}

/**
 * Lists probed by default: sqrt(nlist), at least 8. Growing as n^(1/4), a search scans O(n^(3/4)) vectors,
 * so clustering n sessions stays well below all-pairs. On clustered data (200-500 clusters, 20k x 128-d)
 * it measured recall@5 0.97-0.99 against the exact scan.
 */
export function defaultProbe(nlist: number): number {
  return Math.min(nlist, Math.max(8, Math.ceil(Math.sqrt(nlist))));
}

export class VectorIndex implements NearestIndex {
  readonly dimensions: number;
  private readonly threshold: number;
  private readonly probe: number | undefined;
  private readonly seed: number;
  private readonly iterations: number;
  private readonly samplePerList: number;

  /** Vectors back to back, slot i at [i*d, (i+1)*d): one flat array keeps scans cache friendly. */
  private data: Float32Array;
  private ids: string[] = [];
  private slots = new Map<string, number>();
  private part: Partition | null = null;

  constructor(dimensions: number, opts: VectorIndexOptions = {}) {
    if (!Number.isInteger(dimensions) || dimensions <= 0) {
      throw new InputError(`VectorIndex: dimensions must be a positive integer, got ${dimensions}`);
    }
    this.dimensions = dimensions;
    this.threshold = Math.max(1, opts.ivfThreshold ?? 2048);
    this.probe = opts.nProbe;
    this.seed = opts.seed ?? 1;
    this.iterations = opts.trainIterations ?? 5;
    this.samplePerList = opts.samplePerList ?? 16;
    this.data = new Float32Array(dimensions * 64);
  }

  get size(): number {
    return this.ids.length;
  }

  /** True when searches currently go through a trained IVF partition. */
  get partitioned(): boolean {
    return this.part !== null;
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  /** A copy of the stored vector (storage moves on removal, so no view is handed out). */
  get(id: string): Float32Array | undefined {
    const s = this.slots.get(id);
    if (s === undefined) return undefined;
    const d = this.dimensions;
    return this.data.slice(s * d, (s + 1) * d);
  }

  /** Adds a vector, or replaces the vector of an existing id. The vector is copied. */
  add(id: string, vector: Float32Array): void {
    this.checkDims(vector, 'add');
    const d = this.dimensions;
    const existing = this.slots.get(id);
    if (existing !== undefined) {
      this.data.set(vector, existing * d);
      if (this.part) {
        this.detach(existing);
        this.attach(existing);
      }
      return;
    }
    const s = this.ids.length;
    if ((s + 1) * d > this.data.length) {
      const grown = new Float32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data.set(vector, s * d);
    this.ids.push(id);
    this.slots.set(id, s);
    if (this.part) {
      // Past double the training size the centroids are stale: drop them, the next search retrains.
      if (this.ids.length >= 2 * this.part.trainedAt) this.part = null;
      else this.attach(s);
    }
  }

  /** Removes an id; the last vector moves into its slot. Returns whether the id was present. */
  remove(id: string): boolean {
    const s = this.slots.get(id);
    if (s === undefined) return false;
    const last = this.ids.length - 1;
    const p = this.part;
    if (p) this.detach(s);
    if (s !== last) {
      const d = this.dimensions;
      this.data.copyWithin(s * d, last * d, (last + 1) * d);
      const movedId = this.ids[last];
      this.ids[s] = movedId;
      this.slots.set(movedId, s);
      if (p) {
        const l = p.listOf[last];
        const pos = p.posInList[last];
        p.lists[l][pos] = s;
        p.listOf[s] = l;
        p.posInList[s] = pos;
      }
    }
    this.ids.pop();
    this.slots.delete(id);
    // Too small for a partition, or shrunk so far that its lists no longer fit the data: scan or retrain.
    if (p && (this.ids.length < this.threshold || this.ids.length * 4 <= p.trainedAt)) this.part = null;
    return true;
  }

  clear(): void {
    this.ids = [];
    this.slots.clear();
    this.part = null;
    this.data = new Float32Array(this.dimensions * 64);
  }

  /** Trains the IVF partition now instead of at the next search (no-op below the threshold). */
  build(): void {
    if (!this.part && this.ids.length >= this.threshold) this.part = this.train();
  }

  /**
   * The k best ids, best first: IVF above the threshold, exact below it. The first search past the threshold
   * (or past double the last training size) trains the partition; `build()` pays that up front. Through the
   * partition only the probed lists are scanned, so a selective filter or a high minScore may return fewer
   * than k hits.
   */
  search(query: Float32Array, k: number, opts: SearchOptions = {}): SearchHit[] {
    this.checkDims(query, 'search');
    this.build();
    if (!this.part) return this.searchExact(query, k, opts);
    const p = this.part;
    const nProbe = Math.min(p.nlist, Math.max(1, this.probe ?? defaultProbe(p.nlist)));
    const nearest = new TopK(nProbe);
    for (let c = 0; c < p.nlist; c++) nearest.push(dotAt(p.centroids, c * this.dimensions, query, this.dimensions), c);
    const top = new TopK(Math.min(k, this.ids.length));
    for (const c of nearest.slotsBestFirst()) this.scan(p.lists[c], query, top, opts);
    return this.hits(top);
  }

  /** Exact flat scan: the reference for tests and benchmarks. */
  searchExact(query: Float32Array, k: number, opts: SearchOptions = {}): SearchHit[] {
    this.checkDims(query, 'searchExact');
    const top = new TopK(Math.min(k, this.ids.length));
    this.scan(null, query, top, opts);
    return this.hits(top);
  }

  /** Scores the given slots (all slots when null) into `top`. */
  private scan(slots: number[] | null, query: Float32Array, top: TopK, opts: SearchOptions): void {
    if (top.k <= 0) return;
    const d = this.dimensions;
    const minScore = opts.minScore ?? -Infinity;
    const filter = opts.filter;
    // A full scan without a filter scores only the candidates USearch picks (in slot order, as a full scan would).
    const rows = slots ?? (filter ? null : nativeCandidates(this.data, this.ids.length, d, query, top.k));
    const n = rows ? rows.length : this.ids.length;
    for (let i = 0; i < n; i++) {
      const s = rows ? rows[i] : i;
      const score = dotAt(this.data, s * d, query, d);
      // `!(>=)` also drops NaN. The filter runs only for hits that would enter the top k.
      if (!(score >= minScore) || !top.accepts(score)) continue;
      if (filter && !filter(this.ids[s])) continue;
      top.push(score, s);
    }
  }

  private hits(top: TopK): SearchHit[] {
    return top.slotsBestFirst().map((s, i) => ({ id: this.ids[s], score: top.scoreAt(i) }));
  }

  private checkDims(v: Float32Array, where: string): void {
    if (v.length !== this.dimensions) {
      throw new InputError(`VectorIndex.${where}: vector has ${v.length} dimensions, index has ${this.dimensions}`);
    }
  }

  // --- IVF partition -------------------------------------------------------------------------------

  private nearestCentroid(p: Partition, s: number): number {
    return argmaxDot(p.centroids, p.nlist, this.data, s * this.dimensions, this.dimensions).index;
  }

  private attach(s: number): void {
    const p = this.part!;
    const l = this.nearestCentroid(p, s);
    p.listOf[s] = l;
    p.posInList[s] = p.lists[l].length;
    p.lists[l].push(s);
  }

  private detach(s: number): void {
    const p = this.part!;
    const list = p.lists[p.listOf[s]];
    const pos = p.posInList[s];
    const tail = list[list.length - 1];
    list[pos] = tail;
    p.posInList[tail] = pos;
    list.pop();
  }

  /** Spherical k-means (seeded k-means++ init) on a sample, then every vector goes to its nearest list. */
  private train(): Partition {
    const d = this.dimensions;
    const n = this.ids.length;
    const nlist = Math.max(1, Math.min(n, Math.round(Math.sqrt(n))));
    const rand = mulberry32(this.seed);

    // Sample by a partial Fisher-Yates shuffle; the sample is copied so k-means reads it contiguously.
    const m = Math.min(n, nlist * this.samplePerList);
    const order = new Int32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    for (let i = 0; i < m; i++) {
      const j = i + Math.floor(rand() * (n - i));
      const t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    const sample = new Float32Array(m * d);
    for (let i = 0; i < m; i++) sample.set(this.data.subarray(order[i] * d, (order[i] + 1) * d), i * d);

    const centroids = kmeansPlusPlus(sample, m, d, nlist, rand);
    const assign = new Int32Array(m);
    const best = new Float64Array(m);
    for (let it = 0; it < this.iterations; it++) {
      for (let i = 0; i < m; i++) {
        const a = argmaxDot(centroids, nlist, sample, i * d, d);
        assign[i] = a.index;
        best[i] = a.score;
      }
      const sums = new Float64Array(nlist * d);
      const counts = new Int32Array(nlist);
      for (let i = 0; i < m; i++) {
        const c = assign[i];
        counts[c]++;
        for (let j = 0; j < d; j++) sums[c * d + j] += sample[i * d + j];
      }
      const reseeded = new Set<number>();
      for (let c = 0; c < nlist; c++) {
        if (counts[c] === 0) {
          // An empty list takes the worst-served sample point, so every list stays useful.
          let worst = -1;
          for (let i = 0; i < m; i++) if (!reseeded.has(i) && (worst < 0 || best[i] < best[worst])) worst = i;
          reseeded.add(worst);
          centroids.set(sample.subarray(worst * d, (worst + 1) * d), c * d);
          continue;
        }
        let norm = 0;
        for (let j = 0; j < d; j++) norm += sums[c * d + j] ** 2;
        norm = Math.sqrt(norm);
        for (let j = 0; j < d; j++) centroids[c * d + j] = norm > 0 ? sums[c * d + j] / norm : 0;
      }
    }

    // Assign every vector, then reorder storage list by list: a probe then reads one contiguous run
    // (vectors added later are appended and stay scattered until the next retrain).
    const listOfOld = new Int32Array(n);
    const starts = new Int32Array(nlist + 1);
    for (let s = 0; s < n; s++) {
      listOfOld[s] = argmaxDot(centroids, nlist, this.data, s * d, d).index;
      starts[listOfOld[s] + 1]++;
    }
    for (let c = 0; c < nlist; c++) starts[c + 1] += starts[c];
    const next = starts.slice(0, nlist);
    const data = new Float32Array(this.data.length);
    const ids = new Array<string>(n);
    const p: Partition = {
      nlist,
      centroids,
      lists: Array.from({ length: nlist }, () => []),
      listOf: new Array<number>(n),
      posInList: new Array<number>(n),
      trainedAt: n,
    };
    for (let old = 0; old < n; old++) {
      const c = listOfOld[old];
      const s = next[c]++;
      data.set(this.data.subarray(old * d, (old + 1) * d), s * d);
      ids[s] = this.ids[old];
      this.slots.set(ids[s], s);
      p.listOf[s] = c;
      p.posInList[s] = s - starts[c];
    }
    for (let c = 0; c < nlist; c++) for (let s = starts[c]; s < starts[c + 1]; s++) p.lists[c].push(s);
    this.data = data;
    this.ids = ids;
    return p;
  }
}

/** Seeded k-means++ over unit vectors with distance 1 - cosine. */
function kmeansPlusPlus(sample: Float32Array, m: number, d: number, k: number, rand: () => number): Float32Array {
  const centroids = new Float32Array(k * d);
  const dist = new Float64Array(m).fill(Infinity);
  let pick = Math.floor(rand() * m);
  for (let c = 0; c < k; c++) {
    centroids.set(sample.subarray(pick * d, (pick + 1) * d), c * d);
    if (c === k - 1) break;
    let total = 0;
    for (let i = 0; i < m; i++) {
      const di = Math.max(0, 1 - dotAt(sample, i * d, centroids.subarray(c * d, (c + 1) * d), d));
      if (di < dist[i]) dist[i] = di;
      total += dist[i] * dist[i];
    }
    // All points coincide with a centroid: any point will do.
    if (!(total > 0)) {
      pick = Math.floor(rand() * m);
      continue;
    }
    let r = rand() * total;
    pick = m - 1;
    for (let i = 0; i < m; i++) {
      r -= dist[i] * dist[i];
      if (r <= 0) {
        pick = i;
        break;
      }
    }
  }
  return centroids;
}

/** Index and score of the row of `rows` (k rows of d) with the largest dot product with `v` at `off`. */
function argmaxDot(
  rows: Float32Array,
  k: number,
  v: Float32Array,
  off: number,
  d: number,
): { index: number; score: number } {
  let index = 0;
  let score = -Infinity;
  for (let c = 0; c < k; c++) {
    const s = dotRows(rows, c * d, v, off, d);
    if (s > score) {
      score = s;
      index = c;
    }
  }
  return { index, score };
}

/** Dot product of `q` with the row of `data` at `off`; four accumulators let the JIT pipeline the loop. */
function dotAt(data: Float32Array, off: number, q: Float32Array, d: number): number {
  return dotRows(data, off, q, 0, d);
}

export function dotRows(a: Float32Array, ao: number, b: Float32Array, bo: number, d: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < d; i += 4) {
    s0 += a[ao + i] * b[bo + i];
    s1 += a[ao + i + 1] * b[bo + i + 1];
    s2 += a[ao + i + 2] * b[bo + i + 2];
    s3 += a[ao + i + 3] * b[bo + i + 3];
  }
  for (; i < d; i++) s0 += a[ao + i] * b[bo + i];
  return s0 + s1 + s2 + s3;
}

/** Bounded min-heap keeping the k best (score, slot) pairs. */
export class TopK {
  private readonly scores: Float64Array;
  private readonly slots: Int32Array;
  private n = 0;
  private sorted: { slots: number[]; scores: number[] } | null = null;

  constructor(readonly k: number) {
    this.k = Number.isFinite(k) ? Math.max(0, Math.floor(k)) : 0;
    this.scores = new Float64Array(this.k);
    this.slots = new Int32Array(this.k);
  }

  accepts(score: number): boolean {
    return this.n < this.k || score > this.scores[0];
  }

  push(score: number, slot: number): void {
    if (this.n < this.k) {
      let i = this.n++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (this.scores[parent] <= score) break;
        this.scores[i] = this.scores[parent];
        this.slots[i] = this.slots[parent];
        i = parent;
      }
      this.scores[i] = score;
      this.slots[i] = slot;
    } else if (score > this.scores[0]) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= this.n) break;
        const r = l + 1;
        const c = r < this.n && this.scores[r] < this.scores[l] ? r : l;
        if (this.scores[c] >= score) break;
        this.scores[i] = this.scores[c];
        this.slots[i] = this.slots[c];
        i = c;
      }
      this.scores[i] = score;
      this.slots[i] = slot;
    }
    this.sorted = null;
  }

  slotsBestFirst(): number[] {
    return this.order().slots;
  }

  scoreAt(i: number): number {
    return this.order().scores[i];
  }

  private order(): { slots: number[]; scores: number[] } {
    if (!this.sorted) {
      const idx = Array.from({ length: this.n }, (_, i) => i);
      idx.sort((a, b) => this.scores[b] - this.scores[a] || this.slots[a] - this.slots[b]);
      this.sorted = { slots: idx.map((i) => this.slots[i]), scores: idx.map((i) => this.scores[i]) };
    }
    return this.sorted;
  }
}
