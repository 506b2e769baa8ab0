// Forgetting a session rewrites the audit records that named it by id, on a SQLite file and on PostgreSQL, and an
// audit detail that is not JSON (a row of an older version, a hand edit) neither stops the forget nor keeps the id:
// PostgreSQL read every detail as jsonb, and one such row failed the whole forget; SQLite skipped it, id and all.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { session } from '../src/store/store.contract.js';
import { openPgStore } from '../src/store/postgres/pg-store.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';
import { createLogger } from '../src/support/log.js';
import { startPgServer, type PgServer } from './support/pg-server.js';

const AT = '2026-01-01T00:00:00.000Z';
const quiet = createLogger('silent');

/** A raw audit row, written as SQL writes it: any text as its detail. */
type RawRow = { namespace: string; action: string; detail: string };

interface Backend {
  store: Store;
  insert(row: RawRow): Promise<void>;
  details(): Promise<RawRow[]>;
}

/** A SQLite store and its file opened raw, to write and read audit rows as SQL holds them. */
function sqliteBackend(store: Store, raw: Database.Database): Backend {
  return {
    store,
    insert: async (r) => {
      raw
        .prepare(
          `INSERT INTO audit (namespace, at, actor, action, subject_kind, subject_id, detail) VALUES (?, ?, 'test', ?, 'skill', 'sk', ?)`,
        )
        .run(r.namespace, AT, r.action, r.detail);
    },
    details: async () => raw.prepare('SELECT namespace, action, detail FROM audit ORDER BY id').all() as RawRow[],
  };
}

/** A PostgreSQL store, its audit rows written and read through its own pool. */
function pgBackend(store: Awaited<ReturnType<typeof openPgStore>>): Backend {
  return {
    store,
    insert: async (r) => {
      await store.pool.query(
        `INSERT INTO audit (namespace, at, actor, action, subject_kind, subject_id, detail) VALUES ($1, $2, 'test', $3, 'skill', 'sk', $4)`,
        [r.namespace, AT, r.action, r.detail],
      );
    },
    details: async () =>
      (await store.pool.query('SELECT namespace, action, detail FROM audit ORDER BY id')).rows as RawRow[],
  };
}

async function forgetsThroughOddDetails(b: Backend) {
  const { store } = b;
  await store.insertSessions([
    session('default', 's1', 'private goal'),
    session('default', 's10', 'kept goal'),
    session('other', 's1', 'same id, other namespace'),
  ]);
  const rows: RawRow[] = [
    { namespace: 'default', action: 'skill.feedback', detail: JSON.stringify({ signal: 'trial.pass', session: 's1' }) },
    { namespace: 'default', action: 'recall.move', detail: JSON.stringify({ recall: 7, from: 'cc:agent', to: 's1' }) },
    // Not JSON: cut short, and a hand edit.
    { namespace: 'default', action: 'skill.feedback', detail: '{"signal":"trial.pass","session":"s1","eta":[0.5' },
    { namespace: 'default', action: 'note', detail: 'hand edit: session s1 was a test' },
    // Not JSON either, though it looks like an object, and names the session outside a "session" field.
    { namespace: 'default', action: 'note', detail: '{hand edit: s1 was a test}' },
    { namespace: 'default', action: 'note', detail: '{"note": s1, "session" "s1"}' },
    // Not the forgotten session: another namespace's s1, a rename's from (a skill's name), s10's trial.
    { namespace: 'other', action: 'skill.feedback', detail: JSON.stringify({ signal: 'trial.pass', session: 's1' }) },
    { namespace: 'default', action: 'skill.rename', detail: JSON.stringify({ from: 's1', to: 'renamed' }) },
    {
      namespace: 'default',
      action: 'skill.feedback',
      detail: JSON.stringify({ signal: 'trial.pass', session: 's10' }),
    },
  ];
  for (const r of rows) await b.insert(r);

  const gone = await store.forgetSession('default', 's1', { actor: 'user', at: AT });
  expect(gone).not.toBeNull();
  const ref = gone!.ref;
  expect(await store.getSession('default', 's1')).toBeNull();
  expect((await b.details()).map((r) => r.detail)).toEqual([
    JSON.stringify({ signal: 'trial.pass', session: ref }),
    JSON.stringify({ recall: 7, from: 'cc:agent', to: ref }),
    `{"signal":"trial.pass","session":"${ref}","eta":[0.5`,
    `hand edit: session ${ref} was a test`,
    `{hand edit: ${ref} was a test}`,
    `{"note": ${ref}, "session" "${ref}"}`,
    JSON.stringify({ signal: 'trial.pass', session: 's1' }),
    JSON.stringify({ from: 's1', to: 'renamed' }),
    JSON.stringify({ signal: 'trial.pass', session: 's10' }),
    // The forget's own record.
    JSON.stringify({ calls: 0, skills: [] }),
  ]);
}

/**
 * Forgetting s1 replaces it where it stands whole only: the records of s10, s1x and cc:s1 (other sessions, whose ids
 * hold s1) stay byte for byte, whether their detail is JSON or not; a record naming s1 and s10 loses s1 only.
 */
async function forgetsWholeIdsOnly(b: Backend) {
  const { store } = b;
  await store.insertSessions(['s1', 's10', 's1x', 'cc:s1'].map((id) => session('default', id, `goal of ${id}`)));
  const others: RawRow[] = [
    { namespace: 'default', action: 'note', detail: 'hand edit: session s10 was a test' },
    { namespace: 'default', action: 'note', detail: 'hand edit: s1x, s10; cc:s1 and s1.5 stay' },
    { namespace: 'default', action: 'skill.feedback', detail: '{"signal":"trial.pass","session":"s10","eta":[0.5' },
    {
      namespace: 'default',
      action: 'skill.feedback',
      detail: JSON.stringify({ signal: 'trial.pass', session: 's10' }),
    },
    { namespace: 'default', action: 'skill.feedback', detail: JSON.stringify({ session: 's1x', note: 'after s1' }) },
    { namespace: 'default', action: 'recall.move', detail: JSON.stringify({ recall: 2, from: 'cc:s1', to: 's10' }) },
    { namespace: 'default', action: 'skill.revise', detail: JSON.stringify({ revoked: 1, revokedSessions: ['s1x'] }) },
  ];
  const named: RawRow[] = [
    { namespace: 'default', action: 'note', detail: 'hand edit: s1 then s10, (s1). s1: done' },
    { namespace: 'default', action: 'skill.feedback', detail: '{"signal":"trial.pass","session":"s1","note":"s10"' },
    {
      namespace: 'default',
      action: 'skill.revise',
      detail: JSON.stringify({ revoked: 2, revokedSessions: ['s1', 's10'] }),
    },
  ];
  for (const r of [...others, ...named]) await b.insert(r);

  const gone = await store.forgetSession('default', 's1', { actor: 'user', at: AT });
  const ref = gone!.ref;
  const details = (await b.details()).map((r) => r.detail);
  expect(details.slice(0, others.length)).toEqual(others.map((r) => r.detail));
  expect(details.slice(others.length, others.length + named.length)).toEqual([
    `hand edit: ${ref} then s10, (${ref}). ${ref}: done`,
    `{"signal":"trial.pass","session":"${ref}","note":"s10"`,
    JSON.stringify({ revoked: 2, revokedSessions: [ref, 's10'] }),
  ]);
  for (const id of ['s10', 's1x', 'cc:s1']) expect(await store.getSession('default', id)).not.toBeNull();
}

describe('forgetting a session rewrites the audit records naming it, whatever their detail holds', () => {
  let tmp: string;
  let server: PgServer;
  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'skillsmith-forget-audit-'));
    server = await startPgServer();
  }, 120_000);
  afterAll(async () => {
    rmSync(tmp, { recursive: true, force: true });
    await server?.stop();
  });

  /** Runs `check` on a store over a new SQLite file, whose audit rows it writes and reads raw. */
  const onSqlite = async (name: string, check: (b: Backend) => Promise<void>) => {
    const file = join(tmp, name);
    const store = await openSqliteStore(file, { log: quiet });
    const raw = new Database(file);
    try {
      await check(sqliteBackend(store, raw));
    } finally {
      raw.close();
      await store.close();
    }
  };
  /** Runs `check` on a store over a new PostgreSQL database. */
  const onPostgres = async (name: string, check: (b: Backend) => Promise<void>) => {
    const store = await openPgStore(await server.createDatabase(name), { pollMs: 0, log: quiet });
    try {
      await check(pgBackend(store));
    } finally {
      await store.close();
    }
  };

  it('on a SQLite file', () => onSqlite('m.db', forgetsThroughOddDetails));

  it('on PostgreSQL', () => onPostgres('forget_audit', forgetsThroughOddDetails));

  it("on a SQLite file, only where the id stands whole: other sessions' records stay as they were", () =>
    onSqlite('whole.db', forgetsWholeIdsOnly));

  it("on PostgreSQL, only where the id stands whole: other sessions' records stay as they were", () =>
    onPostgres('forget_audit_whole', forgetsWholeIdsOnly));

  it("rewrites the audit file's copies where the id stands whole: other sessions' lines stay as they were", async () => {
    const db = join(tmp, 'file.db');
    const file = `${db}.audit.jsonl`;
    const memory = await openMemory({ db, logLevel: 'silent' });
    try {
      const store = memory.parts.store!;
      await store.insertSessions(['s1', 's10', 's1x', 'zz'].map((id) => session('default', id, `goal of ${id}`)));
      const b = sqliteBackend(store, (store as unknown as { db: Database.Database }).db);
      const rows: RawRow[] = [
        { namespace: 'default', action: 'skill.feedback', detail: JSON.stringify({ signal: 'up', session: 's10' }) },
        { namespace: 'default', action: 'skill.feedback', detail: JSON.stringify({ session: 's1x', note: 's1' }) },
        {
          namespace: 'default',
          action: 'recall.move',
          detail: JSON.stringify({ recall: 2, from: 'cc:s1', to: 's10' }),
        },
        { namespace: 'default', action: 'skill.feedback', detail: JSON.stringify({ signal: 'up', session: 's1' }) },
      ];
      for (const r of rows) await b.insert(r);
      // Forgetting another session sends them to the file as they are.
      await memory.sessions.forget('zz');
      // A line the table does not hold (another database's), and one that is no record.
      appendFileSync(
        file,
        `${JSON.stringify({ id: 999, namespace: 'default', action: 'skill.feedback', detail: { session: 's1', of: 's10' } })}\nhand note: "s10" and "s1x"\n`,
      );
      const before = readFileSync(file, 'utf8').split('\n');
      const gone = await memory.sessions.forget('s1');
      const after = readFileSync(file, 'utf8').split('\n');
      const changed = after.flatMap((line, i) => (line === before[i] ? [] : [i]));
      // The s1 trial's line and the line of another database, only (a note equal to s1 is no field that names a
      // session, in the table as in the file); the forget's own record is appended.
      const trial = before.findIndex((l) => l.includes('"session":"s1"}'));
      const foreign = before.findIndex((l) => l.startsWith('{"id":999'));
      expect(changed).toEqual([trial, foreign, before.length - 1, before.length]);
      expect(after[trial]).toBe(before[trial]!.replace('"s1"', `"${gone!.ref}"`));
      expect(after[foreign]).toBe(before[foreign]!.replace('"s1"', `"${gone!.ref}"`));
    } finally {
      await memory.close();
    }
  });
});
