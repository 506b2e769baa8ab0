import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BackendUnavailableError } from '../../errors/backend-unavailable-error.js';

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
  /** Row i dequantises as `scales[i] * vectors[i * dims + d]` (a unit vector, up to rounding). */
  readonly vectors: Int8Array;
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

/** Loads (once per process and path) the word table; the default path works from `src/` and `dist/`. */
export function loadGloveTable(path: string | URL = GLOVE_TABLE_URL): GloveTable {
  const file = typeof path === 'string' ? path : fileURLToPath(path);
  let table = cache.get(file);
  if (!table) {
    table = parseGloveTable(readTable(file), file);
    cache.set(file, table);
  }
  return table;
}

function readTable(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (cause) {
    throw new BackendUnavailableError(
      `Cannot read the GloVe word table at ${file}. It ships with the package under assets/; ` +
        'in a source checkout, create it with `npm run build:embeddings`.',
      { cause },
    );
  }
}

function parseGloveTable(input: Buffer, file: string): GloveTable {
  const fail = (why: string): never => {
    throw new BackendUnavailableError(
      `${file} is not a usable GloVe word table (${why}); rebuild it with \`npm run build:embeddings\`.`,
    );
  };
  if (input.length < HEADER_BYTES || input.toString('latin1', 0, 8) !== MAGIC) fail('bad magic bytes');
  const version = input.readUInt32LE(8);
  if (version !== FORMAT_VERSION) fail(`format version ${version}, expected ${FORMAT_VERSION}`);
  const size = input.readUInt32LE(12);
  const dims = input.readUInt32LE(16);
  const componentCount = input.readUInt32LE(20);
  const sourceSize = input.readUInt32LE(24);
  const vocabBytes = input.readUInt32LE(32);
  const slotCount = input.readUInt32LE(36);
  const vocabEnd = HEADER_BYTES + 8 * size + 4 * componentCount * dims + size * dims + vocabBytes;
  const padding = (4 - (vocabEnd % 4)) % 4;
  const expected = vocabEnd + padding + 4 * (size + 1) + 4 * slotCount;
  if (input.length !== expected) fail(`${input.length} bytes, header says ${expected}`);

  // Typed-array views read the file's little-endian numbers in host order (little-endian on x64 and arm64).
  // They need 4-byte alignment of the underlying memory; copy only if the Buffer lacks it.
  const bytes = input.byteOffset % 4 === 0 ? input : Buffer.from(input);
  const { buffer, byteOffset } = bytes;
  let offset = byteOffset + HEADER_BYTES;
  const scales = new Float32Array(buffer, offset, size);
  offset += 4 * size;
  const ranks = new Uint32Array(buffer, offset, size);
  offset += 4 * size;
  const components = new Float32Array(buffer, offset, componentCount * dims);
  offset += 4 * componentCount * dims;
  const vectors = new Int8Array(buffer, offset, size * dims);
  offset += size * dims;

  // The vocabulary stays bytes, with the lookup table the build script stored beside it: loading builds no
  // strings and no Map (which was most of the CLI's cold-start cost).
  const vocab = new Uint8Array(buffer, offset, vocabBytes);
  offset += vocabBytes + padding;
  const starts = new Uint32Array(buffer, offset, size + 1);
  offset += 4 * (size + 1);
  const slots = new Int32Array(buffer, offset, slotCount);
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
    vectors,
    scales,
    ranks,
    components,
    // Decoded only if asked for (tests, tools): the embedder never needs the strings.
    get words() {
      words ??= new TextDecoder().decode(vocab).split('\n');
      return words;
    },
    rowOf,
  };
}
