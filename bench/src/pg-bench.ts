#!/usr/bin/env node
// The PostgreSQL back end under load, on this machine. A benchmark, not a test: it measures and reports.
//
//   node bench/build/bench/src/pg-bench.js [--db postgres://...] [--writers 8] [--sessions 500] [--calls 10]
//                               [--skills 1000] [--queries 2000] [--json] [--out FILE]
//
// Without --db it starts a throwaway PostgreSQL cluster (the server binaries must be installed; see
// test/support/pg-server.ts) and also measures recall while that server is stopped.
//
// 1. recall   memory.recall() in one process while skills live in PostgreSQL: served from the in-memory
//             index, with the change token kept current by LISTEN/NOTIFY; first recall (loads the index),
//             p50/p99 with the skills learned from examples/tau-sample.jsonl plus --skills more, how long a
//             change made by another process takes to reach it, and recall while the database is down.
// 2. ingest   --writers processes (default 8) each recording --sessions sessions of --calls tool calls at the
//             same moment: live (one statement per call, as agents record) and in batches (memory.ingest).

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseCaptureText } from '#dist/capture/parse-file.js';
import type { Skill } from '#dist/domain/types.js';
import { openMemory } from '#dist/app/open-memory.js';
import type { Memory } from '#dist/app/memory.js';
import { RecallIndex } from '#dist/pipeline/recall.js';
import { openPgStore, type PgStore } from '#dist/store/postgres/pg-store.js';
import { createLogger } from '#dist/support/log.js';
import { mean, nowMs, percentile } from './monitor.js';
import { REPO } from './paths.js';
import { startPgServer, type PgServer } from '../../test/support/pg-server.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const AGENT = join(HERE, 'pg-fleet-agent.js');
const SAMPLE = join(REPO, 'examples/tau-sample.jsonl');

interface Latency {
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
}

interface IngestRun {
  mode: 'live' | 'batch';
  writers: number;
  sessions: number;
  calls: number;
  seconds: number;
  callsPerSecond: number;
  sessionsPerSecond: number;
  perWriterCallsPerSecond: number[];
}

interface PgBenchResults {
  machine: { cpus: number; cpu: string; node: string; postgres: string };
  recall: {
    skills: number;
    queries: number;
    firstRecallMs: number;
    recall: Latency;
    readOnly: Latency;
    hitRate: number;
    changeVisibleMs: { p50: number; max: number };
    reloadAfterChangeMs: number;
    whileDatabaseDown: (Latency & { recalls: number; queuedRecords: number }) | null;
  };
  ingest: IngestRun[];
}

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
const latency = (xs: number[]): Latency => ({
  p50Ms: round(percentile(xs, 50)),
  p99Ms: round(percentile(xs, 99)),
  meanMs: round(mean(xs)),
});
const log = (s: string) => process.stderr.write(`${s}\n`);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      db: { type: 'string' },
      writers: { type: 'string', default: '8' },
      sessions: { type: 'string', default: '500' },
      calls: { type: 'string', default: '10' },
      skills: { type: 'string', default: '1000' },
      queries: { type: 'string', default: '2000' },
      json: { type: 'boolean', default: false },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(
      'usage: node bench/build/bench/src/pg-bench.js [--db postgres://...] [--writers 8] [--sessions 500] [--calls 10] [--skills 1000] [--queries 2000] [--json] [--out FILE]\n',
    );
    return;
  }
  let server: PgServer | null = null;
  let url = values.db;
  if (!url) {
    log('starting a throwaway PostgreSQL cluster ...');
    server = await startPgServer();
    url = await server.createDatabase('pg_bench');
  }
  const run = `b${Date.now().toString(36)}`;
  try {
    const quiet = createLogger('error');
    const probe = await openPgStore(url, { pollMs: 0, log: quiet });
    const version = String((await probe.pool.query('SHOW server_version')).rows[0].server_version);
    await probe.close();

    log('recall ...');
    const recall = await benchRecall(url, `${run}-recall`, Number(values.skills), Number(values.queries), server);
    const ingest: IngestRun[] = [];
    for (const mode of ['live', 'batch'] as const) {
      log(`ingest (${mode}) ...`);
      ingest.push(
        await benchIngest(
          url,
          `${run}-${mode}`,
          mode,
          Number(values.writers),
          Number(values.sessions),
          Number(values.calls),
        ),
      );
    }
    const results: PgBenchResults = {
      machine: {
        cpus: cpus().length,
        cpu: cpus()[0]?.model.trim() ?? 'unknown',
        node: process.version,
        postgres: version,
      },
      recall,
      ingest,
    };
    if (values.out) writeFileSync(values.out, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(values.json ? `${JSON.stringify(results, null, 2)}\n` : `${render(results)}\n`);
  } finally {
    await server?.stop();
  }
}

async function benchRecall(
  url: string,
  namespace: string,
  extraSkills: number,
  queryCount: number,
  server: PgServer | null,
): Promise<PgBenchResults['recall']> {
  const quiet = createLogger('error');
  // The process that learns and changes skills...
  const writer = await openMemory({ db: await openPgStore(url, { log: quiet }), namespace, logLevel: 'silent' });
  // ...and the one that recalls, as another agent of the fleet would.
  let reader: Memory | null = null;
  try {
    const parsed = parseCaptureText(readFileSync(SAMPLE, 'utf8'), {
      file: SAMPLE,
      namespace,
      format: 'auto',
      maxRecordBytes: 4 * 1024 * 1024,
      resultChars: 2000,
      maxCallsPerSession: 1000,
      now: new Date().toISOString(),
    });
    await writer.ingest(parsed.sessions);
    await writer.synthesize();
    const learned = await writer.skills.list({ corpus: 'internal' });
    await addSkills(writer, learned, extraSkills);
    const skills = (await writer.skills.list({ corpus: 'internal' })).length;

    reader = await openMemory({ db: await openPgStore(url, { log: quiet }), namespace, logLevel: 'silent' });
    const goals = parsed.sessions.map((s) => s.goal);
    const queries = Array.from({ length: queryCount }, (_, i) => goals[i % goals.length]);
    let t0 = nowMs();
    await reader.recall(queries[0]);
    const firstRecallMs = nowMs() - t0;
    for (const q of queries.slice(0, 200)) await reader.recall(q);
    const times: number[] = [];
    let hits = 0;
    for (const q of queries) {
      t0 = nowMs();
      const got = await reader.recall(q);
      times.push(nowMs() - t0);
      if (got.length) hits++;
    }
    const readOnly = new RecallIndex(reader.parts.store!, reader.parts.embedder, namespace, reader.config);
    await readOnly.recall(queries[0], { threshold: reader.parts.thresholds.recall, touch: false });
    const readOnlyTimes: number[] = [];
    for (const q of queries) {
      t0 = nowMs();
      await readOnly.recall(q, { threshold: reader.parts.thresholds.recall, touch: false });
      readOnlyTimes.push(nowMs() - t0);
    }

    // A change made by another process: how long until this one's token moves, and what the next recall pays.
    const visible: number[] = [];
    const target = learned[0] ?? (await writer.skills.list())[0];
    for (let i = 0; i < 20; i++) {
      const before = await reader.parts.store!.changeToken();
      t0 = nowMs();
      await writer.skills.setEnabled(target.id, i % 2 === 1);
      while ((await reader.parts.store!.changeToken()) === before) await new Promise((r) => setImmediate(r));
      visible.push(nowMs() - t0);
    }
    t0 = nowMs();
    await reader.recall(queries[1]);
    const reloadAfterChangeMs = nowMs() - t0;
    await writer.skills.setEnabled(target.id, true);

    let whileDatabaseDown: PgBenchResults['recall']['whileDatabaseDown'] = null;
    if (server) {
      await reader.recall(queries[0]);
      server.pause();
      const down: number[] = [];
      try {
        for (const q of queries.slice(0, 500)) {
          t0 = nowMs();
          await reader.recall(q);
          down.push(nowMs() - t0);
        }
      } finally {
        const queued = (reader.parts.store as PgStore).pendingRecalls;
        server.start();
        whileDatabaseDown = { ...latency(down), recalls: down.length, queuedRecords: queued };
      }
    }
    return {
      skills,
      queries: queries.length,
      firstRecallMs: round(firstRecallMs, 1),
      recall: latency(times),
      readOnly: latency(readOnlyTimes),
      hitRate: round(hits / queries.length),
      changeVisibleMs: { p50: round(percentile(visible, 50)), max: round(Math.max(...visible)) },
      reloadAfterChangeMs: round(reloadAfterChangeMs),
      whileDatabaseDown,
    };
  } finally {
    await reader?.close().catch(() => undefined);
    await writer.close().catch(() => undefined);
  }
}

/** More skills through the store's one write path: copies of learned ones with nearby embeddings. */
async function addSkills(memory: Memory, learned: Skill[], count: number): Promise<void> {
  if (!learned.length || count <= 0) return;
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5;
  const at = new Date().toISOString();
  for (let i = 0; i < count; i++) {
    const base = learned[i % learned.length];
    const v = Float32Array.from(base.embedding ?? [], (x) => x + random() * 0.2);
    const norm = Math.hypot(...v) || 1;
    await memory.parts.store!.writeSkill({
      action: 'add',
      skill: {
        ...base,
        id: `${base.id}-c${i}`,
        name: `${base.name}-c${i}`,
        embedding: v.map((x) => x / norm),
        createdAt: at,
        updatedAt: at,
        sourceSessions: [],
      },
      parents: [],
      actor: 'bench',
      detail: {},
      at,
    });
  }
}

async function benchIngest(
  url: string,
  namespace: string,
  mode: 'live' | 'batch',
  writers: number,
  sessions: number,
  calls: number,
): Promise<IngestRun> {
  const children = Array.from({ length: writers }, (_, i) => {
    const args = [
      AGENT,
      'record',
      '--db',
      url,
      '--namespace',
      namespace,
      '--agent',
      String(i),
      '--sessions',
      String(sessions),
      '--calls',
      String(calls),
      '--wait',
    ];
    if (mode === 'batch') args.push('--batch', '100');
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines: string[] = [];
    const ready = new Promise<void>((resolveReady) =>
      createInterface({ input: child.stdout }).on('line', (l) => {
        lines.push(l);
        if (lines.length === 1) resolveReady();
      }),
    );
    const done = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    return { child, lines, ready, done };
  });
  await Promise.all(children.map((c) => c.ready));
  const t0 = nowMs();
  for (const c of children) c.child.stdin.end('go\n');
  const codes = await Promise.all(children.map((c) => c.done));
  const seconds = (nowMs() - t0) / 1000;
  if (codes.some((c) => c !== 0)) throw new Error(`a writer failed (exit codes ${codes.join(', ')})`);
  const stats = children.map((c) => JSON.parse(c.lines.at(-1)!) as { calls: number; callsPerSecond: number });
  const total = stats.reduce((n, s) => n + s.calls, 0);
  return {
    mode,
    writers,
    sessions: writers * sessions,
    calls: total,
    seconds: round(seconds, 2),
    callsPerSecond: Math.round(total / seconds),
    sessionsPerSecond: Math.round((writers * sessions) / seconds),
    perWriterCallsPerSecond: stats.map((s) => s.callsPerSecond),
  };
}

function render(r: PgBenchResults): string {
  const rc = r.recall;
  const lines = [
    `PostgreSQL ${r.machine.postgres}, ${r.machine.cpus} x ${r.machine.cpu}, Node ${r.machine.node}`,
    '',
    `Recall from the in-memory index (${rc.skills} skills in PostgreSQL, ${rc.queries} queries, hit rate ${rc.hitRate})`,
    `  first recall (loads the index)      ${rc.firstRecallMs} ms`,
    `  memory.recall()                     p50 ${rc.recall.p50Ms} ms   p99 ${rc.recall.p99Ms} ms   mean ${rc.recall.meanMs} ms`,
    `  read-only (no recall record)        p50 ${rc.readOnly.p50Ms} ms   p99 ${rc.readOnly.p99Ms} ms   mean ${rc.readOnly.meanMs} ms`,
    `  another process's change visible    p50 ${rc.changeVisibleMs.p50} ms   max ${rc.changeVisibleMs.max} ms (LISTEN/NOTIFY)`,
    `  first recall after a change         ${rc.reloadAfterChangeMs} ms (reloads ${rc.skills} skills)`,
  ];
  if (rc.whileDatabaseDown) {
    const d = rc.whileDatabaseDown;
    lines.push(
      `  while the database is down          p50 ${d.p50Ms} ms   p99 ${d.p99Ms} ms (${d.recalls} recalls, ${d.queuedRecords} records queued until it is back)`,
    );
  }
  lines.push('', 'Ingest: concurrent writer processes into one database');
  for (const i of r.ingest) {
    lines.push(
      `  ${i.mode === 'live' ? 'live, a statement per call' : 'batches of 100 sessions'}`.padEnd(38) +
        `${i.writers} writers, ${i.calls} calls in ${i.sessions} sessions: ${i.seconds} s, ${i.callsPerSecond} calls/s, ${i.sessionsPerSecond} sessions/s`,
    );
  }
  return lines.join('\n');
}

main().catch((e) => {
  process.stderr.write(`pg-bench: ${(e as Error)?.stack ?? e}\n`);
  process.exitCode = 1;
});
