// Look-alike groups (stages/look-alike.ts) with sessions still open (domain/open-session.ts), which count for nothing
// until they end. `skillsmith sessions alike` compares every cluster too small to learn from: one that holds only open
// sessions is no seed of a group, and the groups are found again without it, a few times; after that, groups such a
// cluster still seeds are passed over. Sessions stored whole and clustered by a real pass, on SQLite and PostgreSQL.
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Memory } from '../src/app/memory.js';
import { openStoreAt } from '../src/app/backends.js';
import type { Session } from '../src/domain/types.js';
import { openMemory } from '../src/app/open-memory.js';
import { startPgServer, type PgServer } from './support/pg-server.js';
import { tempDbPath } from './support/tau.js';

/**
 * The steps of an order's fulfilment. Each run below takes most of them, in words too far apart from the others' to
 * share a cluster: runs that take all but one or two of the same steps are look-alikes (tool parts 0.8 to 0.9 alike),
 * runs that share fewer are not.
 */
const STEPS = [
  'create_order',
  'reserve_stock',
  'charge_card',
  'send_receipt',
  'book_courier',
  'update_ledger',
  'notify_customer',
  'archive_ticket',
];
/** STEPS but the ones at these places. */
const stepsBut = (...left: number[]) => STEPS.filter((_, i) => !left.includes(i));

/** Requests worded far apart (their GloVe vectors share no cluster). */
const GOALS = [
  'reconcile the quarterly ledger for the Boston office',
  'plan a birthday dinner for my grandmother',
  'translate the onboarding manual into Portuguese',
  'diagnose why the greenhouse sprinklers stopped working',
  'compose a haiku about autumn leaves',
  'schedule maintenance for the delivery trucks fleet',
  'summarize yesterday football match highlights',
  'order replacement filters for the aquarium',
];

/**
 * Other work of the namespace, one lookup each: the steps the runs share are then taken by at most half of its
 * sessions, telling enough to say a group by (look-alike.ts sharedSteps).
 */
const OTHER_WORK: [string, string][] = [
  ['search_news', 'write a cover letter for a nursing position'],
  ['lookup_lyrics', 'find a vegetarian lasagna recipe without mushrooms'],
  ['fetch_stock_price', 'explain how tides are caused by the moon'],
  ['query_weather_radar', 'book a campsite near the lake for August'],
  ['list_calendar_events', 'estimate the cost of repainting the garage door'],
  ['read_sensor_log', 'learn the chords of a simple jazz standard on guitar'],
];

/** A run that called these tools, each once: ended with success, or still open (no end, no outcome). */
function run(id: string, goal: string, tools: readonly string[], open = false): Session {
  return {
    id,
    namespace: 'default',
    goal,
    outcome: open ? 'unknown' : 'success',
    reward: open ? null : 1,
    agentId: null,
    source: 'scripted-test',
    startedAt: '2026-03-01T00:00:00.000Z',
    endedAt: open ? null : '2026-03-01T00:05:00.000Z',
    labels: null,
    calls: tools.map((tool, position) => ({
      position,
      tool,
      args: {},
      result: '{"ok":true}',
      ok: true,
      error: null,
      durationMs: null,
      at: null,
    })),
  };
}

const otherWork = () => OTHER_WORK.map(([tool, goal], i) => run(`other-${i}`, goal, [tool]));

/** The groups `sessions alike` lists, each's sessions sorted. */
const alike = async (memory: Memory) => (await memory.synthesis.lookAlike()).map((g) => [...g.sessions].sort());

/**
 * An open run took every step; three that ended each took most of them: `a` and `b` the first ones, `c` the last
 * ones. The open run is alike to all three, and `a` and `b` to each other, `c` to neither of them. As a seed, the open
 * run would make one group of the three (alike to it, not to one another); without it, `a` and `b` group.
 */
async function foundAgainWithoutOpenSeed(memory: Memory) {
  await memory.ingest([
    run('open', GOALS[0], STEPS, true),
    run('a', GOALS[1], stepsBut(6, 7)),
    run('b', GOALS[2], stepsBut(5, 7)),
    run('c', GOALS[3], stepsBut(0, 1)),
    ...otherWork(),
  ]);
  await memory.synthesize();
  expect(await alike(memory)).toEqual([['a', 'b']]);
  // Ended, it counts: it is the seed of a group of all four (the steps in the middle, each of them took).
  await memory.reportOutcome('open', 'success');
  expect(await alike(memory)).toEqual([['a', 'b', 'c', 'open']]);
}

/**
 * Five open runs and two that ended, each taking all of the first seven steps but one: all alike to one another.
 * The open runs come first, so each is in turn the seed the grouping picks (a tie goes to the older cluster): the
 * groups are found again four times, and the group the fifth still seeds is passed over. When the fifth ends (it
 * failed), the fifth grouping finds it a seed that counts: it says the two that succeeded.
 */
async function passedOverAfterFourRegroups(memory: Memory) {
  await memory.ingest([
    ...[0, 1, 2, 3, 4].map((i) => run(`open-${i + 1}`, GOALS[i], stepsBut(i, 7), true)),
    run('e1', GOALS[5], stepsBut(5, 7)),
    run('e2', GOALS[6], stepsBut(6, 7)),
    ...otherWork(),
  ]);
  await memory.synthesize();
  expect(await alike(memory)).toEqual([]);
  await memory.reportOutcome('open-5', 'failure');
  expect(await alike(memory)).toEqual([['e1', 'e2']]);
}

let pg: PgServer | null = null;
afterAll(async () => {
  await pg?.stop();
});

/** Runs `check` on a memory over a new SQLite file, or a new database of the one PostgreSQL server. */
async function on(backend: 'SQLite' | 'PostgreSQL', check: (memory: Memory) => Promise<void>): Promise<void> {
  const path = backend === 'SQLite' ? tempDbPath('skillsmith-look-alike-open-') : null;
  if (!path) pg ??= await startPgServer();
  const store = await openStoreAt(path ?? (await pg!.createDatabase()));
  const memory = await openMemory({ db: store, config: { synthesis: { cooldownMs: 0 } }, logLevel: 'silent' });
  try {
    await check(memory);
  } finally {
    await memory.close();
    if (path) rmSync(dirname(path), { recursive: true, force: true });
  }
}

describe('sessions alike: a cluster of open sessions only is no seed', () => {
  for (const backend of ['SQLite', 'PostgreSQL'] as const) {
    it(`${backend}: the groups are found again without it, and the clusters it had taken group with each other`, () =>
      on(backend, foundAgainWithoutOpenSeed));

    it(`${backend}: after four regroups, a group it still seeds is passed over`, () =>
      on(backend, passedOverAfterFourRegroups));
  }
});
