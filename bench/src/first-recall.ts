// Bench-only child process: opens a memory, times its first recall (the recall index loaded from its file, or
// rebuilt when there is none), then holds it for more recalls and reports the process's peak memory.
//   node bench/build/bench/src/first-recall.js <db> '<json goals>' [<json config>]
// Prints one JSON line: { openMs, embedderWarmMs, firstRecallMs, firstRecallCpuMs, rssMB, maxRssMB, rssFileMB,
// rssAnonMB, inheritedMaxRssMB }.
// maxRssMB is this process's own high-water mark (VmHWM of /proc/self/status: it starts afresh with the new
// address space at exec). getrusage's maxRSS (inheritedMaxRssMB) is not: Linux carries the high-water mark of
// the address space exec replaced, and a child spawned by fork+exec starts as a copy of its parent, so it
// reports at least the RSS the bench process had when it spawned the child (1 GB and more at 100k skills).
// The embedder is warmed first (its word table loads on first use, whatever the skill count), so
// firstRecallMs is what the skill count costs: index file load and check, changes since, search, hits read.

import { readFileSync } from 'node:fs';
import { openMemory } from '#dist/app/open-memory.js';

const [db, goalsJson, configJson] = process.argv.slice(2);
const goals = JSON.parse(goalsJson) as string[];
const start = performance.now();
const memory = await openMemory({ db, logLevel: 'silent', config: configJson ? JSON.parse(configJson) : {} });
const openMs = performance.now() - start;
let t = performance.now();
memory.parts.embedder.embedSync?.('warm up the embedder');
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
const inheritedMaxRssMB = (process.resourceUsage().maxRSS * 1024) / 1e6;
const status = procStatus();
// RssFile: pages of mapped files (the HNSW graph, code), shared with the page cache; RssAnon: the process's own.
const maxRssMB = status.VmHWM ?? inheritedMaxRssMB;
await memory.close();
console.log(
  JSON.stringify({
    openMs,
    embedderWarmMs,
    firstRecallMs,
    firstRecallCpuMs,
    rssMB,
    maxRssMB,
    rssFileMB: status.RssFile ?? null,
    rssAnonMB: status.RssAnon ?? null,
    inheritedMaxRssMB,
  }),
);

/** The kB fields of /proc/self/status, in MB (empty where there is no /proc). */
function procStatus(): Record<string, number> {
  const out: Record<string, number> = {};
  try {
    for (const m of readFileSync('/proc/self/status', 'utf8').matchAll(/^(\w+):\s+(\d+) kB$/gm))
      out[m[1]] = (Number(m[2]) * 1024) / 1e6;
  } catch {
    // Not Linux: getrusage's figure stands.
  }
  return out;
}
