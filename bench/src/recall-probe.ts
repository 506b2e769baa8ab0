// Bench-only probe of recall at one skill count, for profiling and for before/after comparisons of one change
// (the full bench takes minutes). Writes the skills once (kept at <db> for later runs), then times recalls
// exactly as the bench's recall table does.
//   node bench/build/bench/src/recall-probe.js <db> <skills> [<queries>] [--no-record] [--tools] [--exemplars=N]
// --tools: each recall names the tools of a retail agent (every tool tau's retail sessions called), so only the
// skills it can follow are served (`recall(goal, { tools })`).
// --exemplars=N: a new <db> gets up to N exemplars a skill, as the bench's multi-vector table (3 there).
// Prints one JSON line: { skills, queries, p50Ms, p99Ms, meanMs, firstRecallMs, rssMB, maxRssMB, memory }.

import { existsSync, readFileSync } from 'node:fs';
import { openMemory } from '#dist/app/open-memory.js';
import { writeBenchSkills } from './bulk-skills.js';
import { nowMs, percentile } from './monitor.js';
import { defaultSourceFiles, syntheticGoals } from './synthetic.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const record = !process.argv.includes('--no-record');
const named = process.argv.includes('--tools');
const exemplars = Number(process.argv.find((a) => a.startsWith('--exemplars='))?.slice('--exemplars='.length) ?? 0);
const [db, skillsArg, queriesArg] = args;
const skills = Number(skillsArg);
const queryCount = Number(queriesArg ?? 2000);
const seed = 42;
const traces = defaultSourceFiles();
const fresh = !existsSync(db);
const memory = await openMemory({ db, logLevel: 'silent' });
if (fresh) await writeBenchSkills(memory, skills, { seed: seed + 1, traces, exemplars });
const queries = syntheticGoals(queryCount, seed + 7, traces);
const retailTools = named
  ? [
      ...new Set(
        readFileSync(traces[0], 'utf8')
          .split('\n')
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l) as { meta?: { domain?: string }; steps: { tool: string }[] })
          .filter((r) => r.meta?.domain === 'retail')
          .flatMap((r) => r.steps.map((c) => c.tool)),
      ),
    ]
  : undefined;
const opts = { record, tools: retailTools };
let t = nowMs();
await memory.recall(queries[0], opts);
const firstRecallMs = nowMs() - t;
for (let i = 0; i < 200; i++) await memory.recall(queries[i % queries.length], opts);
const latency: number[] = [];
for (const q of queries) {
  t = nowMs();
  await memory.recall(q, opts);
  latency.push(nowMs() - t);
}
const usage = process.memoryUsage();
const mb = (b: number) => Math.round(b / 1e5) / 10;
await memory.close();
console.log(
  JSON.stringify({
    skills,
    queries: queries.length,
    tools: retailTools?.length ?? null,
    p50Ms: percentile(latency, 50),
    p99Ms: percentile(latency, 99),
    meanMs: latency.reduce((a, b) => a + b, 0) / latency.length,
    firstRecallMs,
    memory: {
      rss: mb(usage.rss),
      heapUsed: mb(usage.heapUsed),
      external: mb(usage.external),
      arrayBuffers: mb(usage.arrayBuffers),
    },
    maxRssMB: mb(process.resourceUsage().maxRSS * 1024),
  }),
);
