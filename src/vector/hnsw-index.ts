// Approximate nearest neighbours through an HNSW graph held by USearch (npm `usearch`, Apache-2.0, native
// code shipped as prebuilt N-API binaries for linux/darwin/win32: nothing compiles or downloads at install).
// Chosen over a hand-written graph and over hnswlib-node by measurement (see bench/README.md): at 100k x 356
// it answers in well under a millisecond at recall@10 >= 0.95, builds on every core, and saves/loads its graph
// as one file. Keys are numbers inside the graph; this class maps them to skill ids.

import { checkDimensions, type NearestIndex, type SearchHit, type SearchOptions } from './nearest-index.js';
import { BackendLoadError } from '../errors/backend-load-error.js';
import type { PackedIds } from './packed-ids.js';
import { loadUsearch, type NativeIndex } from './usearch.js';
import { BackendUnavailableError } from '../errors/backend-unavailable-error.js';
import { InputError } from '../errors/input-error.js';

export interface HnswOptions {
  /**
   * Graph degree M (default 32) and candidate list while inserting, efConstruction (default 400). On the
   * bench's 100k skills (copies of a few hundred goals: many equal vectors; 300 queries, recall@10 against the
   * exact scan): M 16 / efc 128 gave 0.924 at ef 192 and needed ef 512 for 0.958; M 24 / efc 200 (the default
   * until the graph went to half precision) 0.942-0.978 at ef 192 over six builds; in half precision, on a quiet
   * machine, two builds each: M 24 / efc 400 0.961 / 0.967 at ef 160 (p50 0.18-0.21 ms), 0.972 / 0.968 at 192;
   * M 32 / efc 400 0.975 / 0.971 at ef 160 (0.18-0.20 ms), 0.982 / 0.986 at 192 (0.22-0.23 ms), built in 24 s on
   * both cores (M 24 / efc 200: 13-20 s). A better-connected graph is searched narrower for the same recall: a
   * recall's search costs less than the build's extra seconds, which a memory pays once (its index is saved). The
   * graph file grows by 4 bytes per link (M 32: 256 bytes a vector on the bottom layer) against 712 of vector.
   */
  connectivity?: number;
  expansionAdd?: number;
  /**
   * Candidate list while searching, ef, for the smallest graphs (default 96; a search for more than ef hits
   * widens it). From MID_GRAPH entries a search looks MID_GRAPH_EF wide (searchWidth). Builds differ (inserts
   * run in parallel), so figures are given per build; 300 queries, recall@10 against the exact scan. At 100k of
   * the bench's skill vectors, M 32 / efc 400, half precision: ef 160 0.975 / 0.971 (p50 0.18-0.20 ms), 192
   * 0.982 / 0.986 (0.22-0.23 ms), 256 0.989 / 0.989 (0.30 ms). Before (M 24 / efc 200): f32 at ef 192 0.942 /
   * 0.950 (0.30-0.33 ms), half precision at 320 0.968-0.990 over four builds (0.28-0.33 ms). At 10k, f32, ef 96
   * gave 0.995 (0.15 ms) against 1.0 at 192; at 20k ef 96 gave 0.988, 192 0.994; at 1k every ef from 64 gave
   * 1.0. Skills with exemplars (issue 29: 100k skills, 398,866 vectors), f32, M 24: ef 192 0.980, 128 0.977.
   * MID_GRAPH_EF went 160 -> 112 once the graph was M 32 in half precision: on one build of the bench's 100k
   * skills, recall@10 0.972 / 0.970 / 0.968 at ef 160 / 128 / 112 (0.952 at 96), and with exemplars 0.963 at all
   * three; a whole recall's p50 (recall-probe, three alternating runs) 0.49-0.56 / 0.42-0.48 / 0.41-0.43 ms, with
   * exemplars 0.62 / 0.52-0.56 / 0.48-0.49 ms.
   */
  expansionSearch?: number;
  /** Threads for bulk adds (default 0: every core). Searches run on the calling thread. */
  threads?: number;
  /**
   * How the graph holds its vectors (default 'f16'). Half precision halves the graph's memory and file (at 356
   * dimensions 712 bytes a vector instead of 1,424) and, on the bench's 100k skills, searches in about two
   * thirds of the time at the same ef with no loss of recall@10 (figures under expansionSearch). A hit's score
   * is then the inner product of the half-precision vectors: measured within 1.5e-4 of the exact one on the
   * bench's skill vectors (mean 3e-5). A graph file records its own precision and is read back in it,
   * whatever this says: a file saved by an earlier version (f32) keeps working as it is.
   */
  quantization?: 'f32' | 'f16';
}

export const defaultHnswOptions: Required<HnswOptions> = {
  connectivity: 32,
  expansionAdd: 400,
  expansionSearch: 96,
  threads: 0,
  quantization: 'f16',
};

/** From MID_GRAPH entries a search looks at least MID_GRAPH_EF candidates wide. */
const MID_GRAPH = 16_384;
const MID_GRAPH_EF = 112;

/** How many candidates a search of a graph of `size` entries looks at, at least (see expansionSearch). */
function searchWidth(size: number): number {
  return size >= MID_GRAPH ? MID_GRAPH_EF : 0;
}

/** Entries a graph takes on one thread before bulk inserts go parallel (see addMany). */
const SERIAL_SEED = 1024;

export class HnswIndex implements NearestIndex {
  readonly dimensions: number;
  readonly options: Required<HnswOptions>;
  private graph: NativeIndex;
  /** Skill id per graph key; a removed key keeps an empty slot (keys are never reused). */
  private idOfKey: (string | undefined)[] = [];
  /** The key table as loaded from a file, decoded per hit until the first change unpacks it into idOfKey. */
  private packed: PackedIds | null = null;
  /** Key per id: built on first need (a loaded index that only searches never builds it). */
  private keys: Map<string, number> | null = new Map();
  private live = 0;
  /** Set while the graph is a read-only memory map of this file: the first change loads a writable copy. */
  private viewOf: string | null = null;

  constructor(dimensions: number, opts: HnswOptions = {}) {
    if (!Number.isInteger(dimensions) || dimensions <= 0) {
      throw new InputError(`HnswIndex: dimensions must be a positive integer, got ${dimensions}`);
    }
    this.dimensions = dimensions;
    this.options = { ...defaultHnswOptions, ...opts };
    this.graph = HnswIndex.newGraph(dimensions, this.options);
  }

  private static newGraph(dimensions: number, o: Required<HnswOptions>): NativeIndex {
    const usearch = loadUsearch();
    if (!usearch)
      throw new BackendLoadError(
        'HnswIndex',
        'the usearch native module does not load on this platform; use ExactIndex or VectorIndex',
      );
    // Inner product on unit vectors is the cosine, and keeps zero vectors at score 0 as the exact scan does.
    return usearch.graph({
      dimensions,
      metric: 'ip',
      quantization: o.quantization,
      connectivity: o.connectivity,
      expansion_add: o.expansionAdd,
      expansion_search: o.expansionSearch,
    });
  }

  get size(): number {
    return this.live;
  }

  private idAt(key: number): string | undefined {
    return this.packed ? this.packed.at(key) : this.idOfKey[key];
  }

  private unpack(): void {
    if (!this.packed) return;
    this.idOfKey = this.packed.toArray();
    this.packed = null;
  }

  private get keyOfId(): Map<string, number> {
    this.unpack();
    if (!this.keys) {
      const keys = new Map<string, number>();
      this.idOfKey.forEach((id, key) => {
        if (id !== undefined) keys.set(id, key);
      });
      this.keys = keys;
    }
    return this.keys;
  }

  has(id: string): boolean {
    return this.keyOfId.has(id);
  }

  add(id: string, vector: Float32Array): void {
    checkDimensions('HnswIndex.add', vector, this.dimensions);
    this.addMany([id], vector);
  }

  /** Adds (or replaces) many vectors at once, `vectors` back to back; the graph inserts them in parallel. */
  addMany(ids: string[], vectors: Float32Array): void {
    const d = this.dimensions;
    if (vectors.length !== ids.length * d) {
      throw new InputError(`HnswIndex.addMany: ${ids.length} ids need ${ids.length * d} values, got ${vectors.length}`);
    }
    if (ids.length === 0) return;
    const unique = new Map<string, number>();
    ids.forEach((id, i) => {
      unique.set(id, i);
    });
    this.thaw();
    this.unpack();
    const keys = new BigUint64Array(unique.size);
    const rows = new Float32Array(unique.size * d);
    let j = 0;
    for (const [id, i] of unique) {
      this.remove(id);
      const key = this.idOfKey.length;
      this.idOfKey.push(id);
      this.keyOfId.set(id, key);
      this.live++;
      keys[j] = BigInt(key);
      rows.set(vectors.subarray(i * d, (i + 1) * d), j * d);
      j++;
    }
    // The first SERIAL_SEED entries go in on one thread. USearch's parallel insert races while the graph is
    // nearly empty (entry point and top level still moving): on a loaded machine about one build in 400 of
    // 57 vectors left an entry no search reaches, so a small graph asked for every entry missed one. A graph
    // this small builds in milliseconds on one thread, and the same input then always gives the same graph.
    const serial = Math.min(unique.size, Math.max(0, SERIAL_SEED - this.graph.size()));
    if (serial > 0) this.graph.add(keys.subarray(0, serial), rows.subarray(0, serial * d), 1);
    if (serial < unique.size) this.graph.add(keys.subarray(serial), rows.subarray(serial * d), this.options.threads);
  }

  remove(id: string): boolean {
    const key = this.keyOfId.get(id);
    if (key === undefined) return false;
    this.thaw();
    this.graph.remove(BigInt(key));
    this.keyOfId.delete(id);
    this.idOfKey[key] = undefined;
    this.live--;
    return true;
  }

  clear(): void {
    this.viewOf = null;
    this.graph = HnswIndex.newGraph(this.dimensions, this.options);
    this.idOfKey = [];
    this.packed = null;
    this.keys = new Map();
    this.live = 0;
  }

  search(query: Float32Array, k: number, opts: SearchOptions = {}): SearchHit[] {
    checkDimensions('HnswIndex.search', query, this.dimensions);
    const want = Math.min(Number.isFinite(k) ? Math.floor(k) : 0, this.size);
    if (want <= 0) return [];
    const minScore = opts.minScore ?? -Infinity;
    // A filter may reject hits: ask for more until k pass or the whole graph was asked for.
    // Asking the graph for more hits than its ef widens the search to that many candidates.
    const wide = searchWidth(this.size);
    for (let ask = opts.filter ? Math.min(this.size, want * 2) : want; ; ask = Math.min(this.size, ask * 4)) {
      const found = this.graph.search(query, Math.min(this.size, Math.max(ask, wide)), 1);
      const hits: SearchHit[] = [];
      let belowMin = false;
      for (let i = 0; i < found.keys.length && hits.length < want; i++) {
        const id = this.idAt(Number(found.keys[i]));
        const score = 1 - found.distances[i];
        if (!(score >= minScore)) {
          belowMin = true;
          break;
        }
        if (id === undefined || (opts.filter && !opts.filter(id))) continue;
        hits.push({ id, score });
      }
      if (hits.length >= want || belowMin || ask >= this.size || found.keys.length < ask) return hits;
    }
  }

  /** Turns a memory-mapped graph into a writable one (throws when its file is gone). */
  private thaw(): void {
    if (!this.viewOf) return;
    const graph = HnswIndex.newGraph(this.dimensions, this.options);
    graph.load(this.viewOf);
    if (graph.size() !== this.live)
      throw new BackendUnavailableError(
        `HnswIndex: ${this.viewOf} no longer holds the graph that was viewed (the file was replaced), so it cannot be changed`,
      );
    this.graph = graph;
    this.viewOf = null;
  }

  /** Keys of the graph in key order (undefined for removed ones): what `save` must store beside the graph. */
  keyTable(): (string | undefined)[] {
    return this.packed ? this.packed.toArray() : this.idOfKey.slice();
  }

  /** Writes the graph (with its vectors) to `path`. The key table is saved by the caller. */
  saveGraph(path: string): void {
    this.graph.save(path);
  }

  /**
   * An index from a graph file and the key table saved with it (taken over). Throws when they do not match. With `view`,
   * the graph is memory-mapped (no copy, ready at once) until the first change, which loads a writable copy of
   * the same file: graph files are never rewritten in place, so that copy is the graph that was viewed. A file that
   * cannot be mapped (another account's, see below) is read into memory as without `view`.
   */
  static loadGraph(
    path: string,
    dimensions: number,
    keyTable: PackedIds,
    opts: HnswOptions & { view?: boolean } = {},
  ): HnswIndex {
    const { view, ...graphOpts } = opts;
    const index = new HnswIndex(dimensions, graphOpts);
    let viewed = false;
    if (view) {
      try {
        index.graph.view(path);
        index.viewOf = path;
        viewed = true;
      } catch {
        // USearch opens the file to map it with O_NOATIME, which Linux grants only to the file's owner (EPERM): the
        // graph of a memory another account owns, shared read-only, is read into memory instead of being rebuilt.
      }
    }
    if (!viewed) index.graph.load(path);
    // Ids are decoded per hit; the id -> key map is built only when the index first changes.
    index.idOfKey = [];
    index.packed = keyTable;
    index.keys = null;
    index.live = keyTable.live;
    if (index.graph.size() !== index.live) {
      throw new BackendUnavailableError(
        `HnswIndex.loadGraph: the graph in ${path} holds ${index.graph.size()} vectors, its key table ${index.live}`,
      );
    }
    return index;
  }
}
