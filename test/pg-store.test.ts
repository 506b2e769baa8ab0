import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPgServer, type PgServer } from './support/pg-server.js';
import { isPostgresUrl, openStore } from '../src/store/open-store.js';
import { call, session, skill, storeContract } from '../src/store/store.contract.js';
import { latestPgSchemaVersion, pgMigrations } from '../src/store/postgres/migrations.js';
import { migratePg, openPgStore, type PgStore } from '../src/store/postgres/pg-store.js';
import { pgDialect } from '../src/store/sql/dialect.js';
import { sqlPlan } from '../src/store/sql/plan.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { createLogger } from '../src/support/log.js';
import { openMemory } from '../src/app/open-memory.js';

const quiet = createLogger('silent');
let server: PgServer;
const opened: PgStore[] = [];

beforeAll(async () => {
  server = await startPgServer();
});

afterAll(async () => {
  for (const s of opened.splice(0)) await s.close();
  await server?.stop();
});

async function open(url: string, opts: Parameters<typeof openPgStore>[1] = {}): Promise<PgStore> {
  const store = await openPgStore(url, { pollMs: 0, log: quiet, ...opts });
  opened.push(store);
  return store;
}

storeContract('postgres', async () => {
  const url = await server.createDatabase();
  const store = await openPgStore(url, { pollMs: 0, log: quiet });
  return { store, peer: () => openPgStore(url, { pollMs: 0, log: quiet }), cleanup: () => store.close() };
});

describe('PostgreSQL store: opening', () => {
  it('creates a fresh database at the latest schema version; reopening applies nothing twice', async () => {
    const url = await server.createDatabase();
    const store = await open(url);
    expect(store.kind).toBe('postgres');
    expect(await store.schemaVersion()).toBe(latestPgSchemaVersion);
    const { rows } = await store.pool.query('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(pgMigrations.map((m) => m.version));
    await store.close();
    const again = await open(url);
    expect((await again.pool.query('SELECT COUNT(*) AS n FROM schema_migrations')).rows[0].n).toBe(pgMigrations.length);
  });

  it('many processes opening one fresh database at once migrate it exactly once', async () => {
    const url = await server.createDatabase();
    const stores = await Promise.all(Array.from({ length: 6 }, () => open(url)));
    for (const s of stores) expect(await s.schemaVersion()).toBe(latestPgSchemaVersion);
    expect((await stores[0].pool.query('SELECT COUNT(*) AS n FROM schema_migrations')).rows[0].n).toBe(
      pgMigrations.length,
    );
  });

  it('keeps the password out of its location and says clearly when the server cannot be reached', async () => {
    const url = await server.createDatabase();
    const withPassword = url.replace('postgres@', 'postgres:s3cret@');
    const store = await open(withPassword);
    expect(store.location).not.toContain('s3cret');
    const dead = `postgres://postgres:s3cret@127.0.0.1:1/nowhere`;
    const err = await openPgStore(dead, { pollMs: 0 }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(
      /cannot open PostgreSQL memory at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/nowhere/,
    );
    expect((err as Error).message).not.toContain('s3cret');
    // What to do about it, with the reason.
    expect((err as Error).message).toContain('(is PostgreSQL running and listening on 127.0.0.1:1?)');
    const missing = await openPgStore(server.url('no_such_memory'), { pollMs: 0 }).catch((e: Error) => e);
    expect((missing as Error).message).toMatch(
      /database "no_such_memory" does not exist \(create the database first \(createdb no_such_memory, or CREATE DATABASE no_such_memory\), or name another one in the URL\)$/,
    );
  });

  it('openStore picks the back end from the location', async () => {
    expect(isPostgresUrl('postgres://h/db')).toBe(true);
    expect(isPostgresUrl('postgresql://u@h:5432/db')).toBe(true);
    expect(isPostgresUrl('./skillsmith.db')).toBe(false);
    expect(isPostgresUrl('/var/lib/postgres.db')).toBe(false);
    const pgStore = await openStore(await server.createDatabase());
    expect(pgStore.kind).toBe('postgres');
    await pgStore.close();
    const sqlite = await openStore(':memory:');
    expect(sqlite.kind).toBe('sqlite');
    await sqlite.close();
  });
});

describe('PostgreSQL store: many writers', () => {
  it('numbers sessions in commit order: a watermark reader racing concurrent writers never skips one', async () => {
    const url = await server.createDatabase();
    const writers = await Promise.all(Array.from({ length: 6 }, () => open(url, { poolSize: 4 })));
    const reader = await open(url);
    let done = false;
    const seen: string[] = [];
    // What a synthesis pass does: read everything after the watermark, move the watermark to the last seq read.
    const tail = (async () => {
      let mark = 0;
      for (;;) {
        const finished = done;
        const page = await reader.listSessionOutlinesAfter('race', mark, 500);
        for (const s of page) seen.push(s.id);
        if (page.length) mark = page[page.length - 1].seq!;
        if (finished && page.length === 0) return;
      }
    })();
    await Promise.all(
      writers.map(async (w, i) => {
        const work: Promise<unknown>[] = [];
        for (let j = 0; j < 150; j++) {
          const id = `w${i}-s${j}`;
          if (j % 3 === 0) work.push(w.insertSessions([session('race', id, 'batch', [call(0, 't')])]));
          else {
            const { calls: _c, ...head } = session('race', id, 'live');
            work.push(w.beginSession(head));
          }
        }
        await Promise.all(work);
      }),
    );
    done = true;
    await tail;
    expect(seen).toHaveLength(900);
    expect(new Set(seen).size).toBe(900);
  });

  it('two processes recording one session at once keep every call, each at its own position', async () => {
    const url = await server.createDatabase();
    const memories = await Promise.all([0, 1].map(() => openMemory({ db: url, logLevel: 'silent' })));
    try {
      // A restarted agent beside the old one: both recorders start from the same last position.
      const recorders = await Promise.all(
        memories.map((m) => m.startSession({ goal: 'Rotate the API keys', id: 'pg-shared' })),
      );
      await Promise.all(
        recorders.flatMap((r, i) => [0, 1, 2].map((j) => r.call({ tool: `tool_${i}_${j}`, args: {}, result: 'ok' }))),
      );
      // REST-style calls without a position, sent at once from both processes.
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, k) => memories[k % 2].sessions.recordCall('pg-shared', { tool: `rest_${k}` })),
      );
      expect(answers.every((a) => a.recorded)).toBe(true);
      const stored = await memories[0].sessions.get('pg-shared');
      expect(stored?.calls).toHaveLength(16);
      expect(stored?.calls.map((c) => c.position)).toEqual(Array.from({ length: 16 }, (_, k) => k));
      expect(new Set(answers.map((a) => a.position)).size).toBe(10);
    } finally {
      for (const m of memories) await m.close();
    }
  });

  it('hands out event ids in commit order: a reader tailing "after id N" misses none', async () => {
    const url = await server.createDatabase();
    const writers = await Promise.all(Array.from({ length: 4 }, () => open(url, { poolSize: 4 })));
    const reader = await open(url);
    let done = false;
    const seen: number[] = [];
    const tail = (async () => {
      let after = 0;
      for (;;) {
        const finished = done;
        const page = await reader.events('default', { afterId: after, limit: 200 });
        for (const e of page) seen.push(e.payload.n as number);
        if (page.length) after = page[page.length - 1].id;
        if (finished && page.length === 0) return;
      }
    })();
    await Promise.all(
      writers.map((w, i) =>
        Promise.all(
          Array.from({ length: 100 }, (_, j) =>
            w.appendEvent('default', 'test.tick', null, { n: i * 100 + j }, new Date().toISOString()),
          ),
        ),
      ),
    );
    done = true;
    await tail;
    expect(seen).toHaveLength(400);
    expect(new Set(seen).size).toBe(400);
  });

  it('a pass lock dies with the connection that holds it: the server releases it, no expiry needed', async () => {
    const url = await server.createDatabase();
    const a = await open(url);
    const b = await open(url);
    const release = await a.tryLock('synthesis:default', 'host-a:1:x', 1);
    expect(release).not.toBeNull();
    // The expiry is no reason to take it: the holder is connected.
    await new Promise((r) => setTimeout(r, 20));
    expect(await b.tryLock('synthesis:default', 'host-b:2:y', 60_000)).toBeNull();
    const holder = await b.pool.query(`SELECT holder FROM locks WHERE name = 'synthesis:default'`);
    expect(holder.rows[0].holder).toBe('host-a:1:x');
    // Its process dies (here: its connection is cut, as when a host vanishes).
    await b.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()`,
    );
    await expect
      .poll(
        async () => {
          const r = await b.tryLock('synthesis:default', 'host-b:2:y', 60_000);
          if (r) await r();
          return r !== null;
        },
        { timeout: 5_000, interval: 50 },
      )
      .toBe(true);
    await release!(); // a no-op now, and it does not throw
  });

  it('notifies other processes of skill changes without a round trip per check', async () => {
    const url = await server.createDatabase();
    const a = await open(url);
    const b = await open(url);
    const t0 = await b.changeToken();
    await a.writeSkill({
      action: 'add',
      skill: skill(),
      parents: [],
      actor: 't',
      detail: {},
      at: '2025-01-01T00:00:00.000Z',
    });
    await expect.poll(() => b.changeToken(), { timeout: 5_000, interval: 10 }).not.toBe(t0);
    // Recording sessions and recalls does not make every process reload its skills.
    const t1 = await b.changeToken();
    await a.insertSessions([session('default', 's1', 'g', [call(0, 't')])]);
    await a.recordRecall('default', {
      sessionId: 's1',
      goal: 'g',
      at: '2025-01-01T00:00:00.000Z',
      items: [{ skillId: 'sk_old', rank: 0, similarity: 1 }],
    });
    expect(await a.skillsServedForSession('default', 's1')).toEqual(['sk_old']);
    await new Promise((r) => setTimeout(r, 100));
    expect(await b.changeToken()).toBe(t1);
  });

  it('two memories in two schemas of one database keep apart: each its own pass lock and change notices', async () => {
    const url = await server.createDatabase();
    const admin = await open(url);
    await admin.pool.query('CREATE SCHEMA mem_a; CREATE SCHEMA mem_b');
    const inSchema = (name: string) => `${url}?options=-csearch_path%3D${name}`;
    const a = await open(inSchema('mem_a'));
    const b1 = await open(inSchema('mem_b'));
    const b2 = await open(inSchema('mem_b'));
    expect((await admin.pool.query(`SELECT to_regclass('mem_b.skills') IS NOT NULL AS made`)).rows[0].made).toBe(true);

    // A pass of one memory does not refuse the other's (the key of each is its schema's).
    const passA = await a.tryLock('synthesis:default', 'host-a', 60_000);
    expect(passA).not.toBeNull();
    const passB = await b1.tryLock('synthesis:default', 'host-b', 60_000);
    expect(passB).not.toBeNull();
    expect(await b2.tryLock('synthesis:default', 'host-b2', 60_000)).toBeNull();
    await passA!();
    await passB!();

    // Memory a's changes are not memory b's: b's processes hear none of them, so a's counter, however high, never
    // hides b's own changes from them.
    const write = (store: PgStore, id: string) =>
      store.writeSkill({
        action: 'add',
        skill: skill({ id, name: id }),
        parents: [],
        actor: 't',
        detail: {},
        at: '2025-01-01T00:00:00.000Z',
      });
    const t0 = await b2.changeToken();
    for (let i = 0; i < 5; i++) await write(a, `sk-a-${i}`);
    await new Promise((r) => setTimeout(r, 200));
    expect(await b2.changeToken()).toBe(t0);
    await write(b1, 'sk-b-0');
    await expect.poll(() => b2.changeToken(), { timeout: 5_000, interval: 10 }).not.toBe(t0);
  });

  it('falls back to reading the change counter when no notification arrives', async () => {
    const url = await server.createDatabase();
    const a = await open(url);
    const b = await open(url, { pollMs: 50 });
    const t0 = await b.changeToken();
    // A change committed without NOTIFY (as through a pooler that drops it).
    await a.pool.query('UPDATE change_counter SET value = value + 1 WHERE id = 1');
    await expect.poll(() => b.changeToken(), { timeout: 5_000, interval: 20 }).not.toBe(t0);
  });

  it('stores text that SQLite would sort the same way: byte order, whatever the locale', async () => {
    const url = await server.createDatabase();
    const s = await open(url);
    for (const [i, id] of ['b', 'B', 'a', '_x', 'Ä'].entries()) {
      await s.writeSkill({
        action: 'add',
        skill: skill({ id, name: `n${i}`, createdAt: '2025-01-01T00:00:00.000Z' }),
        parents: [],
        actor: 't',
        detail: {},
        at: '2025-01-01T00:00:00.000Z',
      });
    }
    expect((await s.listSkills('default')).map((k) => k.id)).toEqual(['B', '_x', 'a', 'b', 'Ä']);
  });
});

describe('PostgreSQL store: schema', () => {
  it('has every table of the SQLite schema with the same columns in the same order (a memory copies column for column)', async () => {
    const s = await open(await server.createDatabase());
    const lite = openSqliteStore(':memory:');
    try {
      const tables = (
        lite.db
          .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
          .all() as { name: string }[]
      ).map((r) => r.name);
      expect(tables.length).toBeGreaterThan(10);
      for (const t of tables) {
        const liteCols = (lite.db.prepare(`PRAGMA table_info(${t})`).all() as { name: string }[]).map((c) => c.name);
        const { rows } = await s.pool.query(
          `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
          [t],
        );
        expect(
          rows.map((r) => r.column_name),
          t,
        ).toEqual(liteCols);
      }
    } finally {
      await lite.close();
    }
  });
});

describe('PostgreSQL store: forgetting in a large memory', () => {
  it('a database an earlier release wrote gets the indexes a forget looks sessions up by, used once the tables are large', async () => {
    const url = await server.createDatabase();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      await migratePg(pool, 11);
    } finally {
      await pool.end();
    }
    const store = await open(url);
    expect(store.upgradedFrom).toBe(11);
    expect(await store.schemaVersion()).toBe(latestPgSchemaVersion);
    const db = store.pool;
    // 20,000 sessions' worth of rows: 20 skills learned from them, a trial of one in each and its audit record, the
    // clusters they are in.
    await db.query(`INSERT INTO skills (id, namespace, name, description, skill_md, body, created_at, updated_at)
      SELECT 'k' || i, 'default', 'skill-' || i, 'd', 'md', 'b', 't', 't' FROM generate_series(1, 20) i`);
    await db.query(`INSERT INTO provenance (skill_id, source_kind, source_id, version, created_at)
      SELECT 'k' || (i % 20 + 1), 'episodic', 's' || i, '1.0.0', 't' FROM generate_series(1, 20000) i`);
    await db.query(`INSERT INTO feedback (namespace, skill_id, signal, session_id, at)
      SELECT 'default', 'k' || (i % 20 + 1), 'trial.pass', 's' || i, 't' FROM generate_series(1, 20000) i`);
    await db.query(`INSERT INTO audit (namespace, at, actor, action, subject_kind, subject_id, detail)
      SELECT 'default', 't', 'x', 'skill.feedback', 'skill', 'k1', json_build_object('session', 's' || i)::text
      FROM generate_series(1, 20000) i`);
    await db.query(`INSERT INTO cluster_members (namespace, session_id, cluster_id)
      SELECT 'default', 's' || i, 'c' || (i % 50) FROM generate_series(1, 20000) i`);
    await db.query('ANALYZE');
    // The index of details that are not JSON reads each one in an exception block, which no parallel worker may run:
    // rebuilt where PostgreSQL would build it in parallel (a large table), it is built by one process, not refused.
    const rebuild = await db.connect();
    try {
      await rebuild.query(
        'SET max_parallel_maintenance_workers = 2; SET min_parallel_table_scan_size = 0; SET maintenance_work_mem = 65536',
      );
      await rebuild.query('REINDEX INDEX audit_not_json');
    } finally {
      await rebuild.query('RESET ALL');
      rebuild.release();
    }
    const p = sqlPlan(pgDialect);
    const plan = async (sql: string, params: unknown[]) => {
      const client = await db.connect();
      try {
        await client.query('BEGIN');
        const { rows } = await client.query(`EXPLAIN ${pgDialect.numbered(sql)}`, params);
        return rows.map((r) => r['QUERY PLAN'] as string).join('\n');
      } finally {
        await client.query('ROLLBACK');
        client.release();
      }
    };
    // One session, as DELETE /api/sessions/{id} forgets it.
    const one = ['s17'];
    expect(await plan(p.anonymiseFeedbackIn(1), ['default', one])).toContain('Index Scan using feedback_session');
    expect(await plan(p.parentsOfIn(1), ['default', one])).toContain('Index Scan using provenance_source');
    expect(await plan(p.leaveClustersIn(1), ['default', one])).not.toMatch(/Seq Scan on cluster_members/);
    // The audit records that name it: each part of the search through an index of its own, none by a scan.
    const audit = await plan(p.auditNamingSessions, [JSON.stringify(one.map((id) => ({ id, json: id }))), 'default']);
    // (A recall's moves through either index on them: with no such record in the table, both cost the same.)
    for (const index of ['audit_session', 'audit_moved_', 'audit_revised', 'audit_not_json'])
      expect(audit).toContain(index);
    expect(audit).not.toMatch(/Seq Scan on audit/);
    // Stored times as instants: offsets applied, NULL for text that is no time (never an error, never now).
    const { rows } = await db.query(
      `SELECT skillsmith_instant('2026-09-01T10:00:00+02:00') < skillsmith_instant('2026-09-01T09:30:00Z') AS earlier,
              skillsmith_instant('2026-02-31T10:00:00Z') AS no_day, skillsmith_instant('now') AS word,
              skillsmith_instant(NULL) AS none`,
    );
    expect(rows[0]).toEqual({ earlier: true, no_day: null, word: null, none: null });
  });
});
