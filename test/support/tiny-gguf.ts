import { writeFileSync } from 'node:fs';

/**
 * Writes a tiny llama-architecture GGUF model (a few hundred tokens, 16-wide, one block) that llama.cpp
 * loads like any other model, so the node-llama-cpp back ends can be tested without downloading weights.
 *
 * Its weights are chosen, not trained, so that it answers a scripted text: the whole answer is one token.
 * The attention and feed-forward output projections are zero, so every position's hidden state is just its
 * token's embedding. Ordinary tokens point along dimension 0, the answer token along dimension 1, and the
 * output matrix maps dimension 0 to the answer token and dimension 1 to end-of-text: whatever the prompt,
 * greedy or low-temperature decoding yields the answer and then stops. The remaining dimensions carry
 * seeded random values, so different texts get different (mean-pooled) embeddings.
 */

export interface TinyGgufOptions {
  /** The text the model answers to any prompt (e.g. `SKIP` or a whole SKILL.md draft). */
  answer: string;
  /** A model that never stops: the answer is followed by itself instead of end-of-text (until maxTokens). */
  endless?: boolean;
  /** Embedding width (even; 16 by default). */
  dimensions?: number;
  seed?: number;
}

export interface TinyGguf {
  path: string;
  dimensions: number;
  vocabulary: number;
}

// GGUF metadata value types.
const U32 = 4;
const I32 = 5;
const F32 = 6;
const BOOL = 7;
const STRING = 8;
const ARRAY = 9;
// GGML tensor type of plain 32-bit floats.
const GGML_F32 = 0;
const ALIGNMENT = 32;

// llama.cpp token types.
const NORMAL = 1;
const UNKNOWN = 2;
const CONTROL = 3;
const BYTE = 6;

type Scalar = number | boolean | string;
type Metadata = [key: string, type: number, value: Scalar | Scalar[], elementType?: number];

interface Tensor {
  name: string;
  /** GGUF order: the fastest-varying dimension first. */
  shape: number[];
  data: Float32Array;
}

export function writeTinyGguf(path: string, opts: TinyGgufOptions): TinyGguf {
  const width = opts.dimensions ?? 16;
  const heads = 2;
  const ffn = width * 2;
  let state = (opts.seed ?? 7) >>> 0;
  const random = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32 - 0.5;
  };

  // Vocabulary: specials, byte fallback for anything else, printable ASCII, then the answer.
  const tokens = ['<unk>', '<s>', '</s>'];
  const types = [UNKNOWN, CONTROL, CONTROL];
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(BYTE);
  }
  tokens.push('\u2581'); // SentencePiece's word-start marker
  types.push(NORMAL);
  for (let c = 33; c < 127; c++) {
    tokens.push(String.fromCharCode(c));
    types.push(NORMAL);
  }
  if (tokens.includes(opts.answer))
    throw new Error(`writeTinyGguf: the answer must not be a single character or a special token`);
  const answer = tokens.length;
  tokens.push(opts.answer);
  types.push(NORMAL);
  const eos = 2;
  const vocabulary = tokens.length;

  const embedding = new Float32Array(width * vocabulary);
  const output = new Float32Array(width * vocabulary);
  for (let t = 0; t < vocabulary; t++) {
    embedding[t * width + (t === answer ? 1 : 0)] = 1;
    for (let d = 2; d < width; d++) embedding[t * width + d] = random() * 0.6;
  }
  output[answer * width + 0] = 20;
  output[(opts.endless ? answer : eos) * width + 1] = 20;

  const ones = (n: number) => new Float32Array(n).fill(1);
  const zeros = (n: number) => new Float32Array(n);
  const noise = (n: number) => Float32Array.from({ length: n }, () => random() * 0.2);
  const tensors: Tensor[] = [
    { name: 'token_embd.weight', shape: [width, vocabulary], data: embedding },
    { name: 'output_norm.weight', shape: [width], data: ones(width) },
    { name: 'output.weight', shape: [width, vocabulary], data: output },
    { name: 'blk.0.attn_norm.weight', shape: [width], data: ones(width) },
    { name: 'blk.0.attn_q.weight', shape: [width, width], data: noise(width * width) },
    { name: 'blk.0.attn_k.weight', shape: [width, width], data: noise(width * width) },
    { name: 'blk.0.attn_v.weight', shape: [width, width], data: noise(width * width) },
    { name: 'blk.0.attn_output.weight', shape: [width, width], data: zeros(width * width) },
    { name: 'blk.0.ffn_norm.weight', shape: [width], data: ones(width) },
    { name: 'blk.0.ffn_gate.weight', shape: [width, ffn], data: noise(width * ffn) },
    { name: 'blk.0.ffn_up.weight', shape: [width, ffn], data: noise(width * ffn) },
    { name: 'blk.0.ffn_down.weight', shape: [ffn, width], data: zeros(width * ffn) },
  ];

  const metadata: Metadata[] = [
    ['general.architecture', STRING, 'llama'],
    ['general.name', STRING, 'skillsmith-tiny-test-model'],
    ['general.alignment', U32, ALIGNMENT],
    ['llama.context_length', U32, 4096],
    ['llama.embedding_length', U32, width],
    ['llama.block_count', U32, 1],
    ['llama.feed_forward_length', U32, ffn],
    ['llama.attention.head_count', U32, heads],
    ['llama.attention.head_count_kv', U32, heads],
    ['llama.attention.layer_norm_rms_epsilon', F32, 1e-5],
    ['llama.rope.dimension_count', U32, width / heads],
    ['llama.pooling_type', U32, 1], // mean pooling for embeddings
    ['tokenizer.ggml.model', STRING, 'llama'],
    ['tokenizer.ggml.tokens', ARRAY, tokens, STRING],
    ['tokenizer.ggml.scores', ARRAY, tokens.map((_, i) => (types[i] === NORMAL ? -i : 0)), F32],
    ['tokenizer.ggml.token_type', ARRAY, types, I32],
    ['tokenizer.ggml.bos_token_id', U32, 1],
    ['tokenizer.ggml.eos_token_id', U32, eos],
    ['tokenizer.ggml.unknown_token_id', U32, 0],
    ['tokenizer.ggml.add_bos_token', BOOL, true],
  ];

  writeFileSync(path, encodeGguf(metadata, tensors));
  return { path, dimensions: width, vocabulary };
}

/** GGUF version 3: header, metadata, tensor descriptors, padding, then the aligned tensor data. */
function encodeGguf(metadata: Metadata[], tensors: Tensor[]): Buffer {
  const out = new ByteWriter();
  out.bytes(Buffer.from('GGUF', 'latin1'));
  out.u32(3);
  out.u64(tensors.length);
  out.u64(metadata.length);
  for (const [key, type, value, elementType] of metadata) {
    out.string(key);
    out.u32(type);
    if (type === ARRAY) {
      const items = value as Scalar[];
      out.u32(elementType!);
      out.u64(items.length);
      for (const item of items) out.scalar(elementType!, item);
    } else out.scalar(type, value as Scalar);
  }
  let offset = 0;
  for (const t of tensors) {
    out.string(t.name);
    out.u32(t.shape.length);
    for (const d of t.shape) out.u64(d);
    out.u32(GGML_F32);
    out.u64(offset);
    offset = align(offset + t.data.byteLength);
  }
  out.pad();
  for (const t of tensors) {
    out.bytes(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    out.pad();
  }
  return out.done();
}

const align = (n: number) => Math.ceil(n / ALIGNMENT) * ALIGNMENT;

class ByteWriter {
  private readonly parts: Buffer[] = [];
  private length = 0;

  bytes(b: Buffer): void {
    this.parts.push(b);
    this.length += b.length;
  }
  u32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.bytes(b);
  }
  u64(v: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.bytes(b);
  }
  string(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.bytes(b);
  }
  scalar(type: number, v: Scalar): void {
    const b = Buffer.alloc(4);
    if (type === U32) b.writeUInt32LE(v as number);
    else if (type === I32) b.writeInt32LE(v as number);
    else if (type === F32) b.writeFloatLE(v as number);
    else if (type === BOOL) {
      this.bytes(Buffer.from([v ? 1 : 0]));
      return;
    } else if (type === STRING) {
      this.string(v as string);
      return;
    } else throw new Error(`GGUF value type ${type} is not written here`);
    this.bytes(b);
  }
  pad(): void {
    this.bytes(Buffer.alloc(align(this.length) - this.length));
  }
  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}
