// The `forget` phase of `npm run bench`: retention on a large memory. A memory holds `sessions` synthetic sessions
// that a synthesis pass has counted, clustered and learned skills from (set-up, untimed); then every one of them is
// forgotten at once by memory.sessions.forgetBefore, as `sessions forget --older-than` and capture.retentionDays
// do, on a SQLite file and on a PostgreSQL database (a throwaway server, test/support/pg-server.ts). The pass lock
// is held while they are forgotten: this is how long synthesis passes are held off. Before that, `FEEDBACKS` of the
// sessions get a trial of a learned skill (feedback rows and audit records that name them), and `SINGLES` sessions
// spread over the memory are forgotten one at a time by memory.sessions.forget, as `DELETE /api/sessions/{id}` and
// `sessions forget ID` do: how long one forget takes in a large memory.

import { join } from 'node:path';
import { loadavg } from 'node:os';
import { openMemory } from '#dist/app/open-memory.js';
import type { Session } from '#dist/domain/types.js';
import { collectGarbage, cpuMs, nowMs, type Progress, type RssMonitor } from './monitor.js';
import type { ForgetResult } from './report.js';
import { syntheticSessionBatches } from './synthetic.js';
import { startPgServer } from '../../test/support/pg-server.js';

export interface ForgetBenchContext {
  work: string;
  seed: number;
  traces: string[];
  progress: Progress;
  rss: RssMonitor;
}

/** Where the synthetic sessions start (one a second): all of them before the cutoff. */
const START = new Date('2025-01-01T00:00:00Z');
const CUTOFF = new Date('2026-01-01T00:00:00Z');
/** Sessions forgotten one at a time, timed each; and sessions given a skill's trial first (one in every few). */
const SINGLES = 20;
const FEEDBACK_EVERY = 4;

/** Forgetting `sessions` sessions on SQLite, then on PostgreSQL (null with the reason when no server starts). */
export async function benchForget(ctx: ForgetBenchContext, sessions: number): Promise<ForgetResult[]> {
  const out: ForgetResult[] = [];
  out.push(await forgetOn(ctx, 'sqlite', join(ctx.work, `forget-${sessions}.db`), sessions));
  let server: Awaited<ReturnType<typeof startPgServer>> | null = null;
  try {
    server = await startPgServer();
  } catch (e) {
    ctx.progress.line(`forget on PostgreSQL: not measured, no server (${(e as Error).message.split('\n')[0]})`);
  }
  if (server) {
    try {
      out.push(await forgetOn(ctx, 'postgres', await server.createDatabase(), sessions));
    } finally {
      await server.stop();
    }
  }
  return out;
}

async function forgetOn(
  ctx: ForgetBenchContext,
  backend: ForgetResult['backend'],
  db: string,
  size: number,
): Promise<ForgetResult> {
  const { progress, rss } = ctx;
  const label = `forget ${size} (${backend})`;
  const memory = await openMemory({ db, config: { synthesis: { cooldownMs: 0 } }, logLevel: 'silent' });
  try {
    collectGarbage();
    rss.begin(`${label}: set-up`);
    const setupStart = nowMs();
    let done = 0;
    for (const batch of syntheticSessionBatches(size, ctx.seed, ctx.traces, 1_000, { startAt: START })) {
      // Ended a minute after they started: judged by their end, long before the cutoff.
      await memory.ingest(batch.map(ended));
      done += batch.length;
      progress.bar(`${label}: ingest`, done, size);
    }
    const pass = await memory.synthesize();
    const skills = await memory.skills.list({ includeSuperseded: true });
    // Trials name sessions in the feedback rows and in their audit records: a forget looks for both.
    const ids = (await memory.sessions.list({ limit: size })).map((s) => s.id);
    const names = skills.filter((s) => !s.supersededBy).map((s) => s.name);
    let given = 0;
    for (let i = 0; names.length && i < ids.length; i += FEEDBACK_EVERY) {
      await memory.feedback(names[i % names.length]!, given % 3 ? 'trial.pass' : 'trial.fail', { sessionId: ids[i] });
      progress.bar(`${label}: feedback`, ++given, Math.ceil(ids.length / FEEDBACK_EVERY));
    }
    const setupSeconds = (nowMs() - setupStart) / 1000;

    // One session at a time, spread over the memory, some with a trial: each forget's own time.
    const singles: number[] = [];
    for (let k = 0; k < SINGLES; k++) {
      const id = ids[Math.floor(((k + 0.5) * ids.length) / SINGLES)]!;
      const t = nowMs();
      if (!(await memory.sessions.forget(id, { actor: 'bench' })))
        throw new Error(`${label}: session ${id} was not forgotten`);
      singles.push(nowMs() - t);
    }
    singles.sort((a, b) => a - b);

    collectGarbage();
    rss.begin(`${label}: forget`);
    const [t0, c0] = [nowMs(), cpuMs()];
    const r = await memory.sessions.forgetBefore(CUTOFF, { actor: 'bench' });
    const ms = nowMs() - t0;
    const cpu = cpuMs() - c0;
    rss.end();
    const left = await memory.sessions.count();
    if (r.forgotten.length !== size - SINGLES || left !== 0)
      throw new Error(`${label}: forgot ${r.forgotten.length} of ${size - SINGLES} sessions, ${left} left`);
    const marked = new Set(r.forgotten.flatMap((f) => f.skills)).size;
    const links = r.forgotten.reduce((n, f) => n + f.skills.length, 0);
    const result: ForgetResult = {
      backend,
      sessions: size,
      sessionsClustered: pass.stats.newSessions,
      skills: skills.length,
      skillsMarked: marked,
      parentLinks: links,
      setupSeconds: round(setupSeconds, 2),
      seconds: round(ms / 1000, 3),
      msPerSession: round(ms / (size - SINGLES), 3),
      feedbacks: given,
      oneMedianMs: round(singles[Math.floor(SINGLES / 2)]!, 2),
      oneMaxMs: round(singles[SINGLES - 1]!, 2),
      cpuSeconds: round(cpu / 1000, 3),
      load1: round(loadavg()[0] ?? 0, 2),
    };
    progress.line(
      `${label}: one at a time ${result.oneMedianMs} ms median (max ${result.oneMaxMs} ms, ${SINGLES} sessions); the rest at once ${result.seconds} s (${result.msPerSession} ms a session; ${result.skillsMarked} of ${result.skills} skills keep forgotten-parent markers, ${links} in all)`,
    );
    return result;
  } finally {
    await memory.close();
  }
}

function ended(s: Session): Session {
  return { ...s, endedAt: new Date(Date.parse(s.startedAt) + 60_000).toISOString() };
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;
