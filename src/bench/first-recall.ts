// Bench-only child process: opens a memory, times its first recall (the recall index loaded from its file, or
// rebuilt when there is none), then holds it for more recalls and reports the process's peak memory.
//   node dist/bench/first-recall.js <db> '<json goals>' [<json config>]
// Prints one JSON line: { openMs, firstRecallMs, indexSize, rssMB, maxRssMB }.

import { openMemory } from '../memory.js';

const [db, goalsJson, configJson] = process.argv.slice(2);
const goals = JSON.parse(goalsJson) as string[];
const start = performance.now();
const memory = await openMemory({ db, logLevel: 'silent', config: configJson ? JSON.parse(configJson) : {} });
const openMs = performance.now() - start;
let t = performance.now();
await memory.recall(goals[0], { record: false });
const firstRecallMs = performance.now() - t;
for (const goal of goals) await memory.recall(goal, { record: false });
const rssMB = process.memoryUsage().rss / 1e6;
const maxRssMB = (process.resourceUsage().maxRSS * 1024) / 1e6;
await memory.close();
console.log(JSON.stringify({ openMs, firstRecallMs, rssMB, maxRssMB }));
