import type { Embedder, EmbedderThresholds } from '../embedder.js';
import { loadGloveTable, type GloveTable } from './glove-table.js';
import { BackendUnavailableError } from '../../errors/backend-unavailable-error.js';
import { InputError } from '../../errors/input-error.js';

/**
 * The embedded default embedder: no network, no download. A sentence vector is the concatenation of
 *  - a semantic part: SIF-weighted average of GloVe word vectors with the common component removed
 *    (Arora et al., "A simple but tough-to-beat baseline for sentence embeddings", 2017), and
 *  - a lexical part: signed feature hashing of lightly stemmed unigrams and content-word bigrams,
 *    sublinear TF times an IDF estimated from the GloVe frequency rank.
 * Both parts are unit length and scaled by sqrt(weight), so for two texts that both have both parts
 * cosine = semantic * cos(semantic parts) + lexical * cos(lexical parts). When a text has only one part
 * (e.g. every word is outside GloVe), the vector is renormalised so it stays unit length.
 */

export const GLOVE_EMBEDDER_ID = 'glove-sif-lex@2';
/**
 * Ids of earlier versions of this maths, whose vectors a pass replaces on its own (see Embedder.supersedes):
 * @1 kept closed compounds GloVe does not know ("webserver") whole.
 */
const EARLIER_IDS = ['glove-sif-lex@1'];
export const SEMANTIC_DIMENSIONS = 100;
export const LEXICAL_DIMENSIONS = 256;

export interface GloveWeights {
  semantic: number;
  lexical: number;
}

export const DEFAULT_GLOVE_WEIGHTS: Readonly<GloveWeights> = Object.freeze({ semantic: 0.6, lexical: 0.4 });

/** SIF smoothing `a` in a / (a + p(w)); the stored common component was computed with this value. */
export const DEFAULT_SIF_A = 1e-3;

/**
 * Calibrated on the tune half of the tau dev traces (scripts/cluster-report.mjs, scripts/recall-calibration.mjs).
 * `cluster` applies to the combined goal + tool-use similarity of the synthesis pass.
 */
export const DEFAULT_GLOVE_THRESHOLDS: Readonly<EmbedderThresholds> = Object.freeze({
  cluster: 0.7,
  recall: 0.4,
  duplicate: 0.85,
});

export interface GloveEmbedderOptions {
  /** Relative weights of the two parts; normalised to sum to 1. Non-default values change `id`. */
  weights?: Partial<GloveWeights>;
  /** SIF smoothing parameter. Non-default values change `id`. */
  sifA?: number;
  thresholds?: Partial<EmbedderThresholds>;
  /** A loaded table, or the path of the .bin file; defaults to the packaged asset, loaded on first use. */
  table?: GloveTable | string | URL;
}

// A typed placeholder from the normaliser (<id>, <num>, ...), or a word: letters/digits, possibly joined
// by apostrophes or hyphens so that "e-mail" and "don't" can be handled whole.
const TOKEN = /<[a-z_]{1,16}>|[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;
const CAMEL_BOUNDARY = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})/u;
const JOINER = /['’-]/;
const APOSTROPHE = /['’]/;
const CLITICS = new Set(['s', 're', 've', 'll', 'd', 'm']);

/** Lexical IDF, ln(1 + rank / IDF_RANK_SCALE): "the" 0.1, rank 1,000 4.6, unknown words 10.4. */
const IDF_RANK_SCALE = 10;
/** Words this frequent (function words) do not start or end a bigram; bigrams link the content words. */
const BIGRAM_STOP_RANK = 100;
/** Bigram features weigh less than unigrams: they add word order, the unigrams carry the overlap. */
const BIGRAM_WEIGHT = 0.4;
const EULER_GAMMA = 0.5772156649;
/** A part with a smaller norm is rounding noise (e.g. a one-word text lying along the common component). */
const MIN_NORM = 1e-9;
/** Lexical features per text are indexed below this (2^20); longer texts are cut to half as many tokens. */
const FEATURE_SLOTS = 2 ** 20;
/** Distinct tokens remembered by one embedder (about 100 bytes each) before the memo starts over. */
const WORD_MEMO_LIMIT = 100_000;

/** What the embedder needs of a token, a pure function of it. */
interface Word {
  row: number;
  stem: string;
  stemHash: number;
}
const MAX_TOKENS = FEATURE_SLOTS / 2;

export class GloveEmbedder implements Embedder {
  readonly id: string;
  readonly supersedes: readonly string[];
  readonly dimensions = SEMANTIC_DIMENSIONS + LEXICAL_DIMENSIONS;
  readonly thresholds: EmbedderThresholds;
  readonly weights: Readonly<GloveWeights>;
  readonly sifA: number;

  private loaded: GloveTable | undefined;
  private readonly tableSource: string | URL | undefined;
  private readonly semanticScale: number;
  private readonly lexicalScale: number;
  // Scratch buffers reused by every call: the hot path allocates only the result and the tokens.
  private readonly semantic = new Float64Array(SEMANTIC_DIMENSIONS);
  private readonly lexical = new Float64Array(LEXICAL_DIMENSIONS);
  private rows = new Int32Array(64);
  private featureKeys = new Float64Array(128);
  private featureWeights = new Float64Array(128);
  private readonly words = new Map<string, Word>();

  constructor(options: GloveEmbedderOptions = {}) {
    const semantic = options.weights?.semantic ?? DEFAULT_GLOVE_WEIGHTS.semantic;
    const lexical = options.weights?.lexical ?? DEFAULT_GLOVE_WEIGHTS.lexical;
    if (!(semantic >= 0 && lexical >= 0 && semantic + lexical > 0) || !Number.isFinite(semantic + lexical)) {
      throw new InputError(
        `GloveEmbedder weights must be finite, non-negative and not both zero (got semantic=${semantic}, lexical=${lexical}).`,
      );
    }
    const sifA = options.sifA ?? DEFAULT_SIF_A;
    if (!(sifA > 0 && Number.isFinite(sifA)))
      throw new InputError(`GloveEmbedder sifA must be a positive number (got ${sifA}).`);

    this.weights = Object.freeze({
      semantic: semantic / (semantic + lexical),
      lexical: lexical / (semantic + lexical),
    });
    this.sifA = sifA;
    this.semanticScale = Math.sqrt(this.weights.semantic);
    this.lexicalScale = Math.sqrt(this.weights.lexical);
    this.thresholds = Object.freeze({ ...DEFAULT_GLOVE_THRESHOLDS, ...options.thresholds });
    for (const [name, value] of Object.entries(this.thresholds)) {
      if (!(value >= -1 && value <= 1))
        throw new InputError(`GloveEmbedder threshold ${name} must be a cosine in [-1, 1] (got ${value}).`);
    }
    this.id = embedderId(GLOVE_EMBEDDER_ID, this.weights, sifA);
    this.supersedes = EARLIER_IDS.map((earlier) => embedderId(earlier, this.weights, sifA));

    if (typeof options.table === 'object' && !(options.table instanceof URL)) this.loaded = checkTable(options.table);
    else this.tableSource = options.table;
  }

  /** The word table, loaded on first use (once per process for the packaged asset). */
  get table(): GloveTable {
    this.loaded ??= checkTable(loadGloveTable(this.tableSource));
    return this.loaded;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedSync(text));
  }

  embedSync(text: string): Float32Array {
    const table = this.table;
    const tokens = tokenize(text, table);
    if (tokens.length > MAX_TOKENS) tokens.length = MAX_TOKENS;
    if (tokens.length > this.rows.length) this.rows = new Int32Array(2 ** Math.ceil(Math.log2(tokens.length)));
    const rows = this.rows;
    const words: Word[] = new Array(tokens.length);
    for (let i = 0; i < tokens.length; i++) {
      words[i] = this.word(tokens[i], table);
      rows[i] = words[i].row;
    }

    const out = new Float32Array(this.dimensions);
    const semanticNorm = this.semanticPart(rows, tokens.length, table);
    const lexicalNorm = this.lexicalPart(words, rows, table);

    // Each present part is unit length times sqrt(weight); a missing part leaves its weight unused, so
    // rescale to keep the whole vector unit length.
    const semanticWeight = semanticNorm > MIN_NORM ? this.semanticScale : 0;
    const lexicalWeight = lexicalNorm > MIN_NORM ? this.lexicalScale : 0;
    const total = Math.hypot(semanticWeight, lexicalWeight);
    if (total === 0) return out;
    const s = semanticWeight / total / (semanticNorm || 1);
    const l = lexicalWeight / total / (lexicalNorm || 1);
    for (let d = 0; d < SEMANTIC_DIMENSIONS; d++) out[d] = this.semantic[d] * s;
    for (let d = 0; d < LEXICAL_DIMENSIONS; d++) out[SEMANTIC_DIMENSIONS + d] = this.lexical[d] * l;
    return out;
  }

  /** Fills `this.semantic` and returns its norm (0 when no token is in GloVe). */
  private semanticPart(rows: Int32Array, count: number, table: GloveTable): number {
    const acc = this.semantic;
    acc.fill(0);
    const { scales, ranks, components } = table;
    // Zipf estimate p(w) = 1 / (rank * H_N); SIF weight a / (a + p) = a*rank*H / (a*rank*H + 1).
    const aH = this.sifA * (Math.log(table.sourceSize) + EULER_GAMMA);
    let found = 0;
    for (let i = 0; i < count; i++) {
      const row = rows[i];
      if (row < 0) continue;
      found++;
      const x = aH * ranks[row];
      const weight = (x / (x + 1)) * scales[row];
      const vector = table.row(row);
      for (let d = 0; d < SEMANTIC_DIMENSIONS; d++) acc[d] += weight * vector[d];
    }
    if (found === 0) return 0;
    for (let c = 0; c < components.length; c += SEMANTIC_DIMENSIONS) {
      let projection = 0;
      for (let d = 0; d < SEMANTIC_DIMENSIONS; d++) projection += acc[d] * components[c + d];
      for (let d = 0; d < SEMANTIC_DIMENSIONS; d++) acc[d] -= projection * components[c + d];
    }
    return norm(acc);
  }

  /** Fills `this.lexical` and returns its norm (0 when there are no tokens). */
  private lexicalPart(tokens: readonly Word[], rows: Int32Array, table: GloveTable): number {
    const acc = this.lexical;
    acc.fill(0);
    if (tokens.length === 0) return 0;
    this.reserveFeatures(2 * tokens.length);
    const { featureKeys: keys, featureWeights: weights } = this;
    // Each feature is stored as hash * FEATURE_SLOTS + its position, so one native sort of a typed array
    // groups equal features (for TF) and still finds each one's weight.
    let n = 0;
    const add = (hash: number, weight: number) => {
      keys[n] = hash * FEATURE_SLOTS + n;
      weights[n++] = weight;
    };

    let previous: Word | null = null;
    let previousIdf = 0;
    for (let i = 0; i < tokens.length; i++) {
      const rank = rows[i] < 0 ? table.sourceSize : table.ranks[rows[i]]; // unknown words count as rare
      const idf = Math.log1p(rank / IDF_RANK_SCALE);
      const word = tokens[i];
      add(word.stemHash, idf);
      if (rank <= BIGRAM_STOP_RANK) continue;
      // The bigram's hash is that of "previous-stem stem", continued from the previous stem's own hash.
      if (previous) add(fnv1a(word.stem, fnv1a(' ', previous.stemHash)), BIGRAM_WEIGHT * Math.sqrt(idf * previousIdf));
      previous = word;
      previousIdf = idf;
    }

    const sorted = keys.subarray(0, n).sort();
    for (let i = 0; i < n; ) {
      const hash = Math.floor(sorted[i] / FEATURE_SLOTS);
      const weight = weights[sorted[i] % FEATURE_SLOTS];
      let count = 1;
      while (i + count < n && Math.floor(sorted[i + count] / FEATURE_SLOTS) === hash) count++;
      i += count;
      // Sublinear TF; signed hashing so that colliding features cancel on average instead of piling up.
      const sign = hash & LEXICAL_DIMENSIONS ? -1 : 1;
      acc[hash & (LEXICAL_DIMENSIONS - 1)] += sign * (1 + Math.log(count)) * weight;
    }
    return norm(acc);
  }

  /** A token's table row and light stem, remembered: goals repeat a few thousand words. */
  private word(token: string, table: GloveTable): Word {
    let w = this.words.get(token);
    if (!w) {
      if (this.words.size >= WORD_MEMO_LIMIT) this.words.clear();
      const stem = lightStem(token);
      w = { row: table.rowOf(token), stem, stemHash: fnv1a(stem) };
      this.words.set(token, w);
    }
    return w;
  }

  private reserveFeatures(count: number): void {
    if (count <= this.featureKeys.length) return;
    const size = Math.min(FEATURE_SLOTS, 2 ** Math.ceil(Math.log2(count)));
    this.featureKeys = new Float64Array(size);
    this.featureWeights = new Float64Array(size);
  }
}

export function createGloveEmbedder(options?: GloveEmbedderOptions): GloveEmbedder {
  return new GloveEmbedder(options);
}

function embedderId(base: string, weights: Readonly<GloveWeights>, sifA: number): string {
  // Vectors made with other maths must not be compared with default ones, so the id records the change.
  if (weights.semantic === DEFAULT_GLOVE_WEIGHTS.semantic && sifA === DEFAULT_SIF_A) return base;
  return `${base}(semantic=${+weights.semantic.toFixed(4)},sifA=${sifA})`;
}

function checkTable(table: GloveTable): GloveTable {
  if (table.dims !== SEMANTIC_DIMENSIONS) {
    throw new BackendUnavailableError(
      `The GloVe table has ${table.dims} dimensions; ${GLOVE_EMBEDDER_ID} needs ${SEMANTIC_DIMENSIONS}.`,
    );
  }
  return table;
}

/**
 * Lowercase word tokens, without typed placeholders and single characters (GloVe's list has none, and
 * "a"/"i" are noise). snake_case and camelCase are split; a hyphenated word stays whole when GloVe knows
 * it (e-mail, wi-fi); "don't" becomes "do not"; other clitics ('s, 're, ...) are dropped.
 */
export function tokenize(text: string, table: Pick<GloveTable, 'rowOf' | 'ranks'>): string[] {
  const tokens: string[] = [];
  const push = (word: string) => {
    if (word.length < 2) return;
    const parts =
      word.length >= 2 * MIN_COMPOUND_PART && word.length <= MAX_COMPOUND_LENGTH ? compoundParts(word, table) : null;
    if (parts) tokens.push(parts[0], parts[1]);
    else tokens.push(word);
  };
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(text); match; match = TOKEN.exec(text)) {
    const raw = match[0];
    if (raw.charCodeAt(0) === 60 /* '<' */) continue;
    const lower = raw.toLowerCase();
    if (lower === raw && !JOINER.test(raw)) {
      push(raw); // the common case: a plain lowercase word
      continue;
    }
    if (lower.includes('-') && table.rowOf(lower) >= 0) {
      push(lower);
      continue;
    }
    for (const piece of raw.split('-')) {
      const [word, clitic, ...rest] = piece.split(APOSTROPHE);
      const cliticLower = clitic?.toLowerCase();
      const negated = cliticLower === 't' && /n$/i.test(word);
      const stem = negated ? word.slice(0, -1) : word;
      for (const part of stem.split(CAMEL_BOUNDARY)) push(part.toLowerCase());
      if (negated) push('not');
      else if (cliticLower !== undefined && !CLITICS.has(cliticLower)) push(cliticLower);
      for (const part of rest) push(part.toLowerCase());
    }
  }
  return tokens;
}

/** Shortest part a closed compound is split into, and the rarest word (by rank) a part may be. */
const MIN_COMPOUND_PART = 3;
const MAX_COMPOUND_PART_RANK = 10_000;
/**
 * No longer word is tried as a compound: the longest of GloVe's 10,000 most frequent words has 18 letters
 * ("telecommunications"), so no word over 36 letters is two of them. Trying every split of a long run of letters
 * (a base64 blob, minified text in a goal) cost time in the square of its length: a 40,000-letter word took 12 s.
 */
const MAX_COMPOUND_LENGTH = 40;
/** Words looked up for a split already (most requests repeat their few unknown words). */
const compounds = new Map<string, readonly [string, string] | null>();

/**
 * A closed compound GloVe does not know, as the two common words it is written from: "webserver" is "web server",
 * "healthcheck" "health check", so it shares the meaning and the words of the open spelling. Null for a word
 * GloVe knows, or one no split makes of two words both among the MAX_COMPOUND_PART_RANK most frequent (a name
 * such as "kowalski" stays whole); of several splits, the one whose rarer part is the more frequent.
 */
function compoundParts(word: string, table: Pick<GloveTable, 'rowOf' | 'ranks'>): readonly [string, string] | null {
  const seen = compounds.get(word);
  if (seen !== undefined) return seen;
  let best: readonly [string, string] | null = null;
  let bestRank = MAX_COMPOUND_PART_RANK + 1;
  if (table.rowOf(word) < 0 && /^[a-z]+$/.test(word)) {
    for (let i = MIN_COMPOUND_PART; i <= word.length - MIN_COMPOUND_PART; i++) {
      const a = table.rowOf(word.slice(0, i));
      const b = table.rowOf(word.slice(i));
      if (a < 0 || b < 0) continue;
      const rank = Math.max(table.ranks[a], table.ranks[b]);
      if (rank < bestRank) {
        bestRank = rank;
        best = [word.slice(0, i), word.slice(i)];
      }
    }
  }
  if (compounds.size >= WORD_MEMO_LIMIT) compounds.clear();
  compounds.set(word, best);
  return best;
}

/**
 * A deliberately light stemmer for lexical matching only: strips -ies/-es/-s/-ed/-ing, then a final
 * doubled consonant and a final "e", so order/orders/ordered, ship/shipped/shipping and
 * update/updated/updating each share one feature. Stems are hash keys, never shown.
 */
export function lightStem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(?:ss|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !/[sui]s$/.test(w)) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing') && /[aeiouy]/.test(w.slice(0, -3))) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed') && /[aeiouy]/.test(w.slice(0, -2))) w = w.slice(0, -2);
  if (w.length > 3 && /([b-df-hj-np-tv-z])\1$/.test(w)) w = w.slice(0, -1);
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** 32-bit FNV-1a over UTF-16 code units; `seed` chains several strings without concatenating them. */
function fnv1a(text: string, seed = 0x811c9dc5): number {
  let hash = seed;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function norm(values: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i] * values[i];
  return Math.sqrt(sum);
}
