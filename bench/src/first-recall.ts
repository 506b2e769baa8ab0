// Bench-only child process: opens a memory, times its first recall (the recall index loaded from its file, or
// rebuilt when there is none), then holds it for more recalls and reports the process's peak memory.
//   node bench/build/bench/src/first-recall.js <db> '<json goals>' [<json config>]
// Prints one JSON line: { openMs, embedderWarmMs, firstRecallMs, firstRecallCpuMs, rssMB, maxRssMB }.
// The embedder is warmed first (its word table loads on first use, whatever the skill count), so
// firstRecallMs is what the skill count costs: index file load and check, changes since, search, hits read.

import { openMemory } from '#dist/memory.js';

const [db, goalsJson, configJson] = process.argv.slice(2);
const goals = JSON.parse(goalsJson) as string[];
const start = performance.now();
const memory = await openMemory({ db, logLevel: 'silent', config: configJson ? JSON.parse(configJson) : {} });
const openMs = performance.now() - start;
let t = performance.now();
memory.embedder.embedSync?.('warm up the embedder');
const embedderWarmMs = performance.now() - t;
t = performance.now();
const cpu = process.cpuUsage();
await memory.recall(goals[0], { record: false });
const firstRecallMs = performance.now() - t;
// CPU time of this process for the same step: what it costs when the machine's other processes do not compete.
const used = process.cpuUsage(cpu);
const firstRecallCpuMs = (used.user + used.system) / 1000;
for (const goal of goals) await memory.recall(goal, { record: false });
const rssMB = process.memoryUsage().rss / 1e6;
const maxRssMB = (process.resourceUsage().maxRSS * 1024) / 1e6;
await memory.close();
console.log(JSON.stringify({ openMs, embedderWarmMs, firstRecallMs, firstRecallCpuMs, rssMB, maxRssMB }));
