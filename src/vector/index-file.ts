// The recall index on disk, so a new process loads it instead of rebuilding it.
//
// Guarantees:
// - A reader never trusts a byte it has not checked: a fixed prefix (magic, format, header length, header
//   CRC-32), then a JSON header that gives the size and CRC-32 of every block that follows (and of the graph
//   file beside it). A truncated, corrupt or foreign file, or one written for another namespace, embedder,
//   dimension or format, or a graph built with other HNSW parameters (M, efConstruction) than today's, loads
//   as `{ reason }`: the caller rebuilds. Loading never throws.
// - A writer never leaves a half-written file under the real name: every file is written to a temporary name
//   and renamed over the old one (rename is atomic on one file system). The HNSW graph goes to a file of its
//   own with a fresh name, written before the main file that names it, so a reader sees an old complete
//   index or a new complete one; a writer killed at any point leaves at worst a stray temporary file.
// - The graph file is checked in full (size and CRC-32 of every byte) unless the file system says it was not
//   written since its writer checksummed it: the header records the graph file's inode, size, modification
//   and change times (nanoseconds) as they stood once it was renamed into place. Any write to the file, a
//   truncation, a copy or a replacement moves its change time (which no process can set back), so only a
//   file untouched since the writer read it back skips the full read: at 100k skills that read is most of
//   the time a new process would otherwise spend before its first recall.
// - Freshness is the caller's business: the header carries the store revision the index was built at, and
//   the caller applies the changes since (or rebuilds when it cannot).

import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
  type BigIntStats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { ExactIndex } from './exact-index.js';
import { defaultHnswOptions, HnswIndex, type HnswOptions } from './hnsw-index.js';
import { loadUsearch } from './usearch.js';
import { PackedIds } from './packed-ids.js';
import { readAt } from '../support/read-at.js';
import { TieredIndex, type TieredOptions } from './tiered-index.js';
import { BackendUnavailableError } from '../errors/backend-unavailable-error.js';

const MAGIC = 0x49524b53; // "SKRI" little-endian
export const INDEX_FILE_FORMAT = 2;
const PREFIX_BYTES = 16;

/** What the index was built from: a loaded index is used only when every field matches the caller's. */
export interface IndexIdentity {
  namespace: string;
  embedderId: string;
  dimensions: number;
  /** Everything else that decides which skills and which vectors are in it (centering, eta floor, ...). */
  basis: string;
}

interface Header extends IndexIdentity {
  format: number;
  /** Store revision the index reflects. */
  revision: number;
  tier: 'exact' | 'hnsw';
  count: number;
  idsBytes: number;
  idsCount: number;
  idsCrc: number;
  vectorsBytes: number;
  vectorsCrc: number;
  graphFile: string | null;
  graphBytes: number;
  graphCrc: number;
  /** The graph file as the file system saw it once in place (see above); null: always check it in full. */
  graphStamp: string | null;
  hnsw: Required<HnswOptions> | null;
  savedAt: string;
}

export type LoadedIndex = { index: TieredIndex; revision: number } | { reason: string };

/** Writes `index` (built at store `revision`) to `path`, atomically. Throws on I/O errors (the caller logs). */
export function saveIndexFile(path: string, index: TieredIndex, identity: IndexIdentity, revision: number): void {
  // A networked store's files go to a cache directory a new machine does not have yet (~/.cache/skillsmith/recall).
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tier = index.tier;
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  let ids: (string | undefined)[];
  let vectors: Buffer = Buffer.alloc(0);
  let graphFile: string | null = null;
  let graphBytes = 0;
  let graphCrc = 0;
  let graphStamp: string | null = null;
  let hnsw: Required<HnswOptions> | null = null;
  if (tier instanceof HnswIndex) {
    ids = tier.keyTable();
    graphFile = `${basename(path)}.${tag}.hnsw`;
    const graphPath = join(dirname(path), graphFile);
    const tmp = `${graphPath}.tmp`;
    try {
      tier.saveGraph(tmp);
      const sum = fileChecksum(tmp);
      if (!sum)
        throw new BackendUnavailableError(`recall index file: could not read back the graph just saved to ${tmp}`);
      graphBytes = sum.bytes;
      graphCrc = sum.crc;
      syncFile(tmp);
      renameSync(tmp, graphPath);
      graphStamp = fileStamp(statSync(graphPath, { bigint: true }));
    } catch (e) {
      rmSync(tmp, { force: true });
      throw e;
    }
    hnsw = tier.options;
  } else {
    const arrays = tier.arrays();
    ids = arrays.ids;
    vectors = Buffer.from(arrays.vectors.buffer, arrays.vectors.byteOffset, arrays.vectors.byteLength);
  }
  const idsBlock = PackedIds.encode(ids);
  const header: Header = {
    ...identity,
    format: INDEX_FILE_FORMAT,
    revision,
    tier: graphFile ? 'hnsw' : 'exact',
    count: index.size,
    idsBytes: idsBlock.length,
    idsCount: ids.length,
    idsCrc: crc32(idsBlock),
    vectorsBytes: vectors.length,
    vectorsCrc: crc32(vectors),
    graphFile,
    graphBytes,
    graphCrc,
    graphStamp,
    hnsw,
    savedAt: new Date().toISOString(),
  };
  let headerBlock = Buffer.from(JSON.stringify(header), 'utf8');
  // Trailing spaces (still valid JSON) start the vectors on a 4-byte boundary.
  const unaligned = (PREFIX_BYTES + headerBlock.length + idsBlock.length) % 4;
  if (unaligned) headerBlock = Buffer.concat([headerBlock, Buffer.alloc(4 - unaligned, 0x20)]);
  const prefix = Buffer.alloc(PREFIX_BYTES);
  prefix.writeUInt32LE(MAGIC, 0);
  prefix.writeUInt32LE(INDEX_FILE_FORMAT, 4);
  prefix.writeUInt32LE(headerBlock.length, 8);
  prefix.writeUInt32LE(crc32(headerBlock), 12);

  const tmp = `${path}.${tag}.tmp`;
  try {
    const fd = openSync(tmp, 'w');
    try {
      for (const block of [prefix, headerBlock, idsBlock, vectors]) writeAll(fd, block);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    if (graphFile) rmSync(join(dirname(path), graphFile), { force: true });
    throw e;
  }
  removeStrayFiles(path, graphFile);
}

/** Loads the index at `path` if it is whole and was built for `identity`; otherwise says why not. */
export function loadIndexFile(path: string, identity: IndexIdentity, opts: TieredOptions = {}): LoadedIndex {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    return {
      reason: (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no index file' : `unreadable: ${(e as Error).message}`,
    };
  }
  try {
    const size = fstatSync(fd).size;
    const prefix = readBlock(fd, 0, Math.min(PREFIX_BYTES, size));
    if (prefix.length < PREFIX_BYTES || prefix.readUInt32LE(0) !== MAGIC) return { reason: 'not an index file' };
    if (prefix.readUInt32LE(4) !== INDEX_FILE_FORMAT)
      return { reason: `format ${prefix.readUInt32LE(4)}, expected ${INDEX_FILE_FORMAT}` };
    const headerLen = prefix.readUInt32LE(8);
    if (PREFIX_BYTES + headerLen > size) return { reason: 'truncated header' };
    const headerBlock = readBlock(fd, PREFIX_BYTES, headerLen);
    if (crc32(headerBlock) !== prefix.readUInt32LE(12)) return { reason: 'header checksum mismatch' };
    const h = JSON.parse(headerBlock.toString('utf8')) as Header;
    for (const key of ['namespace', 'embedderId', 'dimensions', 'basis'] as const) {
      if (h[key] !== identity[key]) return { reason: `built for another ${key}` };
    }
    const idsStart = PREFIX_BYTES + headerLen;
    const vectorsStart = idsStart + h.idsBytes;
    if (vectorsStart + h.vectorsBytes !== size)
      return { reason: `size ${size} bytes, header says ${vectorsStart + h.vectorsBytes}` };
    const idsBlock = readBlock(fd, idsStart, h.idsBytes);
    // The vectors get an array of their own: aligned, and starting at its buffer's start, as USearch's exact
    // scan needs (see nativeCandidates).
    const vectorBlock = readBlock(fd, vectorsStart, h.vectorsBytes);
    if (crc32(idsBlock) !== h.idsCrc || crc32(vectorBlock) !== h.vectorsCrc) return { reason: 'checksum mismatch' };
    const ids = PackedIds.decode(idsBlock);
    if (!ids || ids.length !== h.idsCount) return { reason: 'malformed id table' };

    if (h.tier === 'exact') {
      if (ids.length !== h.count || h.vectorsBytes !== h.count * h.dimensions * 4) return { reason: 'counts disagree' };
      if (ids.live !== ids.length) return { reason: 'malformed id table' };
      const vectors = new Float32Array(vectorBlock.buffer, vectorBlock.byteOffset, h.count * h.dimensions);
      const inner = ExactIndex.fromPacked(h.dimensions, ids, vectors);
      return { index: new TieredIndex(h.dimensions, opts, inner), revision: h.revision };
    }
    if (!h.graphFile || basename(h.graphFile) !== h.graphFile || !h.hnsw) return { reason: 'malformed header' };
    // A graph built with other parameters than today's answers correctly, but finds fewer of the true nearest
    // (the defaults changed for that reason): rebuilt once rather than kept for the life of the memory.
    const shape = { ...defaultHnswOptions, ...opts.hnsw };
    if (h.hnsw.connectivity !== shape.connectivity || h.hnsw.expansionAdd !== shape.expansionAdd)
      return {
        reason: `graph built with M ${h.hnsw.connectivity}, efConstruction ${h.hnsw.expansionAdd}; now ${shape.connectivity}, ${shape.expansionAdd}`,
      };
    if (!loadUsearch()) return { reason: 'the HNSW graph needs the usearch native module' };
    const graphPath = join(dirname(path), h.graphFile);
    let graphStat: BigIntStats;
    try {
      graphStat = statSync(graphPath, { bigint: true });
    } catch {
      return { reason: 'graph file missing' };
    }
    if (graphStat.size !== BigInt(h.graphBytes))
      return { reason: `graph file size ${graphStat.size} bytes, header says ${h.graphBytes}` };
    // Checked before the native code sees it: a corrupt graph could point outside its own arrays.
    if (fileStamp(graphStat) !== h.graphStamp) {
      const graphSum = fileChecksum(graphPath);
      if (!graphSum) return { reason: 'graph file missing' };
      if (graphSum.bytes !== h.graphBytes || graphSum.crc !== h.graphCrc) return { reason: 'graph checksum mismatch' };
    }
    const keyTable = ids;
    // Memory-mapped: pages are read when a search first touches them, and shared with the page cache.
    // The graph's shape comes from the file; how wide a search looks is today's setting, not the writer's.
    const expansionSearch = opts.hnsw?.expansionSearch ?? defaultHnswOptions.expansionSearch;
    const inner = HnswIndex.loadGraph(graphPath, h.dimensions, keyTable, {
      ...h.hnsw,
      ...opts.hnsw,
      expansionSearch,
      view: true,
    });
    if (inner.size !== h.count) return { reason: 'counts disagree' };
    return { index: new TieredIndex(h.dimensions, opts, inner), revision: h.revision };
  } catch (e) {
    return { reason: `unreadable: ${(e as Error).message}` };
  } finally {
    closeSync(fd);
  }
}

/**
 * `length` bytes of `fd` from `position`, in a buffer of their own (offset 0 of a fresh ArrayBuffer); shorter
 * when the file ends first.
 */
function readBlock(fd: number, position: number, length: number): Buffer {
  const block = Buffer.from(new ArrayBuffer(length));
  const done = readAt(fd, block, position);
  return done === length ? block : block.subarray(0, done);
}

/** What the file system says about a file: inode, size, modification and change times (ns). */
function fileStamp(st: BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/** Size and CRC-32 of a file, read in chunks (a graph can be hundreds of MB); null when it cannot be read. */
function fileChecksum(path: string): { bytes: number; crc: number } | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const chunk = Buffer.allocUnsafe(8 << 20);
    let crc = 0;
    let bytes = 0;
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) return { bytes, crc };
      crc = crc32(chunk.subarray(0, n), crc);
      bytes += n;
    }
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

function writeAll(fd: number, block: Buffer): void {
  for (let off = 0; off < block.length; ) off += writeSync(fd, block, off, block.length - off);
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Graph and temporary files of this index other than the current graph, once older than a minute: a younger
 * one may belong to a writer still running (its main file not yet renamed into place).
 */
function removeStrayFiles(path: string, keepGraph: string | null): void {
  const dir = dirname(path);
  const base = basename(path);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const now = Date.now();
  for (const name of names) {
    if (!name.startsWith(`${base}.`) || name === keepGraph) continue;
    const full = join(dir, name);
    try {
      if (!name.endsWith('.hnsw') && !name.endsWith('.tmp')) continue;
      if (now - statSync(full).mtimeMs >= 60_000) rmSync(full, { force: true });
    } catch {
      // Another process removed it first.
    }
  }
}
