// Dev tool: how far recall from words can go on a trace file, whatever the engine learns. It groups the training
// successes by their label (meta.family, which the engine never reads: a perfect clustering, one skill per
// kind with every success's goal and first user message) and asks which kind each successful test session's
// words are nearest, with the embedded GloVe embedder and with TF-IDF across kinds, and which kind a naive
// Bayes classifier trained on those texts picks (content words and word pairs, add-0.5 smoothing; of the
// text classifiers tried it did best on tau-retail-extra). No threshold: an upper bound on hit@1 for a memory
// that only has the request's words.
// Usage: npm run build && node scripts/recall-ceiling.mjs --train A.jsonl --test B.jsonl [--split test|tune]
import { parseArgs } from 'node:util';
import { loadEvalFile, otherSplit, selectSplit } from '../dist/eval/dataset.js';
import { GloveEmbedder } from '../dist/embedders/glove/glove-embedder.js';
import { normalizeGoal } from '../dist/domain/normalize-goal.js';
import { contentWords } from '../dist/domain/word-match.js';

const { values } = parseArgs({
  options: { train: { type: 'string' }, test: { type: 'string' }, split: { type: 'string' } },
});
if (!values.train || !values.test) throw new Error('usage: --train A.jsonl --test B.jsonl [--split test|tune]');
const load = (file) => loadEvalFile(file, { label: 'meta.family' }).sessions;
const split = values.split;
const train = selectSplit(load(values.train), split ? otherSplit(split) : 'all').filter(
  (s) => s.session.outcome === 'success',
);
const test = selectSplit(load(values.test), split ?? 'all').filter((s) => s.session.outcome === 'success');

const embedder = new GloveEmbedder();
const embed = (t) => embedder.embedSync(normalizeGoal(t));
const dot = (a, b) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
// The words recall compares (src/domain/word-match.ts): content words, function words dropped, lightly stemmed.
const terms = (t) => [...contentWords(normalizeGoal(t))];
/** Naive Bayes features: the content words, and each pair of adjacent words. */
const features = (t) => {
  const words = normalizeGoal(t)
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((w) => w.length > 1);
  const out = new Set(terms(t));
  for (let i = 0; i + 1 < words.length; i++) out.add(`${words[i]} ${words[i + 1]}`);
  return [...out];
};

/** One prototype per kind: its texts' vectors and a TF-IDF profile. */
function prototypes(textsOf) {
  const kinds = new Map();
  for (const s of train) {
    if (s.kind == null) continue;
    const texts = textsOf(s);
    if (!kinds.has(s.kind)) kinds.set(s.kind, []);
    kinds.get(s.kind).push(...texts);
  }
  const list = [...kinds].map(([kind, texts]) => {
    const vecs = texts.map(embed);
    const mean = new Float32Array(embedder.dimensions);
    for (const v of vecs) for (let i = 0; i < mean.length; i++) mean[i] += v[i];
    const norm = Math.hypot(...mean) || 1;
    const tf = new Map();
    for (const t of texts) for (const w of terms(t)) tf.set(w, (tf.get(w) ?? 0) + 1 / texts.length);
    return { kind, vecs, mean: mean.map((x) => x / norm), tf };
  });
  const df = new Map();
  for (const p of list) for (const w of p.tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const idf = (w) => Math.log((list.length + 1) / ((df.get(w) ?? list.length) + 0.5));
  for (const p of list) {
    p.w = new Map([...p.tf].map(([w, x]) => [w, x * idf(w)]));
    p.norm = Math.hypot(...p.w.values()) || 1;
  }
  // Naive Bayes: how often each feature occurs among a kind's texts.
  const vocabulary = new Set();
  for (const p of list) {
    p.counts = new Map();
    p.total = 0;
    for (const t of kinds.get(p.kind))
      for (const f of features(t)) {
        p.counts.set(f, (p.counts.get(f) ?? 0) + 1);
        p.total++;
        vocabulary.add(f);
      }
  }
  return { list, idf, vocabulary };
}

function score({ list, idf, vocabulary }, text) {
  const seen = features(text).filter((f) => vocabulary.has(f));
  const logLikelihood = (p) =>
    seen.reduce((a, f) => a + Math.log(((p.counts.get(f) ?? 0) + 0.5) / (p.total + 0.5 * vocabulary.size)), 0);
  const v = embed(text);
  const q = terms(text).filter((w) => idf(w) > 0);
  const qn = Math.hypot(...q.map(idf)) || 1;
  const best = (f) =>
    list.reduce((a, p) => (f(p) > a.s ? { s: f(p), kind: p.kind } : a), { s: -Infinity, kind: null }).kind;
  return {
    nearestRequest: best((p) => Math.max(...p.vecs.map((e) => dot(v, e)))),
    kindCentroid: best((p) => dot(v, p.mean)),
    tfidf: best((p) => q.reduce((a, w) => a + idf(w) * (p.w.get(w) ?? 0), 0) / (qn * p.norm)),
    naiveBayes: best(logLikelihood),
  };
}

const rows = [];
const run = (name, protos, textOf) => {
  const queries = test.filter((s) => textOf(s));
  const hits = { nearestRequest: 0, kindCentroid: 0, tfidf: 0, naiveBayes: 0 };
  for (const s of queries) {
    const got = score(protos, textOf(s));
    for (const k of Object.keys(hits)) if (got[k] === s.kind) hits[k]++;
  }
  const r = (k) => (queries.length ? (hits[k] / queries.length).toFixed(3) : '-');
  rows.push(
    `| ${name} | ${queries.length} | ${r('nearestRequest')} | ${r('kindCentroid')} | ${r('tfidf')} | ${r('naiveBayes')} |`,
  );
};
const both = prototypes((s) => [s.session.goal, ...(s.firstUserMessage ? [s.firstUserMessage] : [])]);
run('task statements', both, (s) => s.session.goal);
run('first user messages', both, (s) => s.firstUserMessage);
run(
  'first user messages, learned from them only',
  prototypes((s) => (s.firstUserMessage ? [s.firstUserMessage] : [])),
  (s) => s.firstUserMessage,
);
const kinds = new Set(train.map((s) => s.kind));
const covered = test.filter((s) => kinds.has(s.kind)).length;
console.log(
  `${values.train} -> ${values.test}${split ? ` (${split} half)` : ''}: ${train.length} training successes, ${test.length} queries, ${(covered / Math.max(1, test.length)).toFixed(3)} of them of a kind seen in training\n`,
);
console.log(
  '| query | queries | nearest request (GloVe) | kind centroid (GloVe) | TF-IDF across kinds | naive Bayes (words, pairs) |',
);
console.log('|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
