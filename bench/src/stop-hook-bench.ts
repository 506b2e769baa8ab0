#!/usr/bin/env node
// The Stop hook (`skillsmith ingest --hook`) on a long Claude Code session: it runs after every reply, so what one
// call costs on a large transcript, after a small append (one more task), is what a long session pays again and
// again. A benchmark, not a test.
//
//   node bench/build/bench/src/stop-hook-bench.js [--sizes 20,180] [--runs 3] [--result-kb 16] [--out DIR]
//                                                 [--cli FILE] [--keep]
//
// For each size (MB), a transcript is made by repeating the turns of a real-shaped Claude Code transcript
// (test/fixtures/capture/claude-code-2.1.jsonl) with new ids, times and tool-use ids, each tool result padded to
// --result-kb (a long session reads files), then ingested once by the hook into a fresh SQLite memory. Then, in
// --runs rounds, one task is appended (the fixture's last task, new ids) and the hook runs:
//
//   read on          the hook as it is: from the first line of the task the last run ended in
//   dangling parent  the same, the appended task's prompt hanging under a line the transcript never had (Claude Code
//                    writes one after a compaction or a resume): past 256 prompts, a read on from the mark while the
//                    filter of the prompt parents before it says the line is none of them (a whole read before)
//   whole            the same with its mark cleared first, so it reads and parses the whole file (what every call did
//                    before)
//
// each a new process: wall time from spawn to exit and the process's peak RSS (VmHWM, bench/src/io-at-exit.ts via stop-hook-run.ts);
// medians reported. Linux only (/proc). Writes stop-hook.json and stop-hook.md to --out (default
// bench/results/tmp). --cli runs another build's dist/surfaces/cli/main.js (the release before: its "read on" case
// is then a whole read too).

import Database from 'better-sqlite3';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type HookSample, padResult as pad, runStopHook } from './stop-hook-run.js';
import { CLI, REPO } from './paths.js';

const FIXTURE = join(REPO, 'test/fixtures/capture/claude-code-2.1.jsonl');
const CASES = ['read on', 'dangling parent', 'whole'] as const;
type Case = (typeof CASES)[number];

const log = (s: string) => process.stderr.write(`${s}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

type Line = Record<string, unknown>;

/**
 * The fixture's lines as the `k`-th repeat: every uuid, message id and tool-use id made new, times moved on by k
 * minutes, the first line's parent the last line of the repeat before, each tool result padded to `resultBytes`.
 */
function repeat(lines: Line[], k: number, parent: string | null, resultBytes: number): { text: string; last: string } {
  const id = (s: unknown) => (typeof s === 'string' ? `${s}-r${k}` : s);
  let last = parent ?? '';
  const out: string[] = [];
  lines.forEach((original, i) => {
    const v = structuredClone(original);
    if (typeof v.uuid === 'string') {
      v.uuid = id(v.uuid);
      // The first line with a uuid hangs under the line before it, as Claude Code writes one: a parent copied from
      // the fixture would name a line no repeat has (the fixture's last task, appended alone, starts with a prompt
      // whose parent is in the task before it), which a read on past 256 prompts takes for a rewind.
      const first = last === (parent ?? '');
      v.parentUuid =
        first && parent
          ? parent
          : typeof v.parentUuid === 'string'
            ? id(v.parentUuid)
            : i === 0 || !last
              ? parent
              : last;
      last = v.uuid as string;
    }
    if (typeof v.timestamp === 'string') v.timestamp = new Date(Date.parse(v.timestamp) + k * 60_000).toISOString();
    for (const key of ['toolUseID', 'parentToolUseID', 'leafUuid'] as const) if (key in v) v[key] = id(v[key]);
    const message = v.message as { id?: unknown; content?: unknown } | undefined;
    if (message && typeof message === 'object') {
      if (typeof message.id === 'string') message.id = id(message.id);
      if (Array.isArray(message.content))
        for (const b of message.content as Record<string, unknown>[]) {
          if (b.type === 'tool_use') b.id = id(b.id);
          if (b.type === 'tool_result') {
            b.tool_use_id = id(b.tool_use_id);
            if (typeof b.content === 'string') b.content = pad(b.content, resultBytes, k);
          }
        }
    }
    out.push(JSON.stringify(v));
  });
  return { text: `${out.join('\n')}\n`, last };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '20,180' },
      runs: { type: 'string', default: '3' },
      'result-kb': { type: 'string', default: '16' },
      out: { type: 'string' },
      cli: { type: 'string' },
      keep: { type: 'boolean' },
    },
  });
  const cli = resolve(values.cli ?? CLI);
  const sizes = values.sizes.split(',').map(Number);
  const runs = Number(values.runs);
  const resultBytes = Number(values['result-kb']) * 1024;
  const outDir = resolve(values.out ?? join(REPO, 'bench/results/tmp'));
  const lines = readFileSync(FIXTURE, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Line);
  // The fixture's last task (from its last prompt on, up to the compaction summary after it): what one more reply
  // appends. (The summary alone, taken for the last task before, is no request: the mark never moved past it.)
  const prompts = lines.flatMap((l, i) => {
    const content = (l.message as Line | undefined)?.content;
    return l.type === 'user' &&
      typeof content === 'string' &&
      !l.isMeta &&
      !l.isCompactSummary &&
      !/^\s*</.test(content)
      ? [i]
      : [];
  });
  const start = prompts[prompts.length - 1] ?? 0;
  const summary = lines.findIndex((l, i) => i > start && l.isCompactSummary === true);
  const lastTask = lines.slice(start, summary < 0 ? undefined : summary);

  const work = mkdtempSync(join(tmpdir(), 'skillsmith-stop-hook-bench-'));
  const home = join(work, 'home');
  mkdirSync(home);
  const rows = [];
  for (const mb of sizes) {
    const transcript = join(work, `transcript-${mb}mb.jsonl`);
    const db = join(work, `memory-${mb}mb.db`);
    writeFileSync(transcript, '');
    let k = 0;
    let last: string | null = null;
    let size = 0;
    while (size < mb * 1e6) {
      const r = repeat(lines, k++, last, resultBytes);
      appendFileSync(transcript, r.text);
      last = r.last;
      size += Buffer.byteLength(r.text);
    }
    log(`${mb} MB: ${k} repeats of the fixture, ${round(size / 1e6)} MB; first ingest`);
    const first = runStopHook(cli, db, transcript, home);
    const samples = new Map<Case, HookSample[]>(CASES.map((c) => [c, []]));
    for (let round_ = 1; round_ <= runs; round_++) {
      for (const c of CASES) {
        const r = repeat(lastTask, k, c === 'dangling parent' ? `gone-${k}` : last, resultBytes);
        k++;
        appendFileSync(transcript, r.text);
        last = r.last;
        if (c === 'whole') {
          const sql = new Database(db);
          sql.prepare("UPDATE state SET value = '' WHERE key LIKE 'transcript:%'").run();
          sql.close();
        }
        samples.get(c)!.push(runStopHook(cli, db, transcript, home));
      }
      log(`${mb} MB: round ${round_}/${runs} done`);
    }
    for (const c of CASES) {
      const xs = samples.get(c)!;
      rows.push({
        sizeMB: round(statSync(transcript).size / 1e6),
        case: c,
        medianMs: round(median(xs.map((s) => s.ms))),
        minMs: round(Math.min(...xs.map((s) => s.ms))),
        maxMs: round(Math.max(...xs.map((s) => s.ms))),
        peakMB: round(median(xs.map((s) => s.peakMB))),
        readOn: xs.filter((s) => s.readFrom).length,
        load1: round(loadavg()[0], 2),
      });
    }
    rows.push({
      sizeMB: round(size / 1e6),
      case: 'first',
      medianMs: round(first.ms),
      minMs: round(first.ms),
      maxMs: round(first.ms),
      peakMB: round(first.peakMB),
      readOn: 0,
      load1: round(loadavg()[0], 2),
    });
    if (!values.keep) rmSync(transcript, { force: true });
  }
  const result = {
    cli,
    runs,
    resultKB: Number(values['result-kb']),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? '', node: process.version },
    rows,
  };
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'stop-hook.json'), `${JSON.stringify(result, null, 2)}\n`);
  const table = [
    `Stop hook (\`ingest --hook\`) after one appended task, median of ${runs} runs, each a new process:`,
    '',
    '| transcript | case | median ms | min-max ms | peak RSS MB | read on | load |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.sizeMB} MB | ${r.case} | ${r.medianMs} | ${r.minMs}-${r.maxMs} | ${r.peakMB} | ${r.readOn} | ${r.load1} |`,
    ),
  ].join('\n');
  writeFileSync(join(outDir, 'stop-hook.md'), `${table}\n`);
  process.stdout.write(`${table}\n`);
  if (values.keep) log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

await main();
