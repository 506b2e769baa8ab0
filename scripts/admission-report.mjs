// Dev tool: what the admission rule admits and rejects on a trace file, against the naive rule (success rate
// over every session of a cluster). Usage: node scripts/admission-report.mjs [FILE.jsonl]
import { readFileSync } from 'node:fs';
import { openMemory } from '../dist/index.js';
const records = readFileSync(process.argv[2] ?? 'test/fixtures/traces/tau-dev.jsonl', 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const memory = await openMemory({ db: ':memory:', logLevel: 'error' });
await memory.ingest(records.map((r) => ({ id: r.session_id, namespace: 'default', goal: r.goal, outcome: r.success ? 'success' : 'failure', reward: r.reward, agentId: null, source: r.source, startedAt: new Date(0).toISOString(), endedAt: null, labels: null, calls: r.steps.map((s, i) => ({ position: i, tool: s.tool, args: s.args ?? {}, result: String(s.result ?? ''), ok: s.ok !== false, error: null, durationMs: null, at: null })) })));
const rep = await memory.synthesize();
const reasons = {};
for (const s of rep.skipped) { const k = s.reason.replace(/[0-9.]+/g, 'N'); reasons[k] = (reasons[k] ?? 0) + 1; }
let naive = 0, eligible = 0;
for (const c of await memory.store.loadClusters('default', memory.embedder.id)) {
  const ss = await memory.store.getSessions('default', await memory.store.clusterMembers('default', c.id));
  const ok = ss.filter((s) => s.outcome === 'success' && s.calls.filter((x) => x.ok && x.tool !== 'think').length >= 3).length;
  if (ok >= 3) { eligible++; if (ss.filter((s) => s.outcome === 'success').length / ss.length >= 0.8) naive++; }
}
console.log(JSON.stringify({ clusters: rep.stats.clusters, admittedSkills: rep.created.length + rep.superseded.length, reinforced: rep.reinforced.length, rejected: reasons, clustersWith3Successes: eligible, naiveRuleWouldAdmit: naive }));
