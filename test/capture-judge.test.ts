import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackendConfigError } from '../src/errors/backend-config-error.js';
import {
  createJudge,
  judgeSessions,
  LlmJudge,
  parseVerdict,
  RuleJudge,
  type JudgeInput,
} from '../src/capture/judge.js';
import type { CapturedSession } from '../src/capture/types.js';
import type { ToolCall } from '../src/domain/types.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fixtures/fake-openai-server.js';

const call = (tool: string, ok = true, result = 'ok', error: string | null = null) => ({
  tool,
  args: {},
  result,
  ok,
  error,
});

describe('rule judge (the default)', () => {
  const rule = new RuleJudge();
  const cases: [string, JudgeInput, string][] = [
    ['no calls', { goal: 'g', calls: [], finalAnswer: 'Done.' }, 'unknown'],
    [
      'last call failed',
      { goal: 'g', calls: [call('a'), call('b', false, '', 'Error: not found')], finalAnswer: 'Done.' },
      'failure',
    ],
    [
      'last call ok and a final answer',
      { goal: 'g', calls: [call('a', false), call('b')], finalAnswer: 'Your order is cancelled.' },
      'success',
    ],
    ['last call ok, no final answer', { goal: 'g', calls: [call('a')], finalAnswer: null }, 'unknown'],
    [
      'final answer gives up',
      { goal: 'g', calls: [call('a')], finalAnswer: "I'm sorry, I was unable to change the flight." },
      'unknown',
    ],
    ['blank final answer', { goal: 'g', calls: [call('a')], finalAnswer: '   ' }, 'unknown'],
  ];
  it.each(cases)('%s', async (_name, input, expected) => {
    const j = await rule.judge(input);
    expect(j.outcome).toBe(expected);
    expect(j.judge).toBe('rule');
    expect(j.reason.length).toBeGreaterThan(5);
  });

  it('is configurable: final answer not required, a minimum number of calls, no give-up pattern', async () => {
    const lax = createJudge({ requireFinalAnswer: false, minCalls: 2, giveUpPattern: '' });
    expect((await lax.judge({ goal: 'g', calls: [call('a')], finalAnswer: null })).outcome).toBe('unknown'); // 1 < minCalls
    expect((await lax.judge({ goal: 'g', calls: [call('a'), call('b')], finalAnswer: null })).outcome).toBe('success');
    expect(
      (await lax.judge({ goal: 'g', calls: [call('a'), call('b')], finalAnswer: 'Sorry for the wait, all done.' }))
        .outcome,
    ).toBe('success');
    expect(() => createJudge({ giveUpPattern: '(' })).toThrow(/giveUpPattern/);
    expect(() => createJudge({ mode: 'sometimes' } as never)).toThrow(/mode/);
  });

  it('off: everything stays unknown', async () => {
    const off = createJudge({ mode: 'off' });
    expect(await off.judge({ goal: 'g', calls: [call('a')], finalAnswer: 'Done' })).toMatchObject({
      outcome: 'unknown',
      judge: 'off',
    });
  });
});

function session(id: string, outcome: CapturedSession['outcome'], calls: Partial<ToolCall>[]): CapturedSession {
  return {
    id,
    namespace: 'default',
    goal: `goal ${id}`,
    outcome,
    reward: null,
    agentId: null,
    source: null,
    startedAt: 'x',
    endedAt: null,
    outcomeSource: 'reported',
    calls: calls.map((c, position) => ({
      position,
      tool: 't',
      args: {},
      result: '',
      ok: true,
      error: null,
      durationMs: null,
      at: null,
      ...c,
    })),
  };
}

describe('judgeSessions', () => {
  it('judges only sessions without an outcome; decisions are marked judged, reported outcomes are untouched', async () => {
    const sessions = [
      session('reported-failure', 'failure', [{ ok: true }]),
      session('ok-answered', 'unknown', [{ ok: true }]),
      session('last-failed', 'unknown', [{ ok: true }, { ok: false, error: 'boom' }]),
      session('no-answer', 'unknown', [{ ok: true }]),
    ];
    const report = await judgeSessions(sessions, [null, 'All done.', 'Done.', null], new RuleJudge());
    expect(sessions.map((s) => [s.id, s.outcome, s.outcomeSource])).toEqual([
      ['reported-failure', 'failure', 'reported'],
      ['ok-answered', 'success', 'judged'],
      ['last-failed', 'failure', 'judged'],
      ['no-answer', 'unknown', 'reported'],
    ]);
    expect(report).toMatchObject({ judge: 'rule', judged: 3, success: 1, failure: 1, unknown: 1 });
    expect(report.decisions.map((d) => d.sessionId)).toEqual(['ok-answered', 'last-failed', 'no-answer']);
  });

  it('a task its log ends in the middle of is not judged: unknown, open, and no judge is asked', async () => {
    const sessions = [
      session('working', 'unknown', [{ ok: true }, { ok: false, error: 'busy, try again' }]),
      session('stopped', 'unknown', [{ ok: true }, { ok: false, error: 'busy, try again' }]),
    ];
    const asked: string[] = [];
    const judge = {
      id: 'rule',
      judge: async (input: JudgeInput) => {
        asked.push(input.goal);
        return new RuleJudge().decide(input);
      },
    };
    const report = await judgeSessions(sessions, [null, null], judge, { unfinished: [true, false] });
    // The one still running would have been a failure on the call it was about to retry.
    expect(sessions.map((s) => [s.id, s.outcome, s.outcomeSource])).toEqual([
      ['working', 'unknown', 'reported'],
      ['stopped', 'failure', 'judged'],
    ]);
    expect(asked).toEqual(['goal stopped']);
    expect(report).toMatchObject({ judged: 2, failure: 1, unknown: 1 });
    expect(report.decisions[0]).toEqual({
      sessionId: 'working',
      outcome: 'unknown',
      reason:
        'the task has not ended (the log stops after a call the agent has not answered yet): it is judged once a later copy of the log ends it',
    });
  });
});

describe('LLM judge against a real HTTP server', () => {
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await startFakeOpenAiServer({ models: ['judge-model'] });
  });
  afterAll(async () => {
    await server.stop();
  });

  const input: JudgeInput = {
    goal: 'Refund order #W1 for jane.doe@example.com',
    calls: [
      {
        tool: 'get_order',
        args: { order_id: '#W1', api_key: 'sk-live-should-never-leave-1234567890abc' },
        result: 'delivered',
        ok: true,
        error: null,
      },
      { tool: 'refund', args: { order_id: '#W1' }, result: 'refunded', ok: true, error: null },
    ],
    finalAnswer: 'Refunded to your card 4111 1111 1111 1111.',
  };

  it('sends one low-temperature, redacted request and stores the verdict with the model named', async () => {
    server.script('chat', { kind: 'chat', content: 'SUCCESS\nThe refund call succeeded and the user was told.' });
    const judge = createJudge({ mode: 'llm', baseUrl: server.baseUrl, model: 'judge-model' });
    expect(judge).toBeInstanceOf(LlmJudge);
    const j = await judge.judge(input);
    expect(j).toEqual({
      outcome: 'success',
      judge: 'llm:openai:judge-model',
      reason: 'The refund call succeeded and the user was told.',
    });
    const [req] = server.requestsTo('chat');
    expect(req.json.model).toBe('judge-model');
    expect(req.json.temperature).toBe(0);
    const prompt = JSON.stringify(req.json.messages);
    expect(prompt).toContain('refund(');
    expect(prompt).toContain('Refunded to your card');
    expect(prompt).not.toContain('sk-live-should-never-leave');
    expect(prompt).not.toContain('jane.doe@example.com');
    expect(prompt).not.toContain('4111 1111 1111 1111');
  });

  it('reads FAILURE and UNKNOWN; an unparseable answer is unknown', async () => {
    server.script(
      'chat',
      { kind: 'chat', content: 'Verdict: FAILURE - the refund was never confirmed' },
      { kind: 'chat', content: 'UNKNOWN' },
      { kind: 'chat', content: 'I think it went fine' },
    );
    const judge = createJudge({ mode: 'llm' }, { baseUrl: server.baseUrl, model: 'judge-model' });
    expect((await judge.judge(input)).outcome).toBe('failure');
    expect((await judge.judge(input)).outcome).toBe('unknown');
    const bad = await judge.judge(input);
    expect(bad.outcome).toBe('unknown');
    expect(bad.reason).toMatch(/unparseable/);
  });

  it('a failing model gives unknown, or the rule decision with onError "rule"', async () => {
    server.script(
      'chat',
      { kind: 'status', status: 500, body: { error: { message: 'overloaded' } } },
      { kind: 'status', status: 500, body: { error: { message: 'overloaded' } } },
    );
    const strict = createJudge({ mode: 'llm', baseUrl: server.baseUrl, model: 'judge-model' });
    const a = await strict.judge(input);
    expect(a.outcome).toBe('unknown');
    expect(a.reason).toMatch(/model call failed/);
    const lenient = createJudge({ mode: 'llm', baseUrl: server.baseUrl, model: 'judge-model', onError: 'rule' });
    const b = await lenient.judge(input);
    expect(b.outcome).toBe('success');
    expect(b.judge).toBe('llm:openai:judge-model+rule');
  });

  it('an answer cut off at the token limit is no verdict: unknown, naming capture.judge.maxTokens', async () => {
    // A reasoning model that spent its tokens thinking: the verdict word it wrote may be its thinking's, not its answer.
    server.script(
      'chat',
      { kind: 'chat', content: '<think>Was it SUCCESS? The refund call', finishReason: 'length' },
      { kind: 'chat', content: 'SUCCESS\nThe refund', finishReason: 'length' },
    );
    const before = server.requestsTo('chat').length;
    const strict = createJudge({ mode: 'llm', baseUrl: server.baseUrl, model: 'judge-model', maxTokens: 40 });
    const a = await strict.judge(input);
    expect(a).toEqual({
      outcome: 'unknown',
      judge: 'llm:openai:judge-model',
      reason:
        "the model's answer was cut off at the token limit (capture.judge.maxTokens = 40): raise capture.judge.maxTokens",
    });
    expect(server.requestsTo('chat')[before].json.max_tokens).toBe(40);
    // With onError "rule" the rule decides, and the reason still says why the model did not.
    const lenient = createJudge({ mode: 'llm', baseUrl: server.baseUrl, model: 'judge-model', onError: 'rule' });
    const b = await lenient.judge(input);
    expect(b.outcome).toBe('success');
    expect(b.judge).toBe('llm:openai:judge-model+rule');
    expect(b.reason).toMatch(/^the model's answer was cut off at the token limit \(capture\.judge\.maxTokens = 100\)/);
    expect(server.requestsTo('chat')[before + 1].json.max_tokens).toBe(100);
  });

  it("sends llm.apiKey only to llm.baseUrl's server: a judge elsewhere gets its own key or none", async () => {
    const judgeInput = { ...input, calls: input.calls.slice(1) };
    const cases: [Parameters<typeof createJudge>[0], Parameters<typeof createJudge>[1], string | undefined][] = [
      // A local judge beside a hosted distiller: the hosted key stays with the hosted server.
      [
        { mode: 'llm', baseUrl: server.baseUrl, model: 'judge-model' },
        { baseUrl: 'https://api.example.com/v1', apiKey: 'sk-hosted-1' },
        undefined,
      ],
      [
        { mode: 'llm', baseUrl: server.baseUrl, model: 'judge-model', apiKey: 'sk-judge-2' },
        { baseUrl: 'https://api.example.com/v1', apiKey: 'sk-hosted-1' },
        'Bearer sk-judge-2',
      ],
      // The same server as llm.baseUrl (or none of its own): llm.apiKey goes with it.
      [{ mode: 'llm', model: 'judge-model' }, { baseUrl: server.baseUrl, apiKey: 'sk-shared-3' }, 'Bearer sk-shared-3'],
      [
        { mode: 'llm', baseUrl: `${server.baseUrl}/`, model: 'judge-model' },
        { baseUrl: server.baseUrl, apiKey: 'sk-shared-4' },
        'Bearer sk-shared-4',
      ],
    ];
    for (const [judgeSettings, llm, sent] of cases) {
      server.script('chat', { kind: 'chat', content: 'SUCCESS' });
      const before = server.requestsTo('chat').length;
      await createJudge(judgeSettings, llm).judge(judgeInput);
      const [req] = server.requestsTo('chat').slice(before);
      expect(req.headers.authorization).toBe(sent);
    }
  });

  it('says what to configure when no model is set', () => {
    expect(() => createJudge({ mode: 'llm' })).toThrow(/capture\.judge\.baseUrl.*llm\.model|no model is configured/);
    // A configuration error, like a misconfigured distiller's (the CLI exits 2 for both).
    expect(() => createJudge({ mode: 'llm' })).toThrow(BackendConfigError);
    expect(() => createJudge({ mode: 'llm' }, { provider: 'llama-cpp' })).toThrow(BackendConfigError);
  });

  it('parseVerdict', () => {
    expect(parseVerdict('success')).toEqual({ outcome: 'success', reason: '' });
    expect(parseVerdict('FAILED: tool error')).toEqual({ outcome: 'failure', reason: 'tool error' });
    expect(parseVerdict('no idea')).toBeNull();
    // A reasoning model thinks first: a verdict word in its thinking is not its answer.
    expect(
      parseVerdict(
        '<think>The first call FAILED, but the retry worked and the order was cancelled.</think>\nSUCCESS: cancelled',
      ),
    ).toEqual({ outcome: 'success', reason: 'cancelled' });
    expect(parseVerdict('<think>Looks like SUCCESS at first glance... no.</think>')).toBeNull();
  });
});
