// Dev tool: how the engine clusters and what it admits on labelled traces (labels used for scoring only).
// Usage: node scripts/cluster-report.mjs FILE.jsonl [configJSON] [--split tune|test|all]
import { rmSync } from 'node:fs';
import { loadEvalFile, selectSplit } from '../dist/eval/dataset.js';
import { openMemory } from '../dist/index.js';

const [file, cfgText, ...rest] = process.argv.slice(2);
const part = rest.includes('--split') ? rest[rest.indexOf('--split') + 1] : 'all';
const config = cfgText ? JSON.parse(cfgText) : {};
const chosen = selectSplit(loadEvalFile(file, { label: 'meta.family' }).sessions, part);
const family = new Map(chosen.map((s) => [s.session.id, s.kind]));
const db = `/tmp/cluster-report-${process.pid}.db`;
const memory = await openMemory({
  db,
  config: { ...config, synthesis: { cooldownMs: 0, ...(config.synthesis ?? {}) } },
  logLevel: 'error',
});
await memory.ingest(chosen.map((s) => s.session));
const report = await memory.synthesize();
const clusters = await memory.synthesis.clusters('default');
let pure = 0,
  total = 0;
const rows = [];
for (const c of clusters) {
  const { members } = c;
  const counts = {};
  for (const m of members) counts[family.get(m)] = (counts[family.get(m)] ?? 0) + 1;
  const top = Math.max(...Object.values(counts));
  pure += top;
  total += members.length;
  rows.push({ id: c.id, size: members.length, counts });
}
rows.sort((a, b) => b.size - a.size);
if (process.env.VERBOSE) for (const r of rows) console.log(r.id, r.size, JSON.stringify(r.counts));
const skills = await memory.skills.list();
let skillPure = 0,
  skillTotal = 0;
const fams = new Set();
for (const s of skills) {
  const counts = {};
  for (const id of s.sourceSessions) counts[family.get(id)] = (counts[family.get(id)] ?? 0) + 1;
  const top = Object.entries(counts).sort((a, b) => b[1] - a[1])[0];
  fams.add(top[0]);
  skillPure += top[1];
  skillTotal += s.sourceSessions.length;
  console.log(`skill ${s.name}: ${s.successCount}/${s.attemptCount} ${JSON.stringify(counts)}`);
}
const reasons = {};
for (const s of report.skipped) {
  const k = s.reason.replace(/[0-9.]+/g, 'N');
  reasons[k] = (reasons[k] ?? 0) + 1;
}
console.log(
  JSON.stringify(
    {
      part,
      sessions: chosen.length,
      clusters: clusters.length,
      clusterPurity: +(pure / total).toFixed(3),
      skills: skills.length,
      skillSourcePurity: +(skillPure / Math.max(1, skillTotal)).toFixed(3),
      familiesWithSkill: fams.size,
      skipped: reasons,
    },
    null,
    1,
  ),
);
await memory.close();
rmSync(db, { force: true });
rmSync(`${db}-wal`, { force: true });
rmSync(`${db}-shm`, { force: true });
