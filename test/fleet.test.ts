// A fleet of agents on one PostgreSQL memory: real processes recording at once while a synthesis pass runs,
// one pass at a time across processes, recall that survives a database restart, namespaces that never mix,
// and `skillsmith migrate` from SQLite to PostgreSQL and back. Needs the PostgreSQL server binaries (see
// test/support/pg-server.ts); fails, never skips, when they are missing.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLEET_FAMILIES, fleetSession } from '../bench/src/pg-fleet-work.js';
import { openMemory } from '../src/app/open-memory.js';
import type { Memory } from '../src/app/memory.js';
import { openPgStore, type PgStore } from '../src/store/postgres/pg-store.js';
import { memoryChecksums } from '../src/store/postgres/transfer.js';
import { createLogger } from '../src/support/log.js';
import { migrateCommand } from '../src/surfaces/cli/commands/migrate.js';
import { createApp } from '../src/surfaces/http/app.js';
import { readTau, SAMPLE, tempDbPath, toSession } from './support/tau.js';
import { startPgServer, type PgServer } from './support/pg-server.js';

const root = new URL('..', import.meta.url).pathname;
let server: PgServer;
let agentScript: string;
let privateBuild: string | null = null;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  server = await startPgServer();
  agentScript = compiledAgent();
}, 120_000);

afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  await server?.stop();
  if (privateBuild) rmSync(privateBuild, { recursive: true, force: true });
});

/**
 * The agent processes run the compiled benchmark agent (bench/src/pg-fleet-agent.ts, which runs the built
 * package in dist/: the global setup rebuilds dist/ when src/ changed). bench/build/ serves when it is newer
 * than the bench sources and the PostgreSQL helper; otherwise they are compiled into a private directory, so a
 * stale build is never tested and a bench/build/ another run is reading is never rewritten under it.
 */
function compiledAgent(): string {
  const built = join(root, 'bench/build/bench/src/pg-fleet-agent.js');
  const sources = Math.max(
    newestSource(join(root, 'bench/src')),
    statSync(join(root, 'test/support/pg-server.ts')).mtimeMs,
  );
  if (existsSync(built) && sources <= statSync(built).mtimeMs) return built;
  const home = join(root, '.vitest-tmp', `fleet-build-${process.pid}`);
  mkdirSync(home, { recursive: true });
  privateBuild = home;
  const tsc = spawnSync(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'bench/tsconfig.json'), '--outDir', home],
    {
      encoding: 'utf8',
    },
  );
  const script = join(home, 'bench/src/pg-fleet-agent.js');
  // Type errors elsewhere do not stop tsc from emitting; a missing output does.
  if (!existsSync(script)) throw new Error(`could not compile the fleet agent:\n${tsc.stdout}${tsc.stderr}`);
  return script;
}

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
      newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

interface Agent {
  child: ChildProcessWithoutNullStreams;
  nextLine(): Promise<string>;
  done: Promise<{ code: number | null; lines: string[]; stderr: string }>;
}

function agent(args: string[]): Agent {
  const child = spawn(process.execPath, [agentScript, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiting: ((l: string) => void)[] = [];
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += String(d)));
  createInterface({ input: child.stdout }).on('line', (l) => {
    lines.push(l);
    waiting.shift()?.(l);
  });
  let read = 0;
  const done = new Promise<{ code: number | null; lines: string[]; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, lines, stderr })),
  );
  cleanups.push(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return {
    child,
    nextLine: () =>
      read < lines.length
        ? Promise.resolve(lines[read++])
        : new Promise((resolve) =>
            waiting.push((l) => {
              read++;
              resolve(l);
            }),
          ),
    done,
  };
}

async function pgMemory(url: string, namespace: string, opts: Parameters<typeof openPgStore>[1] = {}): Promise<Memory> {
  const store = await openPgStore(url, { pollMs: 200, log: createLogger('silent'), ...opts });
  const memory = await openMemory({ db: store, namespace, logLevel: 'silent' });
  cleanups.push(() => memory.close());
  return memory;
}

const sample = readTau(SAMPLE);

describe('a fleet of agents sharing one PostgreSQL memory', () => {
  it('8 processes record 5,000 calls each while a pass runs: every call is stored exactly once, the pass learns, a second pass is refused', async () => {
    const url = await server.createDatabase();
    const admin = await openPgStore(url, { pollMs: 0, log: createLogger('silent') });
    cleanups.push(() => admin.close());

    // Each agent recalls at the start of every session (skills learned mid-run get trials) and sends every
    // 97th call twice, as a client does when an acknowledgement is lost.
    const recorders = Array.from({ length: 8 }, (_, i) =>
      agent([
        'record',
        '--db',
        url,
        '--namespace',
        'fleet',
        '--agent',
        String(i),
        '--sessions',
        '500',
        '--calls',
        '10',
        '--recall',
        '--retry-every',
        '97',
      ]),
    );
    // Two passes, ready in their own processes, started at the same moment once the fleet is well under way.
    const passes = [
      agent(['synthesize', '--db', url, '--namespace', 'fleet', '--wait']),
      agent(['synthesize', '--db', url, '--namespace', 'fleet', '--wait']),
    ];
    for (const p of passes) expect(JSON.parse(await p.nextLine())).toEqual({ ready: true });
    await expect
      .poll(
        async () =>
          (
            await admin.pool.query(
              `SELECT COUNT(*) AS n FROM sessions WHERE namespace = 'fleet' AND ended_at IS NOT NULL`,
            )
          ).rows[0].n,
        {
          timeout: 60_000,
          interval: 100,
        },
      )
      .toBeGreaterThanOrEqual(400);
    for (const p of passes) p.child.stdin.end('go\n');

    const passResults = await Promise.all(passes.map((p) => p.done));
    const recorded = await Promise.all(recorders.map((r) => r.done));
    for (const r of recorded) expect(r.code, r.stderr).toBe(0);
    const stats = recorded.map((r) => JSON.parse(r.lines.at(-1)!));
    expect(stats.map((s) => s.calls)).toEqual(Array(8).fill(5000));
    expect(stats.every((s) => s.retries > 0)).toBe(true);

    // Exactly one pass ran; the other was refused with the lock message while it did.
    expect(passResults.map((p) => p.code).sort()).toEqual([0, 3]);
    const won = JSON.parse(passResults.find((p) => p.code === 0)!.lines.at(-1)!);
    const refused = JSON.parse(passResults.find((p) => p.code === 3)!.lines.at(-1)!);
    expect(refused).toMatchObject({ ok: false, error: 'PassLockedError' });
    expect(refused.message).toMatch(/another synthesis pass is running on namespace fleet; this one was not started/);
    expect(won.ok).toBe(true);
    expect(won.stats.newSessions).toBeGreaterThanOrEqual(400);

    // Every call is there exactly once, as recorded, and every session ended as it should.
    const counts = await admin.pool.query(
      `SELECT (SELECT COUNT(*) FROM sessions WHERE namespace = 'fleet') AS sessions, (SELECT COUNT(*) FROM tool_calls WHERE namespace = 'fleet') AS calls`,
    );
    expect(counts.rows[0]).toEqual({ sessions: 4000, calls: 40000 });
    const { rows: calls } = await admin.pool.query(
      `SELECT session_id, position, tool, args, ok FROM tool_calls WHERE namespace = 'fleet'`,
    );
    const stored = new Map(calls.map((c) => [`${c.session_id}/${c.position}`, c]));
    const { rows: ended } = await admin.pool.query(`SELECT id, goal, outcome FROM sessions WHERE namespace = 'fleet'`);
    const sessions = new Map(ended.map((s) => [s.id, s]));
    let mismatches = 0;
    for (let a = 0; a < 8; a++) {
      for (let i = 0; i < 500; i++) {
        const want = fleetSession(a, i, 10);
        const got = sessions.get(want.id);
        if (!got || got.goal !== want.goal || got.outcome !== want.outcome) mismatches++;
        for (const [p, c] of want.calls.entries()) {
          const row = stored.get(`${want.id}/${p}`);
          if (!row || row.tool !== c.tool || row.args !== JSON.stringify(c.args) || row.ok !== c.ok) mismatches++;
        }
      }
    }
    expect(mismatches).toBe(0);

    // The pass learned one skill per task family, each with its family's procedure.
    const skills = await admin.listSkills('fleet', { corpus: 'internal' });
    expect(won.created).toHaveLength(FLEET_FAMILIES.length);
    expect(skills.map((s) => s.name).sort()).toEqual([...won.created].sort());
    for (const family of FLEET_FAMILIES) {
      const own = skills.filter((s) => s.toolsRequired.every((t) => family.tools.includes(t)));
      expect(own, family.name).toHaveLength(1);
      expect(own[0].toolSequence).toEqual(family.tools);
    }
    // Recalls made by the fleet after the pass became trials, at most one per skill and session.
    const trials = await admin.pool.query(
      `SELECT COUNT(*) AS n, COUNT(DISTINCT (skill_id, session_id)) AS pairs FROM feedback WHERE namespace = 'fleet' AND signal IN ('trial.pass', 'trial.fail')`,
    );
    expect(trials.rows[0].n).toBeGreaterThan(0);
    expect(trials.rows[0].n).toBe(trials.rows[0].pairs);
    expect(stats.reduce((n, s) => n + s.served, 0)).toBeGreaterThan(0);

    // A pass after the fleet reads every session the first one did not, and makes no duplicates.
    const after = await pgMemory(url, 'fleet', { pollMs: 0 });
    const next = await after.synthesize();
    expect(next.stats.newSessions).toBe(4000 - won.stats.newSessions);
    expect(next.created).toEqual([]);
    expect(await after.skills.list()).toHaveLength(FLEET_FAMILIES.length);
  }, 300_000);

  it('a process keeps recalling from its index while the database restarts, and picks up changes once it is back', async () => {
    const url = await server.createDatabase();
    const writer = await pgMemory(url, 'restart');
    await writer.ingest(sample.map((r) => toSession(r, 'restart')));
    const report = await writer.synthesize();
    expect(report.created.length).toBeGreaterThan(1);

    const reader = await pgMemory(url, 'restart');
    const goal = sample.find((r) => r.meta.family === 'retail:return_items' && r.success)!.goal;
    const first = await reader.recall(goal);
    expect(first.length).toBeGreaterThan(0);
    const served = first[0];

    server.pause();
    try {
      const latencies: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t0 = performance.now();
        const again = await reader.recall(goal);
        latencies.push(performance.now() - t0);
        expect(again.map((s) => s.id)).toEqual(first.map((s) => s.id));
      }
      // Served from memory: no connection attempt, no timeout on the way.
      expect(Math.max(...latencies)).toBeLessThan(250);
      expect((reader.parts.store as PgStore).pendingRecalls).toBeGreaterThanOrEqual(20);
    } finally {
      server.start();
    }

    // Another process changes the skills after the restart: the reader sees it without being told.
    await writer.skills.setEnabled(served.name, false);
    await expect
      .poll(async () => (await reader.recall(goal)).map((s) => s.id), { timeout: 15_000, interval: 100 })
      .not.toContain(served.id);
    // What it served while the database was away was recorded once it came back.
    await expect.poll(() => (reader.parts.store as PgStore).pendingRecalls, { timeout: 15_000, interval: 100 }).toBe(0);
    const { rows } = await (reader.parts.store as PgStore).pool.query(
      `SELECT COUNT(*) AS n FROM recalls WHERE namespace = 'restart'`,
    );
    expect(rows[0].n).toBeGreaterThanOrEqual(21);
  }, 120_000);

  it("two namespaces learning in one database at the same time never see each other's skills", async () => {
    const url = await server.createDatabase();
    const retail = await pgMemory(url, 'retail');
    const telecom = await pgMemory(url, 'telecom');
    await retail.ingest(sample.filter((r) => r.meta.family.startsWith('retail:')).map((r) => toSession(r, 'retail')));
    await telecom.ingest(
      sample.filter((r) => r.meta.family.startsWith('telecom:')).map((r) => toSession(r, 'telecom')),
    );
    // The pass lock is per namespace: both passes run at once.
    const [r, t] = await Promise.all([retail.synthesize(), telecom.synthesize()]);
    expect(r.created.length).toBeGreaterThan(0);
    expect(t.created.length).toBeGreaterThan(0);

    const retailSkills = await retail.skills.list();
    const telecomSkills = await telecom.skills.list();
    // Every skill each namespace ever wrote, superseded ones included (consolidation supersedes within a pass).
    const retailIds = new Set((await retail.skills.list({ includeSuperseded: true })).map((s) => s.id));
    const telecomIds = new Set((await telecom.skills.list({ includeSuperseded: true })).map((s) => s.id));
    const retailSessions = new Set(sample.filter((x) => x.meta.family.startsWith('retail:')).map((x) => x.session_id));
    const telecomSessions = new Set(
      sample.filter((x) => x.meta.family.startsWith('telecom:')).map((x) => x.session_id),
    );
    for (const s of retailSkills) {
      expect(s.namespace).toBe('retail');
      expect(s.sourceSessions.every((id) => retailSessions.has(id))).toBe(true);
    }
    for (const s of telecomSkills) {
      expect(s.namespace).toBe('telecom');
      expect(s.sourceSessions.every((id) => telecomSessions.has(id))).toBe(true);
    }
    // Recall, lookup, enable/disable and events stay inside their namespace.
    const telecomGoal = sample.find((x) => x.meta.family.startsWith('telecom:') && x.success)!.goal;
    const retailGoal = sample.find((x) => x.meta.family === 'retail:exchange_items' && x.success)!.goal;
    expect((await telecom.recall(telecomGoal)).length).toBeGreaterThan(0);
    expect((await retail.recall(retailGoal)).length).toBeGreaterThan(0);
    expect((await retail.recall(telecomGoal)).every((s) => retailIds.has(s.id))).toBe(true);
    expect((await telecom.recall(retailGoal)).every((s) => telecomIds.has(s.id))).toBe(true);
    expect(await retail.skills.get(telecomSkills[0].id)).toBeNull();
    expect(await retail.skills.setEnabled(telecomSkills[0].id, false)).toBeNull();
    expect((await telecom.skills.get(telecomSkills[0].id))?.enabled).toBe(true);
    expect((await retail.events.list()).every((e) => e.skillId === null || retailIds.has(e.skillId))).toBe(true);
    expect((await telecom.events.list()).every((e) => e.skillId === null || telecomIds.has(e.skillId))).toBe(true);
    // The dashboard's API over each memory shows its own skills only.
    for (const [memory, own, other] of [
      [retail, retailIds, telecomSkills],
      [telecom, telecomIds, retailSkills],
    ] as const) {
      const app = createApp(memory, { webRoot: null });
      const listed = (await (await app.request('/api/skills?all=true')).json()) as { items: { id: string }[] };
      expect(listed.items.map((s) => s.id).sort()).toEqual([...own].sort());
      expect((await app.request(`/api/skills/${encodeURIComponent(other[0].name)}`)).status).toBe(404);
    }
  }, 120_000);
});

describe('a fleet whose agents have different tools, in one namespace', () => {
  it('hands each agent only skills whose steps use its own tools', async () => {
    const url = await server.createDatabase();
    const shared = await pgMemory(url, 'shared');
    await shared.ingest(sample.map((r) => toSession(r, 'shared')));
    await shared.synthesize();
    const skills = await shared.skills.list();
    const toolsOf = (family: string) => [
      ...new Set(sample.filter((r) => r.meta.family.startsWith(family)).flatMap((r) => r.steps.map((c) => c.tool))),
    ];
    const shop = toolsOf('retail:');
    const phone = toolsOf('telecom:');
    const retailGoal = sample.find((x) => x.meta.family === 'retail:exchange_items' && x.success)!.goal;
    const telecomGoal = sample.find((x) => x.meta.family.startsWith('telecom:') && x.success)!.goal;
    const follows = (tools: string[]) => (s: { toolSequence: string[] }) =>
      s.toolSequence.every((t) => tools.includes(t));
    // Both kinds were learned in the one namespace, and without a list each request finds its own.
    expect(skills.some(follows(shop)) && skills.some(follows(phone))).toBe(true);
    const asShop = await shared.recall(retailGoal, { tools: shop, topK: 5 });
    expect(asShop.length).toBeGreaterThan(0);
    expect(asShop.every(follows(shop))).toBe(true);
    const asPhone = await shared.recall(telecomGoal, { tools: phone, topK: 5 });
    expect(asPhone.length).toBeGreaterThan(0);
    expect(asPhone.every(follows(phone))).toBe(true);
    // The shop's request asked by the phone agent gets nothing of the shop's.
    expect((await shared.recall(retailGoal, { tools: phone, topK: 5 })).every(follows(phone))).toBe(true);
    expect((await shared.recall(retailGoal, { topK: 5 })).some((s) => !follows(phone)(s))).toBe(true);
  }, 120_000);
});

describe('skillsmith migrate', () => {
  it('copies a SQLite memory into PostgreSQL and back, verified by counts and checksums; both copies work', async () => {
    const lite = tempDbPath('skillsmith-migrate-');
    const source = await openMemory({ db: lite, auditFile: null, logLevel: 'silent' });
    await source.ingest(sample.map((r) => toSession(r)));
    await source.ingest(sample.slice(0, 5).map((r) => toSession(r, 'other')));
    await source.synthesize();
    const goal = sample.find((r) => r.meta.family === 'retail:return_items' && r.success)!.goal;
    const live = await source.startSession({ goal, id: 'live-1' });
    expect((await live.recall()).length).toBeGreaterThan(0);
    await live.call({ tool: 'find_user_id_by_email', args: { email: 'a@b.c' }, result: 'u1', ok: true });
    await live.end('success');
    await source.facts.add('Returns are accepted within 30 days.', { id: 'f1' });
    const skills = await source.skills.list();
    await source.skills.setEnabled(skills[skills.length - 1].name, false);
    await source.close();
    const before = await memoryChecksums(lite);
    for (const t of [
      'sessions',
      'tool_calls',
      'skills',
      'provenance',
      'feedback',
      'audit',
      'events',
      'recalls',
      'recall_items',
      'clusters',
      'facts',
    ]) {
      expect(before.find((c) => c.table === t)!.rows, t).toBeGreaterThan(0);
    }

    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) };
    const url = await server.createDatabase();
    expect(await migrateCommand([], { from: lite, to: url }, io), err.join('\n')).toBe(0);
    expect(out.join('\n')).toMatch(/Verified: 16 tables, \d+ rows, counts and checksums equal on both sides\./);
    expect(await memoryChecksums(url)).toEqual(before);

    // The PostgreSQL copy is the same memory: same skills, same recall, and it goes on numbering after the copy.
    const onPg = await pgMemory(url, 'default');
    const reopened = await openMemory({ db: lite, auditFile: null, logLevel: 'silent' });
    cleanups.push(() => reopened.close());
    const plain = (list: Awaited<ReturnType<Memory['skills']['list']>>) =>
      list.map((s) => ({ ...s, embedding: Array.from(s.embedding ?? []) }));
    expect(plain(await onPg.skills.list({ includeSuperseded: true }))).toEqual(
      plain(await reopened.skills.list({ includeSuperseded: true })),
    );
    expect((await onPg.recall(goal)).map((s) => s.id)).toEqual((await reopened.recall(goal)).map((s) => s.id));
    const seqBefore = Math.max(...(await onPg.parts.store!.listSessions('default', { limit: 1 })).map((s) => s.seq!));
    await onPg.ingest([{ ...toSession(sample[0]), id: 'after-migrate' }]);
    expect((await onPg.parts.store!.getSession('default', 'after-migrate'))!.seq!).toBeGreaterThan(seqBefore);

    // And back into a new SQLite file: every table holds what the PostgreSQL memory holds now, row for row.
    const back = tempDbPath('skillsmith-migrate-back-');
    out.length = 0;
    expect(await migrateCommand([url, back], { json: true }, io), err.join('\n')).toBe(0);
    const report = JSON.parse(out.join('\n'));
    expect(report.ok).toBe(true);
    expect(report.tables.every((t: { ok: boolean }) => t.ok)).toBe(true);
    const untouched = await memoryChecksums(url);
    expect(await memoryChecksums(back)).toEqual(untouched);
    expect(untouched).not.toEqual(before);

    // A target that already holds a memory is refused, and nothing is written to it.
    err.length = 0;
    expect(await migrateCommand([], { from: lite, to: url }, io)).toBe(1);
    expect(err.join('\n')).toMatch(/already holds a memory \(sessions: \d+ rows/);
    expect(await memoryChecksums(url)).toEqual(untouched);
    expect(await migrateCommand([], { from: join(root, 'no-such.db'), to: tempDbPath() }, io)).toBe(1);
    expect(await migrateCommand(['only-one'], {}, io)).toBe(2);
  }, 120_000);
});
