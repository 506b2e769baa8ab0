// `skillsmith ingest FILE` and `ingest --dry-run FILE` of a large log: a JSONL log is read line by line as it is
// parsed (src/capture/read-log.ts LogLines; a gzip log or standard input LogStream, as its bytes come), so what a
// process holds no longer grows with the whole file, and a log over 536,870,888 bytes (the longest string) is read
// instead of refused. A benchmark, not a test (`npm run bench -- --only biglogs`).
//
// For each size (MB, `--big-log-mb`, default 100,600), the inputs (`--big-log-inputs`, default file,gzip,stdin):
//
//   file      a Claude Code transcript written by test/fixtures/big-transcript.mjs (seeded: tasks of 5-30 calls,
//             results from a line to 400 KB, each again in `toolUseResult` and a Bash call's in its `bash_progress`
//             line, thinking blocks, snapshots), named
//   gzip      the same transcript gzip-compressed (`.jsonl.gz`), named
//   stdin     a Codex CLI rollout of the size, the turns of codex-rollout-0.104.jsonl repeated with each tool output
//             padded to 100 KB (stop-hook-logs.ts writeRepeatedLog), piped in: `cat LOG | skillsmith ingest -`
//
// Then, each a new process (--judge off, HOME a fresh folder):
//
//   ingest    into a fresh SQLite file
//   dry-run   `ingest --dry-run`: read and parse only
//
// with this build's CLI and, given `--big-log-cli FILE`, another build's (the release before: it reads the log
// whole, and refuses one over the limit). Wall time from spawn to exit and peak RSS (VmHWM, test/fixtures/peak-rss.mjs);
// one run each, each file written once. Linux only (/proc).

import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { nowMs } from './monitor.js';
import { REPO } from './paths.js';
import { writeRepeatedLog } from './stop-hook-logs.js';

const PEAK_RSS = join(REPO, 'test/fixtures/peak-rss.mjs');
const GENERATOR = join(REPO, 'test/fixtures/big-transcript.mjs');

/** How the log reaches `ingest`: a file named, that file gzip-compressed, or a Codex CLI rollout on standard input. */
export type BigLogInput = 'file' | 'gzip' | 'stdin';
export const BIG_LOG_INPUTS: BigLogInput[] = ['file', 'gzip', 'stdin'];

export interface BigLogCase {
  case: 'ingest' | 'dry-run';
  /** Absent from older results: `file`. */
  input?: BigLogInput;
  /** The size of what was read, in MB (compressed, for gzip). */
  inputMB?: number;
  /** Which CLI: `this build` or the path given with --big-log-cli. */
  build: string;
  seconds: number;
  peakMB: number;
  /** Sessions stored (ingest) or that would be (dry run); null when the log was not read. */
  sessions: number | null;
  calls: number | null;
  /** Why the log was not read (the problem the CLI gave), else null. */
  refused: string | null;
}

export interface BigLogResult {
  sizeMB: number;
  bytes: number;
  lines: number;
  cases: BigLogCase[];
}

export interface BigLogOptions {
  sizesMB: number[];
  inputs: BigLogInput[];
  cli: string;
  /** Another build's dist/surfaces/cli/main.js, measured beside this one. */
  otherCli: string | null;
  work: string;
  progress: (line: string) => void;
}

const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

export async function benchBigLogs(opts: BigLogOptions): Promise<BigLogResult[]> {
  const out: BigLogResult[] = [];
  for (const mb of opts.sizesMB) {
    const log = join(opts.work, `big-${mb}mb.jsonl`);
    const made = spawnSync(process.execPath, [GENERATOR, log, String(mb)], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`big-transcript.mjs exited ${made.status}: ${made.stderr}`);
    const { lines } = JSON.parse(made.stdout) as { lines: number };
    const result: BigLogResult = { sizeMB: mb, bytes: statSync(log).size, lines, cases: [] };
    const files: Partial<Record<BigLogInput, string>> = {};
    if (opts.inputs.includes('file')) files.file = log;
    if (opts.inputs.includes('gzip')) {
      files.gzip = `${log}.gz`;
      await pipeline(createReadStream(log), createGzip(), createWriteStream(files.gzip));
    }
    if (opts.inputs.includes('stdin')) {
      files.stdin = join(opts.work, `rollout-${mb}mb.jsonl`);
      writeRepeatedLog('codex', files.stdin, mb, 100);
    }
    const builds: [string, string][] = [['this build', opts.cli]];
    if (opts.otherCli) builds.push([opts.otherCli, opts.otherCli]);
    for (const input of opts.inputs) {
      const file = files[input]!;
      const inputMB = round(statSync(file).size / 1e6);
      for (const [build, cli] of builds)
        for (const c of ['ingest', 'dry-run'] as const) {
          const sample = runIngest(cli, file, c, opts.work, input === 'stdin');
          result.cases.push({ build, input, inputMB, ...sample });
          opts.progress(
            `  big log ${mb} MB, ${input} (${inputMB} MB), ${c}, ${build}: ${sample.seconds} s, peak ${sample.peakMB} MB` +
              (sample.refused
                ? ` (not read: ${sample.refused.slice(0, 80)})`
                : `, ${sample.sessions} sessions, ${sample.calls} calls`),
          );
        }
    }
    for (const file of new Set([log, ...Object.values(files)])) rmSync(file, { force: true });
    out.push(result);
  }
  return out;
}

/** What each input is, in words (the report's). */
export function bigLogInputName(input: BigLogInput | undefined): string {
  if (input === 'gzip') return 'gzip-compressed Claude Code transcript';
  if (input === 'stdin') return 'Codex CLI rollout piped to stdin';
  return 'Claude Code transcript';
}

function runIngest(
  cli: string,
  log: string,
  c: BigLogCase['case'],
  work: string,
  stdin: boolean,
): Omit<BigLogCase, 'build'> {
  const home = mkdtempSync(join(work, 'home-'));
  const db = join(home, 'memory.db');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, SKILLSMITH_RECALL_DAEMON: '0' };
  for (const name of ['SKILLSMITH_DB', 'SKILLSMITH_CONFIG']) delete env[name];
  const args = ['--import', PEAK_RSS, cli, 'ingest', ...(c === 'dry-run' ? ['--dry-run'] : ['--db', db])];
  const command = [process.execPath, ...args, '--judge', 'off', '--json', stdin ? '-' : log];
  const t0 = nowMs();
  // Standard input a pipe, as a shell gives it (`cat LOG | skillsmith ingest -`), not the file itself.
  const [exe, ...argv] = stdin ? ['sh', '-c', 'f=$1; shift; cat "$f" | "$@"', 'sh', log, ...command] : command;
  const r = spawnSync(exe!, argv, {
    cwd: home,
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const seconds = round((nowMs() - t0) / 1000, 2);
  rmSync(home, { recursive: true, force: true });
  const peak = Number(/^peak-rss-kb (\d+)$/m.exec(r.stderr)?.[1] ?? Number.NaN);
  const peakMB = round((peak * 1024) / 1e6);
  let parsed: {
    format: string;
    inserted?: number;
    sessions?: { calls: number }[];
    calls?: number;
    problems: { reason: string }[];
  };
  try {
    [parsed] = JSON.parse(r.stdout) as (typeof parsed)[];
  } catch {
    throw new Error(`ingest ${c} of ${log} exited ${r.status}: ${r.stderr.slice(0, 2000)}`);
  }
  if (parsed.format === 'unread')
    return { case: c, seconds, peakMB, sessions: null, calls: null, refused: parsed.problems[0]?.reason ?? 'not read' };
  if (c === 'dry-run')
    return {
      case: c,
      seconds,
      peakMB,
      sessions: parsed.sessions?.length ?? 0,
      calls: parsed.calls ?? 0,
      refused: null,
    };
  return { case: c, seconds, peakMB, sessions: parsed.inserted ?? 0, calls: null, refused: null };
}
