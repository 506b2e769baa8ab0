// A session that has not ended (the agent is still working, or its end never arrived) counts for nothing in a
// synthesis pass until it ends: not as a follower that failed, not in a skill's support. The pass and `skills
// explain` say how many such sessions they left out. The same on SQLite and PostgreSQL.
import { dirname } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Memory } from '../src/app/memory.js';
import type { Session } from '../src/domain/types.js';
import { openMemory, type OpenMemoryOptions } from '../src/app/open-memory.js';
import { openLines, outcomeSourceOf } from '../src/surfaces/shapes.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { serveApi } from '../src/surfaces/http/server.js';
import { serveMcpHttp } from '../src/surfaces/mcp/http.js';
import { runBuiltCli } from './support/built-cli.js';
import { startPgServer, type PgServer } from './support/pg-server.js';
import { tempDbPath } from './support/tau.js';

/**
 * One run of the procedure as an OpenAI conversation. `retried`: the delivery check after the email failed once and
 * worked the second time; `cut`: that log read while the agent was still working, ending at the failed check.
 */
function conversation(goal: string, city: string, how: 'done' | 'retried' | 'cut' = 'done') {
  const calls: [string, Record<string, unknown>, string][] = [
    ['get_weather', { city }, `{"forecast":"sunny","city":"${city}"}`],
    ['lookup_contact', { name: 'Bob' }, '{"email":"bob@example.com"}'],
    ['send_email', { to: 'bob@example.com', subject: `Forecast for ${city}` }, '{"status":"sent","id":"m1"}'],
  ];
  if (how !== 'done') calls.push(['check_delivery', { id: 'm1' }, '{"error":"status not known yet, try again"}']);
  if (how === 'retried') calls.push(['check_delivery', { id: 'm1' }, '{"status":"delivered"}']);
  const messages: unknown[] = [{ role: 'user', content: goal }];
  calls.forEach(([name, args, result], i) => {
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `call_${i}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    });
    messages.push({ role: 'tool', tool_call_id: `call_${i}`, content: result });
  });
  if (how !== 'cut') messages.push({ role: 'assistant', content: `Done: the forecast for ${city} went to Bob.` });
  return JSON.stringify({ id: `thread-${city}`, messages });
}

const DONE = [
  ['Check the weather in Paris and email the forecast to Bob', 'Paris'],
  ["Get tomorrow's weather for Berlin and send it to Bob by email", 'Berlin'],
  ['Look up the weather forecast in Tokyo and mail it to Bob', 'Tokyo'],
] as const;
const OSLO = 'Check the weather in Oslo and email the forecast to Bob';

async function openSessionsLeftOut(memory: Memory) {
  for (const [goal, city] of DONE) await memory.ingestText(conversation(goal, city));
  // A transcript read while its agent was still working (as `ingest --hook` reads one): its last call failed, and
  // nothing came after it yet.
  const cut = await memory.ingestText(conversation(OSLO, 'Oslo', 'cut'), { finished: false });
  expect(cut).toMatchObject({ inserted: 1, judged: { judged: 1, unknown: 1, failure: 0 } });
  // Not judged on half a task (the rule judge read its failed last call as a failure, and the pass counted it as a
  // follower that failed: 75% of 4): it is open, as a session recorded live and not ended yet is.
  expect(await memory.sessions.get('thread-Oslo')).toMatchObject({ outcome: 'unknown', endedAt: null });
  expect(outcomeSourceOf((await memory.sessions.get('thread-Oslo'))!)).toBeNull();
  const live = await memory.startSession({ goal: "What's the weather in Rome? Email it to Bob", id: 'live-rome' });
  await live.call({ tool: 'get_weather', args: { city: 'Rome' }, result: '{"forecast":"rain","city":"Rome"}' });
  await live.call({ tool: 'lookup_contact', args: { name: 'Bob' }, result: '{"email":"bob@example.com"}' });
  await live.call({ tool: 'send_email', args: { to: 'bob@example.com' }, result: '{"status":"sent"}' });

  const first = await memory.synthesize();
  expect(first.created).toHaveLength(1);
  expect(first.open).toEqual({ sessions: 2, clusters: 1 });
  expect(openLines(first)).toEqual([
    '  left out 2 sessions still open (not ended, no outcome yet) in 1 cluster: they count once they end, when a pass distils the cluster again',
  ]);
  const [skill] = await memory.skills.list();
  // Learned from the three that ended; the two still running count neither for nor against it.
  expect([skill!.successCount, skill!.attemptCount, skill!.support]).toEqual([3, 3, 3]);
  expect(skill!.body).toContain('100% of the 3 sessions that followed this procedure succeeded');
  expect(skill!.body).not.toMatch(/failed session/);
  expect((await memory.skills.explain(skill!.name))?.openSessions).toBe(2);

  // The live one ends as a failure, and the transcript is read again, whole: the retry worked, the agent answered.
  await live.end('failure');
  expect(await memory.ingestText(conversation(OSLO, 'Oslo', 'retried'))).toMatchObject({
    grown: 1,
    judged: { success: 1 },
  });
  const second = await memory.synthesize();
  expect(second.open).toBeUndefined();
  expect(second.stats).toMatchObject({ newSessions: 0, distilled: 1 });
  const [after] = await memory.skills.list();
  // Now they count: the Oslo run succeeded, the Rome one failed.
  expect([after!.successCount, after!.attemptCount]).toEqual([4, 5]);
  expect((await memory.skills.explain(after!.name))?.openSessions).toBeUndefined();
}

/**
 * A skill needs three successful sessions here. Two runs ended, and a third is still running: the cluster holds three
 * sessions, but only two count, so the pass does not examine it (nor start its cooldown). When the third ends, the
 * next pass learns the skill at once.
 */
async function openSessionDoesNotTip(memory: Memory) {
  const live = await twoEndedOneLive(memory);

  const first = await memory.synthesize();
  expect(first.stats).toMatchObject({ newSessions: 3, distilled: 0 });
  expect(first.created).toEqual([]);
  expect(first.skipped.map((s) => s.reason)).toEqual(['not admitted: 2 ended sessions (1 more still open), 3 needed']);

  await live.end('success');
  const second = await memory.synthesize();
  expect(second.stats).toMatchObject({ newSessions: 0, distilled: 1 });
  expect(second.created).toHaveLength(1);
  const [skill] = await memory.skills.list();
  expect([skill!.successCount, skill!.attemptCount, skill!.support]).toEqual([3, 3, 3]);
}

const STILL_OPEN = 'still open: it has not ended and has no outcome; end it or report its outcome first';

/** Two runs ended and one still running, all of one procedure. */
async function twoEndedOneLive(memory: Memory) {
  for (const [goal, city] of DONE.slice(0, 2)) await memory.ingestText(conversation(goal, city));
  const live = await memory.startSession({ goal: "What's the weather in Rome? Email it to Bob", id: 'live-rome' });
  await live.call({ tool: 'get_weather', args: { city: 'Rome' }, result: '{"forecast":"rain","city":"Rome"}' });
  await live.call({ tool: 'lookup_contact', args: { name: 'Bob' }, result: '{"email":"bob@example.com"}' });
  await live.call({ tool: 'send_email', args: { to: 'bob@example.com' }, result: '{"status":"sent"}' });
  return live;
}

/**
 * Compile named sessions, one of them still running: it is left out and said so; naming only open ones is refused,
 * with nothing stored. Ended, it is used.
 */
async function compileLeavesOpenOut(memory: Memory) {
  const live = await twoEndedOneLive(memory);
  await expect(memory.skills.compile({ sessions: ['live-rome'], commit: true })).rejects.toMatchObject({
    code: 'COMPILE_INVALID',
    message: expect.stringContaining('still open (it has not ended and has no outcome): live-rome'),
  });
  expect(await memory.skills.list()).toEqual([]);

  const res = await memory.skills.compile({ sessions: ['thread-Paris', 'live-rome', 'thread-Berlin'], commit: true });
  expect(res.action).toBe('add');
  expect(res.leftOut).toEqual([{ id: 'live-rome', reason: STILL_OPEN }]);
  expect(res.parents.sessions.map((p) => p.id).sort()).toEqual(['thread-Berlin', 'thread-Paris']);
  const [skill] = await memory.skills.list();
  // Learned from the two that ended; the one still running counts neither for nor against it.
  expect([skill!.successCount, skill!.attemptCount, skill!.sourceSessions.length]).toEqual([2, 2, 2]);

  await live.end('success');
  const ended = await memory.skills.compile({ sessions: ['thread-Paris', 'live-rome', 'thread-Berlin'] });
  expect(ended.leftOut).toEqual([]);
  expect(ended.parents.sessions.map((p) => p.id).sort()).toEqual(['live-rome', 'thread-Berlin', 'thread-Paris']);
}

const CITIES = [
  'Paris',
  'Berlin',
  'Tokyo',
  'Oslo',
  'Rome',
  'Madrid',
  'Vienna',
  'Prague',
  'Lisbon',
  'Dublin',
  'Athens',
  'Warsaw',
  'Helsinki',
  'Brussels',
  'Zurich',
  'Geneva',
  'Milan',
  'Munich',
  'Hamburg',
  'Lyon',
];

/** A run of the weather procedure for a city, stored whole: ended with success, or still open (no end, no outcome). */
function run(city: string, i: number, open: boolean): Session {
  const at = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
  return {
    id: `${open ? 'open' : 'ended'}-${city}`,
    namespace: 'default',
    goal: `Check the weather in ${city} and email the forecast to Bob`,
    outcome: open ? 'unknown' : 'success',
    reward: open ? null : 1,
    agentId: null,
    source: 'scripted-test',
    startedAt: at,
    endedAt: open ? null : at,
    labels: null,
    calls: [
      ['get_weather', { city }, `{"forecast":"sunny","city":"${city}"}`],
      ['lookup_contact', { name: 'Bob' }, '{"email":"bob@example.com"}'],
      ['send_email', { to: 'bob@example.com', subject: `Forecast for ${city}` }, '{"status":"sent"}'],
    ].map(([tool, args, result], position) => ({
      position,
      tool: tool as string,
      args: args as Record<string, unknown>,
      result: result as string,
      ok: true,
      error: null,
      durationMs: null,
      at: null,
    })),
  };
}

/**
 * A cluster larger than synthesis.maxClusterSessions (10 here) whose newest members are still open: 14 runs ended, then
 * 6 started and not ended. The pass reads the newest 10 that ended, not the newest 10 members (6 of them open, which
 * count for nothing: a sample of 4).
 */
async function bigClusterSamplesEnded(memory: Memory) {
  const ended = CITIES.slice(0, 14).map((c, i) => run(c, i, false));
  const open = CITIES.slice(14).map((c, i) => run(c, 14 + i, true));
  expect(await memory.ingest([...ended, ...open])).toMatchObject({ inserted: 20 });
  const pass = await memory.synthesize();
  expect(pass.created).toHaveLength(1);
  expect(pass.open).toEqual({ sessions: 6, clusters: 1 });
  const [skill] = await memory.skills.list();
  expect([...skill!.sourceSessions].sort()).toEqual(
    ended
      .slice(-10)
      .map((s) => s.id)
      .sort(),
  );
  expect([skill!.successCount, skill!.attemptCount, skill!.support]).toEqual([10, 10, 10]);
}

/** The default cooldown (a minute): a pass that examined the cluster would keep the next one from it. */
const TIPPING = { synthesis: { minOccurrences: 3 } };
const BIG = { synthesis: { maxClusterSessions: 10, cooldownMs: 0 } };

let pg: PgServer | null = null;
afterAll(async () => {
  await pg?.stop();
});

/** How a case opens its memory, besides where. */
type Opening = Omit<OpenMemoryOptions, 'db'>;

/** Runs `check` on a memory over a new SQLite file, closed after whatever it does. */
async function onSqlite(check: (memory: Memory) => Promise<unknown>, opening: Opening): Promise<void> {
  await checked(await openMemory({ ...opening, db: tempDbPath('skillsmith-open-') }), check);
}

/** Runs `check` on a memory over a new database of the one PostgreSQL server (started by the first such case). */
async function onPostgres(check: (memory: Memory) => Promise<unknown>, opening: Opening): Promise<void> {
  pg ??= await startPgServer();
  await checked(await openMemory({ ...opening, db: await pg.createDatabase() }), check);
}

async function checked(memory: Memory, check: (memory: Memory) => Promise<unknown>): Promise<void> {
  try {
    await check(memory);
  } finally {
    await memory.close();
  }
}

describe('sessions still open are left out of a pass until they end', () => {
  it('SQLite', () => onSqlite(openSessionsLeftOut, { config: { synthesis: { cooldownMs: 0 } } }));

  it('SQLite: an open session does not tip its cluster into being examined', () =>
    onSqlite(openSessionDoesNotTip, { config: TIPPING, logLevel: 'silent' }));

  it('PostgreSQL', () => onPostgres(openSessionsLeftOut, { config: { synthesis: { cooldownMs: 0 } } }));

  it('PostgreSQL: an open session does not tip its cluster into being examined', () =>
    onPostgres(openSessionDoesNotTip, { config: TIPPING, logLevel: 'silent' }));

  it('SQLite: compile leaves a named session still open out, and says so', () =>
    onSqlite(compileLeavesOpenOut, { logLevel: 'silent' }));

  it('PostgreSQL: compile leaves a named session still open out, and says so', () =>
    onPostgres(compileLeavesOpenOut, { logLevel: 'silent' }));

  it('the CLI: skillsmith compile --sessions names the ones it left out, and refuses only open ones', async () => {
    const db = tempDbPath('skillsmith-open-cli-');
    const memory = await openMemory({ db, logLevel: 'silent' });
    try {
      await twoEndedOneLive(memory);
    } finally {
      await memory.close();
    }
    const cli = (...args: string[]) => runBuiltCli([...args, '--db', db], { cwd: dirname(db) });
    const refused = cli('compile', '--sessions', 'live-rome', '--commit');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('every session named is still open');
    expect(refused.stderr).toContain('live-rome');
    expect(JSON.parse(cli('skills', 'list', '--json').stdout)).toEqual([]);
    const dry = cli('compile', '--sessions', 'thread-Paris,live-rome,thread-Berlin');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`Left out: live-rome (${STILL_OPEN})`);
    expect(dry.stdout).toMatch(/^Parents: thread-(Paris|Berlin) \(success\), thread-(Paris|Berlin) \(success\)$/m);
    const json = JSON.parse(cli('compile', '--sessions', 'thread-Paris,live-rome,thread-Berlin', '--json').stdout);
    expect(json.leftOut).toEqual([{ id: 'live-rome', reason: STILL_OPEN }]);
  });

  it('REST POST /api/compile and the MCP tool compile_skill say the same', async () => {
    const memory = await openMemory({ db: tempDbPath('skillsmith-open-'), logLevel: 'silent' });
    const api = await serveApi(memory, { port: 0 });
    const mcp = await serveMcpHttp(memory, { port: 0 });
    const client = new Client({ name: 'skillsmith-test', version: '1.0.0' });
    try {
      await twoEndedOneLive(memory);
      const post = (sessions: string[]) =>
        fetch(`${api.url}/api/compile`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
          body: JSON.stringify({ sessions }),
        });
      const refused = await post(['live-rome']);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({
        error: expect.stringContaining('live-rome'),
      });
      const dry = await post(['thread-Paris', 'live-rome', 'thread-Berlin']);
      expect(dry.status).toBe(200);
      expect(((await dry.json()) as { leftOut: unknown }).leftOut).toEqual([{ id: 'live-rome', reason: STILL_OPEN }]);

      await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
      const call = async (session_ids: string[]) =>
        (await client.callTool({ name: 'compile_skill', arguments: { session_ids } })) as CallToolResult;
      const toolRefused = await call(['live-rome']);
      expect(toolRefused.isError).toBe(true);
      const said = await call(['thread-Paris', 'live-rome', 'thread-Berlin']);
      expect(said.isError).toBeFalsy();
      expect((said.structuredContent as { leftOut: unknown }).leftOut).toEqual([
        { id: 'live-rome', reason: STILL_OPEN },
      ]);
      expect(said.content[0]).toMatchObject({ text: expect.stringContaining(`Left out live-rome: ${STILL_OPEN}`) });
    } finally {
      await client.close();
      await mcp.close();
      await api.close();
      await memory.close();
    }
  });

  it('SQLite: a cluster larger than maxClusterSessions samples its newest ended sessions, not its open ones', () =>
    onSqlite(bigClusterSamplesEnded, { config: BIG, logLevel: 'silent' }));

  it('PostgreSQL: a cluster larger than maxClusterSessions samples its newest ended sessions', () =>
    onPostgres(bigClusterSamplesEnded, { config: BIG, logLevel: 'silent' }));
});
