#!/usr/bin/env node
// A memory this account may only read (a read-only mount, another user's file), opened by a new process each time
// (a hook's `skillsmith recall` on every prompt, a `sessions list`): what the process pays when the file is read where
// it lies, and when it is copied into memory first (what every read-only open did before). A benchmark, not a test.
//
//   node bench/build/bench/src/read-only-bench.js [--skills 100000] [--sessions 20000] [--runs 5] [--db FILE]
//                                    [--keep] [--quick] [--out DIR] [--cli FILE]
//
// Builds a memory in a temporary folder (skills written as bench/src/bulk-skills.ts writes them, synthetic sessions
// ingested through memory.ingest, the recall index built and saved beside it by one recall), or takes --db (a closed
// memory with its index file: its files and folder are given back their owner and modes afterwards). Then, in
// --runs rounds, each case a new process, the median reported:
//
//   writable   the memory as its writer has it (file and folder writable)
//   in place   file, index files and folder read-only: read where it lies (src/store/sqlite/read-only.ts)
//   copy       the same with SQLITE_USE_URI=0: SQLite URI filenames off, the file copied into memory
//
// for `recall GOAL --json` (the short path; recall daemon off) and `sessions list --json` (the full CLI, one page):
// wall time from spawn to exit and the process's peak RSS (VmHWM, test/fixtures/peak-rss.mjs). Run as root, every case runs as `nobody` on files
// given to `nobody` (a read-only mount of one's own files; file modes bind no root process). Linux only (setpriv,
// /proc). Writes read-only.json and read-only.md to --out (default bench/results/tmp). --cli runs another build's
// dist/surfaces/cli/main.js (e.g. the release before, to compare; its `copy` case is then what it does anyway).

import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openMemory } from '#dist/app/open-memory.js';
import { writeBenchSkills } from './bulk-skills.js';
import { nowMs } from './monitor.js';
import { CLI, REPO } from './paths.js';
import { defaultSourceFiles, syntheticGoals, syntheticSessionBatches } from './synthetic.js';

const PEAK_RSS = join(REPO, 'test/fixtures/peak-rss.mjs');
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const CASES = ['writable', 'in place', 'copy'] as const;
type Case = (typeof CASES)[number];

interface Sample {
  ms: number;
  peakMB: number;
}
interface Row {
  command: string;
  case: Case;
  medianMs: number;
  minMs: number;
  maxMs: number;
  peakMB: number;
  load1: number;
}

const log = (s: string) => process.stderr.write(`${s}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      skills: { type: 'string' },
      sessions: { type: 'string' },
      runs: { type: 'string', default: '5' },
      db: { type: 'string' },
      keep: { type: 'boolean' },
      quick: { type: 'boolean' },
      out: { type: 'string' },
      cli: { type: 'string' },
    },
  });
  const cli = resolve(values.cli ?? CLI);
  const skills = Number(values.skills ?? (values.quick ? 2_000 : 100_000));
  const sessions = Number(values.sessions ?? (values.quick ? 1_000 : 20_000));
  const runs = Number(values.runs);
  const outDir = resolve(values.out ?? join(REPO, 'bench/results/tmp'));
  const traces = defaultSourceFiles();
  const [goal] = syntheticGoals(1, 7, traces);

  const work = mkdtempSync(join(tmpdir(), 'skillsmith-ro-bench-'));
  // The reader's home (configuration, the recall daemon's folder): its own, writable.
  const home = join(work, 'home');
  mkdirSync(home);
  let db: string;
  if (values.db) {
    db = resolve(values.db);
  } else {
    mkdirSync(join(work, 'memory'));
    db = join(work, 'memory', 'skills.db');
    log(
      `building a memory of ${skills.toLocaleString('en-US')} skills and ${sessions.toLocaleString('en-US')} sessions`,
    );
    const memory = await openMemory({ db, logLevel: 'silent' });
    await writeBenchSkills(memory, skills, { seed: 2, traces });
    for (const batch of syntheticSessionBatches(sessions, 1, traces, 1_000)) await memory.ingest(batch);
    // Builds the recall index and saves it beside the file, as the writer's own recalls do.
    await memory.recall(goal, { record: false });
    await memory.close();
  }
  const folder = dirname(db);
  // The memory's files (the writable case may replace its index files): listed again each time.
  const files = () =>
    readdirSync(folder)
      .filter((f) => f.startsWith(basename(db)))
      .map((f) => join(folder, f));
  const saved = [folder, ...files()].map((p) => {
    const st = statSync(p);
    return { path: p, mode: st.mode & 0o7777, uid: st.uid, gid: st.gid };
  });
  if (asRoot) {
    chmodSync(work, 0o755);
    chmodSync(home, 0o777);
    for (const s of saved) chownSync(s.path, NOBODY, NOBODY);
  }
  const setWritable = (writable: boolean) => {
    for (const f of files()) chmodSync(f, writable ? 0o644 : 0o444);
    chmodSync(folder, writable ? 0o755 : 0o555);
  };

  const commands: [string, string[]][] = [
    ['recall', ['recall', goal, '--db', db, '--json']],
    // A page of 50 (the default): what the command reads itself is small, whatever the memory's size.
    ['sessions list', ['sessions', 'list', '--db', db, '--json']],
  ];
  const samples = new Map<string, Sample[]>();
  try {
    for (let round = 1; round <= runs; round++) {
      for (const c of CASES) {
        setWritable(c === 'writable');
        for (const [name, args] of commands) {
          const s = run(cli, args, home, c === 'copy' ? { SQLITE_USE_URI: '0' } : {});
          const key = `${name}\0${c}`;
          samples.set(key, [...(samples.get(key) ?? []), s]);
        }
      }
      log(`round ${round}/${runs} done`);
    }
  } finally {
    const [dir] = saved;
    for (const f of files()) {
      const s = saved.find((x) => x.path === f) ?? { ...dir, mode: 0o644 };
      chmodSync(f, s.mode);
      if (asRoot) chownSync(f, s.uid, s.gid);
    }
    chmodSync(dir.path, dir.mode);
    if (asRoot) chownSync(dir.path, dir.uid, dir.gid);
  }

  const rows: Row[] = [];
  for (const [name] of commands)
    for (const c of CASES) {
      const xs = samples.get(`${name}\0${c}`)!;
      const ms = xs.map((s) => s.ms);
      rows.push({
        command: name,
        case: c,
        medianMs: round(median(ms)),
        minMs: round(Math.min(...ms)),
        maxMs: round(Math.max(...ms)),
        peakMB: round(Math.max(...xs.map((s) => s.peakMB))),
        load1: round(loadavg()[0], 2),
      });
    }
  const result = {
    cli,
    memory: {
      path: values.db ? db : null,
      fileMB: round(statSync(db).size / 1e6),
      skills: values.db ? null : skills,
      sessions: values.db ? null : sessions,
    },
    runs,
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? '', node: process.version },
    rows,
  };
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'read-only.json'), `${JSON.stringify(result, null, 2)}\n`);
  const table = render(result);
  writeFileSync(join(outDir, 'read-only.md'), `${table}\n`);
  process.stdout.write(`${table}\n`);
  if (!values.db && !values.keep) rmSync(work, { recursive: true, force: true });
  else if (!values.db) log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

/** One new CLI process (as `nobody` under root): wall time from spawn to exit, and its peak RSS. */
function run(cli: string, args: string[], home: string, extra: NodeJS.ProcessEnv): Sample {
  const argv = [process.execPath, '--import', PEAK_RSS, cli, ...args];
  const [cmd, rest] = asRoot
    ? ['setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', ...argv]]
    : [argv[0], argv.slice(1)];
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, SKILLSMITH_RECALL_DAEMON: '0', ...extra };
  for (const name of ['SKILLSMITH_DB', 'SKILLSMITH_CONFIG']) delete env[name];
  const t0 = nowMs();
  const r = spawnSync(cmd, rest, { cwd: home, env, encoding: 'utf8', maxBuffer: 1 << 30 });
  const ms = nowMs() - t0;
  if (r.status !== 0) throw new Error(`${args.slice(0, 2).join(' ')} exited ${r.status}: ${r.stderr}`);
  const peak = /^peak-rss-kb (\d+)$/m.exec(r.stderr);
  return { ms, peakMB: peak ? (Number(peak[1]) * 1024) / 1e6 : Number.NaN };
}

function render(r: {
  memory: { fileMB: number; skills: number | null; sessions: number | null };
  runs: number;
  rows: Row[];
}): string {
  const what =
    r.memory.skills === null
      ? ''
      : `, ${r.memory.skills.toLocaleString('en-US')} skills, ${r.memory.sessions!.toLocaleString('en-US')} sessions`;
  const lines = [
    `Read-only memory, new process per command (${r.memory.fileMB} MB file${what}; median of ${r.runs})`,
    '',
    '| command | case | wall ms (median) | min-max | peak RSS MB |',
    '| --- | --- | ---: | ---: | ---: |',
    ...r.rows.map((x) => `| ${x.command} | ${x.case} | ${x.medianMs} | ${x.minMs}-${x.maxMs} | ${x.peakMB} |`),
  ];
  return lines.join('\n');
}

await main();
