// Exact nearest neighbours by a flat scan over one typed array. Below a few thousand vectors this beats any
// graph (no pointer chasing, no approximation), and its storage is one block that saves and loads as is.

import { checkDimensions, type NearestIndex, type SearchHit, type SearchOptions } from './nearest-index.js';
import { TopK, dotRows } from './vector-index.js';

export class ExactIndex implements NearestIndex {
  readonly dimensions: number;
  /** Vectors back to back, slot i at [i*d, (i+1)*d). */
  private data: Float32Array;
  private ids: string[] = [];
  private slots = new Map<string, number>();

  constructor(dimensions: number) {
    if (!Number.isInteger(dimensions) || dimensions <= 0) {
      throw new Error(`ExactIndex: dimensions must be a positive integer, got ${dimensions}`);
    }
    this.dimensions = dimensions;
    this.data = new Float32Array(dimensions * 64);
  }

  /** An index over `ids` with their vectors back to back in `vectors` (taken over, not copied). */
  static fromArrays(dimensions: number, ids: string[], vectors: Float32Array): ExactIndex {
    if (vectors.length !== ids.length * dimensions) {
      throw new Error(
        `ExactIndex.fromArrays: ${ids.length} ids need ${ids.length * dimensions} values, got ${vectors.length}`,
      );
    }
    const index = new ExactIndex(dimensions);
    index.data = vectors.length ? vectors : index.data;
    index.ids = ids.slice();
    for (let i = 0; i < ids.length; i++) {
      if (index.slots.has(ids[i])) throw new Error(`ExactIndex.fromArrays: id ${ids[i]} appears twice`);
      index.slots.set(ids[i], i);
    }
    return index;
  }

  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  /** The ids in slot order and a view of their vectors (valid until the next change). */
  arrays(): { ids: string[]; vectors: Float32Array } {
    return { ids: this.ids.slice(), vectors: this.data.subarray(0, this.ids.length * this.dimensions) };
  }

  add(id: string, vector: Float32Array): void {
    checkDimensions('ExactIndex.add', vector, this.dimensions);
    const d = this.dimensions;
    const existing = this.slots.get(id);
    if (existing !== undefined) {
      this.data.set(vector, existing * d);
      return;
    }
    const s = this.ids.length;
    if ((s + 1) * d > this.data.length) {
      const grown = new Float32Array(Math.max(this.data.length * 2, (s + 1) * d));
      grown.set(this.data);
      this.data = grown;
    }
    this.data.set(vector, s * d);
    this.ids.push(id);
    this.slots.set(id, s);
  }

  remove(id: string): boolean {
    const s = this.slots.get(id);
    if (s === undefined) return false;
    const last = this.ids.length - 1;
    if (s !== last) {
      const d = this.dimensions;
      this.data.copyWithin(s * d, last * d, (last + 1) * d);
      this.ids[s] = this.ids[last];
      this.slots.set(this.ids[s], s);
    }
    this.ids.pop();
    this.slots.delete(id);
    return true;
  }

  clear(): void {
    this.ids = [];
    this.slots.clear();
    this.data = new Float32Array(this.dimensions * 64);
  }

  search(query: Float32Array, k: number, opts: SearchOptions = {}): SearchHit[] {
    checkDimensions('ExactIndex.search', query, this.dimensions);
    const top = new TopK(Math.min(k, this.ids.length));
    if (top.k <= 0) return [];
    const d = this.dimensions;
    const minScore = opts.minScore ?? -Infinity;
    const filter = opts.filter;
    for (let s = 0, n = this.ids.length; s < n; s++) {
      const score = dotRows(this.data, s * d, query, 0, d);
      // `!(>=)` also drops NaN; the filter runs only for hits that would enter the top k.
      if (!(score >= minScore) || !top.accepts(score)) continue;
      if (filter && !filter(this.ids[s])) continue;
      top.push(score, s);
    }
    return top.slotsBestFirst().map((s, i) => ({ id: this.ids[s], score: top.scoreAt(i) }));
  }
}
