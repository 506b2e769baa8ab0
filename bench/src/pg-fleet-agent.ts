#!/usr/bin/env node
// One process of a simulated fleet of agents sharing one PostgreSQL memory (the fleet test and
// `pg-bench` spawn several). Prints one JSON line on stdout.
//
//   node bench/build/bench/src/pg-fleet-agent.js record --db URL --agent N [--namespace NS] [--sessions 500] [--calls 10]
//                                            [--recall] [--retry-every K] [--batch N]
//       records the agent's sessions live (each call stored as it happens); --recall asks for skills at the
//       start of each session (their trials follow from the outcome); --retry-every K sends every K-th call
//       a second time, as a client does when an acknowledgement is lost; --batch N instead stores finished
//       sessions N at a time (memory.ingest, one transaction per batch).
//   node bench/build/bench/src/pg-fleet-agent.js synthesize --db URL [--namespace NS] [--wait]
//       one synthesis pass. Exit 3 when the pass lock was taken.
// With --wait, either mode first prints {"ready":true} and starts when a line arrives on stdin (so several
// processes can start at the same moment, their start-up done).

import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { Session } from '#dist/domain/types.js';
import { openMemory } from '#dist/app/open-memory.js';
import { openPgStore } from '#dist/store/postgres/pg-store.js';
import { createLogger } from '#dist/support/log.js';
import { fleetSession } from './pg-fleet-work.js';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      db: { type: 'string' },
      namespace: { type: 'string', default: 'fleet' },
      agent: { type: 'string', default: '0' },
      sessions: { type: 'string', default: '500' },
      calls: { type: 'string', default: '10' },
      recall: { type: 'boolean', default: false },
      'retry-every': { type: 'string', default: '0' },
      wait: { type: 'boolean', default: false },
      batch: { type: 'string', default: '0' },
    },
  });
  const mode = positionals[0];
  if (!values.db || (mode !== 'record' && mode !== 'synthesize')) {
    process.stderr.write(
      'usage: pg-fleet-agent.js record|synthesize --db postgres://... [options] (see the header of bench/src/pg-fleet-agent.ts)\n',
    );
    return 2;
  }
  const agent = Number(values.agent);
  const store = await openPgStore(values.db, {
    poolSize: 3,
    applicationName: `skillsmith-fleet-${mode}-${agent}`,
    log: createLogger('error'),
  });
  // The fleet checks that every call is stored exactly as recorded: capture privacy is opted out of.
  const memory = await openMemory({
    db: store,
    namespace: values.namespace,
    logLevel: 'error',
    config: { capture: { privacy: { args: 'keep', results: 'keep', goal: 'keep' } } },
  });
  try {
    if (values.wait) {
      process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
      const rl = createInterface({ input: process.stdin });
      await new Promise<void>((resolve) => rl.once('line', () => resolve()).once('close', () => resolve()));
      // An open stdin would keep this process alive after its work.
      rl.close();
      process.stdin.destroy();
    }
    if (mode === 'synthesize') {
      const started = Date.now();
      try {
        const report = await memory.synthesize();
        const out = {
          ok: true,
          ms: Date.now() - started,
          created: report.created.map((s) => s.name),
          reinforced: report.reinforced.length,
          stats: report.stats,
        };
        process.stdout.write(`${JSON.stringify(out)}\n`);
        return 0;
      } catch (e) {
        const err = e as Error;
        process.stdout.write(
          `${JSON.stringify({ ok: false, ms: Date.now() - started, error: err.name, message: err.message })}\n`,
        );
        return err.name === 'PassLockedError' ? 3 : 1;
      }
    }

    const sessions = Number(values.sessions);
    const calls = Number(values.calls);
    const retryEvery = Number(values['retry-every']);
    const batch = Number(values.batch);
    const started = Date.now();
    let recorded = 0;
    let retries = 0;
    let served = 0;
    for (let i = 0; batch > 0 && i < sessions; i += batch) {
      const chunk: Session[] = [];
      for (let j = i; j < Math.min(sessions, i + batch); j++) {
        const s = fleetSession(agent, j, calls);
        const at = new Date().toISOString();
        chunk.push({
          id: s.id,
          namespace: values.namespace!,
          goal: s.goal,
          outcome: s.outcome,
          reward: null,
          agentId: `agent-${agent}`,
          source: 'fleet',
          startedAt: at,
          endedAt: at,
          labels: null,
          calls: s.calls.map((c, position) => ({ ...c, position, durationMs: null, at })),
        });
        recorded += s.calls.length;
      }
      await memory.ingest(chunk);
    }
    for (let i = 0; batch === 0 && i < sessions; i++) {
      const s = fleetSession(agent, i, calls);
      const rec = await memory.startSession({ id: s.id, goal: s.goal, agentId: `agent-${agent}`, source: 'fleet' });
      if (values.recall) served += (await rec.recall()).length;
      for (const [position, c] of s.calls.entries()) {
        await rec.call(c);
        recorded++;
        if (retryEvery > 0 && recorded % retryEvery === 0) {
          await store.appendCall(values.namespace!, s.id, {
            position,
            ...c,
            durationMs: null,
            at: new Date().toISOString(),
          });
          retries++;
        }
      }
      await rec.end(s.outcome);
    }
    const ms = Date.now() - started;
    process.stdout.write(
      `${JSON.stringify({ agent, sessions, calls: recorded, retries, served, ms, callsPerSecond: Math.round((recorded / ms) * 1000) })}\n`,
    );
    return 0;
  } finally {
    await memory.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`pg-fleet-agent: ${(e as Error)?.stack ?? e}\n`);
    process.exitCode = 1;
  },
);
