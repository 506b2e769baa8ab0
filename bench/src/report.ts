// The shape of bench/results/latest.json and its Markdown rendering (latest.md, stdout).

import type { PhaseMemory } from './monitor.js';
import type { ProfileRow } from './profile-summary.js';
import type { StopHookLogResult } from './stop-hook-logs.js';
import { type BigLogResult, bigLogInputName } from './big-log-bench.js';

export interface IngestResult {
  sessions: number;
  calls: number;
  batchSize: number;
  batches: number;
  /** Time inside memory.ingest() only (generation excluded). */
  seconds: number;
  callsPerSec: number;
  /** CPU time of the process during the timed calls (all threads), and calls per CPU second. */
  cpuSeconds: number;
  callsPerCpuSec: number;
  sessionsPerSec: number;
  batchMsP50: number;
  batchMsMax: number;
  dbMB: number;
}

export interface SynthesisResult {
  sessions: number;
  /** Sessions the pass actually read (report.stats.newSessions); less than `sessions` if the pass was bounded. */
  sessionsRead: number;
  calls: number;
  successRate: number;
  /** Untimed set-up: memory.ingest() of the sessions. */
  ingestSeconds: number;
  /** memory.synthesize() wall time. */
  seconds: number;
  sessionsPerSec: number;
  /** CPU time of the process during the pass (all threads, V8 GC helpers included). */
  cpuSeconds: number;
  /** Detect + embed + cluster + save (until the first distil callback). */
  clusterSeconds: number;
  /** Admit + distil + verify + reconcile + write, over the dirty clusters. */
  distilSeconds: number;
  clusters: number;
  dirtyClusters: number;
  distilled: number;
  created: number;
  updated: number;
  reinforced: number;
  superseded: number;
  skipped: number;
  liveSkills: number;
  dbMB: number;
  profile: { file: string; top: ProfileRow[]; inclusive: ProfileRow[] } | null;
}

export interface RecallResult {
  skills: number;
  /** Exemplars a skill carries beside its centroid (0: one vector a skill). */
  exemplars?: number;
  /** Vectors the recall index holds (centroids and exemplars). */
  vectors?: number;
  populateSeconds: number;
  queries: number;
  /** The first recall of a process: loads the skills from SQLite and builds the index. */
  firstRecallMs: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  /** p50 of the process CPU time per recall (µs resolution): what a recall costs when the CPU is not shared. */
  cpuP50Ms: number;
  /** Fraction of queries that returned at least one skill. */
  hitRate: number;
  /** Over the first `queries` queries only when the scan is too slow for all of them (time budget). */
  bruteForce: { p50Ms: number; p99Ms: number; meanMs: number; queries?: number };
  /** memory.recall(goal, { record: false }): without the recall record (recalls, recall_items, last_used_at) written per hit. */
  readOnly: { p50Ms: number; p99Ms: number; meanMs: number };
  /** Brute-force p50 / memory.recall p50. */
  speedupP50: number;
  /** Fraction of queries whose first skill scores as the exact scan's first (IVF recall@1, thresholds included). */
  top1Agreement: number;
  breakdownP50Ms: {
    normalize: number;
    embed: number;
    indexSearch: number;
    changeToken: number;
    recordRecall: number | null;
  };
  /** What the first recall cost before the index file: store.listSkills() and VectorIndex add + build (IVF training). */
  firstRecallParts: { listSkillsMs: number; indexBuildMs: number };
  /** New processes (bench/first-recall.js): the median of 5 first recalls from the index file; one without it. */
  newProcess: {
    firstRecallMs: number;
    firstRecallCpuMs?: number | null;
    openMs: number;
    embedderWarmMs: number;
    /** The process's own high-water mark (VmHWM; see first-recall.ts). */
    maxRssMB: number;
    /** At the end of the process (median one): mapped-file and anonymous resident pages. */
    rssFileMB?: number | null;
    rssAnonMB?: number | null;
    /** getrusage maxRSS of the same processes: carries the bench process's RSS at spawn over exec. */
    inheritedMaxRssMB?: number;
    withoutFileMs: number | null;
    withoutFileMaxRssMB: number | null;
    load1: number;
  };
  /** The same vectors and queries through the exact scan, the previous IVF index and the tiered index (top 10). */
  indexes: {
    queries: number;
    exact: IndexMeasure & { buildMs: number };
    ivf: IndexMeasure;
    tiered: IndexMeasure & { loadMs: number; kind: 'exact' | 'hnsw' };
  };
  /** 1-minute load average when the phase ended (2 cores: above 2 the timings include waiting for a CPU). */
  load1: number;
}

export interface IndexMeasure {
  /** Second pass over the queries (see compareIndexes in run.ts). */
  p50Ms: number;
  p99Ms: number;
  /** First pass: the loaded recall index faults its memory-mapped graph in meanwhile. */
  firstPassP50Ms?: number;
  recallAt10: number;
}

export interface ClusteringResult {
  sessions: number;
  dims: number;
  threshold: number;
  /** IncrementalClusters over the goal embeddings (goal as both feature and goal vector): one index search per session. */
  incremental: { ms: number; clusters: number };
  /** GAIA-style greedy leader clustering over the same vectors (see bench/src/greedy.ts). */
  greedy: {
    /** Measured, or when `extrapolated` a lower bound: measured time + remaining sessions x the last measured cost per session. */
    ms: number;
    clusters: number;
    processed: number;
    measuredMs: number;
    extrapolated: boolean;
  };
  /** greedy ms / incremental ms. */
  ratio: number;
}

export interface CliResult {
  command: string;
  runs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  nodeBaselineMedianMs: number;
  firstOutputLine: string;
  /** The same command on the largest recall file: the first recall of the process loads and indexes every skill. */
  large: { skills: number; runs: number; medianMs: number } | null;
  /**
   * Each way a recall runs, timed in the same rounds as bare node: answered by the recall daemon, in the
   * process (the short path), or by the full CLI (what every recall ran before issue 29).
   */
  modes?: {
    mode: 'daemon' | 'in-process' | 'full CLI';
    skills: number;
    json: boolean;
    medianMs: number;
    minMs: number;
    maxMs: number;
    /** median / bare node's median. */
    ratioToNode: number;
  }[];
}

/** Retention on a large memory: every session of a memory a pass learned from, forgotten by one forgetBefore. */
export interface ForgetResult {
  backend: 'sqlite' | 'postgres';
  sessions: number;
  /** Sessions the set-up pass counted and clustered (their statistics are taken back out as they go). */
  sessionsClustered: number;
  /** Skills the set-up pass learned, and how many of them keep a forgotten-parent marker afterwards. */
  skills: number;
  skillsMarked: number;
  /** Provenance rows that became forgotten-parent markers (one a skill a forgotten session taught). */
  parentLinks?: number;
  /** Untimed: ingest and the pass. */
  setupSeconds: number;
  /** memory.sessions.forgetBefore() wall time (every session but the singles): how long the pass lock is held. */
  seconds: number;
  /** Trials given to sessions in the set-up (feedback rows and audit records naming them). */
  feedbacks?: number;
  /** memory.sessions.forget() of one session of the full memory (20 of them, one at a time): median and slowest. */
  oneMedianMs?: number;
  oneMaxMs?: number;
  msPerSession: number;
  cpuSeconds: number;
  load1: number;
}

export interface BenchResults {
  mode: 'full' | 'quick';
  partial: boolean;
  machine: {
    cpu: string;
    cores: number;
    ramGB: number;
    node: string;
    platform: string;
    date: string;
    loadAvgAtStart: number[];
  };
  traces: string[];
  seed: number;
  /** Commit measured and the non-benchmark files that differed from it (work in progress by others). */
  code: { commit: string | null; modified: string[] };
  ingest: IngestResult | null;
  synthesis: SynthesisResult[];
  /** time(largest pass) / time(next largest): ~ the size ratio when the pass is linear. */
  synthesisScaling: { from: number; to: number; ratio: number } | null;
  recall: RecallResult[];
  clustering: ClusteringResult[];
  cli: CliResult | null;
  /** Absent from results written before the forget phase. */
  forget?: ForgetResult[];
  /** The Stop hook after the last reply of a long Codex CLI and Gemini CLI session (stop-hook-logs.ts). */
  stopHook: StopHookLogResult[];
  /** `ingest` of a large Claude Code transcript, read line by line (big-log-bench.ts); absent from older results. */
  bigLogs?: BigLogResult[];
  memory: { peakRssMB: number; kernelMaxRssMB: number; phases: Record<string, PhaseMemory> };
}

const TARGETS = {
  ingestCallsPerSec: 50_000,
  synthesis100kSeconds: 20,
  recallP50Ms10k: 0.6,
  cliMedianMs: 300,
  /** `skillsmith recall` within this factor of bare node's start (issue 29). */
  cliToNode: 1.5,
  /** Recall p50 at 100k skills (issue 29), and the index's recall@10. */
  recallP50Ms100k: 0.5,
};

const n = (x: number) => x.toLocaleString('en-US');
const k = (x: number) => (x >= 1000 && x % 1000 === 0 ? `${x / 1000}k` : n(x));
const round1 = (x: number) => Math.round(x * 10) / 10;
const mark = (ok: boolean) => (ok ? 'met' : '**missed**');
/** "100k skills", or "100k skills (4 vectors each, 400k in all)" for skills with exemplars. */
const skillsOf = (q: RecallResult) =>
  `${k(q.skills)} skills${q.exemplars ? ` (up to ${q.exemplars + 1} vectors each, ${n(q.vectors ?? 0)} in all)` : ''}`;

/** The headline table: one row per measure, with the target where there is one. */
export function renderSummaryTable(r: BenchResults): string {
  const rows: [string, string, string][] = [];
  if (r.ingest) {
    const i = r.ingest;
    rows.push([
      'Ingest rate',
      `${n(i.callsPerSec)} calls/s (${n(i.calls)} calls, ${n(i.sessions)} sessions, ${i.batchSize}/batch, ${i.seconds} s; ${n(i.callsPerCpuSec)} calls per CPU s)`,
      `>= ${n(TARGETS.ingestCallsPerSec)} calls/s: ${mark(i.callsPerSec >= TARGETS.ingestCallsPerSec)}`,
    ]);
  }
  for (const s of r.synthesis) {
    const target =
      s.sessions === 100_000
        ? `<= ${TARGETS.synthesis100kSeconds} s: ${mark(s.seconds <= TARGETS.synthesis100kSeconds)}`
        : '';
    rows.push([
      `Synthesis pass, ${k(s.sessions)} sessions`,
      `${s.seconds} s (${n(s.sessionsPerSec)} sessions/s; CPU ${s.cpuSeconds} s)`,
      target,
    ]);
  }
  const scaling = synthesisScaling(r.synthesis);
  if (scaling)
    rows.push([
      `Synthesis scaling ${k(scaling.to)}/${k(scaling.from)}`,
      `x${scaling.ratio} time for x${scaling.to / scaling.from} sessions`,
      `~${scaling.to / scaling.from} = linear`,
    ]);
  for (const q of r.recall) {
    const target =
      q.skills === 10_000
        ? `p50 <= ${TARGETS.recallP50Ms10k} ms: ${mark(q.p50Ms <= TARGETS.recallP50Ms10k)}`
        : q.skills === 100_000
          ? `p50 <= ${TARGETS.recallP50Ms100k} ms: ${mark(q.p50Ms <= TARGETS.recallP50Ms100k)}`
          : '';
    rows.push([`Recall, ${skillsOf(q)} (p50 / p99)`, `${q.p50Ms} / ${q.p99Ms} ms (CPU p50 ${q.cpuP50Ms} ms)`, target]);
    rows.push([
      `Brute-force SQLite scan, ${skillsOf(q)} (p50 / p99)`,
      `${q.bruteForce.p50Ms} / ${q.bruteForce.p99Ms} ms (recall is x${q.speedupP50} faster at p50)`,
      '',
    ]);
    if (q.newProcess) {
      const firstTarget = q.skills === 10_000 ? '<= 50 ms' : q.skills === 100_000 ? '<= 300 ms' : '';
      rows.push([
        `First recall of a new process, ${skillsOf(q)}`,
        `${q.newProcess.firstRecallMs} ms from the index file${q.newProcess.firstRecallCpuMs == null ? '' : ` (CPU ${q.newProcess.firstRecallCpuMs} ms)`} (${q.newProcess.withoutFileMs ?? 'not run'} ms rebuilding without it; before: ${round1(q.firstRecallParts.listSkillsMs + q.firstRecallParts.indexBuildMs)} ms; embedder first use ${q.newProcess.embedderWarmMs} ms apart); load avg ${q.newProcess.load1}`,
        firstTarget ? `${firstTarget}: ${mark(q.newProcess.firstRecallMs <= (q.skills === 10_000 ? 50 : 300))}` : '',
      ]);
      const i = q.indexes;
      rows.push([
        `Index search, ${skillsOf(q)} (p50, recall@10): recall index / IVF before / exact`,
        `${i.tiered.p50Ms} ms, ${i.tiered.recallAt10} (${i.tiered.kind}; first pass ${i.tiered.firstPassP50Ms ?? '-'} ms) / ${i.ivf.p50Ms} ms, ${i.ivf.recallAt10} / ${i.exact.p50Ms} ms, 1`,
        q.skills === 100_000
          ? `<= 1 ms, >= 0.95: ${mark(i.tiered.p50Ms <= 1 && i.tiered.recallAt10 >= 0.95)}`
          : `>= 0.95: ${mark(i.tiered.recallAt10 >= 0.95)}`,
      ]);
      rows.push([
        `Peak RSS of a process holding ${skillsOf(q)} for recall`,
        `${n(q.newProcess.maxRssMB)} MB`,
        q.skills === 100_000 ? `<= 600 MB: ${mark(q.newProcess.maxRssMB <= 600)}` : '',
      ]);
    }
  }
  for (const c of r.clustering ?? []) {
    rows.push([
      `Clustering ${k(c.sessions)} goals: greedy time / incremental time`,
      `${c.greedy.extrapolated ? '>= ' : ''}x${c.ratio} (greedy ${c.greedy.ms >= 1000 ? `${round1(c.greedy.ms / 1000)} s` : `${round1(c.greedy.ms)} ms`}${c.greedy.extrapolated ? `, extrapolated lower bound from ${n(c.greedy.processed)} sessions` : ''}; incremental ${round1(c.incremental.ms)} ms; ${c.ratio < 1 ? 'greedy faster' : 'incremental faster'}; ${n(c.greedy.clusters)} vs ${n(c.incremental.clusters)} clusters)`,
      '',
    ]);
  }
  for (const m of r.cli?.modes ?? []) {
    rows.push([
      `\`skillsmith recall${m.json ? ' --json' : ''}\`, ${k(m.skills)} skills, ${m.mode} (median)`,
      `${m.medianMs} ms, x${m.ratioToNode} bare node (${r.cli!.nodeBaselineMedianMs} ms)`,
      m.mode === 'full CLI' ? '' : `<= x${TARGETS.cliToNode}: ${mark(m.ratioToNode <= TARGETS.cliToNode)}`,
    ]);
  }
  if (r.cli && !r.cli.modes) {
    rows.push([
      `CLI cold start, ${r.cli.command.match(/<(\d+) skills>/)?.[1] ?? '~100'} skills (median)`,
      `${r.cli.medianMs} ms (bare node: ${r.cli.nodeBaselineMedianMs} ms)`,
      `< ${TARGETS.cliMedianMs} ms: ${mark(r.cli.medianMs < TARGETS.cliMedianMs)}`,
    ]);
    if (r.cli.large) {
      const ratio = round1(r.cli.large.medianMs / r.cli.medianMs);
      rows.push([
        `CLI cold start, ${k(r.cli.large.skills)} skills (median)`,
        `${r.cli.large.medianMs} ms (x${ratio} the small file)`,
        `within x1.5: ${mark(ratio <= 1.5)}`,
      ]);
    }
  }
  for (const f of r.forget ?? [])
    rows.push([
      `Forget ${k(f.sessions)} learned-from sessions at once, ${f.backend === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`,
      `${f.seconds} s (${f.msPerSession} ms a session; CPU ${f.cpuSeconds} s; ${f.skillsMarked} of ${f.skills} skills marked)`,
      '',
    ]);
  for (const f of r.forget ?? [])
    if (f.oneMedianMs !== undefined)
      rows.push([
        `Forget one session of ${k(f.sessions)}, ${f.backend === 'sqlite' ? 'SQLite' : 'PostgreSQL'} (median of 20)`,
        `${f.oneMedianMs} ms (slowest ${f.oneMaxMs} ms; ${n(f.feedbacks ?? 0)} trials name sessions)`,
        '',
      ]);
  for (const h of r.stopHook ?? []) {
    const on = h.cases.find((c) => c.case === 'read on');
    const whole = h.cases.find((c) => c.case === 'whole');
    if (!on || !whole) continue;
    rows.push([
      `Stop hook, last reply of a ${n(h.tasks)}-task ${h.format === 'codex' ? 'Codex CLI' : 'Gemini CLI'} session (${h.sizeMB} MB; median)`,
      `${on.medianMs} ms, ${on.readMB} MB read read on (${on.readOn}/${h.runs} from its mark); ${whole.medianMs} ms, ${whole.readMB} MB read whole; mark ${n(h.markBytes)} bytes`,
      '',
    ]);
  }
  for (const b of r.bigLogs ?? [])
    for (const c of b.cases.filter((x) => x.build === 'this build'))
      rows.push([
        `\`ingest${c.case === 'dry-run' ? ' --dry-run' : ''}\` of a ${b.sizeMB} MB ${bigLogInputName(c.input)}`,
        c.refused ? `not read (${c.refused.slice(0, 60)})` : `${c.seconds} s, peak RSS ${c.peakMB} MB`,
        '',
      ]);
  rows.push([
    'Peak RSS',
    `${n(r.memory.peakRssMB)} MB sampled (kernel high-water mark ${n(r.memory.kernelMaxRssMB)} MB)`,
    '',
  ]);
  const m = r.machine;
  return [
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.ramGB} GB RAM, Node ${m.node}, ${m.platform}; ${m.date}`,
    '',
    table(['Measure', 'Result', 'Target'], rows),
  ].join('\n');
}

export function renderMarkdown(r: BenchResults): string {
  const out: string[] = [];
  out.push(`# Skillsmith benchmark (${r.mode}${r.partial ? ', partial' : ''})`, '');
  out.push(
    table(
      ['Machine', ''],
      [
        ['CPU', r.machine.cpu],
        ['Cores', String(r.machine.cores)],
        ['RAM', `${r.machine.ramGB} GB`],
        ['Node', r.machine.node],
        ['Platform', r.machine.platform],
        ['Date', r.machine.date],
        ['Load average at start (1/5/15 min)', r.machine.loadAvgAtStart.join(' / ')],
      ],
    ),
    '',
  );
  out.push(
    `Synthetic sessions: perturbed copies of ${r.traces.join(', ')} (seed ${r.seed}); see bench/src/synthetic.ts.`,
    '',
  );
  out.push(
    `Code: commit ${r.code.commit ?? 'unknown'}` +
      (r.code.modified.length ? `, with uncommitted changes to ${r.code.modified.join(', ')}.` : ', clean.'),
    '',
  );
  out.push('## Summary', '', renderSummaryTable(r).split('\n').slice(2).join('\n'), '');

  if (r.synthesis.length) {
    out.push('## Synthesis passes', '');
    out.push(
      table(
        [
          'Sessions',
          'Calls',
          'Success rate',
          'Pass (s)',
          'CPU (s)',
          'Cluster (s)',
          'Distil (s)',
          'Sessions/s',
          'Clusters',
          'Distilled',
          'Created',
          'Updated',
          'Reinforced',
          'Superseded',
          'Skipped',
          'Live skills',
          'Ingest (s, untimed)',
          'DB (MB)',
        ],
        r.synthesis.map((s) => [
          n(s.sessions),
          n(s.calls),
          String(s.successRate),
          String(s.seconds),
          String(s.cpuSeconds),
          String(s.clusterSeconds),
          String(s.distilSeconds),
          n(s.sessionsPerSec),
          n(s.clusters),
          n(s.distilled),
          n(s.created),
          n(s.updated),
          n(s.reinforced),
          n(s.superseded),
          n(s.skipped),
          n(s.liveSkills),
          String(s.ingestSeconds),
          String(s.dbMB),
        ]),
      ),
      '',
      'Cluster = detect + embed + cluster + save, up to the first distil callback; Distil = admit, distil, verify, reconcile and write every dirty cluster. ' +
        "CPU = process CPU time during the pass (all threads: V8's GC helper threads can push it above wall time; other processes on the machine push wall time above it).",
      '',
    );
    for (const s of r.synthesis.filter((x) => x.profile)) {
      out.push(`### CPU profile of the ${k(s.sessions)} pass (${s.profile!.file})`, '');
      out.push(
        table(
          ['Self ms', 'Self %', 'Total %', 'Function (dist file:line)'],
          s.profile!.top.map((p) => [String(p.selfMs), String(p.selfPct), String(p.totalPct), p.where]),
        ),
        '',
      );
      out.push(
        table(
          ['Inclusive ms', '%', 'Function (dist file:line)'],
          s.profile!.inclusive.map((p) => [String(p.totalMs), String(p.totalPct), p.where]),
        ),
        '',
      );
    }
  }

  if (r.recall.length) {
    out.push('## Recall', '');
    out.push(
      table(
        [
          'Skills',
          'Queries',
          'p50 (ms)',
          'p99 (ms)',
          'Mean (ms)',
          'CPU p50 (ms)',
          'No-write p50 / p99 (ms)',
          'Brute p50 (ms)',
          'Brute p99 (ms)',
          'Speed-up p50',
          'Top-1 agreement',
          'Hit rate',
          'First recall (ms)',
          'Populate (s)',
        ],
        r.recall.map((q) => [
          q.exemplars ? `${n(q.skills)} x${q.exemplars + 1}` : n(q.skills),
          n(q.queries),
          String(q.p50Ms),
          String(q.p99Ms),
          String(q.meanMs),
          String(q.cpuP50Ms),
          `${q.readOnly.p50Ms} / ${q.readOnly.p99Ms}`,
          String(q.bruteForce.p50Ms),
          String(q.bruteForce.p99Ms),
          `x${q.speedupP50}`,
          String(q.top1Agreement),
          String(q.hitRate),
          String(q.firstRecallMs),
          String(q.populateSeconds),
        ]),
      ),
      '',
      'Each query is timed alone through `memory.recall(goal)` (goal normalisation and embedding included), after a warm-up. ' +
        'Brute force: per query, `SELECT embedding FROM skills`, decode, dot product with every vector, sort' +
        (r.recall.some((q) => q.bruteForce.queries !== undefined && q.bruteForce.queries < q.queries)
          ? ` (within a time budget: ${r.recall
              .filter((q) => q.bruteForce.queries !== undefined && q.bruteForce.queries < q.queries)
              .map((q) => `${n(q.bruteForce.queries!)} queries at ${k(q.skills)} skills`)
              .join(', ')}; top-1 agreement over those). `
          : '. ') +
        'No-write: `memory.recall(goal, { record: false })`, without the write transaction (`store.recordRecall`: a `recalls` row, `recall_items`, `last_used_at`) that `memory.recall` makes whenever it serves a skill. ' +
        "Top-1 agreement: the first skill recalled scores as the exact scan's first, to 3e-4 (both above the recall threshold; ties between copies of one goal count as agreement). " +
        'First recall: in the bench process, with no index file yet: reading every skill vector from SQLite, building the index and saving its file (see below for a new process).',
      '',
      'p50 of each step of a recall, timed alone:',
      '',
      table(
        [
          'Skills',
          'normalizeGoal (ms)',
          'Embed goal (ms)',
          'Index search (ms)',
          'Change token (ms)',
          'store.recordRecall write (ms)',
        ],
        r.recall.map((q) => [
          q.exemplars ? `${n(q.skills)} x${q.exemplars + 1}` : n(q.skills),
          String(q.breakdownP50Ms.normalize),
          String(q.breakdownP50Ms.embed),
          String(q.breakdownP50Ms.indexSearch),
          String(q.breakdownP50Ms.changeToken),
          String(q.breakdownP50Ms.recordRecall ?? '-'),
        ]),
      ),
      '',
      '### The first recall of a new process',
      '',
      table(
        [
          'Skills',
          'From the index file (ms, median of 5 processes)',
          'Its CPU time (ms)',
          'openMemory (ms)',
          'Embedder first use (ms)',
          'Without the file: rebuild from SQLite (ms)',
          'Before (listSkills + IVF build, ms)',
          'Bench process, no file yet: rebuild + save (ms)',
          'Peak RSS of the process (MB)',
          'Load avg (1 min)',
        ],
        r.recall.map((q) => [
          q.exemplars ? `${n(q.skills)} x${q.exemplars + 1}` : n(q.skills),
          String(q.newProcess.firstRecallMs),
          q.newProcess.firstRecallCpuMs == null ? '-' : String(q.newProcess.firstRecallCpuMs),
          String(q.newProcess.openMs),
          String(q.newProcess.embedderWarmMs),
          q.newProcess.withoutFileMs === null ? 'not run' : String(q.newProcess.withoutFileMs),
          String(round1(q.firstRecallParts.listSkillsMs + q.firstRecallParts.indexBuildMs)),
          String(q.firstRecallMs),
          (q.newProcess.withoutFileMaxRssMB === null
            ? String(q.newProcess.maxRssMB)
            : `${q.newProcess.maxRssMB} (${q.newProcess.withoutFileMaxRssMB} without the file)`) +
            (q.newProcess.rssFileMB == null
              ? ''
              : `; at the end ${q.newProcess.rssAnonMB} anonymous + ${q.newProcess.rssFileMB} mapped files`) +
            (q.newProcess.inheritedMaxRssMB == null ? '' : `; getrusage ${q.newProcess.inheritedMaxRssMB}`),
          String(q.newProcess.load1),
        ]),
      ),
      '',
      'Each is a new `node bench/build/bench/src/first-recall.js` process: open the memory, use the embedder once (its word table loads on first use, ' +
        'whatever the skill count: column "Embedder first use"), then time the first `recall` (index file loaded and checked, ' +
        'changes since applied, query embedded, hits read from SQLite), then 200 more recalls; peak RSS is the kernel high-water mark of that process ' +
        "(VmHWM in /proc/self/status; mapped files: the HNSW graph's pages and the code, shared with the page cache). getrusage's maxRSS, shown " +
        "last, is not that process's own: Linux keeps the high-water mark across exec, and a child made by fork+exec starts as a copy of the bench " +
        "process, so it reports at least the bench process's RSS at spawn (earlier results used it: 1,093 MB at 100k skills). " +
        '"Without the file" is the same process with `recall.persistIndex: false` (not run at 100k: minutes of graph building per run).  "Before" is what the previous code did on a first recall: every skill row ' +
        'through `store.listSkills`, then the IVF index, timed in the bench process.',
      '',
      '### Three indexes over the same vectors (top 10)',
      '',
      table(
        [
          'Skills',
          'Queries',
          'Exact scan p50 / p99 (ms)',
          'IVF (before) p50 / p99 (ms)',
          'IVF recall@10',
          'Recall index p50 / p99 (ms)',
          'Recall index first pass p50 (ms)',
          'Recall index recall@10',
          'Recall index kind',
          'Recall index file load (ms, bench process)',
          'Load avg (1 min)',
        ],
        r.recall.map((q) => [
          q.exemplars ? `${n(q.skills)} x${q.exemplars + 1}` : n(q.skills),
          n(q.indexes.queries),
          `${q.indexes.exact.p50Ms} / ${q.indexes.exact.p99Ms}`,
          `${q.indexes.ivf.p50Ms} / ${q.indexes.ivf.p99Ms}`,
          String(q.indexes.ivf.recallAt10),
          `${q.indexes.tiered.p50Ms} / ${q.indexes.tiered.p99Ms}`,
          String(q.indexes.tiered.firstPassP50Ms ?? '-'),
          String(q.indexes.tiered.recallAt10),
          q.indexes.tiered.kind,
          String(q.indexes.tiered.loadMs),
          String(q.load1),
        ]),
      ),
      '',
      'Exact scan: `ExactIndex`, a flat dot-product scan over one Float32Array (brute force without SQLite), and the reference. ' +
        'IVF: the previous `VectorIndex` (~sqrt(n) k-means lists, sqrt(lists) probed). Recall index: `TieredIndex`, the exact scan below ' +
        '`recall.annFrom` skills and a USearch HNSW graph (M 32, ef_construction 400, vectors in half precision; ef 96 below 16,384 vectors, 160 from there; inner product) from there; recall@10 judges its hits on their exact scores. ' +
        "The recall index here is the one recall saved, loaded from its file (its build is the bench process's first recall above). " +
        'Each index answers the queries twice and the second pass is timed: in the first, the loaded recall index also faults in the pages of its memory-mapped graph (its p50 is shown apart), which the two in-memory indexes never pay. ' +
        "The vectors compared are the stored ones; recall itself removes half the namespace's mean goal direction first when a pass has recorded one (none in these bulk-written files). " +
        'recall@10 counts a hit tying the exact 10th score as found (many bench skills are copies of one goal and share its vector).',
      '',
    );
  }

  if (r.clustering?.length) {
    out.push('## Clustering: incremental against greedy', '');
    out.push(
      table(
        [
          'Sessions',
          'Dims',
          'Threshold',
          'Incremental (ms)',
          'Incremental clusters',
          'Greedy (ms)',
          'Greedy clusters',
          'Greedy / incremental',
        ],
        r.clustering.map((c) => [
          n(c.sessions),
          String(c.dims),
          String(c.threshold),
          String(round1(c.incremental.ms)),
          n(c.incremental.clusters),
          c.greedy.extrapolated
            ? `>= ${n(Math.round(c.greedy.ms))} (extrapolated: ${n(c.greedy.processed)} sessions in ${n(Math.round(c.greedy.measuredMs))} ms)`
            : String(round1(c.greedy.ms)),
          c.greedy.extrapolated ? `${n(c.greedy.clusters)} after ${n(c.greedy.processed)}` : n(c.greedy.clusters),
          `${c.greedy.extrapolated ? '>= ' : ''}x${c.ratio}`,
        ]),
      ),
      '',
      'The goal embeddings of the same synthetic sessions (normalised goal, default embedder), clustered twice in one process. ' +
        'Incremental: `IncrementalClusters` (src/domain/clustering.ts) with the goal vector as its feature: per session a nearest-centroid search of its same-goal and feature indexes, no pass over all clusters. ' +
        'Greedy: for each session, a dot product with the first member of every existing cluster in creation order, joining the first at or above the threshold, else a new cluster (bench/src/greedy.ts). ' +
        'Greedy runs are stopped after a time budget and marked extrapolated: measured time plus the remaining sessions at the cost per session of the last 1,024 measured, ' +
        'a lower bound (clusters only grow, so each later session compares with at least as many leaders); the ratio is then a lower bound too. ' +
        'A ratio below 1 means greedy was faster: its cost is n x clusters, and goal normalisation folds these synthetic goals into a few hundred clusters at most, ' +
        'while each incremental assignment pays two index searches and two index updates; greedy wins while the cluster count stays small and loses as it grows. ' +
        'The cluster counts differ because greedy compares with first members, incremental with running centroids and a same-goal index.',
      '',
    );
  }

  if (r.cli) {
    out.push('## CLI cold start', '');
    if (r.cli.modes) {
      out.push(
        table(
          ['Command', 'Skills', 'Runs by', 'Median (ms)', 'Min (ms)', 'Max (ms)', 'x bare node'],
          r.cli.modes.map((m) => [
            `skillsmith recall${m.json ? ' --json' : ''}`,
            n(m.skills),
            m.mode,
            String(m.medianMs),
            String(m.minMs),
            String(m.maxMs),
            `x${m.ratioToNode}`,
          ]),
        ),
        '',
        `\`node -e ""\` median ${r.cli.nodeBaselineMedianMs} ms, timed in the same ${r.cli.runs} rounds (each round runs every row once). ` +
          '"daemon": answered by the recall daemon of that file (started by an untimed recall); "in-process": the short path with SKILLSMITH_RECALL_DAEMON=0; ' +
          '"full CLI": SKILLSMITH_LEAN_RECALL=0, the path every recall took before issue 29.',
        '',
      );
    } else {
      out.push(
        `\`${r.cli.command}\`, ${r.cli.runs} runs after one untimed run: median ${r.cli.medianMs} ms, min ${r.cli.minMs} ms, max ${r.cli.maxMs} ms; \`node -e ""\` median ${r.cli.nodeBaselineMedianMs} ms.`,
        '',
      );
      if (r.cli.large) {
        out.push(
          `The same command on the ${n(r.cli.large.skills)}-skill recall file: median ${r.cli.large.medianMs} ms over ${r.cli.large.runs} runs, ` +
            `x${round1(r.cli.large.medianMs / r.cli.medianMs)} its time on the small file (each process loads the recall index file beside the database).`,
          '',
        );
      }
    }
  }

  if (r.forget?.length) {
    out.push('## Retention: forgetting many sessions at once', '');
    out.push(
      table(
        [
          'Back end',
          'Sessions',
          'Clustered',
          'Skills (marked)',
          'Set-up (s)',
          'Forget (s)',
          'ms a session',
          'One (median / max ms)',
          'CPU (s)',
          'Load avg',
        ],
        r.forget.map((f) => [
          f.backend,
          n(f.sessions),
          n(f.sessionsClustered),
          `${n(f.skills)} (${n(f.skillsMarked)})`,
          String(f.setupSeconds),
          String(f.seconds),
          String(f.msPerSession),
          f.oneMedianMs === undefined ? '-' : `${f.oneMedianMs} / ${f.oneMaxMs}`,
          String(f.cpuSeconds),
          String(f.load1),
        ]),
      ),
      '',
      '`memory.sessions.forgetBefore()` of every session of a memory that a synthesis pass counted, clustered and learned ' +
        'skills from (set-up untimed): what `sessions forget --older-than` and `capture.retentionDays` do. The pass lock ' +
        'is held throughout: synthesis passes wait this long.',
      '',
    );
  }

  if (r.stopHook?.length) {
    out.push('## The Stop hook on a long Codex CLI and Gemini CLI session', '');
    out.push(
      table(
        [
          'Log',
          'Tasks',
          'Size (MB)',
          'Case',
          'Median (ms)',
          'Min-max (ms)',
          'Read (MB)',
          'Peak RSS (MB)',
          'From its mark',
          'Mark (bytes)',
        ],
        r.stopHook.flatMap((h) =>
          h.cases.map((c) => [
            h.format === 'codex' ? 'Codex CLI rollout' : 'Gemini CLI JSONL',
            n(h.tasks),
            String(h.sizeMB),
            c.case,
            String(c.medianMs),
            `${c.minMs}-${c.maxMs}`,
            String(c.readMB),
            String(c.peakMB),
            `${c.readOn}/${h.runs}`,
            n(h.markBytes),
          ]),
        ),
      ),
      '',
      `\`${r.stopHook[0].cli} ingest --hook\` after the last task of a session made by repeating a fixture's turns (tool results padded to ${r.stopHook[0].resultKB} KB), ` +
        'each a new process, on the database as the stop before left it: "read on" from the mark that stop left, "whole" with the mark cleared (the whole log read and parsed, what every stop did before). ' +
        'Read: the bytes its read calls returned (rchar: the log, the database, its own modules). Mark: the state row the stop before left.',
      '',
    );
  }

  if (r.bigLogs?.length) {
    out.push('## Ingesting a large Claude Code transcript', '');
    out.push(
      table(
        ['Size (MB)', 'Lines', 'Input', 'Case', 'Build', 'Wall (s)', 'Peak RSS (MB)', 'Sessions', 'Calls'],
        r.bigLogs.flatMap((b) =>
          b.cases.map((c) => [
            String(b.sizeMB),
            n(b.lines),
            `${c.input ?? 'file'}${c.inputMB !== undefined && c.input !== 'file' ? ` (${c.inputMB} MB)` : ''}`,
            c.case,
            c.build,
            c.refused ? '-' : String(c.seconds),
            String(c.peakMB),
            c.refused ? `not read: ${c.refused.slice(0, 60)}` : String(c.sessions),
            c.calls === null ? '' : n(c.calls),
          ]),
        ),
      ),
      '',
      '`skillsmith ingest FILE --judge off` into a fresh SQLite file and `ingest --dry-run FILE`, each a new process, on a ' +
        'transcript written by test/fixtures/big-transcript.mjs (results from a line to 400 KB, each again in `toolUseResult` ' +
        "and a Bash call's progress line): named (file), gzip-compressed (gzip, its compressed size); and on a Codex CLI " +
        'rollout of the size (tool outputs padded to 100 KB) piped in, `cat LOG | skillsmith ingest -` (stdin). A JSONL log ' +
        'is read line by line as it is parsed (a gzip log or stdin as its bytes come); another build (--big-log-cli) may read ' +
        'it whole. Peak RSS: the kernel high-water mark (VmHWM) of the process.',
      '',
    );
  }

  out.push('## Memory (RSS)', '');
  out.push(
    table(
      ['Phase', 'Start (MB)', 'Peak (MB)', 'End (MB)', 'Load avg (1 min) at end'],
      Object.entries(r.memory.phases).map(([name, p]) => [
        name,
        String(p.startMB),
        String(p.peakMB),
        String(p.endMB),
        String(p.load1),
      ]),
    ),
    '',
    `Peak sampled RSS ${r.memory.peakRssMB} MB; kernel high-water mark (getrusage maxRSS) ${r.memory.kernelMaxRssMB} MB. ` +
      'Sampled every 20 ms and at every batch and progress callback; a full GC runs before each phase. ' +
      `A load average above ~${r.machine.cores / 2} on this ${r.machine.cores}-core machine means other processes competed for the CPU during that phase.`,
    '',
  );
  return out.join('\n');
}

export function synthesisScaling(runs: SynthesisResult[]): { from: number; to: number; ratio: number } | null {
  if (runs.length < 2) return null;
  const sorted = [...runs].sort((a, b) => a.sessions - b.sessions);
  const to = sorted[sorted.length - 1];
  const from = sorted[sorted.length - 2];
  return { from: from.sessions, to: to.sessions, ratio: Math.round((to.seconds / from.seconds) * 10) / 10 };
}

function table(header: string[], rows: string[][]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return [
    `| ${header.map(esc).join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
}
