// Forgetting a session rewrites the audit records that named it by id, on a SQLite file and on PostgreSQL, and an
// audit detail that is not JSON (a row of an older version, a hand edit) neither stops the forget nor keeps the id:
// PostgreSQL read every detail as jsonb, and one such row failed the whole forget; SQLite skipped it, id and all.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  details(): Promise<{ namespace: string; action: string; detail: string }[]>;
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

  it('on a SQLite file', async () => {
    const file = join(tmp, 'm.db');
    const store = await openSqliteStore(file, { log: quiet });
    const raw = new Database(file);
    try {
      await forgetsThroughOddDetails({
        store,
        insert: async (r) => {
          raw
            .prepare(
              `INSERT INTO audit (namespace, at, actor, action, subject_kind, subject_id, detail) VALUES (?, ?, 'test', ?, 'skill', 'sk', ?)`,
            )
            .run(r.namespace, AT, r.action, r.detail);
        },
        details: async () =>
          raw.prepare('SELECT namespace, action, detail FROM audit ORDER BY id').all() as {
            namespace: string;
            action: string;
            detail: string;
          }[],
      });
    } finally {
      raw.close();
      await store.close();
    }
  });

  it('on PostgreSQL', async () => {
    const url = await server.createDatabase('forget_audit');
    const store = await openPgStore(url, { pollMs: 0, log: quiet });
    try {
      await forgetsThroughOddDetails({
        store,
        insert: async (r) => {
          await store.pool.query(
            `INSERT INTO audit (namespace, at, actor, action, subject_kind, subject_id, detail) VALUES ($1, $2, 'test', $3, 'skill', 'sk', $4)`,
            [r.namespace, AT, r.action, r.detail],
          );
        },
        details: async () =>
          (await store.pool.query('SELECT namespace, action, detail FROM audit ORDER BY id')).rows as {
            namespace: string;
            action: string;
            detail: string;
          }[],
      });
    } finally {
      await store.close();
    }
  });
});
