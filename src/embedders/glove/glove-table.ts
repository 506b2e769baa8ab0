import { closeSync, fstatSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BackendUnavailableError } from '../../errors/backend-unavailable-error.js';
import { readAt } from '../../support/read-at.js';

/**
 * The int8 GloVe word table written by `scripts/build-embeddings.mjs` (format documented there).
 * Rows are ordered by corpus frequency, most frequent first.
 */
export interface GloveTable {
  /** Number of words (rows). */
  readonly size: number;
  /** Dimensions per word vector. */
  readonly dims: number;
  /** Number of ranked tokens in the source list; normalises the Zipf frequency estimate. */
  readonly sourceSize: number;
  /**
   * The quantised vector of row i (`dims` values): it dequantises as `scales[i] * row(i)[d]`, a unit vector up
   * to rounding. Read from the file on first need (see loadGloveTable); the array must not be changed.
   */
  row(i: number): Int8Array;
  readonly scales: Float32Array;
  /** 1-based frequency rank of each row's word in the source list. */
  readonly ranks: Uint32Array;
  /** Common components to remove from sentence embeddings, unit length, `dims` floats each. */
  readonly components: Float32Array;
  readonly words: readonly string[];
  /** Row of a lowercase word, or -1 when it is not in the table. */
  rowOf(word: string): number;
}

export const GLOVE_TABLE_URL = new URL('../../../assets/glove-100k-int8.bin', import.meta.url);

const MAGIC = 'SKGLOVE\0';
const FORMAT_VERSION = 2;
const HEADER_BYTES = 64;

const cache = new Map<string, GloveTable>();

/** Rows read from the file at once when one of them is first needed (6.4 KB at 100 dimensions: two pages). */
const ROWS_PER_BLOCK = 64;

/**
 * Loads (once per process and path) the word table; the default path works from `src/` and `dist/`.
 *
 * Only the parts every lookup needs are read up front (weights, ranks, vocabulary and its hash table: about 3 MB
 * of the 13 MB file). The word vectors, 10 MB, are read a block of rows at a time when a word of the block is
 * first embedded: a process that embeds a few requests reads a few blocks (rows are ordered by frequency, so
 * common words share the first blocks). Reading and paging in the whole file was most of the 50-60 ms a new
 * process spent on its first embedding. The file stays open until every block is in, and is read through that
 * one descriptor, so a table replaced on disk meanwhile (an upgrade) is not mixed with the one loaded.
 */
export function loadGloveTable(path: string | URL = GLOVE_TABLE_URL): GloveTable {
  const file = typeof path === 'string' ? path : fileURLToPath(path);
  let table = cache.get(file);
  if (!table) {
    table = openGloveTable(file);
    cache.set(file, table);
  }
  return table;
}

function openGloveTable(file: string): GloveTable {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (cause) {
    throw new BackendUnavailableError(
      `Cannot read the GloVe word table at ${file}. It ships with the package under assets/; ` +
        'in a source checkout, create it with `npm run build:embeddings`.',
      { cause },
    );
  }
  try {
    return parseGloveTable(fd, file);
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

function parseGloveTable(fd: number, file: string): GloveTable {
  const fail = (why: string): never => {
    throw new BackendUnavailableError(
      `${file} is not a usable GloVe word table (${why}); rebuild it with \`npm run build:embeddings\`.`,
    );
  };
  /** `length` bytes from `position` into a new, 4-byte aligned buffer. */
  const read = (position: number, length: number): ArrayBuffer => {
    const buffer = new ArrayBuffer(length);
    if (readAt(fd, new Uint8Array(buffer), position) < length) fail('shorter than its header says');
    return buffer;
  };
  // The file as opened: a block read later checks it is still this file (an upgrade rewriting it in place
  // would otherwise mix its vectors with the vocabulary read now).
  const opened = fstatSync(fd, { bigint: true });
  const fileBytes = Number(opened.size);
  if (fileBytes < HEADER_BYTES) fail('bad magic bytes');
  const header = Buffer.from(read(0, HEADER_BYTES));
  if (header.toString('latin1', 0, 8) !== MAGIC) fail('bad magic bytes');
  const version = header.readUInt32LE(8);
  if (version !== FORMAT_VERSION) fail(`format version ${version}, expected ${FORMAT_VERSION}`);
  const size = header.readUInt32LE(12);
  const dims = header.readUInt32LE(16);
  const componentCount = header.readUInt32LE(20);
  const sourceSize = header.readUInt32LE(24);
  const vocabBytes = header.readUInt32LE(32);
  const slotCount = header.readUInt32LE(36);
  const vectorsStart = HEADER_BYTES + 8 * size + 4 * componentCount * dims;
  const vocabStart = vectorsStart + size * dims;
  const vocabEnd = vocabStart + vocabBytes;
  const padding = (4 - (vocabEnd % 4)) % 4;
  const expected = vocabEnd + padding + 4 * (size + 1) + 4 * slotCount;
  if (fileBytes !== expected) fail(`${fileBytes} bytes, header says ${expected}`);
  if (slotCount === 0 || (slotCount & (slotCount - 1)) !== 0) fail(`${slotCount} lookup slots, not a power of two`);

  // Typed arrays read the file's little-endian numbers in host order (little-endian on x64 and arm64).
  const weights = read(HEADER_BYTES, vectorsStart - HEADER_BYTES);
  const scales = new Float32Array(weights, 0, size);
  const ranks = new Uint32Array(weights, 4 * size, size);
  const components = new Float32Array(weights, 8 * size, componentCount * dims);
  // The vocabulary stays bytes, with the lookup table the build script stored beside it: loading builds no
  // strings and no Map.
  const vocab = new Uint8Array(read(vocabStart, vocabBytes));
  const lookup = read(vocabEnd + padding, 4 * (size + 1) + 4 * slotCount);
  const starts = new Uint32Array(lookup, 0, size + 1);
  const slots = new Int32Array(lookup, 4 * (size + 1), slotCount);

  // The vectors fill in block by block; untouched blocks cost no memory (the zeroed pages are never written).
  let vectors: Int8Array | null = null;
  const blocks = Math.ceil(size / ROWS_PER_BLOCK);
  const loaded = new Uint8Array(blocks);
  let loadedBlocks = 0;
  const row = (i: number): Int8Array => {
    if (!(i >= 0 && i < size && Number.isInteger(i))) throw new RangeError(`GloVe row ${i} is outside 0..${size - 1}`);
    vectors ??= new Int8Array(size * dims);
    const block = Math.floor(i / ROWS_PER_BLOCK);
    if (!loaded[block]) {
      const now = fstatSync(fd, { bigint: true });
      if (now.size !== opened.size || now.mtimeNs !== opened.mtimeNs || now.ctimeNs !== opened.ctimeNs)
        fail('it was changed on disk after this process opened it; restart the process');
      const first = block * ROWS_PER_BLOCK;
      const rows = Math.min(ROWS_PER_BLOCK, size - first);
      const target = new Uint8Array(vectors.buffer, first * dims, rows * dims);
      if (readAt(fd, target, vectorsStart + first * dims) < target.length) fail('it was cut short after it was opened');
      loaded[block] = 1;
      if (++loadedBlocks === blocks) closeSync(fd);
    }
    return vectors.subarray(i * dims, (i + 1) * dims);
  };

  const mask = slotCount - 1;
  const encoder = new TextEncoder();
  const rowOf = (word: string): number => {
    let bytes: Uint8Array | null = null;
    let h = 0x811c9dc5;
    for (let i = 0; i < word.length; i++) {
      const c = word.charCodeAt(i);
      if (c >= 0x80) {
        bytes = encoder.encode(word);
        break;
      }
      h = Math.imul(h ^ c, 0x01000193);
    }
    if (bytes) {
      h = 0x811c9dc5;
      for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
    }
    const len = bytes ? bytes.length : word.length;
    for (let k = h & mask; slots[k] !== -1; k = (k + 1) & mask) {
      const r = slots[k];
      const start = starts[r];
      if (starts[r + 1] - 1 - start !== len) continue;
      let same = true;
      for (let i = 0; i < len; i++) {
        if (vocab[start + i] !== (bytes ? bytes[i] : word.charCodeAt(i))) {
          same = false;
          break;
        }
      }
      if (same) return r;
    }
    return -1;
  };
  let words: string[] | null = null;

  return {
    size,
    dims,
    sourceSize,
    scales,
    ranks,
    components,
    row,
    // Decoded only if asked for (tests, tools): the embedder never needs the strings.
    get words() {
      words ??= new TextDecoder().decode(vocab).split('\n');
      return words;
    },
    rowOf,
  };
}
