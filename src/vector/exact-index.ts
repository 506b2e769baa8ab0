// Exact nearest neighbours by a flat scan over one typed array. Below a few thousand vectors this beats any
// graph (no pointer chasing, no approximation), and its storage is one block that saves and loads as is.

import { checkDimensions, type NearestIndex, type SearchHit, type SearchOptions } from './nearest-index.js';
import type { PackedIds } from './packed-ids.js';
import { TopK, dotRows, nativeCandidates } from './vector-index.js';
import { InputError } from '../errors/input-error.js';

export class ExactIndex implements NearestIndex {
  readonly dimensions: number;
  /** Vectors back to back, slot i at [i*d, (i+1)*d). */
  private data: Float32Array;
  private ids: string[] = [];
  /** The ids as loaded from a file, decoded per hit until the first change unpacks them into `ids`. */
  private packed: PackedIds | null = null;
  /** Slot per id: built on first need (a loaded index that only searches never builds it). */
  private slotOf: Map<string, number> | null = new Map();

  constructor(dimensions: number) {
    if (!Number.isInteger(dimensions) || dimensions <= 0) {
      throw new InputError(`ExactIndex: dimensions must be a positive integer, got ${dimensions}`);
    }
    this.dimensions = dimensions;
    this.data = new Float32Array(dimensions * 64);
  }

  /** An index over `ids` with their vectors back to back in `vectors` (taken over, not copied). */
  static fromArrays(dimensions: number, ids: string[], vectors: Float32Array): ExactIndex {
    const index = ExactIndex.over(dimensions, ids.length, vectors, 'ExactIndex.fromArrays');
    index.ids = ids.slice();
    index.slotOf = null;
    index.slots(); // checks that no id appears twice
    return index;
  }

  /**
   * An index over a file's id table (every slot holding an id, each once: the writer's guarantee, checked by
   * its checksum) and their vectors, both taken over: ids are decoded only for hits, and the id -> slot map is
   * built on the first change, so loading costs no per-id work.
   */
  static fromPacked(dimensions: number, ids: PackedIds, vectors: Float32Array): ExactIndex {
    if (ids.live !== ids.length)
      throw new InputError(
        `ExactIndex.fromPacked: the id table has ${ids.length - ids.live} empty slots; every slot needs an id`,
      );
    const index = ExactIndex.over(dimensions, ids.length, vectors, 'ExactIndex.fromPacked');
    index.packed = ids;
    index.slotOf = null;
    return index;
  }

  private static over(dimensions: number, count: number, vectors: Float32Array, caller: string): ExactIndex {
    if (vectors.length !== count * dimensions) {
      throw new InputError(`${caller}: ${count} ids need ${count * dimensions} values, got ${vectors.length}`);
    }
    const index = new ExactIndex(dimensions);
    index.data = vectors.length ? vectors : index.data;
    return index;
  }

  get size(): number {
    return this.packed ? this.packed.length : this.ids.length;
  }

  private idAt(slot: number): string {
    return this.packed ? (this.packed.at(slot) as string) : this.ids[slot];
  }

  private unpack(): void {
    if (!this.packed) return;
    this.ids = this.packed.toArray() as string[];
    this.packed = null;
  }

  private slots(): Map<string, number> {
    this.unpack();
    if (!this.slotOf) {
      const slots = new Map<string, number>();
      for (let i = 0; i < this.ids.length; i++) {
        if (slots.has(this.ids[i])) throw new InputError(`ExactIndex: id ${this.ids[i]} appears twice in the id table`);
        slots.set(this.ids[i], i);
      }
      this.slotOf = slots;
    }
    return this.slotOf;
  }

  has(id: string): boolean {
    return this.slots().has(id);
  }

  /** The ids in slot order and a view of their vectors (valid until the next change). */
  arrays(): { ids: string[]; vectors: Float32Array } {
    this.unpack();
    return { ids: this.ids.slice(), vectors: this.data.subarray(0, this.ids.length * this.dimensions) };
  }

  add(id: string, vector: Float32Array): void {
    checkDimensions('ExactIndex.add', vector, this.dimensions);
    const d = this.dimensions;
    const slots = this.slots();
    const existing = slots.get(id);
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
    slots.set(id, s);
  }

  remove(id: string): boolean {
    const slots = this.slots();
    const s = slots.get(id);
    if (s === undefined) return false;
    const last = this.ids.length - 1;
    if (s !== last) {
      const d = this.dimensions;
      this.data.copyWithin(s * d, last * d, (last + 1) * d);
      this.ids[s] = this.ids[last];
      slots.set(this.ids[s], s);
    }
    this.ids.pop();
    slots.delete(id);
    return true;
  }

  clear(): void {
    this.ids = [];
    this.packed = null;
    this.slotOf = new Map();
    this.data = new Float32Array(this.dimensions * 64);
  }

  search(query: Float32Array, k: number, opts: SearchOptions = {}): SearchHit[] {
    checkDimensions('ExactIndex.search', query, this.dimensions);
    const n = this.size;
    const top = new TopK(Math.min(k, n));
    if (top.k <= 0) return [];
    const d = this.dimensions;
    const minScore = opts.minScore ?? -Infinity;
    const filter = opts.filter;
    // Every slot, or (without a filter) the candidates USearch picks, in slot order either way.
    const picked = filter ? null : nativeCandidates(this.data, n, d, query, top.k);
    for (let i = 0, count = picked ? picked.length : n; i < count; i++) {
      const s = picked ? picked[i] : i;
      const score = dotRows(this.data, s * d, query, 0, d);
      // `!(>=)` also drops NaN; the filter runs only for hits that would enter the top k.
      if (!(score >= minScore) || !top.accepts(score)) continue;
      if (filter && !filter(this.idAt(s))) continue;
      top.push(score, s);
    }
    return top.slotsBestFirst().map((s, i) => ({ id: this.idAt(s), score: top.scoreAt(i) }));
  }
}
