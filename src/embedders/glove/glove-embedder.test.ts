import { describe, expect, it } from 'vitest';
import {
  DEFAULT_GLOVE_THRESHOLDS,
  DEFAULT_GLOVE_WEIGHTS,
  GLOVE_EMBEDDER_ID,
  GloveEmbedder,
  createGloveEmbedder,
  lightStem,
  tokenize,
} from './glove-embedder.js';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GLOVE_TABLE_URL, loadGloveTable } from './glove-table.js';

const embedder = createGloveEmbedder();
const vec = (text: string) => embedder.embedSync(text);
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i], 0);
const similarity = (a: string, b: string) => cosine(vec(a), vec(b));
const length = (v: Float32Array) => Math.sqrt(cosine(v, v));

describe('glove word table', () => {
  it('loads the packaged asset once per process', () => {
    const table = loadGloveTable();
    expect(table.size).toBe(100_000);
    expect(table.dims).toBe(100);
    expect(table.words[0]).toBe('the');
    expect(table.rowOf('order')).toBeGreaterThan(0);
    expect(table.rowOf('not-a-word-at-all')).toBe(-1);
    expect(table.components.length).toBe(100);
    expect(loadGloveTable()).toBe(table);
  });

  it('stores unit-length word vectors', () => {
    const table = loadGloveTable();
    const row = table.rowOf('chair');
    let sum = 0;
    for (let d = 0; d < table.dims; d++) sum += (table.scales[row] * table.row(row)[d]) ** 2;
    expect(Math.sqrt(sum)).toBeCloseTo(1, 2);
  });

  it('reads each word vector as the file stores it, whichever block it is in', () => {
    const table = loadGloveTable();
    const file = readFileSync(GLOVE_TABLE_URL);
    const vectorsStart = 64 + 8 * table.size + 4 * table.components.length;
    for (const row of [0, 1, 63, 64, 50_000, table.size - 1]) {
      const stored = new Int8Array(file.buffer, file.byteOffset + vectorsStart + row * table.dims, table.dims);
      expect(Array.from(table.row(row))).toEqual(Array.from(stored));
    }
    expect(() => table.row(table.size)).toThrow(RangeError);
  });

  it('says so when its file is cut short or rewritten after it was opened', () => {
    const dir = mkdtempSync(join(tmpdir(), 'glove-'));
    try {
      const copy = join(dir, 'glove.bin');
      copyFileSync(GLOVE_TABLE_URL, copy);
      const table = loadGloveTable(copy);
      const first = Array.from(table.row(0));
      truncateSync(copy, 1_000_000);
      expect(() => table.row(90_000)).toThrow(/not a usable GloVe word table \(it was changed on disk after/);
      expect(Array.from(table.row(0))).toEqual(first);
      // Rewritten in place with the same length (an upgrade): refused too, not mixed with what was read.
      const rewritten = join(dir, 'rewritten.bin');
      copyFileSync(GLOVE_TABLE_URL, rewritten);
      const other = loadGloveTable(rewritten);
      other.row(0);
      utimesSync(rewritten, new Date(), new Date(Date.now() + 5_000));
      expect(() => other.row(90_000)).toThrow(/changed on disk after this process opened it/);
      expect(() => loadGloveTable(join(dir, 'other.bin'))).toThrow(/npm run build:embeddings/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says how to rebuild a missing table', () => {
    expect(() => loadGloveTable('/nonexistent/glove.bin')).toThrow(/npm run build:embeddings/);
  });
});

describe('GloveEmbedder', () => {
  it('has a stable id, dimensions and default thresholds', () => {
    expect(embedder.id).toBe(GLOVE_EMBEDDER_ID);
    expect(embedder.id).toBe('glove-sif-lex@4');
    expect(embedder.supersedes).toEqual(['glove-sif-lex@1', 'glove-sif-lex@2', 'glove-sif-lex@3']);
    expect(embedder.dimensions).toBe(356);
    expect(vec('cancel my order')).toHaveLength(356);
    expect(embedder.thresholds).toEqual(DEFAULT_GLOVE_THRESHOLDS);
    expect(embedder.weights).toEqual(DEFAULT_GLOVE_WEIGHTS);
  });

  it('returns unit-length, deterministic vectors', async () => {
    const text = 'I want to exchange the office chair I bought last week';
    const a = vec(text);
    expect(length(a)).toBeCloseTo(1, 5);
    expect(Array.from(new GloveEmbedder().embedSync(text))).toEqual(Array.from(a));
    const [b] = await embedder.embed([text]);
    expect(Array.from(b)).toEqual(Array.from(a));
  });

  it('gives cosine 1 for the same text', () => {
    expect(similarity('update my shipping address', 'update my shipping address')).toBeCloseTo(1, 5);
  });

  it('embeds a batch in order', async () => {
    const texts = ['cancel my order', 'my phone shows no service', ''];
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(3);
    vectors.forEach((v, i) => {
      expect(Array.from(v)).toEqual(Array.from(vec(texts[i])));
    });
  });

  it('scores paraphrases above unrelated sentences', () => {
    const paraphrase = similarity('cancel my order', 'I want to cancel the order I placed');
    const unrelated = similarity('cancel my order', 'write a haiku about autumn');
    expect(paraphrase).toBeGreaterThan(unrelated);
    expect(paraphrase).toBeGreaterThan(embedder.thresholds.recall);
    expect(unrelated).toBeLessThan(embedder.thresholds.recall);
  });

  it('relates goals that share a task rather than words', () => {
    const goal = 'exchange the office chair for a new one';
    expect(similarity(goal, 'exchange an item in a delivered order')).toBeGreaterThan(
      similarity(goal, 'my phone shows no service'),
    );
    expect(similarity('return the headphones', 'I would like a refund for the headphones I bought')).toBeGreaterThan(
      similarity('return the headphones', 'update my shipping address'),
    );
  });

  it('splits identifiers that are not English words', () => {
    expect(similarity('get_user_details', 'get user details')).toBeGreaterThan(0.99);
    expect(similarity('getUserDetails', 'get user details')).toBeGreaterThan(0.99);
    expect(similarity('call get_user_details first', 'look up the user details')).toBeGreaterThan(
      similarity('call get_user_details first', 'book a flight to Seattle'),
    );
  });

  it('matches inflected forms lexically', () => {
    expect(lightStem('orders')).toBe(lightStem('ordered'));
    expect(lightStem('shipping')).toBe(lightStem('shipped'));
    expect(lightStem('cancelled')).toBe(lightStem('cancel'));
    expect(lightStem('updating')).toBe(lightStem('update'));
  });

  it("reads a file path as the file's name: directories and code extensions, in any coding request, relate nothing", () => {
    const same = (a: string, b: string) => expect(similarity(a, b)).toBeCloseTo(1, 5);
    same('what does src/parse.ts do?', 'what does parse do?');
    same('open ./packages/core/lib/config.yaml', 'open config');
    same('edit ~/.config/app/settings.json and package.json', 'edit settings and package');
    // A data file's extension says what the task handles; a web address is kept as written.
    same('remove duplicate rows from exports/customers.csv', 'remove duplicate rows from customers csv');
    expect(similarity('read https://example.com/docs/api.md', 'read api')).toBeLessThan(0.9);
    // Two coding requests that share only their paths are not alike; two that share their task are.
    const lint = 'the linter fails on src/totals.ts, please fix';
    expect(similarity('what does src/parse.ts do? just explain, no changes', lint)).toBeLessThan(0.4);
    expect(similarity('the linter complains about unused imports, fix it', lint)).toBeGreaterThan(0.4);
  });

  it('ignores typed placeholders', () => {
    expect(Array.from(vec('order <id>'))).toEqual(Array.from(vec('order <id> <num>')));
    expect(Array.from(vec('refund <money> to <email> for order <id>'))).toEqual(Array.from(vec('refund to for order')));
    const table = loadGloveTable();
    expect(tokenize('<id> <num> <email> <date> <str> <phone> <url> <money>', table)).toEqual([]);
    // The ids were replaced upstream, so two sessions about different orders embed the same.
    expect(similarity('status of order <id>', 'status of order <id>')).toBeCloseTo(1, 5);
  });

  it('gives an all-zero vector, not NaN, for text with nothing to embed', async () => {
    for (const text of ['', '   ', '?!.,', '<id> <num>', 'a i']) {
      const v = vec(text);
      expect(v).toHaveLength(embedder.dimensions);
      expect(v.every((x) => x === 0)).toBe(true);
    }
    const [v] = await embedder.embed(['']);
    expect(v.every((x) => x === 0)).toBe(true);
  });

  it('still embeds words GloVe does not know, through the lexical part', () => {
    const v = vec('kubectlz frobnicatorx');
    expect(v.every(Number.isFinite)).toBe(true);
    expect(length(v)).toBeCloseTo(1, 5);
    expect(similarity('kubectlz frobnicatorx', 'run kubectlz')).toBeGreaterThan(0);
  });

  it('keeps known hyphenated words whole and expands negations', () => {
    const table = loadGloveTable();
    expect(tokenize("I don't get e-mail on the Wi-Fi", table)).toEqual([
      'do',
      'not',
      'get',
      'e-mail',
      'on',
      'the',
      'wi-fi',
    ]);
  });

  it('reads a closed compound GloVe lacks as the two common words it is made of, and leaves names and typos whole', () => {
    const table = loadGloveTable();
    expect(tokenize('restart the webserver after the healthcheck', table)).toEqual([
      'restart',
      'the',
      'web',
      'server',
      'after',
      'the',
      'health',
      'check',
    ]);
    // A place name and a typo are not split into rare pieces ("river mist", "con fig").
    expect(tokenize('rivermist config occuring', table)).toEqual(['rivermist', 'config', 'occuring']);
    // Words GloVe knows stay whole, however they could be cut.
    expect(tokenize('password database', table)).toEqual(['password', 'database']);
    // So a request written with the compound meets a skill learned from the open spelling.
    expect(similarity('the webserver stopped, start it again', 'the web server went down, restart it')).toBeGreaterThan(
      similarity('the kubectlz stopped, start it again', 'the web server went down, restart it') + 0.1,
    );
    // The longest compound of two frequent words is split; a longer run of letters (a blob pasted into a goal) is
    // one token, read in a time that grows with its length (every split of a 200,000-letter word took minutes).
    expect(tokenize('telecommunicationstelecommunications', table)).toEqual([
      'telecommunications',
      'telecommunications',
    ]);
    const blob = 'ab'.repeat(100_000);
    expect(tokenize(`decode ${blob} please`, table)).toEqual(['decode', blob, 'please']);
  });

  it('keeps the words of every script whole: a Devanagari vowel sign or an Arabic vowel is part of its word', () => {
    const table = loadGloveTable();
    // Hindi was cut at each vowel sign: "मौसम" (weather) read as "सम", "ईमेल" (e-mail) as "ईम".
    expect(tokenize('दिल्ली का मौसम ईमेल कर दो', table)).toEqual(['दिल्ली', 'का', 'मौसम', 'ईमेल', 'कर', 'दो']);
    expect(tokenize('ألغِ الطلب', table)).toEqual(['ألغِ', 'الطلب']);
    // One spelling of an accented letter: ü written as u and a combining mark is the same word.
    expect(tokenize('Größe prüfen'.normalize('NFD'), table)).toEqual(tokenize('Größe prüfen', table));
  });

  it('reads Chinese, Japanese and Korean as character pairs, without the particles every request shares', () => {
    const table = loadGloveTable();
    // Chinese: the pairs of "取消订单" (cancel order), not of "请帮我" (please help me); an id stays a word.
    expect(tokenize('请帮我取消订单', table)).toEqual(['取消', '消订', '订单']);
    // Japanese: katakana and kanji runs, not the hiragana between them.
    expect(tokenize('パスワードを忘れてしまいました', table)).toEqual(['パス', 'スワ', 'ワー', 'ード', '忘']);
    // Korean: the pairs of each word, a lone syllable (a particle) left out.
    expect(tokenize('주문 <id>을 취소해', table)).toEqual(['주문', '취소', '소해']);
    // Two wordings of one request share their words' pairs; a sentence was one word each, sharing nothing.
    expect(similarity('订单不要了，请帮我取消。', '请帮我取消订单')).toBeGreaterThan(
      similarity('给我讲一个关于熊猫的笑话。', '请帮我取消订单') + 0.2,
    );
  });

  it('drops the function words of a German, French, Spanish or Portuguese text, and reads it by its words alone', () => {
    const table = loadGloveTable();
    expect(tokenize('¿Cuál es la capital de Australia?', table)).toEqual(['capital', 'australia']);
    expect(tokenize('Ich möchte die Größe prüfen, bitte', table)).toEqual(['größe', 'prüfen']);
    // Nor is a French word cut into English ones: "transmets" is no "trans mets".
    expect(tokenize('Transmets les prévisions à mon équipe', table)).toEqual(['transmets', 'prévisions', 'équipe']);
    expect(tokenize('transmets', table)).toEqual(['trans', 'mets']);
    // An English request keeps every word, a name in Spanish too.
    expect(tokenize('Book a table at La Casa del Sol', table)).toEqual([
      'book',
      'table',
      'at',
      'la',
      'casa',
      'del',
      'sol',
    ]);
    // What GloVe knows of Spanish words are names and false friends: such a text has no semantic part.
    const spanish = vec('Escribe un poema corto sobre el mar.');
    expect(spanish.slice(0, 100).every((x) => x === 0)).toBe(true);
    expect(length(spanish)).toBeCloseTo(1, 5);
    // Its inflected forms meet through their trigrams.
    expect(similarity('Die Bestellung soll storniert werden', 'Bitte storniere meine Bestellung')).toBeGreaterThan(
      similarity('Die Bestellung soll verschickt werden', 'Bitte storniere meine Bestellung'),
    );
  });

  it('holds a request compared by its words alone to a lower recall threshold, an English one to its own', () => {
    expect(embedder.recallThreshold(vec('请帮我取消订单'), 0.4)).toEqual({ threshold: 0.27, wordsOnly: true });
    expect(embedder.recallThreshold(vec('Anula mi pedido, por favor'), 0.4).threshold).toBeCloseTo(0.27, 10);
    const english = embedder.recallThreshold(vec('Please cancel my pending order'), 0.4);
    expect(english.wordsOnly).toBe(false);
    expect(english.threshold).toBe(0.4);
    // A configured threshold scales; a look for the nearest skill (threshold -1) is left as it is.
    expect(embedder.recallThreshold(vec('请帮我取消订单'), 0.6).threshold).toBeCloseTo(0.405, 10);
    expect(embedder.recallThreshold(vec('请帮我取消订单'), -1).threshold).toBe(-1);
  });

  it('mixes the parts by the configured weights', () => {
    const lexicalOnly = new GloveEmbedder({ weights: { semantic: 0, lexical: 1 } });
    const semanticOnly = new GloveEmbedder({ weights: { semantic: 1, lexical: 0 } });
    const half = new GloveEmbedder({ weights: { semantic: 1, lexical: 1 } });
    const a = 'cancel my order';
    const b = 'please cancel the purchase';
    const sim = (e: GloveEmbedder) => cosine(e.embedSync(a), e.embedSync(b));
    expect(sim(half)).toBeCloseTo(0.5 * sim(semanticOnly) + 0.5 * sim(lexicalOnly), 5);
    expect(half.weights).toEqual({ semantic: 0.5, lexical: 0.5 });
  });

  it('changes its id when the maths change, not when thresholds do', () => {
    expect(new GloveEmbedder({ weights: { semantic: 0.5, lexical: 0.5 } }).id).not.toBe(GLOVE_EMBEDDER_ID);
    expect(new GloveEmbedder({ sifA: 1e-4 }).id).not.toBe(GLOVE_EMBEDDER_ID);
    const custom = new GloveEmbedder({ thresholds: { recall: 0.6 } });
    expect(custom.id).toBe(GLOVE_EMBEDDER_ID);
    expect(custom.thresholds).toEqual({ ...DEFAULT_GLOVE_THRESHOLDS, recall: 0.6 });
  });

  it('rejects invalid options with a clear message', () => {
    expect(() => new GloveEmbedder({ weights: { semantic: -1 } })).toThrow(/weights/);
    expect(() => new GloveEmbedder({ weights: { semantic: 0, lexical: 0 } })).toThrow(/weights/);
    expect(() => new GloveEmbedder({ sifA: 0 })).toThrow(/sifA/);
    expect(() => new GloveEmbedder({ thresholds: { cluster: 2 } })).toThrow(/cluster/);
  });
});
