// Dev tool: how far recall from words can go on a trace file, whatever the engine learns. It groups the training
// successes by their label (meta.family, which the engine never reads: a perfect clustering, one skill per
// kind with every success's goal and first user message) and asks which kind each successful test session's
// words are nearest, with the embedded GloVe embedder and with TF-IDF across kinds, and which kind a naive
// Bayes classifier trained on those texts picks (content words and word pairs, add-0.5 smoothing; of the
// text classifiers tried it did best on tau-retail-extra). No threshold: an upper bound on hit@1 for a memory
// that only has the request's words.
// It then gives two step-agreement ceilings (LCS F1 against each successful test session's essential calls,
// as the evaluation scores them): one fixed sequence per kind chosen with hindsight (the candidate sequence of the
// kind, from either side, with the best mean F1 on that kind's test sessions), and the same with up to three
// branches per kind on one field of one lookup, resolved by each session's own result (the field and the
// sequence of each branch chosen with hindsight too): what a memory that knows the kind, and reads the lookup
// right, could give. The branch ceiling is given twice: on any field (an id qualifies, so it splits the repeats of
// one task apart and overstates), and on the fields the engine itself counts as categorical.
// Usage: npm run build && node scripts/recall-ceiling.mjs --train A.jsonl --test B.jsonl [--split test|tune]
import { parseArgs } from 'node:util';
import { loadEvalFile, otherSplit, selectSplit } from '../dist/eval/dataset.js';
import { GloveEmbedder } from '../dist/embedders/glove/glove-embedder.js';
import { normalizeGoal } from '../dist/domain/normalize-goal.js';
import { contentWords } from '../dist/domain/word-match.js';
import { resultLeaves } from '../dist/domain/result-values.js';
import { roleOf } from '../dist/domain/step-role.js';
import { essentialSequence } from '../dist/eval/metrics.js';
import { sequenceF1 } from '../dist/domain/sequence.js';
import { categoricalFields } from '../dist/domain/branches.js';

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

// Step-agreement ceilings.
const essential = (s) => essentialSequence(s.session.calls);
const byKind = new Map();
for (const s of [...train, ...test]) {
  if (s.kind == null) continue;
  if (!byKind.has(s.kind)) byKind.set(s.kind, { candidates: new Map(), queries: [] });
  const seq = essential(s);
  if (seq.length) byKind.get(s.kind).candidates.set(seq.join('\u0000'), seq);
}
for (const s of test) if (s.kind != null) byKind.get(s.kind).queries.push(s);
/** The candidate with the best total F1 over these sessions, and that total. */
const bestSequence = (candidates, sessions) => {
  let best = { total: 0, seq: [] };
  for (const seq of candidates) {
    const total = sessions.reduce((a, s) => a + sequenceF1(seq, essential(s)), 0);
    if (total > best.total) best = { total, seq };
  }
  return best;
};
/** Per path, the values a session's last call of `tool` before its first state-changing call showed. */
const decisive = (s, tool) => {
  const calls = s.session.calls;
  const act = calls.findIndex((c) => c.ok && roleOf(c.tool) === 'action');
  const call = [...(act < 0 ? calls : calls.slice(0, act))].reverse().find((c) => c.ok && c.tool === tool);
  const out = new Map();
  for (const l of call ? resultLeaves(call.result) : []) if (l.path && l.value.length <= 30) out.set(l.path, l.value);
  return out;
};
/**
 * The best total over the kind's queries with up to three branches on one field of one lookup (its two most
 * frequent values among the queries, and the rest), each branch's sequence chosen with hindsight; `allowed`
 * says which fields may carry a branch.
 */
const bestBranched = (cands, queries, base, allowed) => {
  let best = base;
  const tools = new Set(
    queries.flatMap((s) => s.session.calls.filter((c) => roleOf(c.tool) === 'lookup').map((c) => c.tool)),
  );
  for (const tool of tools) {
    const seen = queries.map((s) => decisive(s, tool));
    const paths = new Set(seen.flatMap((m) => [...m.keys()]));
    for (const path of paths) {
      if (!allowed(tool, path)) continue;
      const counts = new Map();
      for (const m of seen) if (m.has(path)) counts.set(m.get(path), (counts.get(m.get(path)) ?? 0) + 1);
      const top = [...counts]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 2)
        .map(([v]) => v);
      const cells = new Map();
      queries.forEach((s, i) => {
        const v = seen[i].get(path);
        const cell = top.includes(v) ? v : '\u0000other';
        if (!cells.has(cell)) cells.set(cell, []);
        cells.get(cell).push(s);
      });
      const total = [...cells.values()].reduce((a, cell) => a + bestSequence(cands, cell).total, 0);
      if (total > best) best = total;
    }
  }
  return best;
};
let single = 0;
let branched = 0;
let categorical = 0;
for (const [kind, { candidates, queries }] of byKind) {
  if (queries.length === 0) continue;
  const cands = [...candidates.values()];
  const base = bestSequence(cands, queries).total;
  single += base;
  branched += bestBranched(cands, queries, base, () => true);
  // Only a field the engine could branch on (branches.ts categoricalFields, over the kind's sessions on both
  // sides): few values, each seen in several sessions, and no person's details. That rules out ids and names, but
  // not a price that the repeated trials of one task share, so this figure is still above what a rule that
  // generalises can reach.
  const kindSpans = [...train, ...test]
    .filter((s) => s.kind === kind)
    .map((s) => ({ sessionId: s.session.id, start: 0, end: s.session.calls.length, calls: s.session.calls }));
  categorical += bestBranched(cands, queries, base, categoricalFields(kindSpans));
}
const n = test.filter((s) => s.kind != null).length;
console.log(
  `\nStep agreement ceilings over ${n} labelled successful test sessions: one sequence per kind chosen with hindsight ${(single / Math.max(1, n)).toFixed(3)}; with up to three branches per kind on one lookup field, resolved by each session's own result, ${(branched / Math.max(1, n)).toFixed(3)} (any field, ids included: inflated by the repeats of one task), ${(categorical / Math.max(1, n)).toFixed(3)} on fields the engine counts as categorical (still inflated: repeated trials of one task share a price).`,
);
