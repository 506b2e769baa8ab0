// Small vector helpers shared by the embedders, the index and the store. Vectors are Float32Array.

import { InputError } from '../errors/input-error.js';

/** Dot product over the common length (cosine for unit vectors). */
export function dot(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/** Scales `v` to unit length in place; an all-zero (or non-finite) vector is left as zeros. */
export function normalize(v: Float32Array): Float32Array {
  const norm = Math.sqrt(dot(v, v));
  if (norm === 0 || !Number.isFinite(norm)) {
    v.fill(0);
    return v;
  }
  for (let i = 0; i < v.length; i++) v[i] /= norm;
  return v;
}

/** Cosine similarity; 0 when either vector is zero. */
export function cosine(a: Float32Array, b: Float32Array): number {
  const na = Math.sqrt(dot(a, a));
  const nb = Math.sqrt(dot(b, b));
  if (na === 0 || nb === 0) return 0;
  return dot(a, b) / (na * nb);
}

/** Component-wise mean (not normalised); an empty list gives an empty vector. */
export function meanVector(vs: readonly Float32Array[]): Float32Array {
  if (vs.length === 0) return new Float32Array(0);
  const out = new Float32Array(vs[0].length);
  for (const v of vs) {
    for (let i = 0; i < out.length; i++) out[i] += v[i];
  }
  for (let i = 0; i < out.length; i++) out[i] /= vs.length;
  return out;
}

/** Float32Array -> Buffer (a copy, so the BLOB never aliases a live vector). */
export function toBuffer(v: Float32Array): Buffer {
  return Buffer.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
}

/**
 * Buffer (e.g. a SQLite BLOB) -> Float32Array. Copies into a fresh buffer: a BLOB's byteOffset need not be
 * a multiple of 4, and a Float32Array view on it would throw.
 */
export function fromBuffer(buf: Uint8Array): Float32Array {
  if (buf.byteLength % 4 !== 0) {
    throw new InputError(
      `fromBuffer: a stored vector of ${buf.byteLength} bytes is not a whole number of float32 values`,
    );
  }
  const out = new Float32Array(buf.byteLength / 4);
  new Uint8Array(out.buffer).set(buf);
  return out;
}
