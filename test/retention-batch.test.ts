// Retention on a memory with many sessions, on a SQLite file and on PostgreSQL: memory.sessions.forgetBefore forgets
// them a batch (500) to a transaction, and every session goes as a single forget takes it: its rows and traces in
// every table, one audit record each, forgotten-parent markers and events for the skills learned from it, and its
// words and tools out of the namespace's statistics. A session still open is dated by its latest activity.
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { PassLockedError } from '../src/errors/index.js';
import { forgetSessions as forgetStored } from '../src/pipeline/forget.js';
import type { Session } from '../src/domain/types.js';
import type { RetentionResult } from '../src/app/types.js';
import { stateKey } from '../src/store/state-key.js';
import type { Memory } from '../src/app/memory.js';
import { TermStats } from '../src/domain/term-stats.js';
import { configSchema } from '../src/config/config.js';
import { centroidsOf } from '../src/pipeline/stages/cluster.js';
import { embedTexts } from '../src/pipeline/stages/embed.js';
import type { HeldLock } from '../src/store/store.js';
import { codingSessions } from './support/coding-tasks.js';
import {
  forgetSessions,
  SECRET_GOAL_WORD,
  SECRET_RESULT,
  tracesInDatabase,
  tracesInFile,
} from './support/forget-fixture.js';
import { startPgServer, type PgServer } from './support/pg-server.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
/** Copies of the thirteen tasks below: 1,300 ended sessions, a minute apart. */
const COPIES = 100;
/** The first this many of them are older than the cutoff: more than two batches. */
const OLD = 1_100;

let server: PgServer;
let tmp: string;

beforeAll(async () => {
  server = await startPgServer();
  tmp = mkdtempSync(join(tmpdir(), 'skillsmith-retention-batch-'));
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/**
 * Nine coding-agent runs (their Bash calls count in the statistics by the command they run) and four tau runs, the
 * first of which alone holds the secret strings, copied `COPIES` times; then three sessions still open.
 */
function manySessions(now: number): { sessions: Session[]; cutoff: Date; start: number } {
  const base = [...codingSessions(), ...forgetSessions('fg')];
  const start = now - 400 * DAY;
  const sessions: Session[] = [];
  for (let k = 0; k < COPIES; k++)
    for (const s of base) {
      const i = sessions.length;
      const plain = (text: string) =>
        k === 0 ? text : text.replaceAll(SECRET_GOAL_WORD, 'Maple').replaceAll(SECRET_RESULT, 'NOTE');
      sessions.push({
        ...s,
        id: `${s.id}-${k}`,
        goal: plain(s.goal),
        startedAt: new Date(start + i * MINUTE).toISOString(),
        endedAt: new Date(start + i * MINUTE + 30_000).toISOString(),
        calls: s.calls.map((c) => ({ ...c, result: plain(c.result) })),
      });
    }
  const opened = (id: string, callAt: (number | null)[]): Session => ({
    ...base[0]!,
    id,
    startedAt: new Date(start - DAY).toISOString(),
    endedAt: null,
    outcome: 'unknown',
    calls: base[0]!.calls.map((c, i) => ({
      ...c,
      at: callAt[i] === undefined || callAt[i] === null ? null : new Date(callAt[i]!).toISOString(),
    })),
  });
  sessions.push(
    // An agent still running: started long ago, its last call an hour ago.
    opened('open-running', [start - DAY, now - 2 * 3_600_000, now - 3_600_000]),
    // One whose end never arrived: its last call long ago.
    opened('open-abandoned', [start - DAY + MINUTE, start - DAY + 5 * MINUTE]),
    // One whose calls carry no time: dated by its start.
    opened('open-quiet', []),
  );
  return { sessions, cutoff: new Date(start + OLD * MINUTE), start };
}

/** Stats as stored: their document count and terms. */
async function stats(db: string, ns: string, key: string) {
  const memory = await openMemory({ db, logLevel: 'silent' });
  try {
    const text = await memory.parts.store!.getState(ns, key as typeof stateKey.toolStats);
    return text ? (JSON.parse(text) as { docs: number; df: [string, number][] }) : null;
  } finally {
    await memory.close();
  }
}

interface Run {
  first: RetentionResult;
  rest: RetentionResult;
}

/** Ingests the sessions, learns from them, then forgets the old ones, then the rest; checks each step. */
async function retain(db: string, traces: () => Promise<string[]>, now: number): Promise<Run> {
  const { sessions, cutoff } = manySessions(now);
  const memory = await openMemory({ db, logLevel: 'silent', config: { synthesis: { cooldownMs: 0 } } });
  try {
    const store = memory.parts.store!;
    const ns = memory.namespace;
    await memory.ingest(sessions);
    const pass = await memory.synthesize();
    expect(pass.created.length).toBeGreaterThanOrEqual(3);
    const skills = await memory.skills.list({ includeSuperseded: true });
    const parents = new Map(skills.map((s) => [s.name, s.sourceSessions]));
    expect(await traces()).toEqual([SECRET_GOAL_WORD, SECRET_RESULT].sort());
    const counted = (await stats(db, ns, stateKey.toolStats))!.docs;
    expect(counted).toBeGreaterThanOrEqual(1_300);

    const dry = await memory.sessions.forgetBefore(cutoff, { dryRun: true });
    const first = await memory.sessions.forgetBefore(cutoff, { actor: 'retention-test' });
    // The two open sessions inactive since before the cutoff, then the old ones, oldest first; the running one kept.
    const old = sessions.slice(0, OLD).map((s) => s.id);
    expect(first.forgotten.map((f) => f.id)).toEqual(['open-quiet', 'open-abandoned', ...old]);
    expect(dry.forgotten.map((f) => f.id)).toEqual(first.forgotten.map((f) => f.id));
    expect(first.forgotten[0]!.at).toBe(sessions.find((s) => s.id === 'open-quiet')!.startedAt);
    expect(first.forgotten[1]!.at).toBe(sessions.find((s) => s.id === 'open-abandoned')!.calls[1]!.at);
    expect(first.undated).toEqual([]);
    const byId = new Map(sessions.map((s) => [s.id, s]));
    for (const f of first.forgotten) expect(f.calls).toBe(byId.get(f.id)!.calls.length);
    expect(await memory.sessions.count()).toBe(sessions.length - OLD - 2);
    const left = new Set((await memory.sessions.list({ limit: 1_000 })).map((s) => s.id));
    expect(left.has('open-running')).toBe(true);
    expect(old.some((id) => left.has(id))).toBe(false);

    // Each session forgotten as a single forget takes it: the skills it taught, each of them marked.
    for (const [name, was] of parents) {
      const gone = was.filter((id) => !left.has(id));
      const ex = (await memory.skills.explain(name))!;
      expect(ex.parents.forgotten, name).toBe(gone.length);
      expect((await memory.skills.get(name))!.sourceSessions.sort(), name).toEqual(
        was.filter((id) => left.has(id)).sort(),
      );
      for (const id of gone) expect(first.forgotten.find((f) => f.id === id)!.skills, id).toContain(name);
    }
    const links = first.forgotten.reduce((n, f) => n + f.skills.length, 0);
    expect(links).toBeGreaterThan(0);
    const events = await store.events(ns, { limit: 100_000 });
    expect(events.filter((e) => e.type === 'skill.parent_forgotten')).toHaveLength(links);
    const audit = (await store.audit(ns, { limit: 100_000 })).filter((a) => a.action === 'session.forget');
    expect(audit.map((a) => a.subjectId).sort()).toEqual(first.forgotten.map((f) => f.ref).sort());
    expect(audit.every((a) => a.actor === 'retention-test')).toBe(true);
    expect(await traces()).toEqual([]);
    // The statistics no longer count them.
    expect((await stats(db, ns, stateKey.toolStats))!.docs).toBeLessThanOrEqual(counted - OLD);
    await expectCentroidsOfMembers(memory);

    // The rest, and the running session too once the cutoff passes its last call: nothing of them is counted.
    const rest = await memory.sessions.forgetBefore(new Date(now + DAY), { actor: 'retention-test' });
    expect(rest.forgotten).toHaveLength(sessions.length - OLD - 2);
    expect(await memory.sessions.count()).toBe(0);
    for (const key of [stateKey.toolStats, stateKey.goalStats])
      expect(await stats(db, ns, key), key).toEqual({ docs: 0, df: [] });
    for (const name of parents.keys())
      expect((await memory.skills.explain(name))!.parents.forgotten, name).toBe(parents.get(name)!.length);
    return { first, rest };
  } finally {
    await memory.close();
  }
}

/**
 * Every cluster's centroids are those of the members it has left, after batches that each took some of them, and the
 * mean goal vector is the sum of their goals: nothing of the forgotten sessions stays in either.
 */
async function expectCentroidsOfMembers(memory: Memory) {
  const store = memory.parts.store!;
  const { embedder } = memory.parts;
  const clusters = await store.loadClusters(memory.namespace, embedder.id);
  const toolStats = TermStats.fromJSON(await store.getState(memory.namespace, stateKey.toolStats));
  const goalSum = new Float64Array(embedder.dimensions);
  let members = 0;
  // The memory runs with the default settings.
  const { synthesis } = configSchema.parse({});
  const shrunk = clusters.filter((c) => c.size > 0);
  expect(shrunk.length).toBeGreaterThan(0);
  for (const c of shrunk) {
    const outlines = await store.sessionOutlines(memory.namespace, await store.clusterMembers(memory.namespace, c.id));
    expect(outlines).toHaveLength(c.size);
    const goals = await embedTexts(
      store,
      embedder,
      outlines.map((o) => o.goal),
    );
    const expected = centroidsOf(
      outlines.map((o, i) => ({ session: o, goal: goals[i]! })),
      embedder.dimensions,
      toolStats,
      synthesis,
    );
    expect(maxDiff(c.centroid, expected.centroid), c.id).toBeLessThan(1e-6);
    expect(maxDiff(c.goalCentroid, expected.goalCentroid), c.id).toBeLessThan(1e-6);
    for (const g of goals) for (let i = 0; i < g.length; i++) goalSum[i] += g[i]!;
    members += outlines.length;
  }
  const mean = JSON.parse((await store.getState(memory.namespace, stateKey.goalMean(embedder.id)))!) as {
    count: number;
    sum: number[];
  };
  expect(mean.count).toBe(members);
  expect(maxDiff(mean.sum, goalSum)).toBeLessThan(1e-3);
}

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!));
  return d;
}

describe('retention of many sessions at once', () => {
  it('forgets each as a single forget does, on SQLite and on PostgreSQL alike', async () => {
    const now = Date.now();
    const file = join(tmp, 'many.db');
    const url = await server.createDatabase();
    const lite = await retain(file, async () => tracesInFile(file, [SECRET_GOAL_WORD, SECRET_RESULT]).sort(), now);
    const pg = await retain(url, () => tracesInDatabase(url, [SECRET_GOAL_WORD, SECRET_RESULT]), now);
    const shape = (r: RetentionResult) =>
      r.forgotten.map(({ id, at, ref, calls, skills }) => ({ id, at, ref, calls, skills }));
    expect(shape(pg.first)).toEqual(shape(lite.first));
    expect(shape(pg.rest)).toEqual(shape(lite.rest));
  }, 300_000);
});

/** `n` ended sessions of the forget fixture's tasks, all of them a year old. */
function oldSessions(n: number, now: number): Session[] {
  const base = forgetSessions('old');
  return Array.from({ length: n }, (_, i) => {
    const at = new Date(now - 365 * DAY + i * MINUTE).toISOString();
    const s = base[i % base.length]!;
    return { ...s, id: `old-${i}`, startedAt: at, endedAt: at, calls: s.calls.map((c) => ({ ...c, at })) };
  });
}

describe('the lock a forget runs under', () => {
  /**
   * A forget of three batches that takes twice its lock's lifetime (a long pause after each batch, each shorter
   * than the lifetime): the lock is renewed once a batch, so a pass on another connection is refused throughout.
   */
  async function keptThroughout(db: string): Promise<void> {
    const now = Date.now();
    const TTL = 2_000;
    const a = await openMemory({ db, logLevel: 'silent' });
    const b = await openMemory({ db, logLevel: 'silent' });
    try {
      await a.ingest(oldSessions(1_200, now));
      const store = a.parts.store!;
      const held = await store.tryLock('synthesis:default', `${hostname()}:${process.pid}:forget:test`, TTL);
      expect(held).not.toBeNull();
      const refused: string[] = [];
      const deps = { store, embedder: a.parts.embedder, thinkTools: [], toolWeight: 0.5 };
      const ids = (await a.sessions.list({ limit: 2_000 })).map((s) => s.id);
      const started = Date.now();
      const done = await forgetStored(deps, 'default', ids, {
        actor: 'retention-test',
        at: () => new Date().toISOString(),
        renew: held!.renew,
        onBatch: async () => {
          await new Promise((r) => setTimeout(r, TTL * 0.6));
          await b.synthesize().catch((e: unknown) => {
            if (!(e instanceof PassLockedError)) throw e;
            refused.push(e.message);
          });
        },
      });
      expect(Date.now() - started).toBeGreaterThan(TTL * 1.5);
      expect(done).toHaveLength(1_200);
      expect(refused).toHaveLength(3);
      expect(refused[0]).toMatch(/another synthesis pass is running on namespace default/);
      await held!();
      await expect(b.synthesize()).resolves.toMatchObject({ created: [] });
    } finally {
      await b.close();
      await a.close();
    }
  }

  it('is renewed once a batch: a forget longer than its lifetime keeps it, a pass meanwhile is refused (SQLite)', async () => {
    await keptThroughout(join(tmp, 'long-forget.db'));
  }, 60_000);

  it('is renewed once a batch: a forget longer than its lifetime keeps it, a pass meanwhile is refused (PostgreSQL)', async () => {
    await keptThroughout(await server.createDatabase());
  }, 60_000);

  it('lost (it expired and another holder took it), the forget stops before its next batch and says so', async () => {
    const db = join(tmp, 'lost-lock.db');
    const now = Date.now();
    const a = await openMemory({ db, logLevel: 'silent' });
    const b = await openMemory({ db, logLevel: 'silent' });
    try {
      await a.ingest(oldSessions(700, now));
      const store = a.parts.store!;
      const held = await store.tryLock('synthesis:default', `${hostname()}:${process.pid}:forget:test`, 300);
      const ids = (await a.sessions.list({ limit: 2_000 })).map((s) => s.id);
      const taken: { lock: HeldLock | null } = { lock: null };
      const run = forgetStored({ store, embedder: a.parts.embedder, thinkTools: [], toolWeight: 0.5 }, 'default', ids, {
        actor: 'retention-test',
        at: () => new Date().toISOString(),
        renew: held!.renew,
        onBatch: async () => {
          await new Promise((r) => setTimeout(r, 600));
          taken.lock = await b.parts.store!.tryLock('synthesis:default', 'a-pass', 60_000);
        },
      });
      await expect(run).rejects.toThrow(PassLockedError);
      await expect(run).rejects.toThrow(/lock of namespace default was lost .* \(500 of 700 forgotten\)/);
      expect(taken.lock).not.toBeNull();
      expect(await a.sessions.count()).toBe(200);
      await taken.lock!();
      await held!();
    } finally {
      await b.close();
      await a.close();
    }
  }, 60_000);
});

describe('retention chooses under the lock', () => {
  /**
   * A pass holds the namespace when retention is asked for; meanwhile a call is recorded in an open session that was
   * idle for a year: once the pass is done, retention forgets the old ended session and keeps the one active again.
   */
  async function keepsTheActive(db: string): Promise<void> {
    const now = Date.now();
    const memory = await openMemory({ db, logLevel: 'silent' });
    try {
      const [old] = oldSessions(1, now);
      const idle: Session = { ...old!, id: 'idle', endedAt: null, outcome: 'unknown' };
      await memory.ingest([old!, idle]);
      const pass = await memory.parts.store!.tryLock('synthesis:default', 'a-pass', 60_000);
      const retention = memory.sessions.forgetBefore(new Date(now - 90 * DAY), { actor: 'retention-test' });
      await new Promise((r) => setTimeout(r, 300));
      await memory.sessions.recordCall('idle', { tool: 'get_order_details', args: { order_id: '#W9001' } });
      await pass!();
      const r = await retention;
      expect(r.forgotten.map((f) => f.id)).toEqual(['old-0']);
      expect((await memory.sessions.list()).map((s) => s.id)).toEqual(['idle']);
    } finally {
      await memory.close();
    }
  }

  it('a session that became active while a pass held the lock is kept (SQLite)', async () => {
    await keepsTheActive(join(tmp, 'chosen-late.db'));
  }, 60_000);

  it('a session that became active while a pass held the lock is kept (PostgreSQL)', async () => {
    await keepsTheActive(await server.createDatabase());
  }, 60_000);

  it('an open session is dated by its latest call by the instant it names, whatever its offset (SQLite and PostgreSQL)', async () => {
    // The last call at 10:00+02:00 (08:00Z), an earlier one at 09:30Z: active until 09:30Z, kept at a cutoff of 09:00Z.
    const at = ['2026-09-01T09:30:00Z', '2026-09-01T10:00:00+02:00'];
    for (const db of [join(tmp, 'offsets.db'), await server.createDatabase()]) {
      const memory = await openMemory({ db, logLevel: 'silent' });
      try {
        const [s] = forgetSessions('tz');
        const open: Session = {
          ...s!,
          id: 'open-offsets',
          startedAt: '2026-09-01T07:00:00Z',
          endedAt: null,
          outcome: 'unknown',
          calls: at.map((t, i) => ({ ...s!.calls[0]!, position: i, at: t })),
        };
        await memory.ingest([open]);
        const cutoff = new Date('2026-09-01T09:00:00Z');
        const dry = await memory.sessions.forgetBefore(cutoff, { dryRun: true });
        expect(dry.forgotten, db).toEqual([]);
        expect((await memory.sessions.forgetBefore(cutoff)).forgotten, db).toEqual([]);
        const later = await memory.sessions.forgetBefore(new Date('2026-09-01T09:45:00Z'));
        expect(
          later.forgotten.map((f) => [f.id, f.at]),
          db,
        ).toEqual([['open-offsets', '2026-09-01T09:30:00.000Z']]);
      } finally {
        await memory.close();
      }
    }
  }, 60_000);
});
