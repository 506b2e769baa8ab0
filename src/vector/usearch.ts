// USearch (npm `usearch`, Apache-2.0): native code shipped as prebuilt N-API binaries for linux/darwin/win32,
// so nothing compiles or downloads at install. Used for the HNSW graph of recall (hnsw-index.ts) and for exact
// scans of a few hundred vectors (vector-index.ts), where its SIMD kernels beat a JavaScript loop.
//
// The binary for this platform is loaded directly when the package ships one (see compiledBinary); through the
// package's own loader otherwise. Going through the package costs a new process a few milliseconds more (its
// loader helpers, a scan of its build folders, its wrapper), and recall pays them on its first search.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

/** The part of USearch's index used here, whichever way the module was loaded. */
export interface NativeIndex {
  add(keys: BigUint64Array, vectors: Float32Array, threads: number): void;
  search(vector: Float32Array, k: number, threads: number): { keys: BigUint64Array; distances: Float32Array };
  remove(key: bigint): unknown;
  size(): number;
  save(path: string): void;
  load(path: string): void;
  view(path: string): void;
}

interface GraphConfig {
  dimensions: number;
  metric: string;
  quantization: string;
  connectivity: number;
  expansion_add: number;
  expansion_search: number;
}

export interface Usearch {
  /** An empty graph. */
  graph(config: GraphConfig): NativeIndex;
  /**
   * Rows of `dataset` (`dimensions` floats each, back to back) by inner product with `query`, best first, at
   * most `count`, with their distances (1 - inner product). Single precision: see nativeCandidates. Both
   * arrays are read from the start of their buffers, whatever their byte offset (USearch's binding, 2.25 and 2.26).
   */
  bestRows(
    dataset: Float32Array,
    query: Float32Array,
    dimensions: number,
    count: number,
  ): { rows: BigUint64Array; distances: Float32Array };
}

/** The native class of USearch's binary: what its JavaScript `Index` wraps (checks and argument shaping). */
interface CompiledIndex extends Omit<NativeIndex, 'search' | 'remove'> {
  remove(keys: BigUint64Array): unknown;
  /** Keys, distances and per-query counts of a batch search, k slots per query. */
  search(vectors: Float32Array, k: number, threads: number): [BigUint64Array, Float32Array, BigUint64Array];
}
type CompiledModule = {
  CompiledIndex: new (
    dimensions: number,
    metric: string,
    quantization: string,
    connectivity: number,
    expansionAdd: number,
    expansionSearch: number,
    multi: boolean,
  ) => CompiledIndex;
  exactSearch: ExactSearch<[BigUint64Array, Float32Array, BigUint64Array]>;
};
type PackageModule = {
  Index: new (config: GraphConfig & { multi: boolean }) => NativeIndex;
  exactSearch: ExactSearch<{ keys: BigUint64Array; distances: Float32Array }>;
};
/** USearch's exact scan, as the binary and as the package's wrapper (which shapes the result) take it. */
type ExactSearch<Result> = (
  dataset: Float32Array,
  queries: Float32Array,
  dimensions: number,
  count: number,
  metric: string,
  threads: number,
) => Result;

let native: Usearch | null | undefined;

/** USearch, or null where its binary does not load (an unsupported platform): callers fall back to JavaScript. */
export function loadUsearch(): Usearch | null {
  if (native === undefined) native = compiledBinary() ?? packageModule();
  return native;
}

/** The two ways to load USearch, each on its own (for tests that hold them to the same answers). */
export const usearchLoaders = { binary: () => compiledBinary(), package: () => packageModule() };

function compiledBinary(): Usearch | null {
  try {
    const require = createRequire(import.meta.url);
    // The package's main file is javascript/dist/cjs/usearch.js under its root.
    const root = resolve(dirname(require.resolve('usearch')), '..', '..', '..');
    const file = [join(root, 'build', 'Release', 'usearch.node'), ...prebuiltBinaries(root)].find(existsSync);
    if (!file) return null;
    const lib = require(file) as Partial<CompiledModule>;
    const { CompiledIndex: Compiled, exactSearch } = lib;
    if (typeof Compiled !== 'function' || typeof exactSearch !== 'function') return null;
    return {
      graph(c) {
        const graph = new Compiled(
          c.dimensions,
          c.metric,
          c.quantization,
          c.connectivity,
          c.expansion_add,
          c.expansion_search,
          false,
        );
        return {
          add: (keys, vectors, threads) => graph.add(keys, vectors, threads),
          search(vector, k, threads) {
            const [keys, distances, counts] = graph.search(vector, k, threads);
            const n = Number(counts[0]);
            return { keys: keys.subarray(0, n), distances: distances.subarray(0, n) };
          },
          remove: (key) => graph.remove(BigUint64Array.of(key)),
          size: () => graph.size(),
          save: (path) => graph.save(path),
          load: (path) => graph.load(path),
          view: (path) => graph.view(path),
        };
      },
      bestRows(dataset, query, dimensions, count) {
        const [keys, distances, counts] = exactSearch(dataset, query, dimensions, count, 'ip', 1);
        const n = Number(counts[0]);
        return { rows: keys.subarray(0, n), distances: distances.subarray(0, n) };
      },
    };
  } catch {
    return null;
  }
}

/**
 * The package's prebuilt binaries for this platform (its folders are named platform-arch, or platform-arch+arch).
 * They are the files the package's own loader picks here: the package ships one untagged binary per folder.
 * Where one does not load (a musl system, say), the package's loader is tried next and decides.
 */
function prebuiltBinaries(root: string): string[] {
  return [
    join(root, 'prebuilds', `${process.platform}-${process.arch}`, 'usearch.node'),
    join(root, 'prebuilds', `${process.platform}-arm64+x64`, 'usearch.node'),
  ];
}

function packageModule(): Usearch | null {
  try {
    const lib = createRequire(import.meta.url)('usearch') as PackageModule;
    return {
      graph: (c) => new lib.Index({ ...c, multi: false }),
      bestRows(dataset, query, dimensions, count) {
        const found = lib.exactSearch(dataset, query, dimensions, count, 'ip', 1);
        return { rows: found.keys, distances: found.distances };
      },
    };
  } catch {
    return null;
  }
}
