import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadGloveTable, type GloveTable } from '../../src/embedders/glove/glove-table.js';

/**
 * Writes a small model folder that transformers.js (v3) loads like any Hugging Face model exported to ONNX,
 * so that the transformers embedder can be tested for real without downloading anything:
 *
 *   <dir>/glove-onnx/config.json            model_type "bert": transformers.js runs it as a plain encoder
 *   <dir>/glove-onnx/tokenizer.json         WordPiece over whole GloVe words, lowercasing, BERT pre-tokenizer
 *   <dir>/glove-onnx/tokenizer_config.json
 *   <dir>/glove-onnx/onnx/model.onnx        Gather(embeddings, input_ids) -> last_hidden_state
 *
 * The "encoder" is the project's GloVe table (the first `words` rows, dequantised to float32): a token's
 * hidden state is its word vector, and [PAD] and [UNK] have zero vectors. transformers.js mean-pools the
 * hidden states over the attention mask and L2-normalises, so a text's embedding is the normalised mean
 * of the GloVe vectors of its in-vocabulary words (unknown words only add to the count, not the direction).
 *
 * Vocabulary ids: 0 [PAD], 1 [UNK], then GloVe row r has id r + 2 (GloVe words are lowercase).
 */
export function writeGloveOnnxModel(
  dir: string,
  opts: {
    /** How many GloVe words (most frequent first) the vocabulary holds; default 20,000 (an 8 MB model). */
    words?: number;
    /** The folder's name inside `dir` (it becomes the embedder id's model name); default `glove-onnx`. */
    name?: string;
    table?: GloveTable;
  } = {},
): { folder: string; dimensions: number; words: number } {
  const table = opts.table ?? loadGloveTable();
  const words = Math.min(opts.words ?? 20_000, table.size);
  const dims = table.dims;
  const folder = join(dir, opts.name ?? 'glove-onnx');
  mkdirSync(join(folder, 'onnx'), { recursive: true });

  const vocabSize = words + SPECIAL_TOKENS.length;
  // Rows 0 and 1 ([PAD], [UNK]) stay zero.
  const embeddings = new Float32Array(vocabSize * dims);
  for (let r = 0; r < words; r++) {
    const scale = table.scales[r];
    const vector = table.row(r);
    for (let d = 0; d < dims; d++) embeddings[(r + SPECIAL_TOKENS.length) * dims + d] = scale * vector[d];
  }

  writeJson(join(folder, 'config.json'), {
    // "bert" maps to BertModel, an encoder-only model: transformers.js feeds it only the inputs the ONNX
    // session declares (input_ids, attention_mask here) and reads the output named last_hidden_state.
    model_type: 'bert',
    architectures: ['BertModel'],
    hidden_size: dims,
    vocab_size: vocabSize,
    max_position_embeddings: MAX_LENGTH,
    pad_token_id: 0,
    // Names the file (onnx/model.onnx) and silences the "dtype not specified" warning.
    'transformers.js_config': { dtype: 'fp32' },
  });
  writeJson(join(folder, 'tokenizer.json'), tokenizerJson(table.words.slice(0, words)));
  writeJson(join(folder, 'tokenizer_config.json'), {
    tokenizer_class: 'BertTokenizer',
    do_lower_case: true,
    model_max_length: MAX_LENGTH,
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    clean_up_tokenization_spaces: true,
  });
  writeFileSync(join(folder, 'onnx', 'model.onnx'), gatherModel(embeddings, vocabSize, dims));
  return { folder, dimensions: dims, words };
}

const SPECIAL_TOKENS = ['[PAD]', '[UNK]'] as const;
const MAX_LENGTH = 512;

function writeJson(path: string, value: unknown): void {
  writeFileSync(path, JSON.stringify(value));
}

/** An HF tokenizers file: lowercase, split on whitespace and punctuation, whole words or [UNK]. */
function tokenizerJson(words: readonly string[]): unknown {
  const vocab: Record<string, number> = Object.create(null);
  SPECIAL_TOKENS.forEach((t, id) => {
    vocab[t] = id;
  });
  // A repeated word would shift ids; keep its first row (the later one is simply never produced).
  words.forEach((w, r) => {
    vocab[w] ??= r + SPECIAL_TOKENS.length;
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content, id) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: { type: 'Lowercase' },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    // No [CLS]/[SEP]: only word vectors take part in the mean.
    post_processor: null,
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    // There are no "##" continuation pieces in the vocabulary, so a word is either whole or [UNK].
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
  };
}

// ── ONNX ────────────────────────────────────────────────────────────────────
// A minimal protobuf writer, enough for the onnx.proto messages below. A message is the concatenation of
// its fields; a field is a key (field number << 3 | wire type) followed by a varint (wire type 0) or a
// length-delimited payload (wire type 2: varint length, then bytes: strings, bytes, sub-messages, packed).

const VARINT = 0;
const LEN = 2;

function varint(value: number): Buffer {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`varint: ${value} is not a non-negative safe integer`);
  const out: number[] = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80); // low 7 bits, continuation bit set
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Buffer.from(out);
}

const key = (field: number, wireType: number) => varint(field * 8 + wireType);
const int = (field: number, value: number) => Buffer.concat([key(field, VARINT), varint(value)]);
const bytes = (field: number, payload: Uint8Array) => Buffer.concat([key(field, LEN), varint(payload.length), payload]);
const str = (field: number, value: string) => bytes(field, Buffer.from(value, 'utf8'));
const msg = (field: number, ...fields: Buffer[]) => bytes(field, Buffer.concat(fields));

/** TensorProto.DataType */
const FLOAT = 1;
const INT64 = 7;

/** ValueInfoProto for a tensor; a string dimension is symbolic (dim_param), a number fixed (dim_value). */
function valueInfo(field: number, name: string, elemType: number, shape: (string | number)[]): Buffer {
  // TensorShapeProto.Dimension: 1 dim_value (int64), 2 dim_param (string)
  const dims = shape.map((d) => msg(1, typeof d === 'number' ? int(1, d) : str(2, d)));
  return msg(
    field,
    str(1, name), // ValueInfoProto.name
    msg(
      2, // ValueInfoProto.type: TypeProto
      msg(
        1, // TypeProto.tensor_type: TypeProto.Tensor
        int(1, elemType), // Tensor.elem_type
        msg(2, ...dims), // Tensor.shape: TensorShapeProto, 1 = repeated dim
      ),
    ),
  );
}

/** ModelProto of one Gather node: last_hidden_state[b, s, :] = embeddings[input_ids[b, s], :]. */
function gatherModel(embeddings: Float32Array, vocabSize: number, dims: number): Buffer {
  const raw = Buffer.from(embeddings.buffer, embeddings.byteOffset, embeddings.byteLength); // little-endian floats
  const initializer = msg(
    5, // GraphProto.initializer: TensorProto
    int(1, vocabSize), // TensorProto.dims (repeated int64, one field per value)
    int(1, dims),
    int(2, FLOAT), // TensorProto.data_type
    str(8, 'embeddings'), // TensorProto.name
    bytes(9, raw), // TensorProto.raw_data
  );
  const node = msg(
    1, // GraphProto.node: NodeProto
    str(1, 'embeddings'), // NodeProto.input (data)
    str(1, 'input_ids'), // NodeProto.input (indices); Gather's axis attribute defaults to 0
    str(2, 'last_hidden_state'), // NodeProto.output
    str(3, 'word_vectors'), // NodeProto.name
    str(4, 'Gather'), // NodeProto.op_type
  );
  const graph = msg(
    7, // ModelProto.graph: GraphProto
    node,
    str(2, 'glove_onnx'), // GraphProto.name
    initializer,
    // GraphProto.input. attention_mask is declared (transformers.js passes exactly the declared inputs) but
    // unused: mean pooling applies the mask outside the model.
    valueInfo(11, 'input_ids', INT64, ['batch_size', 'sequence_length']),
    valueInfo(11, 'attention_mask', INT64, ['batch_size', 'sequence_length']),
    valueInfo(12, 'last_hidden_state', FLOAT, ['batch_size', 'sequence_length', dims]), // GraphProto.output
  );
  return Buffer.concat([
    int(1, 8), // ModelProto.ir_version (IR version 8: ONNX 1.10+)
    str(2, 'skillsmith-test'), // ModelProto.producer_name
    graph,
    msg(8, str(1, ''), int(2, 13)), // ModelProto.opset_import: OperatorSetIdProto { 1 domain "", 2 version 13 }
  ]);
}
