import { afterAll, describe, expect, it } from 'vitest';
import type { CapturedSession } from '../src/capture/types.js';
import { startPgServer, type PgServer } from './support/pg-server.js';
import { openPgStore } from '../src/store/postgres/pg-store.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';
import { tempDbPath } from './support/tau.js';

function session(
  id: string,
  outcomeSource: 'reported' | 'judged',
  outcome: CapturedSession['outcome'] = 'success',
): CapturedSession {
  return {
    id,
    namespace: 'n',
    goal: `goal ${id}`,
    outcome,
    outcomeSource,
    reward: null,
    agentId: null,
    source: null,
    startedAt: '2025-01-01T00:00:00Z',
    endedAt: null,
    calls: [],
  };
}

let pgServer: PgServer | null = null;
afterAll(async () => {
  await pgServer?.stop();
});

async function roundTrip(store: Store) {
  const outcomeSource = async (id: string) =>
    ((await store.getSession('n', id)) as CapturedSession | null)?.outcomeSource;
  await store.insertSessions([
    session('judged', 'judged'),
    session('reported', 'reported'),
    { ...session('legacy', 'reported'), outcomeSource: undefined },
  ]);
  expect(await outcomeSource('judged')).toBe('judged');
  expect(await outcomeSource('reported')).toBe('reported');
  expect(await outcomeSource('legacy')).toBe('reported');
  // The truth reported later replaces the judgement.
  await store.endSession('n', 'judged', 'failure', null, '2025-01-02T00:00:00Z');
  expect(await store.getSession('n', 'judged')).toMatchObject({ outcome: 'failure', outcomeSource: 'reported' });
  // A live session ended by the judge.
  const { calls: _c, ...live } = session('live', 'reported', 'unknown');
  await store.beginSession(live);
  expect(await outcomeSource('live')).toBe('reported');
  await (store.endSession as (...a: unknown[]) => Promise<void>)(
    'n',
    'live',
    'success',
    null,
    '2025-01-02T00:00:00Z',
    'judged',
  );
  expect(await store.getSession('n', 'live')).toMatchObject({ outcome: 'success', outcomeSource: 'judged' });
}

describe('sessions.outcome_source: judged outcomes are stored as judged, never confused with reported ones', () => {
  it('SQLite', async () => {
    const store = openSqliteStore(tempDbPath());
    await roundTrip(store);
    await store.close();
  });

  it('PostgreSQL', async () => {
    pgServer = await startPgServer();
    const store = await openPgStore(await pgServer.createDatabase(), { pollMs: 0 });
    await roundTrip(store);
    await store.close();
  });
});
