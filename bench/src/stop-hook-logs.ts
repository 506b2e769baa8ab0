// The Stop hook (`skillsmith ingest --hook`) on a long Codex CLI or Gemini CLI session: what the hook costs after the
// last reply of a session of `tasks` tasks, a new process as the agent starts it. A benchmark, not a test
// (`npm run bench`, phase `stophook`).
//
// The log is made by repeating the turns of a real-shaped fixture (test/fixtures/capture/codex-rollout-0.104.jsonl,
// gemini-cli-session.jsonl) with new call ids, message ids and times, each tool result padded to `resultBytes` (a
// long session reads files): two tasks a repeat (the Gemini repeat also holds a task rewound away). With all tasks but
// the last written, the hook runs once, untimed (the stop before, which leaves its mark). Then, `runs` times, the
// database is put back as that stop left it, the log cut back to its length then (the same file: the mark holds),
// the last task appended, and the hook timed:
//
//   read on   the hook as it is: from the first line of the task the last stop ended in (its mark)
//   whole     the same with the mark cleared first, so the whole log is read and parsed (what every stop did before)
//
// Wall time from spawn to exit, the bytes the process read (rchar: the log, the database and its own modules) and
// its peak RSS (io-at-exit.ts); medians. Linux only (/proc).

import Database from 'better-sqlite3';
import {
  appendFileSync,
  closeSync,
  copyFileSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { type HookSample, padResult as pad, runStopHook } from './stop-hook-run.js';
import { REPO } from './paths.js';

export type StopHookLogFormat = 'codex' | 'gemini';
type Line = Record<string, unknown>;

export interface StopHookLogCase {
  case: 'read on' | 'whole';
  medianMs: number;
  minMs: number;
  maxMs: number;
  /** Median bytes the hook process read, in MB. */
  readMB: number;
  peakMB: number;
  /** How many of the runs read from a mark (`readFrom` in the hook's --json). */
  readOn: number;
}

export interface StopHookLogResult {
  format: StopHookLogFormat;
  tasks: number;
  sizeMB: number;
  runs: number;
  resultKB: number;
  /** The bytes of the mark the stop before left (the state row the hook reads first). */
  markBytes: number;
  /** The built CLI run (another build's with --stop-hook-cli). */
  cli: string;
  cases: StopHookLogCase[];
}

/** A log as repeats of a fixture's turns: its first lines, and the text of each task of repeat k. */
interface Repeats {
  header: string;
  tasksOf(k: number): string[];
}

/** The lines before the first task (a session's metadata), as the log holds them. */
const headerOf = (lines: Line[], end: number | undefined) =>
  `${lines
    .slice(0, end)
    .map((l) => JSON.stringify(l))
    .join('\n')}\n`;

const shift = (at: unknown, k: number) =>
  typeof at === 'string' && !Number.isNaN(Date.parse(at)) ? new Date(Date.parse(at) + k * 60_000).toISOString() : at;

function fixtureLines(name: string): Line[] {
  return readFileSync(join(REPO, 'test/fixtures/capture', name), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Line);
}

/** Codex CLI 0.104: the session meta and instructions, then turns from each `task_started` event on. */
function codexRepeats(resultBytes: number): Repeats {
  const lines = fixtureLines('codex-rollout-0.104.jsonl');
  const starts = lines.flatMap((l, i) => ((l.payload as Line | undefined)?.type === 'task_started' ? [i] : []));
  const turns = starts.map((s, j) => lines.slice(s, starts[j + 1] ?? lines.length));
  const line = (original: Line, k: number) => {
    const v = structuredClone(original);
    v.timestamp = shift(v.timestamp, k);
    const p = v.payload as Line;
    for (const key of ['call_id', 'turn_id'] as const) if (typeof p[key] === 'string') p[key] = `${p[key]}-r${k}`;
    if (p.type === 'function_call_output' && typeof p.output === 'string') p.output = pad(p.output, resultBytes, k);
    return JSON.stringify(v);
  };
  return {
    header: headerOf(lines, starts[0]),
    tasksOf: (k) => turns.map((t) => `${t.map((l) => line(l, k)).join('\n')}\n`),
  };
}

/** Gemini CLI JSONL: the metadata record, then the messages split before each request not rewound away. */
function geminiRepeats(resultBytes: number): Repeats {
  const lines = fixtureLines('gemini-cli-session.jsonl');
  const rewound = new Set(lines.flatMap((l) => (typeof l.$rewindTo === 'string' ? [l.$rewindTo] : [])));
  const starts = lines.flatMap((l, i) => (l.type === 'user' && !rewound.has(l.id as string) ? [i] : []));
  const tasks = starts.map((s, j) => lines.slice(s, starts[j + 1] ?? lines.length));
  const id = (s: unknown, k: number) => (typeof s === 'string' ? `${s}-r${k}` : s);
  const line = (original: Line, k: number) => {
    const v = structuredClone(original);
    if ('id' in v) v.id = id(v.id, k);
    if ('$rewindTo' in v) v.$rewindTo = id(v.$rewindTo, k);
    v.timestamp = shift(v.timestamp, k);
    const set = v.$set as Line | undefined;
    if (set && 'lastUpdated' in set) set.lastUpdated = shift(set.lastUpdated, k);
    for (const tc of (Array.isArray(v.toolCalls) ? v.toolCalls : []) as Line[]) {
      tc.id = id(tc.id, k);
      tc.timestamp = shift(tc.timestamp, k);
      for (const part of (Array.isArray(tc.result) ? tc.result : []) as Line[]) {
        const fr = part.functionResponse as Line | undefined;
        if (!fr) continue;
        fr.id = id(fr.id, k);
        const response = fr.response as Line | undefined;
        if (response && typeof response.output === 'string') response.output = pad(response.output, resultBytes, k);
      }
    }
    return JSON.stringify(v);
  };
  return {
    header: headerOf(lines, starts[0]),
    tasksOf: (k) => tasks.map((t) => `${t.map((l) => line(l, k)).join('\n')}\n`),
  };
}

/**
 * Writes a `format` log of about `mb` megabytes to `path` as the repeats this benchmark makes (each tool result padded
 * to `resultKB`): the input of the big-log benchmark's Codex CLI rollout (big-log-bench.ts). Returns its tasks.
 */
export function writeRepeatedLog(format: StopHookLogFormat, path: string, mb: number, resultKB: number): number {
  const repeats = (format === 'codex' ? codexRepeats : geminiRepeats)(resultKB * 1024);
  const fd = openSync(path, 'w');
  let bytes = writeSync(fd, repeats.header);
  let tasks = 0;
  try {
    for (let k = 0; bytes < mb * 1e6; k++)
      for (const task of repeats.tasksOf(k)) {
        bytes += writeSync(fd, task);
        tasks++;
      }
  } finally {
    closeSync(fd);
  }
  return tasks;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/**
 * The last stop of a `tasks`-task session of `format` (even: two tasks a repeat), `runs` times each way, in `work`.
 * `progress` hears what is being done.
 */
export function benchStopHookLog(opts: {
  format: StopHookLogFormat;
  tasks: number;
  runs: number;
  resultKB: number;
  cli: string;
  work: string;
  progress?: (s: string) => void;
}): StopHookLogResult {
  const { format, runs, cli } = opts;
  const say = opts.progress ?? (() => {});
  const repeats = (format === 'codex' ? codexRepeats : geminiRepeats)(opts.resultKB * 1024);
  const dir = join(opts.work, `stop-hook-${format}`);
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  const log = join(dir, format === 'codex' ? 'rollout-2026-02-23T11-40-01-bench.jsonl' : 'session-bench.jsonl');
  const db = join(dir, 'memory.db');
  const saved = join(dir, 'memory-before-last.db');
  writeFileSync(log, repeats.header);
  let written = 0;
  let last = '';
  for (let k = 0; written < opts.tasks; k++)
    for (const task of repeats.tasksOf(k)) {
      if (written === opts.tasks) break;
      if (written === opts.tasks - 1) last = task;
      else appendFileSync(log, task);
      written++;
    }
  const before = statSync(log).size;
  say(`stophook ${format}: ${opts.tasks - 1} tasks, ${round(before / 1e6)} MB; the stop before the last`);
  runStopHook(cli, db, log, home);
  const sql = new Database(db);
  const mark = sql.prepare("SELECT value FROM state WHERE key LIKE 'transcript:%'").get() as
    | { value: string }
    | undefined;
  sql.close();
  copyFileSync(db, saved);
  const samples = { 'read on': [] as HookSample[], whole: [] as HookSample[] };
  for (let run = 1; run <= runs; run++)
    for (const c of ['read on', 'whole'] as const) {
      copyFileSync(saved, db);
      truncateSync(log, before);
      appendFileSync(log, last);
      if (c === 'whole') {
        const w = new Database(db);
        w.prepare("UPDATE state SET value = '' WHERE key LIKE 'transcript:%'").run();
        w.close();
      }
      samples[c].push(runStopHook(cli, db, log, home));
      say(`stophook ${format}: ${c}, run ${run}/${runs}`);
    }
  return {
    format,
    tasks: opts.tasks,
    sizeMB: round(statSync(log).size / 1e6),
    runs,
    resultKB: opts.resultKB,
    markBytes: mark ? Buffer.byteLength(mark.value) : 0,
    cli: cli.replace(`${REPO}/`, ''),
    cases: (['read on', 'whole'] as const).map((c) => {
      const xs = samples[c];
      return {
        case: c,
        medianMs: round(median(xs.map((s) => s.ms))),
        minMs: round(Math.min(...xs.map((s) => s.ms))),
        maxMs: round(Math.max(...xs.map((s) => s.ms))),
        readMB: round(median(xs.map((s) => s.readMB))),
        peakMB: round(median(xs.map((s) => s.peakMB))),
        readOn: xs.filter((s) => s.readFrom).length,
      };
    }),
  };
}
