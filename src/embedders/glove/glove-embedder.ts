import type { Embedder, EmbedderThresholds } from '../embedder.js';
import { loadGloveTable, type GloveTable } from './glove-table.js';
import { BackendUnavailableError } from '../../errors/backend-unavailable-error.js';
import { InputError } from '../../errors/input-error.js';
import { functionWordsOf } from '../../domain/function-words.js';

/**
 * The embedded default embedder: no network, no download. A sentence vector is the concatenation of
 *  - a semantic part: SIF-weighted average of GloVe word vectors with the common component removed
 *    (Arora et al., "A simple but tough-to-beat baseline for sentence embeddings", 2017), and
 *  - a lexical part: signed feature hashing of lightly stemmed unigrams and content-word bigrams,
 *    sublinear TF times an IDF estimated from the GloVe frequency rank.
 * Both parts are unit length and scaled by sqrt(weight), so for two texts that both have both parts
 * cosine = semantic * cos(semantic parts) + lexical * cos(lexical parts). When a text has only one part
 * (e.g. every word is outside GloVe), the vector is renormalised so it stays unit length. A text in another
 * language has no semantic part (GloVe's vectors are of English words): it is compared by its words, their
 * character trigrams and, for Chinese, Japanese and Korean, character pairs, and held to a lower recall threshold
 * (recallThreshold).
 */

export const GLOVE_EMBEDDER_ID = 'glove-sif-lex@4';
/**
 * Ids of earlier versions of this maths, whose vectors a pass replaces on its own (see Embedder.supersedes):
 * @1 kept closed compounds GloVe does not know ("webserver") whole; @2 read a Chinese or Japanese sentence as one
 * word, cut Hindi words at their vowel signs and gave German, French, Spanish and Portuguese function words and
 * false friends the meaning of English words (a text GloVe knows 7 in 10 words of, as every English request of the
 * bundled traces, embeds as it did); @3 read a file path's directories and a code file's extension as words
 * (src, ts), which made coding requests that share nothing but paths alike.
 */
const EARLIER_IDS = ['glove-sif-lex@1', 'glove-sif-lex@2', 'glove-sif-lex@3'];
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

/**
 * The recall threshold of a request compared by its words alone (a vector without a semantic part), as a share of
 * the recall threshold: 0.27 against 0.4. Calibrated on the tune halves of the tau dev, WorkBench and BFCL traces,
 * embedded with the lexical part only: 0.27 lets through no more of the 60 unrelated goals than 0.4 does with both
 * parts (3 of 60 against 4 for tau, 1 against 1 for WorkBench and BFCL). A request with a part of each is in between,
 * by the weight its semantic part carries.
 */
export const WORDS_ONLY_RECALL_SHARE = 0.27 / 0.4;

export interface GloveEmbedderOptions {
  /** Relative weights of the two parts; normalised to sum to 1. Non-default values change `id`. */
  weights?: Partial<GloveWeights>;
  /** SIF smoothing parameter. Non-default values change `id`. */
  sifA?: number;
  thresholds?: Partial<EmbedderThresholds>;
  /** A loaded table, or the path of the .bin file; defaults to the packaged asset, loaded on first use. */
  table?: GloveTable | string | URL;
}

// A typed placeholder from the normaliser (<id>, <num>, ...), or a word: letters/digits with the marks that belong to
// them (a Devanagari vowel sign, an Arabic vowel), possibly joined by apostrophes or hyphens so that "e-mail" and
// "don't" can be handled whole.
const TOKEN = /<[a-z_]{1,16}>|[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:['’-][\p{L}\p{N}][\p{L}\p{M}\p{N}]*)*/gu;
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
/** The share of a text's words GloVe must know for its semantic part to count fully (less: in proportion). */
const FULL_TRUST_SHARE = 0.7;
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
  /** Hashes of the word's character trigrams (read in a text in another language only; see gramsOf). */
  grams: readonly number[] | null;
}
const MAX_TOKENS = FEATURE_SLOTS / 2;
/** Trigrams read of one word at most (its first ones), and tokens read of a text whose words give trigrams. */
const MAX_GRAMS = 24;
const MAX_GRAM_TOKENS = FEATURE_SLOTS / (2 + MAX_GRAMS);
/**
 * What a word's trigrams weigh together, against the word's own feature: as much (not tuned; on the multilingual
 * fixture 0.5 and 1.4 recall 41 and 44 of its 44 further wordings in one memory, 1 recalls 43).
 */
const GRAM_WEIGHT = 1;

/**
 * Hashes of a word's character trigrams, its start and end marked ("^st", "sto", ..., "rt$"), seeded apart from
 * words; null for a word of fewer than four characters (a Chinese or Korean pair is whole already).
 */
function gramsOf(word: string): readonly number[] | null {
  const chars = [...word];
  if (chars.length < 4) return null;
  const padded = ['^', ...chars, '$'];
  const out: number[] = [];
  for (let i = 0; i + 3 <= padded.length && out.length < MAX_GRAMS; i++)
    out.push(fnv1a(padded[i] + padded[i + 1] + padded[i + 2], GRAM_SEED));
  return out;
}
const GRAM_SEED = 0x9e3779b9;

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

  recallThreshold(query: Float32Array, configured: number): { threshold: number; wordsOnly: boolean } {
    let semantic = 0;
    for (let d = 0; d < SEMANTIC_DIMENSIONS && d < query.length; d++) semantic += query[d] * query[d];
    // A vector with its whole semantic weight is held to the configured threshold exactly (float32 rounding aside).
    const share = this.weights.semantic > 0 ? semantic / this.weights.semantic : 1;
    const full = share > 1 - 1e-6;
    const wordsOnly = semantic === 0;
    // A threshold of 0 or less (a look for the nearest skill, whatever its score) is no calibrated value to scale.
    if (configured <= 0) return { threshold: configured, wordsOnly };
    if (full) return { threshold: configured, wordsOnly };
    return { threshold: configured * (WORDS_ONLY_RECALL_SHARE + (1 - WORDS_ONLY_RECALL_SHARE) * share), wordsOnly };
  }

  embedSync(text: string): Float32Array {
    const table = this.table;
    const { tokens, foreign, grams } = readTokens(text, table);
    if (tokens.length > (grams ? MAX_GRAM_TOKENS : MAX_TOKENS)) tokens.length = grams ? MAX_GRAM_TOKENS : MAX_TOKENS;
    if (tokens.length > this.rows.length) this.rows = new Int32Array(2 ** Math.ceil(Math.log2(tokens.length)));
    const rows = this.rows;
    const words: Word[] = new Array(tokens.length);
    for (let i = 0; i < tokens.length; i++) {
      words[i] = this.word(tokens[i], table);
      rows[i] = words[i].row;
    }

    const out = new Float32Array(this.dimensions);
    // English word vectors say what English words mean. A German, French, Spanish or Portuguese text is compared by
    // its words alone: what GloVe knows of them are names and false friends ("mar", "dame", "lien"). So is a text
    // GloVe knows few words of (a Chinese request that names "Python"), in proportion: the meaning of one word of
    // ten is not the request's. Every English request of the bundled traces has a known share of 0.7 or more.
    let known = 0;
    for (let i = 0; i < tokens.length; i++) if (rows[i] >= 0) known++;
    const trust = foreign || tokens.length === 0 ? 0 : Math.min(1, known / tokens.length / FULL_TRUST_SHARE);
    const semanticNorm = trust > 0 ? this.semanticPart(rows, tokens.length, table) : 0;
    const lexicalNorm = this.lexicalPart(words, rows, table, grams);

    // Each present part is unit length times sqrt(weight); a missing part leaves its weight unused, so
    // rescale to keep the whole vector unit length.
    const semanticWeight = semanticNorm > MIN_NORM ? this.semanticScale * Math.sqrt(trust) : 0;
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
  private lexicalPart(tokens: readonly Word[], rows: Int32Array, table: GloveTable, grams: boolean): number {
    const acc = this.lexical;
    acc.fill(0);
    if (tokens.length === 0) return 0;
    this.reserveFeatures((grams ? 2 + MAX_GRAMS : 2) * tokens.length);
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
      // A word of a text in another language: its trigrams too, weighing together as much as the word, so that its
      // other forms meet it in part (storniere, storniert; базы, базу; الطلب, طلبي).
      if (grams && word.grams) {
        const each = (GRAM_WEIGHT * idf) / Math.sqrt(word.grams.length);
        for (const g of word.grams) add(g, each);
      }
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
      w = { row: table.rowOf(token), stem, stemHash: fnv1a(stem), grams: gramsOf(token) };
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
 * it (e-mail, wi-fi); "don't" becomes "do not"; other clitics ('s, 're, ...) are dropped. Chinese, Japanese and
 * Korean, written without spaces between words (or with particles joined to them), become the character pairs of
 * their runs (cjkTokens). A text in German, French, Spanish or Portuguese loses its function words
 * (functionWordsOf), which GloVe knows as rare English words.
 */
export function tokenize(text: string, table: Pick<GloveTable, 'rowOf' | 'ranks'>): string[] {
  return readTokens(text, table).tokens;
}

/**
 * tokenize(), whether the text is in German, French, Spanish or Portuguese (it had function words dropped), and
 * whether its words are also read by their trigrams (such a text, or one with letters of another script than Latin).
 */
/**
 * A web address, kept as written; else a file path (`src/parse.ts`, `./tests/unit/`, `~/.config/app.yaml`) or a file
 * name (`package.json`, `notes.txt`).
 */
const PATH_OR_URL =
  /\b[a-z][a-z0-9+.-]*:\/\/\S+|(?:~|\.{1,2})?\/?(?:[\w@.-]+\/)+[\w@.-]*|(?<![\w@.-])\.?[\w-]+(?:\.[A-Za-z][A-Za-z0-9]{0,5})+(?![\w@])/g;

/**
 * Extensions that say which language or format a source or configuration file is in, not what a request is about:
 * a coding agent's requests name such files whatever they ask for.
 */
const CODE_EXTENSIONS = new Set(
  (
    'ts tsx mts cts js jsx mjs cjs py pyi rb go rs java kt kts c cc cpp cxx h hpp cs php swift scala sh bash zsh ' +
    'fish ps1 lua pl pm ex exs erl hs ml clj dart vue svelte json jsonc yaml yml toml ini cfg conf lock xml ' +
    'gradle md mdx rst'
  ).split(' '),
);

/**
 * A text with each file path and file name read as the file's own name, with the kind of data it holds: `src/parse.ts`
 * is "parse", `package.json` "package", `exports/customers.csv` "customers csv". Directories (src, lib, tests) and
 * the extensions of source and configuration files (ts, py, json) are in most coding requests whatever they ask for,
 * and rare enough in English to weigh much: "what does src/parse.ts do?" was as near a lint fix "on
 * src/totals.ts" (0.53) as to nothing of it. A data file's extension (csv, pdf, xlsx) says what a task handles. A web
 * address is kept.
 */
const DOT_LETTER = /\.[A-Za-z]/;

function filesByName(text: string): string {
  // A path or an address holds a slash, a file name a dot and a letter: a sentence's full stop is neither.
  if (!text.includes('/') && !DOT_LETTER.test(text)) return text;
  return text.replace(PATH_OR_URL, (m) => {
    if (m.includes('://')) return m;
    const [name = '', ...extensions] = (m.replace(/\/+$/, '').split('/').pop() ?? '').replace(/^\.+/, '').split('.');
    const kept = extensions.filter((e) => !CODE_EXTENSIONS.has(e.toLowerCase()));
    return ` ${[name, ...kept].join(' ')} `;
  });
}

function readTokens(
  text: string,
  table: Pick<GloveTable, 'rowOf' | 'ranks'>,
): { tokens: string[]; foreign: boolean; grams: boolean } {
  const words: string[] = [];
  const push = (word: string) => {
    if (word.length >= 2) words.push(word);
  };
  let ascii = true;
  for (let i = 0; i < text.length && ascii; i++) if (text.charCodeAt(i) > 127) ascii = false;
  // One spelling of each accented letter (a macOS file name or a pasted text may spell ü as u and a combining mark).
  const source = filesByName(ascii ? text : text.normalize('NFC'));
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(source); match; match = TOKEN.exec(source)) {
    const raw = match[0];
    if (raw.charCodeAt(0) === 60 /* '<' */) continue;
    if (!ascii && CJK.test(raw)) {
      cjkTokens(raw, words, push);
      continue;
    }
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
  // A text in another language keeps its words whole: "diesen" is no "die sen", "transmets" no "trans mets".
  const dropped = functionWordsOf(words);
  if (dropped.size) return { tokens: words.filter((w) => !dropped.has(w)), foreign: true, grams: true };
  const tokens: string[] = [];
  for (const word of words) {
    const parts =
      word.length >= 2 * MIN_COMPOUND_PART && word.length <= MAX_COMPOUND_LENGTH ? compoundParts(word, table) : null;
    if (parts) tokens.push(parts[0], parts[1]);
    else tokens.push(word);
  }
  return { tokens, foreign: false, grams: !ascii && OTHER_SCRIPT.test(source) };
}

/** A letter of a script other than Latin. */
const OTHER_SCRIPT = /(?!\p{sc=Latin})\p{L}/u;

/** A word with a Chinese, Japanese or Korean letter. */
const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]/u;

/**
 * Chinese characters that join a request rather than name its task (particles, pronouns, courtesy): a run of Han
 * characters is cut at them, so "请帮我取消订单" gives the pairs of "取消订单" only, not "请帮" and "帮我", which
 * every polite request shares.
 */
const HAN_STOP = new Set([...'的了吗呢吧啊呀我你他她它们您请帮把给是在和也都就很这那个么一']);

type CjkKind = 'han' | 'stop' | 'kana' | 'hira' | 'hangul' | 'other';

function cjkKind(ch: string, previous: CjkKind | null): CjkKind {
  if (/\p{sc=Han}/u.test(ch)) return HAN_STOP.has(ch) ? 'stop' : 'han';
  if (/\p{sc=Katakana}/u.test(ch)) return 'kana';
  if (/\p{sc=Hiragana}/u.test(ch)) return 'hira';
  if (/\p{sc=Hangul}/u.test(ch)) return 'hangul';
  // The prolonged sound mark (ー) belongs to the kana before it.
  if ((ch === '\u30fc' || ch === '\uff70') && (previous === 'kana' || previous === 'hira')) return previous;
  return 'other';
}

/**
 * A word with Chinese, Japanese or Korean letters as character pairs: each run of one script (Han characters, then
 * katakana, ...) gives its overlapping pairs, a run of one character that character. Two requests that share a
 * word share its pairs however the sentence around it is written ("取消订单" and "订单不要了，请帮我取消" share
 * 取消 and 订单). Hiragana, the particles and endings of Japanese, is left out beside Han or katakana; Chinese
 * function characters (HAN_STOP) end a run and are left out. Other letters (an id's, a product's) are words.
 */
function cjkTokens(raw: string, tokens: string[], push: (word: string) => void): void {
  const chars = [...raw];
  const kinds: CjkKind[] = [];
  for (const ch of chars) kinds.push(cjkKind(ch, kinds.length ? kinds[kinds.length - 1] : null));
  const hasContent = kinds.some((k) => k === 'han' || k === 'kana');
  for (let i = 0; i < chars.length; ) {
    const kind = kinds[i];
    let end = i + 1;
    while (end < chars.length && kinds[end] === kind) end++;
    const run = chars.slice(i, end);
    i = end;
    // Letters of other scripts inside the word (an id, a brand) are a word of their own.
    if (kind === 'other') push(run.join('').toLowerCase());
    if (kind === 'other' || kind === 'stop' || (kind === 'hira' && hasContent)) continue;
    // A lone Korean syllable is most often a particle or a word such as 좀 ("please"); a lone Chinese character
    // (送, "send") names a thing or an act.
    if (run.length === 1) {
      if (kind !== 'hangul') tokens.push(run[0]);
    } else for (let k = 0; k + 1 < run.length; k++) tokens.push(run[k] + run[k + 1]);
  }
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
