import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateSkillMd } from '../src/domain/skill-md/index.js';
import type { Session } from '../src/domain/types.js';
import { LlmDistiller, LlmUnavailableError } from '../src/distillers/llm-distiller.js';
import { GLOVE_EMBEDDER_ID } from '../src/embedders/glove/glove-embedder.js';
import { OpenAiChatModel } from '../src/llm/openai-chat-model.js';
import { CircuitBreaker } from '../src/model-clients/circuit-breaker.js';
import { OpenAiClient } from '../src/model-clients/openai-client.js';
import { openMemory } from '../src/app/open-memory.js';
import type { Memory } from '../src/app/memory.js';
import { tempDbPath } from './support/tau.js';
import { deadPort, startFakeOpenAiServer, type FakeOpenAiServer } from './fixtures/fake-openai-server.js';
import {
  GOOD_DRAFT,
  INVENTED_TOOL_DRAFT,
  PLANTED_EMAIL,
  PLANTED_SECRET,
  returnSessions,
} from './fixtures/llm-cluster.js';

/**
 * The synthesis pass with the LLM distiller against a real OpenAI-protocol server: what is and is not
 * written to the store, and what the pass report says.
 */

const FLIGHT_TOOLS = ['get_user_details', 'search_direct_flight', 'update_reservation_flights'] as const;

function flightSessions(n = 4): Session[] {
  const cities = [
    ['JFK', 'SFO'],
    ['ORD', 'LAX'],
    ['BOS', 'SEA'],
    ['ATL', 'DEN'],
    ['MIA', 'PHX'],
  ];
  return Array.from({ length: n }, (_, i) => ({
    id: `fly-${i}`,
    namespace: 'default',
    goal: `Move my flight reservation ${`ABC${i}`} from ${cities[i % 5][0]} to ${cities[i % 5][1]} to a later date`,
    outcome: 'success' as const,
    reward: 1,
    agentId: null,
    source: 'test',
    startedAt: `2026-01-02T00:0${i}:00.000Z`,
    endedAt: null,
    labels: null,
    calls: FLIGHT_TOOLS.map((tool, position) => ({
      position,
      tool,
      args:
        position === 0
          ? { user_id: `mia_${i}` }
          : position === 1
            ? { origin: cities[i % 5][0], destination: cities[i % 5][1], date: '2024-05-20' }
            : { reservation_id: `ABC${i}`, flights: [] },
      result: position === 1 ? '[{"flight_number": "HAT001"}]' : '{"ok": true}',
      ok: true,
      error: null,
      durationMs: null,
      at: null,
    })),
  }));
}

const FLIGHT_DRAFT = `---
name: change-reservation-flights
when_to_use: Move a flight reservation to other flights. Use when the user wants to change the date or flights of a booking.
tools_required: [get_user_details, search_direct_flight, update_reservation_flights]
---
# Change Reservation Flights

1. Call \`get_user_details\` with the \`user_id\`.
2. Call \`search_direct_flight\` with the origin, destination and new date.
3. Call \`update_reservation_flights\` with the \`reservation_id\` and the chosen flights.

## Edge cases
- If no direct flight exists on that date, ask the user for another date.
`;

function llmDistiller(baseUrl: string, timeoutMs = 3000) {
  return new LlmDistiller({
    model: new OpenAiChatModel(new OpenAiClient({ baseUrl, timeoutMs, breaker: null }), 'test-chat'),
    temperature: 0.1,
    maxTokens: 1200,
    timeoutMs,
  });
}

async function memoryWith(baseUrl: string, sessions: Session[], timeoutMs?: number): Promise<Memory> {
  const memory = await openMemory({
    db: tempDbPath('skillsmith-llm-pass-'),
    distiller: llmDistiller(baseUrl, timeoutMs),
    config: { synthesis: { cooldownMs: 0 } },
  });
  await memory.ingest(sessions);
  return memory;
}

/** The fake server answers the preflight (a 1-token chat before the pass writes anything) first. */
const preflightAnswer = () => [{ kind: 'chat' as const, content: 'OK' }];

describe('synthesis pass with the LLM distiller', () => {
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await startFakeOpenAiServer();
  });
  afterAll(() => server.stop());

  it('a good draft becomes a stored, valid skill learned by the LLM distiller', async () => {
    const memory = await memoryWith(server.baseUrl, returnSessions(5));
    server.script('chat', ...preflightAnswer(), { kind: 'chat', content: GOOD_DRAFT });
    const before = server.requests.length;
    const report = await memory.synthesize();
    expect(report.created.map((c) => c.name)).toEqual(['return-delivered-order-items']);
    const [skill] = await memory.skills.list();
    expect(validateSkillMd(skill.skillMd, { dirName: skill.name }).errors).toEqual([]);
    expect(skill.skillMd).toMatch(/learned-by: llm@2:openai:test-chat/);
    expect(skill.skillMd).toMatch(/^license: MIT$/m);
    expect(skill.toolSequence).toEqual(['find_user_id_by_email', 'get_order_details', 'return_delivered_order_items']);
    expect(skill.version).toBe('1.0.0');
    // nothing unredacted left the process
    for (const r of server.requests.slice(before)) {
      expect(r.body).not.toContain(PLANTED_SECRET);
      expect(r.body).not.toContain(PLANTED_EMAIL);
    }
    await memory.close();
  });

  it('SKIP writes no skill and reports the cluster as skipped', async () => {
    const memory = await memoryWith(server.baseUrl, returnSessions(5));
    server.script('chat', ...preflightAnswer(), { kind: 'chat', content: 'SKIP' });
    const report = await memory.synthesize();
    expect(report.created).toEqual([]);
    expect(report.skipped.map((s) => s.reason)).toContain('distiller returned SKIP');
    expect(await memory.skills.list()).toEqual([]);
    await memory.close();
  });

  it('an invented tool fails verification: that cluster is skipped with the reason, nothing is written', async () => {
    const memory = await memoryWith(server.baseUrl, returnSessions(5));
    server.script('chat', ...preflightAnswer(), { kind: 'chat', content: INVENTED_TOOL_DRAFT });
    const report = await memory.synthesize();
    expect(report.created).toEqual([]);
    expect(report.skipped.find((s) => /verification failed/.test(s.reason))?.reason).toMatch(
      /absent from the evidence: issue_store_credit/,
    );
    expect(await memory.skills.list()).toEqual([]);
    await memory.close();
  });

  it('the LLM distiller is bounded by maxClustersPerPass', async () => {
    const memory = await openMemory({
      db: tempDbPath('skillsmith-llm-pass-'),
      distiller: llmDistiller(server.baseUrl),
      config: { synthesis: { cooldownMs: 0, maxClustersPerPass: 1 } },
    });
    await memory.ingest([...returnSessions(5), ...flightSessions(4)]);
    server.script('chat', ...preflightAnswer(), { kind: 'chat', content: GOOD_DRAFT });
    const report = await memory.synthesize();
    expect(report.created).toHaveLength(1);
    expect(report.skipped.some((s) => /maxClustersPerPass \(1\) reached/.test(s.reason))).toBe(true);
    await memory.close();
  });

  describe('failures', () => {
    it('malformed output skips that cluster with its reason; the rest of the pass goes on', async () => {
      const memory = await memoryWith(server.baseUrl, [...returnSessions(5), ...flightSessions(4)]);
      server.script(
        'chat',
        { kind: 'chat', content: 'OK' },
        { kind: 'chat', content: 'Here you go: a skill for returns!' },
        { kind: 'chat', content: FLIGHT_DRAFT },
      );
      const report = await memory.synthesize();
      expect(report.skipped.some((s) => /not the intermediate form/.test(s.reason))).toBe(true);
      expect(report.created.map((c) => c.name)).toEqual(['change-reservation-flights']);
      expect((await memory.skills.list()).map((s) => s.name)).toEqual(['change-reservation-flights']);
      await memory.close();
    });

    it('an answer cut off at the token limit skips that cluster naming llm.maxTokens; the server is not taken for down', async () => {
      // A breaker that opens on the first failure: a cut answer must not count as one.
      const breaker = new CircuitBreaker('llm test-chat', { failureThreshold: 1 });
      const memory = await openMemory({
        db: tempDbPath('skillsmith-llm-pass-'),
        distiller: new LlmDistiller({
          model: new OpenAiChatModel(
            new OpenAiClient({ baseUrl: server.baseUrl, timeoutMs: 3000, breaker }),
            'test-chat',
          ),
          temperature: 0.1,
          maxTokens: 1200,
        }),
        config: { synthesis: { cooldownMs: 0 } },
      });
      await memory.ingest([...returnSessions(5), ...flightSessions(4)]);
      server.script(
        'chat',
        // The preflight asks for one token: real servers answer it cut at the limit, and that is no problem.
        { kind: 'chat', content: 'O', finishReason: 'length' },
        // Cut in the middle of its last edge case: it still parses, but it is not the whole answer.
        { kind: 'chat', content: GOOD_DRAFT.slice(0, GOOD_DRAFT.indexOf('offer to cancel')), finishReason: 'length' },
        { kind: 'chat', content: FLIGHT_DRAFT },
      );
      try {
        const report = await memory.synthesize();
        expect(report.skipped.map((s) => s.reason)).toContain(
          'distiller output rejected: the model\'s answer was cut off at the token limit (llm.maxTokens = 1200, finish_reason "length"): raise llm.maxTokens',
        );
        expect(report.created.map((c) => c.name)).toEqual(['change-reservation-flights']);
        expect((await memory.skills.list()).map((s) => s.name)).toEqual(['change-reservation-flights']);
        expect([breaker.state, breaker.consecutiveFailures]).toEqual(['closed', 0]);
      } finally {
        await memory.close();
      }
    });

    for (const [label, setup] of [
      [
        'a refused connection',
        async () => await memoryWith(`http://127.0.0.1:${await deadPort()}/v1`, returnSessions(5)),
      ],
      [
        'a 500',
        async () => {
          server.script('chat', { kind: 'status', status: 500, body: { error: { message: 'model failed to load' } } });
          return memoryWith(server.baseUrl, returnSessions(5));
        },
      ],
      [
        'a hang past the timeout',
        async () => {
          server.script('chat', { kind: 'hang' });
          return memoryWith(server.baseUrl, returnSessions(5), 300);
        },
      ],
    ] as const) {
      it(`${label}: the whole pass is skipped with an actionable error and nothing is written`, async () => {
        const memory = await setup();
        const error = await memory.synthesize().then(
          () => null,
          (e) => e,
        );
        expect(LlmUnavailableError.isInstance(error)).toBe(true);
        expect(error.message).toMatch(/skillsmith doctor/);
        const store = memory.parts.store!;
        expect(await memory.skills.list()).toEqual([]);
        expect(await store.loadClusters('default', GLOVE_EMBEDDER_ID)).toEqual([]);
        expect(await store.getState('default', `watermark:${GLOVE_EMBEDDER_ID}`)).toBeNull();
        await memory.close();
      });
    }
  });
});

describe('llm.fallback "heuristic": opted into, said out loud', () => {
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await startFakeOpenAiServer();
  });
  afterAll(() => server.stop());

  const withFallback = async (baseUrl: string, sessions: Session[]) => {
    const memory = await openMemory({
      db: tempDbPath('skillsmith-llm-fallback-'),
      config: {
        distiller: 'llm',
        llm: { baseUrl, model: 'test-chat', timeoutMs: 2000, fallback: 'heuristic' },
        synthesis: { cooldownMs: 0 },
      },
    });
    await memory.ingest(sessions);
    return memory;
  };

  it('a model that is down: the pass distils with the heuristic distiller, and the report says so and why', async () => {
    const memory = await withFallback(`http://127.0.0.1:${await deadPort()}/v1`, returnSessions(5));
    try {
      const report = await memory.synthesize();
      expect(report.fallback?.from).toBe('llm@2:openai:test-chat');
      expect(report.fallback?.to).toMatch(/^heuristic/);
      expect(report.fallback?.reason).toMatch(/unreachable .*Start the model server/);
      expect(report.fallback?.reason).not.toMatch(/pass is skipped/);
      expect(report.created).toHaveLength(1);
      const [skill] = await memory.skills.list();
      expect(skill.skillMd).toMatch(/learned-by: heuristic/);
      expect(skill.toolSequence).toEqual([
        'find_user_id_by_email',
        'get_order_details',
        'return_delivered_order_items',
      ]);
    } finally {
      await memory.close();
    }
  });

  it('a model that fails mid-pass: the remaining clusters go to the heuristic distiller', async () => {
    const memory = await withFallback(server.baseUrl, [...returnSessions(5), ...flightSessions(4)]);
    try {
      server.script('chat', ...preflightAnswer(), {
        kind: 'status',
        status: 500,
        body: { error: { message: 'model crashed' } },
      });
      const report = await memory.synthesize();
      expect(report.fallback?.reason).toMatch(/500|model crashed/);
      expect(report.created.map((c) => c.name).sort()).toHaveLength(2);
      for (const skill of await memory.skills.list()) expect(skill.skillMd).toMatch(/learned-by: heuristic/);
    } finally {
      await memory.close();
    }
  });

  it('every pass tries the model first: after a fallback pass, the model drafts again', async () => {
    const memory = await withFallback(server.baseUrl, returnSessions(5));
    try {
      server.script('chat', { kind: 'status', status: 500, body: { error: { message: 'model loading' } } });
      const first = await memory.synthesize();
      expect(first.fallback?.reason).toMatch(/model loading/);
      await memory.ingest(flightSessions(4));
      server.script('chat', ...preflightAnswer(), { kind: 'chat', content: FLIGHT_DRAFT });
      const second = await memory.synthesize();
      expect(second.fallback).toBeUndefined();
      expect(second.created.map((c) => c.name)).toEqual(['change-reservation-flights']);
      expect((await memory.skills.list()).find((s) => s.name === 'change-reservation-flights')?.skillMd).toMatch(
        /learned-by: llm@2:openai:test-chat/,
      );
    } finally {
      await memory.close();
    }
  });

  it('an answer cut off at the token limit is no unavailability: no fallback, that cluster skipped', async () => {
    const memory = await withFallback(server.baseUrl, returnSessions(5));
    try {
      server.script('chat', ...preflightAnswer(), {
        kind: 'chat',
        content: '---\nname: return-del',
        finishReason: 'length',
      });
      const report = await memory.synthesize();
      expect(report.fallback).toBeUndefined();
      expect(report.created).toEqual([]);
      expect(report.skipped.some((s) => /cut off at the token limit \(llm\.maxTokens = 1200/.test(s.reason))).toBe(
        true,
      );
    } finally {
      await memory.close();
    }
  });

  it('only unavailability switches: a malformed draft is still that cluster skipped', async () => {
    const memory = await withFallback(server.baseUrl, returnSessions(5));
    try {
      server.script('chat', ...preflightAnswer(), { kind: 'chat', content: 'no skill today, sorry' });
      const report = await memory.synthesize();
      expect(report.fallback).toBeUndefined();
      expect(report.created).toEqual([]);
      expect(report.skipped.some((s) => /not the intermediate form/.test(s.reason))).toBe(true);
    } finally {
      await memory.close();
    }
  });
});
