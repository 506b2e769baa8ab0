import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Session, Skill, ToolCall } from '../../domain/types.js';
import { latestSchemaVersion, migrations } from './migrations.js';
import { migrate, openSqliteStore, type SqliteStore } from './sqlite-store.js';

let dir: string;
const opened: SqliteStore[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'skillsmith-store-'));
});

afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(name = 'memory.db'): SqliteStore {
  const store = openSqliteStore(join(dir, name));
  opened.push(store);
  return store;
}

function call(position: number, tool: string, extra: Partial<ToolCall> = {}): ToolCall {
  return {
    position,
    tool,
    args: { n: position },
    result: `result of ${tool}`,
    ok: true,
    error: null,
    durationMs: 12.5,
    at: '2025-01-01T00:00:00.000Z',
    ...extra,
  };
}

function session(namespace: string, id: string, goal: string, calls: ToolCall[] = []): Session {
  return {
    id,
    namespace,
    goal,
    outcome: 'success',
    reward: 1,
    agentId: 'agent-1',
    source: 'test',
    startedAt: '2025-01-01T00:00:00.000Z',
    endedAt: '2025-01-01T00:01:00.000Z',
    labels: { family: 'demo' },
    calls,
  };
}

function skill(over: Partial<Skill> = {}): Skill {
  return {
    id: 'sk_old',
    namespace: 'default',
    name: 'cancel-order',
    description: 'Cancel an order. Use when the user wants to cancel a pending order.',
    skillMd: '---\nname: cancel-order\ndescription: Cancel an order.\n---\n\n# Cancel order\n\n1. a\n2. b\n',
    body: '# Cancel order\n\n1. a\n2. b\n',
    version: '1.0.0',
    kind: 'playbook',
    corpus: 'internal',
    status: 'probationary',
    enabled: true,
    toolsRequired: ['get_order', 'cancel_order'],
    toolSequence: ['get_order', 'cancel_order'],
    successCount: 3,
    attemptCount: 3,
    support: 3,
    eta: 0.5,
    utility: 0,
    trialsAttempted: 0,
    trialsPassed: 0,
    sourceSessions: [],
    supersededBy: null,
    clusterId: null,
    embedderId: 'test-embedder',
    embedding: new Float32Array([0.6, 0.8, 0]),
    createdAt: '2025-01-02T00:00:00.000Z',
    updatedAt: '2025-01-02T00:00:00.000Z',
    lastUsedAt: null,
    ...over,
  };
}

/** Every row of a table, each column as SQLite's own `typeof` and `quote()` (exact, bytes included for BLOBs). */
function dumpTable(db: Database.Database, table: string, only?: string[]): string[][] {
  const cols = only ?? columnsOf(db, table);
  const select = cols.map((c) => `typeof("${c}") || ':' || quote("${c}")`).join(', ');
  const rows = db.prepare(`SELECT ${select} FROM ${table}`).raw().all() as string[][];
  return rows.map((r) => r.map(String)).sort((a, b) => (a.join('\u0000') < b.join('\u0000') ? -1 : 1));
}

function columnsOf(db: Database.Database, table: string): string[] {
  return (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
}

function tableNames(db: Database.Database): string[] {
  return (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as { name: string }[]).map((r) => r.name);
}

function count(store: SqliteStore, table: string): number {
  return (store.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
}

describe('opening a file', () => {
  it('creates a fresh file at the latest schema version, in WAL journal mode', async () => {
    const path = join(dir, 'nested', 'fresh.db');
    const store = openSqliteStore(path);
    opened.push(store);
    expect(latestSchemaVersion).toBe(migrations[migrations.length - 1].version);
    expect(await store.schemaVersion()).toBe(latestSchemaVersion);
    expect(String(store.db.pragma('journal_mode', { simple: true })).toLowerCase()).toBe('wal');
    const applied = store.db.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as { version: number }[];
    expect(applied.map((r) => r.version)).toEqual(migrations.map((m) => m.version));
    await store.close();

    // WAL is a property of the file: a second, unrelated connection sees it too.
    const raw = new Database(path);
    try {
      expect(String(raw.pragma('journal_mode', { simple: true })).toLowerCase()).toBe('wal');
    } finally {
      raw.close();
    }
  });

  it('reopening an up-to-date file applies nothing twice', async () => {
    const path = join(dir, 'again.db');
    await openSqliteStore(path).close();
    const store = open('again.db');
    expect(await store.schemaVersion()).toBe(latestSchemaVersion);
    expect(count(store, 'schema_migrations')).toBe(migrations.length);
  });
});

describe('migration from an older schema', () => {
  const OLD_TABLES = ['sessions', 'tool_calls', 'facts', 'skills', 'provenance', 'feedback', 'audit'];

  it('migrates a version-1 file to the latest version and leaves every existing row byte-for-byte unchanged', async () => {
    const path = join(dir, 'v1.db');
    const raw = new Database(path);
    expect(migrate(raw, 1)).toBe(1);
    const tablesV1 = tableNames(raw);
    expect(tablesV1).not.toContain('events');

    raw.exec(`
      INSERT INTO sessions (namespace, id, goal, outcome, reward, agent_id, source, started_at, ended_at, labels) VALUES
        ('default', 's1', 'Cancel order #W1 — “quoted” ünïcode', 'success', 1.0, 'agent-x', 'tau', '2024-05-01T10:00:00Z', '2024-05-01T10:05:00Z', '{"family":"cancel"}'),
        ('default', 's2', 'Return an item', 'failure', NULL, NULL, NULL, '2024-05-02T10:00:00Z', NULL, NULL),
        ('other',   's1', 'Same id, other namespace', 'unknown', 0.25, NULL, 'live', '2024-05-03T10:00:00Z', NULL, NULL);
      INSERT INTO tool_calls (namespace, session_id, position, tool, args, result, ok, error, duration_ms, at) VALUES
        ('default', 's1', 0, 'get_order', '{"order_id":"#W1"}', '{"status":"pending"}', 1, NULL, 3.25, '2024-05-01T10:01:00Z'),
        ('default', 's1', 1, 'cancel_order', '{"order_id":"#W1","reason":"no longer needed"}', 'Error: boom', 0, 'Error: boom', NULL, NULL),
        ('default', 's2', 0, 'get_user', '{}', '', 1, NULL, NULL, NULL);
      INSERT INTO facts (namespace, id, text, source, created_at) VALUES
        ('default', 'f1', 'Orders can only be cancelled while pending.', 'policy', '2024-05-01T00:00:00Z');
      INSERT INTO skills (id, namespace, name, description, skill_md, body, version, kind, corpus, status, enabled,
        tools_required, tool_sequence, success_count, attempt_count, support, eta, utility, trials_attempted, trials_passed,
        superseded_by, cluster_id, embedder_id, embedding, created_at, updated_at, last_used_at) VALUES
        ('sk_1', 'default', 'cancel-order', 'Cancel a pending order.', '---\nname: cancel-order\n---\nbody', 'body', '1.2.0',
         'playbook', 'internal', 'active', 1, '["get_order","cancel_order"]', '["get_order","cancel_order"]', 7, 8, 7,
         0.75, 0.33, 2, 1, NULL, 'c1', 'glove-x', X'0000803F000000000000803F', '2024-05-01T00:00:00Z', '2024-05-02T00:00:00Z', NULL),
        ('sk_0', 'default', 'cancel-order', 'Older version.', 'old', 'old', '1.0.0',
         'playbook', 'internal', 'retired', 0, '[]', '[]', 0, 0, 0,
         0.1, 0, 0, 0, 'sk_1', NULL, NULL, NULL, '2024-04-01T00:00:00Z', '2024-05-01T00:00:00Z', '2024-04-15T00:00:00Z');
      INSERT INTO provenance (skill_id, source_kind, source_id, version, created_at) VALUES
        ('sk_1', 'episodic', 's1', '1.2.0', '2024-05-01T00:00:00Z'),
        ('sk_1', 'semantic', 'f1', '1.2.0', '2024-05-01T00:00:00Z');
      INSERT INTO feedback (namespace, skill_id, signal, value, session_id, at, eta_before, eta_after, status_before, status_after) VALUES
        ('default', 'sk_1', 'success', 1, 's1', '2024-05-02T00:00:00Z', 0.5, 0.6, 'probationary', 'active');
      INSERT INTO audit (namespace, at, actor, action, subject_kind, subject_id, detail) VALUES
        ('default', '2024-05-01T00:00:00Z', 'user', 'skill.add', 'skill', 'sk_1', '{"why":"test"}');
    `);
    const before = Object.fromEntries(OLD_TABLES.map((t) => [t, dumpTable(raw, t)]));
    const oldColumns = Object.fromEntries(OLD_TABLES.map((t) => [t, columnsOf(raw, t)]));
    for (const t of OLD_TABLES) expect(before[t].length, `rows in ${t}`).toBeGreaterThan(0);
    raw.close();

    const store = open('v1.db');
    expect(await store.schemaVersion()).toBe(latestSchemaVersion);
    // Migrations are additive: columns may be added (with defaults), existing values never change.
    const after = Object.fromEntries(OLD_TABLES.map((t) => [t, dumpTable(store.db, t, oldColumns[t])]));
    expect(after).toEqual(before);
    for (const t of OLD_TABLES) expect(columnsOf(store.db, t).slice(0, oldColumns[t].length)).toEqual(oldColumns[t]);

    const tables = tableNames(store.db);
    for (const t of ['state', 'embedding_cache', 'clusters', 'cluster_members', 'skill_versions', 'events']) expect(tables).toContain(t);
    for (const t of tablesV1) expect(tables).toContain(t);

    // The migrated rows are readable through the store.
    const s1 = await store.getSession('default', 's1');
    expect(s1?.goal).toBe('Cancel order #W1 — “quoted” ünïcode');
    expect(s1?.labels).toEqual({ family: 'cancel' });
    expect(s1?.calls.map((c) => [c.tool, c.ok])).toEqual([
      ['get_order', true],
      ['cancel_order', false],
    ]);
    const sk = await store.getSkill('default', 'cancel-order');
    expect(sk?.id).toBe('sk_1');
    expect(sk?.sourceSessions).toEqual(['s1']);
    expect(Array.from(sk?.embedding ?? [])).toEqual([1, 0, 1]);
    // The new tables work on the migrated file.
    await store.setSkillEnabled('default', 'sk_1', false, 'tester');
    expect((await store.events('default')).map((e) => e.type)).toEqual(['skill.disabled']);
  });
});

describe('insertSessions', () => {
  it('is idempotent by (namespace, id): the same session twice is stored once and reported skipped', async () => {
    const store = open();
    const s = session('default', 'sess-1', 'Cancel my order', [call(0, 'get_order'), call(1, 'cancel_order')]);
    expect(await store.insertSessions([s])).toEqual({ inserted: 1, skipped: 0 });
    expect(await store.insertSessions([{ ...s, goal: 'A different goal', calls: [call(0, 'other_tool')] }])).toEqual({ inserted: 0, skipped: 1 });
    expect(await store.countSessions('default')).toBe(1);
    const got = await store.getSession('default', 'sess-1');
    expect(got?.goal).toBe('Cancel my order');
    expect(got?.calls.map((c) => c.tool)).toEqual(['get_order', 'cancel_order']);
    expect(count(store, 'tool_calls')).toBe(2);
  });

  it('counts a batch with a repeated session as one stored and one skipped', async () => {
    const store = open();
    const a = session('default', 'a', 'goal a', [call(0, 't')]);
    expect(await store.insertSessions([a, a, session('default', 'b', 'goal b')])).toEqual({ inserted: 2, skipped: 1 });
    expect(await store.countSessions('default')).toBe(2);
  });

  it('treats the same id in another namespace as a different session', async () => {
    const store = open();
    await store.insertSessions([session('ns-a', 'shared-id', 'goal in a', [call(0, 'tool_a')])]);
    expect(await store.insertSessions([session('ns-b', 'shared-id', 'goal in b', [call(0, 'tool_b'), call(1, 'tool_b2')])])).toEqual({
      inserted: 1,
      skipped: 0,
    });
    expect(await store.countSessions('ns-a')).toBe(1);
    expect(await store.countSessions('ns-b')).toBe(1);
    const a = await store.getSession('ns-a', 'shared-id');
    const b = await store.getSession('ns-b', 'shared-id');
    expect(a?.goal).toBe('goal in a');
    expect(a?.calls.map((c) => c.tool)).toEqual(['tool_a']);
    expect(b?.goal).toBe('goal in b');
    expect(b?.calls.map((c) => c.tool)).toEqual(['tool_b', 'tool_b2']);
    expect(await store.getSession('ns-c', 'shared-id')).toBeNull();
  });

  it('round-trips every field of a session and its calls', async () => {
    const store = open();
    const s = session('default', 'full', 'Full record', [call(0, 'a'), call(1, 'b', { ok: false, error: 'Error: nope', durationMs: null, at: null })]);
    await store.insertSessions([s]);
    const got = await store.getSession('default', 'full');
    expect(got).toMatchObject({ ...s, seq: expect.any(Number) });
    expect(got?.calls).toEqual(s.calls);
  });
});

describe('live sessions', () => {
  it('beginSession + appendCall (idempotent by position) + endSession', async () => {
    const store = open();
    const live = { ...session('default', 'live-1', 'Book a flight'), outcome: 'unknown' as const, reward: null, endedAt: null };
    const { calls: _ignored, ...head } = live;
    await store.beginSession(head);
    await store.beginSession({ ...head, goal: 'reopened with another goal' });
    expect(await store.countSessions('default')).toBe(1);

    await store.appendCall('default', 'live-1', call(0, 'search_flights'));
    await store.appendCall('default', 'live-1', call(0, 'duplicate_attempt'));
    await store.appendCall('default', 'live-1', call(1, 'book_flight'));
    let got = await store.getSession('default', 'live-1');
    expect(got?.goal).toBe('Book a flight');
    expect(got?.outcome).toBe('unknown');
    expect(got?.calls.map((c) => [c.position, c.tool])).toEqual([
      [0, 'search_flights'],
      [1, 'book_flight'],
    ]);

    await store.endSession('default', 'live-1', 'success', 0.75, '2025-01-01T00:09:00.000Z');
    got = await store.getSession('default', 'live-1');
    expect(got?.outcome).toBe('success');
    expect(got?.reward).toBe(0.75);
    expect(got?.endedAt).toBe('2025-01-01T00:09:00.000Z');
    expect(got?.calls).toHaveLength(2);
  });

  it('appendCall on an unknown session throws a clear error and stores nothing', async () => {
    const store = open();
    await expect(store.appendCall('default', 'nope', call(0, 't'))).rejects.toThrow(/nope.*beginSession|beginSession.*nope/);
    expect(count(store, 'tool_calls')).toBe(0);
    // A session of the same id in another namespace does not make it known here.
    await store.insertSessions([session('other', 'nope', 'elsewhere')]);
    await expect(store.appendCall('default', 'nope', call(0, 't'))).rejects.toThrow(/nope/);
    expect(count(store, 'tool_calls')).toBe(0);
  });

  it('endSession on an unknown session throws', async () => {
    const store = open();
    await expect(store.endSession('default', 'ghost', 'success', null, '2025-01-01T00:00:00Z')).rejects.toThrow(/ghost/);
  });

  it('getSessions returns sessions in insertion order and leaves unknown ids out', async () => {
    const store = open();
    await store.insertSessions([session('default', 'first', 'g1', [call(0, 'x')])]);
    await store.insertSessions([session('default', 'second', 'g2', [call(0, 'y'), call(1, 'z')])]);
    await store.insertSessions([session('default', 'third', 'g3')]);
    await store.insertSessions([session('other', 'fourth', 'g4')]);
    const got = await store.getSessions('default', ['third', 'unknown', 'first', 'fourth', 'second']);
    expect(got.map((s) => s.id)).toEqual(['first', 'second', 'third']);
    expect(got.map((s) => s.calls.map((c) => c.tool))).toEqual([['x'], ['y', 'z'], []]);
    expect(await store.getSessions('default', [])).toEqual([]);
    expect(await store.getSessions('default', ['unknown'])).toEqual([]);
  });
});

describe('writeSkill', () => {
  const AT1 = '2025-02-01T00:00:00.000Z';
  const AT2 = '2025-02-02T00:00:00.000Z';

  it('supersede marks the old row superseded_by the new one; both rows exist', async () => {
    const store = open();
    const old = await store.writeSkill({ action: 'add', skill: skill(), parents: [{ kind: 'episodic', id: 's1' }], actor: 'synth', detail: {}, at: AT1 });
    expect(old.supersededBy).toBeNull();
    expect(old.sourceSessions).toEqual(['s1']);

    const next = skill({ id: 'sk_new', version: '2.0.0', createdAt: AT2, updatedAt: AT2 });
    const saved = await store.writeSkill({
      action: 'supersede',
      skill: next,
      supersedes: 'sk_old',
      parents: [{ kind: 'episodic', id: 's2' }],
      actor: 'synth',
      detail: {},
      at: AT2,
    });
    expect(saved.id).toBe('sk_new');
    expect(saved.supersededBy).toBeNull();

    const oldRow = await store.getSkill('default', 'sk_old');
    expect(oldRow?.supersededBy).toBe('sk_new');
    expect((await store.listSkills('default', { includeSuperseded: true })).map((s) => s.id).sort()).toEqual(['sk_new', 'sk_old']);
    expect((await store.listSkills('default')).map((s) => s.id)).toEqual(['sk_new']);
    // By name, the live row wins.
    expect((await store.getSkill('default', 'cancel-order'))?.id).toBe('sk_new');
    const events = await store.events('default');
    expect(events.map((e) => [e.type, e.skillId])).toEqual([
      ['skill.created', 'sk_old'],
      ['skill.created', 'sk_new'],
      ['skill.superseded', 'sk_old'],
    ]);
    expect((await store.audit('default', { subjectId: 'sk_new' })).map((a) => a.action)).toEqual(['skill.supersede']);
    expect((await store.skillVersions('sk_new')).map((v) => v.version)).toEqual(['2.0.0']);
  });

  it('a failing supersede (unknown skill id) writes nothing: no skill row, provenance, version, audit or event', async () => {
    const store = open();
    await store.writeSkill({ action: 'add', skill: skill(), parents: [{ kind: 'episodic', id: 's1' }], actor: 'synth', detail: {}, at: AT1 });
    const snapshot = () => Object.fromEntries(['skills', 'provenance', 'skill_versions', 'audit', 'events'].map((t) => [t, dumpTable(store.db, t)]));
    const before = snapshot();

    await expect(
      store.writeSkill({
        action: 'supersede',
        skill: skill({ id: 'sk_new', name: 'cancel-order-v2' }),
        supersedes: 'sk_does_not_exist',
        parents: [{ kind: 'episodic', id: 's2' }],
        actor: 'synth',
        detail: {},
        at: AT2,
      }),
    ).rejects.toThrow(/sk_does_not_exist/);

    expect(snapshot()).toEqual(before);
    expect(await store.getSkill('default', 'sk_new')).toBeNull();
    expect(await store.provenance('sk_new')).toEqual([]);
  });

  it('a supersede that fails after marking the old row is rolled back: the old skill stays live', async () => {
    const store = open();
    await store.writeSkill({ action: 'add', skill: skill(), parents: [], actor: 'synth', detail: {}, at: AT1 });
    const before = dumpTable(store.db, 'skills');
    const eventsBefore = count(store, 'events');
    // The new row breaks a NOT NULL constraint, so the INSERT fails after the UPDATE of the old row ran.
    const broken = skill({ id: 'sk_broken', description: null as unknown as string });
    await expect(
      store.writeSkill({ action: 'supersede', skill: broken, supersedes: 'sk_old', parents: [{ kind: 'episodic', id: 's9' }], actor: 'synth', detail: {}, at: AT2 }),
    ).rejects.toThrow();
    expect(dumpTable(store.db, 'skills')).toEqual(before);
    expect((await store.getSkill('default', 'sk_old'))?.supersededBy).toBeNull();
    expect(count(store, 'events')).toBe(eventsBefore);
    expect(await store.provenance('sk_broken')).toEqual([]);
  });

  it('superseding an already superseded skill fails', async () => {
    const store = open();
    await store.writeSkill({ action: 'add', skill: skill(), parents: [], actor: 'synth', detail: {}, at: AT1 });
    await store.writeSkill({ action: 'supersede', skill: skill({ id: 'sk_2' }), supersedes: 'sk_old', parents: [], actor: 'synth', detail: {}, at: AT2 });
    await expect(
      store.writeSkill({ action: 'supersede', skill: skill({ id: 'sk_3' }), supersedes: 'sk_old', parents: [], actor: 'synth', detail: {}, at: AT2 }),
    ).rejects.toThrow(/sk_old/);
    expect(await store.getSkill('default', 'sk_3')).toBeNull();
    expect((await store.getSkill('default', 'sk_old'))?.supersededBy).toBe('sk_2');
  });
});

describe('setSkillEnabled', () => {
  it('writes an audit record and an event for each change, by id or by name', async () => {
    const store = open();
    await store.writeSkill({ action: 'add', skill: skill(), parents: [], actor: 'synth', detail: {}, at: '2025-02-01T00:00:00.000Z' });
    const auditBefore = (await store.audit('default')).length;
    const lastEvent = (await store.events('default')).at(-1)!.id;

    const off = await store.setSkillEnabled('default', 'cancel-order', false, 'alice');
    expect(off?.enabled).toBe(false);
    expect((await store.getSkill('default', 'sk_old'))?.enabled).toBe(false);
    const on = await store.setSkillEnabled('default', 'sk_old', true, 'bob');
    expect(on?.enabled).toBe(true);

    const audit = await store.audit('default', { subjectId: 'sk_old' });
    expect(audit.length).toBe(auditBefore + 2);
    // Newest first.
    expect(audit.slice(0, 2).map((a) => [a.action, a.actor, a.subjectKind, a.subjectId])).toEqual([
      ['skill.enable', 'bob', 'skill', 'sk_old'],
      ['skill.disable', 'alice', 'skill', 'sk_old'],
    ]);
    const events = await store.events('default', { afterId: lastEvent });
    expect(events.map((e) => [e.type, e.skillId])).toEqual([
      ['skill.disabled', 'sk_old'],
      ['skill.enabled', 'sk_old'],
    ]);
    expect(events[0].payload).toMatchObject({ name: 'cancel-order' });
  });

  it('returns null for an unknown skill and records nothing', async () => {
    const store = open();
    expect(await store.setSkillEnabled('default', 'ghost', false, 'alice')).toBeNull();
    expect(count(store, 'audit')).toBe(0);
    expect(count(store, 'events')).toBe(0);
  });

  it('does not reach a skill of another namespace', async () => {
    const store = open();
    await store.writeSkill({ action: 'add', skill: skill(), parents: [], actor: 'synth', detail: {}, at: '2025-02-01T00:00:00.000Z' });
    expect(await store.setSkillEnabled('elsewhere', 'cancel-order', false, 'alice')).toBeNull();
    expect((await store.getSkill('default', 'sk_old'))?.enabled).toBe(true);
    expect(await store.events('elsewhere')).toEqual([]);
  });
});
