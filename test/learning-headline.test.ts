// GAIA's headline, on the embedded defaults: after three successful runs of one procedure, worded three
// different ways, there is one skill, a fourth wording recalls it, and unrelated requests recall nothing.
// The procedures are written here, in several domains, so that no tuning data is involved.
import { describe, expect, it } from 'vitest';
import type { Session } from '../src/domain/types.js';
import { UNRELATED_GOALS } from '../src/eval/unrelated-goals.js';
import { openMemory } from '../src/app/open-memory.js';
import { successfulRuns, testMemories } from './support/memories.js';
import { readTau, TAU_RETAIL_EXTRA, tempDbPath, toSession } from './support/tau.js';

interface Domain {
  name: string;
  tools: { tool: string; args: Record<string, unknown>; result: string }[];
  goals: [string, string, string];
  fourth: string;
}

const DOMAINS: Domain[] = [
  {
    name: 'weather by email',
    tools: [
      { tool: 'get_weather', args: { city: 'Paris' }, result: '{"forecast":"sunny","high":24}' },
      { tool: 'lookup_contact', args: { name: 'Bob' }, result: '{"email":"bob@example.com"}' },
      { tool: 'send_email', args: { to: 'bob@example.com', subject: 'Forecast' }, result: '{"status":"sent"}' },
    ],
    goals: [
      'Check the weather in Paris and email the forecast to Bob',
      "Get tomorrow's weather for Berlin and send it to Alice by email",
      'Look up the weather forecast in Tokyo and mail it to my manager',
    ],
    fourth: "What's the weather in Rome? Email it to Carol",
  },
  {
    name: 'meeting scheduling',
    tools: [
      { tool: 'find_free_slot', args: { attendees: ['dana'], within_days: 7 }, result: '{"slot":"2026-12-08T10:00"}' },
      { tool: 'create_event', args: { title: 'Sync', start: '2026-12-08T10:00' }, result: '{"event_id":"ev_1"}' },
      { tool: 'send_invite', args: { event_id: 'ev_1', to: ['dana'] }, result: '{"sent":1}' },
    ],
    goals: [
      'Set up a meeting with Dana sometime next week',
      'Book a thirty minute call with the design team on Friday',
      'Schedule a sync with Omar for tomorrow afternoon and invite him',
    ],
    fourth: 'Can you put a meeting with Lee on my calendar for Monday?',
  },
  {
    name: 'failed build triage',
    tools: [
      { tool: 'list_failed_builds', args: { branch: 'main' }, result: '[{"id":"b42","job":"test"}]' },
      { tool: 'fetch_build_log', args: { build_id: 'b42' }, result: 'FAIL src/parser.test.ts: expected 3 got 4' },
      { tool: 'open_issue', args: { title: 'Build b42 fails in parser tests' }, result: '{"issue":"#311"}' },
    ],
    goals: [
      'Find out why the main branch build is failing and file a ticket',
      'The nightly CI run broke; look at the logs and open an issue for it',
      'Investigate the red pipeline on main and report the failure in the tracker',
    ],
    fourth: 'Our build is broken again, check the failing job log and open a bug',
  },
  {
    // Two calls, the second fed by the first one's result: a real skill in a workplace assistant (minSteps 2).
    name: 'reply to an email',
    tools: [
      {
        tool: 'search_emails',
        args: { query: 'from:carlos budget' },
        result: '[{"email_id":"em_77","subject":"Q3 budget"}]',
      },
      { tool: 'reply_email', args: { email_id: 'em_77', body: 'Thanks, looks good.' }, result: '{"status":"sent"}' },
    ],
    goals: [
      "Reply to Carlos's last email about the budget and tell him it looks good",
      'Answer the message from Priya about the offsite saying I will attend',
      'Write back to the most recent email from the landlord and confirm Tuesday',
    ],
    fourth: 'Respond to the email Jamal sent me yesterday and say thanks',
  },
];

function sessionsOf(d: Domain, prefix: string): Session[] {
  return successfulRuns(prefix, d.goals, d.tools);
}

const { fresh, track } = testMemories('skillsmith-headline-');

describe("GAIA's headline on the defaults", () => {
  for (const d of DOMAINS) {
    it(`${d.name}: three differently worded successes give one skill, and a fourth wording recalls it`, async () => {
      const memory = await fresh();
      await memory.ingest(sessionsOf(d, d.name.replace(/\W+/g, '-')));
      const report = await memory.synthesize();
      expect(report.created).toHaveLength(1);
      const skills = (await memory.skills.list()).filter((s) => s.corpus === 'internal');
      expect(skills).toHaveLength(1);
      const skill = skills[0];
      expect(skill.toolSequence).toEqual(d.tools.map((t) => t.tool));
      expect(skill.sourceSessions).toHaveLength(3);
      // The name states the task (a verb first), not a trailing tool; the description has no placeholder.
      expect(skill.name).not.toMatch(/^(get|lookup|list|fetch|find)-/);
      expect(skill.description).not.toMatch(/\{[a-z_]+\}|<[a-z_]+>/);

      const hits = await memory.recall(d.fourth);
      expect(hits[0]?.id).toBe(skill.id);
      for (const goal of UNRELATED_GOALS) expect(await memory.recall(goal), goal).toEqual([]);
    });
  }

  it('keeps the procedures apart in one memory: a fourth wording never recalls another procedure', async () => {
    const memory = await fresh();
    await memory.ingest(DOMAINS.flatMap((d) => sessionsOf(d, d.name.replace(/\W+/g, '-'))));
    await memory.synthesize();
    const skills = (await memory.skills.list()).filter((s) => s.corpus === 'internal');
    expect(skills).toHaveLength(DOMAINS.length);
    expect(new Set(skills.map((s) => s.name)).size).toBe(DOMAINS.length);
    let recalled = 0;
    for (const d of DOMAINS) {
      const own = skills.find((s) => s.toolSequence.join() === d.tools.map((t) => t.tool).join())!;
      expect(own, d.name).toBeDefined();
      const top = (await memory.recall(d.fourth))[0];
      if (top) {
        expect(top.id, d.name).toBe(own.id);
        recalled++;
      }
    }
    // Measured: "Can you put a meeting with Lee on my calendar for Monday?" scores 0.385 against its skill
    // here, under the 0.4 threshold of the embedded GloVe embedder; the other three are recalled.
    expect(recalled).toBeGreaterThanOrEqual(DOMAINS.length - 1);
  });

  it('consolidates near-duplicates already stored: one is superseded by the other, with lineage, nothing deleted', async () => {
    const path = tempDbPath('skillsmith-consolidate-');
    const d = DOMAINS[0];
    const lookupByEmail = {
      ...d,
      tools: [
        { tool: 'get_weather', args: { city: 'Oslo' }, result: '{"forecast":"snow"}' },
        { tool: 'find_contact_by_email', args: { email: 'x' }, result: '{}' },
        d.tools[2],
      ],
    };
    // A memory whose thresholds kept two variants of one procedure apart (as older versions did).
    const strict = await openMemory({
      db: path,
      config: {
        synthesis: { cooldownMs: 0, sameProcedureToolFloor: 1 },
        thresholds: { cluster: 0.99, recall: 0.99, duplicate: 0.99 },
      },
      logLevel: 'silent',
    });
    await strict.ingest([...sessionsOf(d, 'a'), ...sessionsOf(lookupByEmail, 'b')]);
    await strict.synthesize();
    const before = (await strict.skills.list()).filter((s) => s.corpus === 'internal');
    await strict.close();
    expect(before).toHaveLength(2);

    const memory = await openMemory({ db: path, config: { synthesis: { cooldownMs: 0 } }, logLevel: 'silent' });
    track(memory, path);
    const report = await memory.synthesize();
    expect(report.superseded).toHaveLength(1);
    const live = (await memory.skills.list()).filter((s) => s.corpus === 'internal');
    expect(live).toHaveLength(1);
    const all = await memory.skills.list({ includeSuperseded: true });
    expect(all).toHaveLength(2);
    const loser = all.find((s) => s.supersededBy)!;
    expect(loser.supersededBy).toBe(live[0].id);
    expect(report.superseded[0]).toMatchObject({ id: live[0].id, supersedes: loser.id });
    expect(new Set(live[0].sourceSessions)).toEqual(new Set(before.flatMap((s) => s.sourceSessions)));
    expect((await memory.recall(d.fourth))[0]?.id).toBe(live[0].id);
  });

  it('never gives two live skills one name, pass after pass (a replay of real retail sessions)', async () => {
    // Found by the evaluation's replay: a draft named like the neighbour its cluster once reinforced, then
    // added beside it, broke the store's unique-name rule. Goal-only clustering reproduced it.
    const path = tempDbPath('skillsmith-names-');
    const memory = await openMemory({
      db: path,
      config: { synthesis: { cooldownMs: 0, toolWeight: 0 } },
      logLevel: 'silent',
    });
    track(memory, path);
    for (const r of readTau(TAU_RETAIL_EXTRA)) {
      await memory.ingest([toSession(r)]);
      if (r.success) await memory.synthesize();
    }
    const live = await memory.skills.list();
    expect(live.length).toBeGreaterThan(0);
    expect(new Set(live.map((s) => s.name)).size).toBe(live.length);
  });
});
