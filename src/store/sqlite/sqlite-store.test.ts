import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, session, skill, storeContract } from '../store.contract.js';
import { latestSchemaVersion, migrations } from './migrations.js';
import { migrate, openSqliteStore, type SqliteStore } from './sqlite-store.js';
import { sqliteDialect } from '../sql/dialect.js';
import { sqlPlan } from '../sql/plan.js';

// The behaviour every back end shares (the same suite runs against PostgreSQL); below, what only SQLite has.
storeContract('sqlite', async () => {
  const home = mkdtempSync(join(tmpdir(), 'skillsmith-contract-'));
  const path = join(home, 'memory.db');
  const store = openSqliteStore(path);
  return {
    store,
    peer: async () => openSqliteStore(path),
    cleanup: async () => {
      await store.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
});

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

describe('a path that starts with file:', () => {
  it('names that file: URI filenames, which SQLite reads once a read-only memory needs them, change nothing', async () => {
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      // As a URI this would be a memory in RAM, gone on close; as the file name it always was, a file in this folder.
      const store = openSqliteStore('file:memory.db?mode=memory');
      await store.close();
      expect(existsSync(join(dir, 'file:memory.db?mode=memory'))).toBe(true);
    } finally {
      process.chdir(cwd);
    }
  });
});

describe('a path that cannot be a memory', () => {
  it('is an error naming the path and why, and a file of another kind is left as it was', () => {
    expect(() => openSqliteStore(dir)).toThrow(
      expect.objectContaining({
        code: 'BACKEND_UNAVAILABLE',
        message: `cannot open SQLite memory at ${dir}: it is a directory (give a file path, e.g. --db ./skillsmith.db)`,
      }),
    );
    const notes = join(dir, 'notes.db');
    const text = 'my notes, not a database\n'.repeat(100);
    writeFileSync(notes, text);
    expect(() => openSqliteStore(notes)).toThrow(
      `cannot open SQLite memory at ${notes}: the file is not a SQLite database`,
    );
    expect(readFileSync(notes, 'utf8')).toBe(text);
  });
});

/** Stores a plain skill with this id. */
function addSkill(store: SqliteStore, id: string) {
  return store.writeSkill({
    action: 'add',
    skill: skill({ id }),
    parents: [],
    actor: 't',
    detail: {},
    at: '2026-01-01T00:00:00.000Z',
  });
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
  return (
    db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as { name: string }[]
  ).map((r) => r.name);
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
    const applied = store.db.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as {
      version: number;
    }[];
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

  it('makes a new file with 32 KB pages; a file made with 4 KB pages keeps them and its rows', async () => {
    const fresh = open('fresh.db');
    expect(fresh.db.pragma('page_size', { simple: true })).toBe(32_768);
    // 32 MB of log before it is copied into the file: 1,024 pages of 32 KB, 8,192 of 4 KB.
    expect(fresh.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1024);

    const path = join(dir, 'small-pages.db');
    const raw = new Database(path);
    raw.pragma('page_size = 4096');
    raw.pragma('journal_mode = WAL');
    raw.close();
    const first = openSqliteStore(path);
    await first.insertSessions([session('default', 's1', 'refund my order', [call(0, 'get_order')])]);
    await first.close();
    const again = open('small-pages.db');
    expect(again.db.pragma('page_size', { simple: true })).toBe(4096);
    expect(again.db.pragma('wal_autocheckpoint', { simple: true })).toBe(8192);
    expect((await again.getSession('default', 's1'))?.calls.map((c) => c.tool)).toEqual(['get_order']);
  });

  it('reopening an up-to-date file applies nothing twice', async () => {
    const path = join(dir, 'again.db');
    await openSqliteStore(path).close();
    const store = open('again.db');
    expect(await store.schemaVersion()).toBe(latestSchemaVersion);
    expect(count(store, 'schema_migrations')).toBe(migrations.length);
  });

  it('refuses a file a newer release wrote (a schema version it does not know), and changes nothing in it', async () => {
    const path = join(dir, 'newer.db');
    const first = openSqliteStore(path);
    await first.insertSessions([session('default', 's1', 'refund my order', [call(0, 'get_order')])]);
    await first.close();
    // A newer release added a migration and a column this one knows nothing of.
    const raw = new Database(path);
    raw
      .prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
      .run(latestSchemaVersion + 1, 'from-the-future', '2027-01-01T00:00:00.000Z');
    raw.exec('ALTER TABLE sessions ADD COLUMN future TEXT');
    raw.close();
    const before = readFileSync(path);
    expect(() => openSqliteStore(path)).toThrow(
      `cannot open SQLite memory at ${path}: it was written by a newer Skillsmith (schema version ${latestSchemaVersion + 1}; this version knows up to ${latestSchemaVersion})`,
    );
    expect(readFileSync(path).equals(before)).toBe(true);
  });
});

describe('recall records', () => {
  const recall = (goal: string) => ({
    sessionId: null,
    goal,
    at: '2026-01-01T00:00:00.000Z',
    items: [{ skillId: 'sk_a', rank: 1, similarity: 0.9 }],
  });

  it('are written shortly after the recalls, all of them, and by close() when it comes first', async () => {
    const store = open();
    await addSkill(store, 'sk_a');
    for (const goal of ['one', 'two', 'three']) await store.recordRecall('default', recall(goal));
    await new Promise((r) => setTimeout(r, 100));
    expect(count(store, 'recalls')).toBe(3);
    expect(count(store, 'recall_items')).toBe(3);

    const path = join(dir, 'closing.db');
    const closing = openSqliteStore(path);
    await closing.recordRecall('default', recall('right before closing'));
    await closing.close();
    const reopened = open('closing.db');
    expect(count(reopened, 'recalls')).toBe(1);
  });
});

describe('the change token', () => {
  it('moves when another connection commits, and only then', async () => {
    const reader = open();
    const writer = open();
    const before = await reader.changeToken();
    expect(await reader.changeToken()).toBe(before);
    await addSkill(writer, 'sk_a');
    const after = await reader.changeToken();
    expect(after).not.toBe(before);
    expect(await reader.changeToken()).toBe(after);
  });
});

describe('reading new sessions for a pass', () => {
  it("reads the page's seq range by rowid, each session's calls by key, and sorts nothing", () => {
    const store = open('plan.db');
    const plan = (sql: string) =>
      (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('default', 0, 10) as { detail: string }[]).map(
        (r) => r.detail,
      );
    // The statements listSessionOutlinesAfter runs, as prepared.
    const { stmts } = store as unknown as { stmts: Record<'outlinesAfter' | 'outlineCalls', { source: string }> };
    const sessions = plan(stmts.outlinesAfter.source);
    expect(sessions[0]).toMatch(/USING INTEGER PRIMARY KEY \(rowid>\?\)/);
    expect(sessions.join('\n')).not.toMatch(/TEMP B-TREE/);
    const calls = plan(stmts.outlineCalls.source);
    expect(calls[0]).toMatch(/USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/);
    expect(calls[1]).toMatch(/USING PRIMARY KEY \(namespace=\? AND session_id=\?\)/);
    expect(calls.join('\n')).not.toMatch(/TEMP B-TREE/);
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
    for (const t of ['state', 'embedding_cache', 'clusters', 'cluster_members', 'skill_versions', 'events'])
      expect(tables).toContain(t);
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
    // A feedback row from before feedback said who gave it reads with no actor, and counts (replaced by none).
    expect((await store.feedbackHistory('sk_1')).map((f) => [f.signal, f.sessionId, f.actor, f.replacedBy])).toEqual([
      ['success', 's1', null, null],
    ]);
    // The new tables work on the migrated file.
    await store.setSkillEnabled('default', 'sk_1', false, 'tester');
    expect((await store.events('default')).map((e) => e.type)).toEqual(['skill.disabled']);
  });

  it('moves the embedding cache of a version-4 file to a rowid table, every vector kept', async () => {
    const path = join(dir, 'v4.db');
    const raw = new Database(path);
    expect(migrate(raw, 4)).toBe(4);
    expect(raw.prepare("SELECT sql FROM sqlite_master WHERE name = 'embedding_cache'").pluck().get()).toMatch(
      /WITHOUT ROWID/,
    );
    const insert = raw.prepare('INSERT INTO embedding_cache (embedder_id, text_hash, vector) VALUES (?, ?, ?)');
    for (let i = 0; i < 50; i++)
      insert.run(
        i % 2 ? 'glove-sif-lex@1' : 'openai:m@3',
        `h${i}`,
        Buffer.from(new Float32Array([i, i + 0.5, -i]).buffer),
      );
    const before = dumpTable(raw, 'embedding_cache');
    const columns = columnsOf(raw, 'embedding_cache');
    raw.close();

    const store = open('v4.db');
    expect(await store.schemaVersion()).toBe(latestSchemaVersion);
    expect(store.db.prepare("SELECT sql FROM sqlite_master WHERE name = 'embedding_cache'").pluck().get()).not.toMatch(
      /WITHOUT ROWID/,
    );
    // Same columns (the PostgreSQL transfer compares them), same rows, same key.
    expect(columnsOf(store.db, 'embedding_cache')).toEqual(columns);
    expect(dumpTable(store.db, 'embedding_cache')).toEqual(before);
    const cached = await store.getCachedEmbeddings('glove-sif-lex@1', ['h1', 'h2', 'h49']);
    expect([...cached.keys()].sort()).toEqual(['h1', 'h49']);
    expect(Array.from(cached.get('h49')!)).toEqual([49, 49.5, -49]);
    await store.putCachedEmbeddings('glove-sif-lex@1', [{ hash: 'h1', vector: new Float32Array([7, 7, 7]) }]);
    expect(Array.from((await store.getCachedEmbeddings('glove-sif-lex@1', ['h1'])).get('h1')!)).toEqual([7, 7, 7]);
    expect(count(store, 'embedding_cache')).toBe(50);
  });
});

describe('the skill change log keeps a bounded window', () => {
  it('prunes to the last 100,000 changes; a reader behind the window whose namespace changed gets every skill', async () => {
    const store = open();
    const at = '2025-02-01T00:00:00.000Z';
    await store.writeSkill({ action: 'add', skill: skill(), parents: [], actor: 'synth', detail: {}, at });
    const reader = (await store.skillRevision('default')).revision;
    // Another namespace's churn: 101,000 logged changes.
    const churn = store.db.prepare("INSERT INTO skill_changes (namespace, skill_id) VALUES ('other', 'sk_x')");
    store.db.transaction(() => {
      for (let i = 0; i < 101_000; i++) churn.run();
    })();
    // The window, the changes since the last pruning (every 1,000), and each namespace's latest change.
    expect(count(store, 'skill_changes')).toBeGreaterThanOrEqual(100_000);
    expect(count(store, 'skill_changes')).toBeLessThanOrEqual(100_000 + 1_000 + 2);
    // Nothing changed in 'default': its revision stands, and a reader there has nothing to apply.
    expect((await store.skillRevision('default')).revision).toBe(reader);
    expect(await store.skillVectors('default', { changedAfter: reader })).toMatchObject({ rows: [], changedIds: [] });

    await store.setSkillEnabled('default', 'sk_old', false, 'alice');
    const behind = await store.skillVectors('default', { changedAfter: reader });
    expect(behind.changedIds).toBeNull();
    expect(behind.rows.map((r) => [r.id, r.enabled])).toEqual([['sk_old', false]]);
    expect(behind.revision.revision).toBeGreaterThan(reader);
    // A reader inside the window still gets the changes alone.
    const now = behind.revision.revision;
    await store.setSkillEnabled('default', 'sk_old', true, 'alice');
    expect((await store.skillVectors('default', { changedAfter: now })).changedIds).toEqual(['sk_old']);
  });
});

describe('forgetting in a large memory', () => {
  /** How SQLite would run each statement a forget runs, with a batch of two sessions. */
  function forgetPlans(db: Database.Database): Record<string, string> {
    const p = sqlPlan(sqliteDialect);
    const ids = ['s1', 's2'];
    const batch = JSON.stringify(ids.map((id) => ({ id, json: id })));
    const statements: [string, string, unknown[]][] = [
      ['calls', p.deleteCallsIn(2), ['default', ...ids]],
      ['cluster members', p.leaveClustersIn(2), ['default', ...ids]],
      ['recalls', p.deleteRecallsOfIn(2), ['default', ...ids]],
      ['feedback', p.anonymiseFeedbackIn(2), ['default', ...ids]],
      ['provenance', p.parentsOfIn(2), ['default', ...ids]],
      ['audit', p.auditNamingSessions, [batch, 'default']],
    ];
    return Object.fromEntries(
      statements.map(([name, sql, params]) => [
        name,
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
          .map((r) => r.detail)
          .join('; '),
      ]),
    );
  }

  it('a file an earlier release wrote gets the indexes a forget looks sessions up by, its rows kept, the upgrade said', async () => {
    const path = join(dir, 'v11.db');
    const raw = new Database(path);
    migrate(raw, 11);
    raw
      .prepare('INSERT INTO feedback (namespace, skill_id, signal, session_id, at) VALUES (?, ?, ?, ?, ?)')
      .run('default', 'k1', 'trial.pass', 's1', '2026-01-01T00:00:00.000Z');
    // Before: the feedback, provenance and audit records that name a session are found by reading them all.
    const before = forgetPlans(raw);
    expect(before.feedback).toBe('SCAN feedback');
    expect(before.provenance).toMatch(/^SCAN p\b/);
    expect(before.audit).toMatch(/\bSCAN audit\b/);
    raw.close();

    const store = open('v11.db');
    expect(store.upgradedFrom).toBe(11);
    expect(await store.schemaVersion()).toBe(latestSchemaVersion);
    expect(await store.feedbackHistory('k1')).toMatchObject([{ signal: 'trial.pass', sessionId: 's1' }]);
    const after = forgetPlans(store.db);
    expect(after).toEqual({
      calls: 'SEARCH tool_calls USING PRIMARY KEY (namespace=? AND session_id=?)',
      'cluster members': 'SEARCH cluster_members USING PRIMARY KEY (namespace=? AND session_id=?)',
      recalls: 'SEARCH recalls USING INDEX recalls_session (namespace=? AND session_id=?)',
      feedback: 'SEARCH feedback USING INDEX feedback_session (namespace=? AND session_id=?)',
      provenance: expect.stringMatching(/^SEARCH p USING INDEX provenance_source \(source_id=\?\); SEARCH s USING /),
      // Each part of the search through an index of its own, none by reading every record.
      audit: expect.stringMatching(/SEARCH audit USING INDEX audit_session \(namespace=\? AND <expr>=\?\)/),
    });
    for (const index of [
      /SEARCH audit USING INDEX audit_moved_from \(namespace=\? AND <expr>=\?\)/,
      /SEARCH audit USING INDEX audit_moved_to \(namespace=\? AND <expr>=\?\)/,
      /SEARCH audit USING INDEX audit_revised \(namespace=\?\)/,
      /SEARCH audit USING INDEX audit_not_json \(namespace=\?\)/,
    ])
      expect(after.audit).toMatch(index);
    expect(after.audit).not.toMatch(/\bSCAN audit\b/);
    await store.close();
    expect(open('v11.db').upgradedFrom).toBeNull();
  });
});
