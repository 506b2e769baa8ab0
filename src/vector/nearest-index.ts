// The one interface every nearest-neighbour index implements, so recall can swap the exact scan, the IVF
// partition and the HNSW graph without knowing which one it holds. Vectors are unit length (or all zero):
// the score of a hit is the dot product, which is the cosine.

import { InputError } from '../errors/input-error.js';

export interface SearchOptions {
  /** Hits scoring below this are dropped. */
  minScore?: number;
  /** Only ids for which this returns true are returned. */
  filter?: (id: string) => boolean;
}

export interface SearchHit {
  id: string;
  score: number;
}

export interface NearestIndex {
  readonly dimensions: number;
  readonly size: number;
  has(id: string): boolean;
  /** Adds a vector, or replaces the vector of an existing id. The vector is copied. */
  add(id: string, vector: Float32Array): void;
  /** Removes an id; returns whether it was present. */
  remove(id: string): boolean;
  clear(): void;
  /** At most k hits, best first. An approximate index may miss some of the exact k best. */
  search(query: Float32Array, k: number, opts?: SearchOptions): SearchHit[];
}

export function checkDimensions(where: string, v: Float32Array, dimensions: number): void {
  if (v.length !== dimensions) {
    throw new InputError(`${where}: vector has ${v.length} dimensions, index has ${dimensions}`);
  }
}
