// Dev tool: similarity of recall candidates for in-domain goals (same family or not) and unrelated goals.
// Learns from one split and queries with goals of the same split (calibration never looks at the test split).
import { loadEvalFile, selectSplit } from '../dist/eval/dataset.js';
import { openMemory } from '../dist/index.js';
import { UNRELATED_GOALS } from '../dist/eval/unrelated-goals.js';

const [file, part = 'tune'] = process.argv.slice(2);
const records = selectSplit(loadEvalFile(file, { label: 'meta.family' }).sessions, part);
const fam = new Map(records.map((r) => [r.session.id, r.kind]));
const memory = await openMemory({
  db: ':memory:',
  config: { synthesis: { cooldownMs: 0 }, thresholds: { recall: -1 } },
  logLevel: 'error',
});
await memory.ingest(records.map((r) => r.session));
await memory.synthesize();
const skills = await memory.skills.list();
const skillFam = new Map(
  skills.map((s) => {
    const c = {};
    for (const id of s.sourceSessions) c[fam.get(id)] = (c[fam.get(id)] ?? 0) + 1;
    return [s.id, Object.entries(c).sort((a, b) => b[1] - a[1])[0][0]];
  }),
);
const same = [],
  other = [],
  unrelated = [];
for (const r of records) {
  for (const goal of [r.session.goal, r.firstUserMessage].filter(Boolean)) {
    const [top] = await memory.recall(goal, { topK: 1 });
    if (!top) continue;
    (skillFam.get(top.id) === r.kind ? same : other).push(top.similarity);
  }
}
for (const g of UNRELATED_GOALS) {
  const [top] = await memory.recall(g, { topK: 1 });
  if (top) unrelated.push(top.similarity);
}
const q = (a, p) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length ? s[Math.floor(p * (s.length - 1))].toFixed(3) : '-';
};
for (const [n, a] of [
  ['same-family', same],
  ['other-family', other],
  ['unrelated', unrelated],
])
  console.log(n.padEnd(13), 'n', a.length, 'p10', q(a, 0.1), 'p50', q(a, 0.5), 'p90', q(a, 0.9), 'max', q(a, 1));
await memory.close();
