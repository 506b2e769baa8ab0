// Look-alike groups (stages/look-alike.ts) with sessions still open (domain/open-session.ts), which count for nothing
// until they end: a small cluster that holds some is compared by the tool use of its members that ended, and one of
// open sessions only is in no group. `skillsmith sessions alike` knows such clusters from what the last pass kept;
// a group seeded by one it did not keep is found again without its open sessions, a few times, and after that passed
// over. A cluster big enough by size but with too few that ended is as small to `sessions alike` as to a pass, until
// they end. Sessions stored whole and clustered by a real pass, on SQLite and PostgreSQL.
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Memory } from '../src/app/memory.js';
import { openStoreAt } from '../src/app/backends.js';
import type { Session } from '../src/domain/types.js';
import { openMemory, type OpenMemoryOptions } from '../src/app/open-memory.js';
import type { Store } from '../src/store/store.js';
import { stateKey } from '../src/store/state-key.js';
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

const sorted = (g: { sessions: string[] }) => [...g.sessions].sort();
/** The groups `sessions alike` lists, each's sessions sorted. */
const alike = async (memory: Memory) => (await memory.synthesis.lookAlike()).map(sorted);

/**
 * Whether the last pass's record of the small clusters that hold open sessions is kept; when not, as for a memory
 * whose last pass kept none (an earlier version's, or one that saw more such clusters than a pass keeps), `sessions
 * alike` finds them among its groups' seeds.
 */
type OpenRecord = 'kept' | 'lost';
const lose = (store: Store, record: OpenRecord) =>
  record === 'lost' ? store.setState('default', stateKey.lookAlikeOpen, '[]') : Promise.resolve();

/**
 * A run that ended, and the same request run again and still open, share a cluster (the same words); so far the open
 * one went another way (other tools). The one that ended took nearly the steps of two other runs, worded apart: the
 * three are a group of as many successful runs as a skill needs here. Compared by the cluster's stored centroid,
 * which counts the open run's tools too, the cluster is not alike to the others (0.58), and those two alone are too few.
 */
async function comparedByEndedMembers(memory: Memory) {
  const elsewhere = ['deploy_service', 'restart_pod', 'rotate_keys', 'scale_cluster', 'purge_cache'];
  await memory.ingest([
    run('x', GOALS[0], stepsBut(7)),
    run('x-again', GOALS[0], elsewhere, true),
    run('y', GOALS[1], stepsBut(6)),
    run('w', GOALS[2], stepsBut(5)),
    ...otherWork(),
  ]);
  expect((await memory.synthesize({ dryRun: true })).lookAlike?.map(sorted)).toEqual([['w', 'x', 'y']]);
  const pass = await memory.synthesize();
  // The two runs of the same request are one cluster.
  expect(pass.skipped.map((s) => s.reason)).toContain('not admitted: 2 sessions, 3 needed');
  expect(pass.lookAlike?.map(sorted)).toEqual([['w', 'x', 'y']]);
  expect(await alike(memory)).toEqual([['w', 'x', 'y']]);
  // Ended, it counts, and so do its tools: the cluster's tool use is half another task's.
  await memory.reportOutcome('x-again', 'success');
  expect(await alike(memory)).toEqual([]);
}

/**
 * An open run took every step; three that ended each took most of them: `a` and `b` the first ones, `c` the last
 * ones. The open run is alike to all three, and `a` and `b` to each other, `c` to neither of them. As a seed, the open
 * run would make one group of the three (alike to it, not to one another); without it, `a` and `b` group.
 */
async function foundAgainWithoutOpenSeed(memory: Memory, store: Store, record: OpenRecord) {
  await memory.ingest([
    run('open', GOALS[0], STEPS, true),
    run('a', GOALS[1], stepsBut(6, 7)),
    run('b', GOALS[2], stepsBut(5, 7)),
    run('c', GOALS[3], stepsBut(0, 1)),
    ...otherWork(),
  ]);
  await memory.synthesize();
  await lose(store, record);
  expect(await alike(memory)).toEqual([['a', 'b']]);
  // Ended, it counts: it is the seed of a group of all four (the steps in the middle, each of them took).
  await memory.reportOutcome('open', 'success');
  expect(await alike(memory)).toEqual([['a', 'b', 'c', 'open']]);
}

/**
 * Five open runs and two that ended, each taking all of the first seven steps but one: all alike to one another.
 * Kept by the last pass, the open runs are in no group: the two that ended are one. Not kept: the open runs come
 * first, so each is in turn the seed the grouping picks (a tie goes to the older cluster), the groups are found again
 * four times, and the group the fifth still seeds is passed over. When the fifth ends (it failed), the fifth grouping
 * finds it a seed that counts: it says the two that succeeded.
 */
async function passedOverAfterFourRegroups(memory: Memory, store: Store, record: OpenRecord) {
  await memory.ingest([
    ...[0, 1, 2, 3, 4].map((i) => run(`open-${i + 1}`, GOALS[i], stepsBut(i, 7), true)),
    run('e1', GOALS[5], stepsBut(5, 7)),
    run('e2', GOALS[6], stepsBut(6, 7)),
    ...otherWork(),
  ]);
  await memory.synthesize();
  await lose(store, record);
  expect(await alike(memory)).toEqual(record === 'kept' ? [['e1', 'e2']] : []);
  await memory.reportOutcome('open-5', 'failure');
  expect(await alike(memory)).toEqual([['e1', 'e2']]);
}

/** Ending a pass's skip reason for a cluster big enough by size whose open sessions leave too few that ended. */
const TOO_FEW_ENDED = 'not admitted: 2 ended sessions (1 more still open), 3 needed';

/**
 * Two requests run three times each, two runs ended and one still open: each cluster is big enough by size, too small
 * by the runs that ended, and the two took nearly the same steps (a third request, run three times and learned, took
 * them too; its skill's sessions are no look-alike). The pass says the four ended runs, and so does `sessions alike`:
 * a cluster the pass takes as too small is one it compares. Their runs ended, the clusters are learned from.
 */
async function tooFewEndedAlike(memory: Memory, store: Store, record: OpenRecord) {
  const thrice = (name: string, goal: string, steps: readonly string[], lastOpen: boolean) =>
    [1, 2, 3].map((i) => run(`${name}${i}`, goal, steps, lastOpen && i === 3));
  await memory.ingest([
    ...thrice('a', GOALS[0], stepsBut(7), true),
    ...thrice('b', GOALS[1], stepsBut(6), true),
    ...thrice('c', GOALS[2], stepsBut(5), false),
    ...otherWork(),
    ...MORE_OTHER_WORK.map(([tool, goal], i) => run(`more-${i}`, goal, [tool])),
  ]);
  const pass = await memory.synthesize();
  const tooFew = pass.skipped.filter((s) => s.reason === TOO_FEW_ENDED).map((s) => s.cluster);
  expect(tooFew).toHaveLength(2);
  expect(pass.created).toHaveLength(1);
  expect(pass.lookAlike?.map(sorted)).toEqual([['a1', 'a2', 'b1', 'b2']]);
  if (record === 'lost') {
    // The next pass (nothing new: it says no group again) keeps the record anew, from the clusters it reads.
    await lose(store, record);
    const again = await memory.synthesize();
    expect(again.skipped).toEqual([]);
    expect(again.lookAlike).toBeUndefined();
  }
  expect(await alike(memory)).toEqual([['a1', 'a2', 'b1', 'b2']]);
  // Ended, the runs count: each cluster holds as many as a skill needs, none is a look-alike.
  await memory.reportOutcome('a3', 'success');
  await memory.reportOutcome('b3', 'success');
  expect(await alike(memory)).toEqual([]);
  const learned = await memory.synthesize();
  expect(learned.skipped).toEqual([]);
  expect(learned.lookAlike).toBeUndefined();
  const distilled = [...learned.created, ...learned.updated, ...learned.reinforced, ...learned.superseded];
  expect(distilled.map((s) => s.cluster).sort()).toEqual([...tooFew].sort());
  expect(await alike(memory)).toEqual([]);
}

/** More work of other kinds: with the third request's runs, the steps are still taken by at most half the sessions. */
const MORE_OTHER_WORK: [string, string][] = [
  ['convert_currency', 'how many euros is two hundred dollars today'],
  ['check_flight_status', 'is my flight to Denver delayed this evening'],
  ['translate_phrase', 'say good morning in Japanese politely'],
  ['count_calories', 'how many calories are in a banana smoothie'],
];

let pg: PgServer | null = null;
afterAll(async () => {
  await pg?.stop();
});

/** Runs `check` on a memory over a new SQLite file, or a new database of the one PostgreSQL server. */
async function on(
  backend: 'SQLite' | 'PostgreSQL',
  check: (memory: Memory, store: Store) => Promise<void>,
  synthesis: NonNullable<OpenMemoryOptions['config']>['synthesis'] = {},
): Promise<void> {
  const path = backend === 'SQLite' ? tempDbPath('skillsmith-look-alike-open-') : null;
  if (!path) pg ??= await startPgServer();
  const store = await openStoreAt(path ?? (await pg!.createDatabase()));
  const config = { synthesis: { cooldownMs: 0, ...synthesis } };
  const memory = await openMemory({ db: store, config, logLevel: 'silent' });
  try {
    await check(memory, store);
  } finally {
    await memory.close();
    if (path) rmSync(dirname(path), { recursive: true, force: true });
  }
}

describe("a small cluster's open sessions are no part of its tool use", () => {
  for (const backend of ['SQLite', 'PostgreSQL'] as const)
    it(`${backend}: a cluster whose ended run is alike to others is grouped with them, whatever its open run called`, () =>
      on(backend, comparedByEndedMembers, { minOccurrences: 3 }));
});

describe('sessions alike: a cluster of open sessions only is no seed', () => {
  for (const backend of ['SQLite', 'PostgreSQL'] as const)
    for (const record of ['kept', 'lost'] as const) {
      const as = `${backend}, the last pass's record ${record}`;
      it(`${as}: the groups are found without it, and the clusters it would take group with each other`, () =>
        on(backend, (memory, store) => foundAgainWithoutOpenSeed(memory, store, record)));

      it(`${as}: ${record === 'kept' ? 'it seeds no group' : 'after four regroups, a group it still seeds is passed over'}`, () =>
        on(backend, (memory, store) => passedOverAfterFourRegroups(memory, store, record)));
    }
});

describe('a cluster too small by the sessions that ended is one `sessions alike` compares, as a pass does', () => {
  for (const backend of ['SQLite', 'PostgreSQL'] as const)
    for (const record of ['kept', 'lost'] as const)
      it(`${backend}, the last pass's record ${record}: said by the pass and by sessions alike, learned once ended`, () =>
        on(backend, (memory, store) => tooFewEndedAlike(memory, store, record), { minOccurrences: 3 }));
});
