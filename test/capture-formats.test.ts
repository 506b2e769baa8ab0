import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { detect, parseCaptureText, type ParseOptions } from '../src/capture/parse-file.js';
import { parseOptions } from './support/parse-options.js';
import { TAU_DIR } from './support/tau.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'capture');
const TRAJ = TAU_DIR;
const NOW = '2025-03-01T12:00:00.000Z';
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

const opts = (over: Partial<ParseOptions> = {}): ParseOptions => parseOptions('input', NOW, over);

const line = (v: unknown) => JSON.stringify(v);

describe('Anthropic Messages', () => {
  it('reads tool_use / tool_result blocks: goal from the first user text, calls paired by id, is_error, final answer', () => {
    const parsed = parseCaptureText(fixture('anthropic-conversations.jsonl'), opts({ file: 'a.jsonl' }));
    expect(parsed.problems).toEqual([]);
    expect(parsed.format).toBe('anthropic');
    expect(parsed.detected).toBe(true);
    expect(parsed.sessions).toHaveLength(2);
    const [a, b] = parsed.sessions;
    expect(a).toMatchObject({
      id: 'anth-refund',
      goal: 'Hi, I want to return the water bottle from order #W2378156, it leaks.',
      outcome: 'success',
      source: 'anthropic',
      outcomeSource: 'reported',
    });
    expect(a.calls.map((c) => [c.position, c.tool, c.ok])).toEqual([
      [0, 'get_order_details', true],
      [1, 'get_user_details', true],
      [2, 'list_payment_methods', true],
      [3, 'return_delivered_order_items', false],
      [4, 'return_delivered_order_items', true],
    ]);
    expect(a.calls[0].args).toEqual({ order_id: '#W2378156' });
    // The results of the parallel calls came back in the other order: paired by tool_use_id.
    expect(a.calls[1].result).toBe('{"name": "Yusuf Rossi", "zip": "19122"}');
    expect(a.calls[2].result).toBe('credit_card_9513926');
    expect(a.calls[3].error).toBe('payment method gift_card_0000 not found');
    expect(parsed.records[0]).toMatchObject({
      line: 1,
      path: '',
      format: 'anthropic',
      sessionId: 'anth-refund',
      finalAnswer: 'Your return is requested; the refund goes to your credit card.',
    });

    // No ids at all: paired by order; no outcome in the source; a content-hash id, stable across parses.
    expect(b.outcome).toBe('unknown');
    expect(b.goal).toBe('Cancel my pending order #W1000');
    expect(b.calls.map((c) => [c.tool, c.args.order_id, c.result])).toEqual([
      ['get_order_details', '#W1000', '{"status": "pending"}'],
      ['get_order_details', '#W1001', '{"status": "delivered"}'],
      ['cancel_pending_order', '#W1000', '{"status": "cancelled"}'],
    ]);
    expect(b.id).toMatch(/^anthropic:[0-9a-f]{20}$/);
    expect(
      parseCaptureText(fixture('anthropic-conversations.jsonl'), opts({ now: '2031-01-01T00:00:00Z' })).sessions[1].id,
    ).toBe(b.id);
    expect(parsed.records[1].finalAnswer).toBe('Order #W1000 is cancelled.');
  });

  it('reads a whole-file JSON array of messages; a result reading as an error fails the call; the apology is the final answer', () => {
    const parsed = parseCaptureText(fixture('anthropic-message-array.json'), opts({ file: 'a.json' }));
    expect(parsed.problems).toEqual([]);
    expect(parsed.format).toBe('anthropic');
    const [s] = parsed.sessions;
    expect(s.goal).toBe("What's the weather in Paris tomorrow?");
    expect(s.calls).toHaveLength(1);
    expect(s.calls[0]).toMatchObject({
      tool: 'get_forecast',
      args: { city: 'Paris', days: 1 },
      ok: false,
      error: 'Error: forecast service unavailable',
    });
    expect(parsed.records[0].finalAnswer).toBe('Sorry, I could not get the forecast right now.');
  });

  it('reports malformed conversations with line, JSON path and reason, and keeps the good ones', () => {
    const good = {
      id: 'ok',
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'ping', input: {} }] },
      ],
    };
    const noName = {
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'ok' },
            { type: 'tool_use', id: 'a', input: {} },
          ],
        },
      ],
    };
    const badInput = {
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'x', input: '{broken' }] },
      ],
    };
    const orphan = {
      messages: [
        { role: 'user', content: 'go' },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'zz', content: 'r' }] },
      ],
    };
    const badRole = {
      messages: [
        { role: 'user', content: 'go' },
        { role: 'robot', content: [{ type: 'tool_use', id: 'a', name: 'x', input: {} }] },
      ],
    };
    const text = [line(good), line(noName), line(badInput), line(orphan), line(badRole)].join('\n');
    const parsed = parseCaptureText(text, opts({ file: 'anth.jsonl', format: 'anthropic' }));
    expect(parsed.sessions.map((s) => s.id)).toEqual(['ok']);
    expect(parsed.problems.map((p) => [p.file, p.line])).toEqual([
      ['anth.jsonl', 2],
      ['anth.jsonl', 3],
      ['anth.jsonl', 4],
      ['anth.jsonl', 5],
    ]);
    expect(parsed.problems[0].reason).toContain('messages[1].content[1].name: missing');
    expect(parsed.problems[1].reason).toContain('messages[1].content[0].input: not valid JSON');
    expect(parsed.problems[2].reason).toMatch(/messages\[1\]\.content\[0\]: tool_result without a pending tool_use/);
    expect(parsed.problems[3].reason).toMatch(/messages\[1\]\.role/);
  });

  it('refuses an OpenAI conversation given as --format anthropic, and the reverse, saying which format to use', () => {
    const openai = fixture('openai-conversations.jsonl').split('\n')[0];
    const anth = fixture('anthropic-conversations.jsonl').split('\n')[0];
    const a = parseCaptureText(openai, opts({ format: 'anthropic' }));
    expect(a.sessions).toEqual([]);
    expect(a.problems[0].reason).toMatch(/OpenAI conversation.*--format openai/);
    const b = parseCaptureText(anth, opts({ format: 'openai' }));
    expect(b.sessions).toEqual([]);
    expect(b.problems[0].reason).toMatch(/Anthropic conversation.*--format anthropic/);
  });
});

describe('OpenTelemetry GenAI spans (OTLP JSON)', () => {
  const parsed = () => parseCaptureText(fixture('otel-genai-traces.jsonl'), opts({ file: 'traces.jsonl' }));

  it('makes one session per invoke_agent span, with its execute_tool spans as calls in start order, even across lines', () => {
    const p = parsed();
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('otel');
    expect(p.sessions.map((s) => s.id)).toEqual([
      'otel:5b8efff798038103d269b633813fc60c:a000000000000001',
      'otel:0af7651916cd43dd8448eb211c80319c:b000000000000001',
      'otel:4bf92f3577b34da6a3ce929d0e0e4736',
    ]);
    const [a] = p.sessions;
    expect(a.goal).toBe('Please cancel my order #W5500, I ordered it twice. My email is sofia.rossi@example.com');
    expect(a.agentId).toBe('retail-agent');
    expect(a.outcome).toBe('unknown');
    expect(a.startedAt).toBe('2025-01-01T00:00:00.000Z');
    expect(a.endedAt).toBe('2025-01-01T00:00:10.000Z');
    expect(a.labels).toMatchObject({ format: 'otel', conversation_id: 'conv-42', model: 'gpt-4o', provider: 'openai' });
    expect(a.calls.map((c) => [c.position, c.tool, c.ok])).toEqual([
      [0, 'find_user_id_by_email', true],
      [1, 'get_order_details', true], // a child of a chat span: still the agent's call
      [2, 'cancel_pending_order', false], // on the next line of the file
      [3, 'cancel_pending_order', true],
    ]);
    expect(a.calls[0]).toMatchObject({
      args: { email: 'sofia.rossi@example.com' },
      result: 'sofia_rossi_8776',
      at: '2025-01-01T00:00:01.100Z',
    });
    expect(a.calls[0].durationMs).toBeCloseTo(200, 3);
    expect(a.calls[1].args).toEqual({ order_id: '#W5500' }); // arguments as a kvlist
    expect(a.calls[2].error).toBe("reason must be 'no longer needed' or 'ordered by mistake'");
    expect(a.calls[3].result).toBe('{"order_id": "#W5500", "status": "cancelled"}');
    expect(p.records[0]).toMatchObject({
      line: 1,
      format: 'otel',
      finalAnswer: 'Your duplicate order #W5500 has been cancelled.',
    });
  });

  it('takes the goal from flattened gen_ai.prompt.* attributes, and an agent span with status ERROR is a failure', () => {
    const b = parsed().sessions[1];
    expect(b.goal).toBe('Book me a flight from JFK to SEA on May 20');
    expect(b.outcome).toBe('failure');
    expect(b.calls.map((c) => c.tool)).toEqual(['search_direct_flight']);
  });

  it('makes a session of a trace with tool spans and no agent span, taking the final answer from the last model call', () => {
    const p = parsed();
    const c = p.sessions[2];
    expect(c.goal).toBe('Convert 100 USD to EUR');
    expect(c.calls).toEqual([
      expect.objectContaining({
        tool: 'convert_currency',
        args: { amount: 100, from: 'USD', to: 'EUR' },
        result: '92.4',
        ok: true,
      }),
    ]);
    expect(p.records[2].finalAnswer).toBe('100 USD is 92.4 EUR.');
  });

  it('reads one pretty-printed OTLP document the same way', () => {
    const lines = fixture('otel-genai-traces.jsonl')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const merged = { resourceSpans: lines.flatMap((l) => l.resourceSpans) };
    const p = parseCaptureText(JSON.stringify(merged, null, 2), opts({ file: 'trace.json' }));
    expect(p.problems).toEqual([]);
    expect(p.sessions.map((s) => s.calls.length)).toEqual([4, 1, 1]);
  });

  it('reports bad spans with the JSON path and keeps the rest; a trace without any goal is reported', () => {
    const doc = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: 't1',
                  spanId: 'a',
                  name: 'invoke_agent x',
                  attributes: [{ key: 'skillsmith.goal', value: { stringValue: 'Do the thing' } }],
                },
                { traceId: 't1', name: 'execute_tool y', parentSpanId: 'a' },
                {
                  traceId: 't1',
                  spanId: 'c',
                  parentSpanId: 'a',
                  name: 'execute_tool z',
                  startTimeUnixNano: 'yesterday',
                },
                {
                  traceId: 't1',
                  spanId: 'd',
                  parentSpanId: 'a',
                  name: 'execute_tool ok_tool',
                  attributes: [{ value: { stringValue: 'no key' } }],
                },
                {
                  traceId: 't1',
                  spanId: 'e',
                  parentSpanId: 'a',
                  name: 'execute_tool fine',
                  attributes: [{ key: 'gen_ai.tool.name', value: { stringValue: 'fine' } }],
                },
                { traceId: 't2', spanId: 'f', name: 'execute_tool lonely' },
              ],
            },
          ],
        },
      ],
    };
    const p = parseCaptureText(
      `${line({ resourceSpans: 'nope' })}\n${line(doc)}`,
      opts({ file: 'bad.jsonl', format: 'otel' }),
    );
    expect(p.sessions).toHaveLength(1);
    expect(p.sessions[0]).toMatchObject({ goal: 'Do the thing', calls: [expect.objectContaining({ tool: 'fine' })] });
    const reasons = p.problems.map((x) => `${x.line} ${x.reason}`);
    expect(reasons[0]).toMatch(/^1 expected OTLP JSON traces/);
    expect(reasons).toContain('2 resourceSpans[0].scopeSpans[0].spans[1].spanId: missing');
    expect(reasons).toContain(
      '2 resourceSpans[0].scopeSpans[0].spans[2].startTimeUnixNano: not a time in Unix nanoseconds',
    );
    expect(reasons).toContain('2 resourceSpans[0].scopeSpans[0].spans[3].attributes[0].key: missing');
    expect(reasons.some((r) => /^2 resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[5\]: trace t2: no goal/.test(r))).toBe(
      true,
    );
    expect(p.problems.find((x) => x.reason.includes('spans[1]'))?.path).toBe('resourceSpans[0].scopeSpans[0].spans[1]');
  });
});

describe('raw tau-bench and tau2-bench results', () => {
  it('reads a tau-bench results array: the task instruction is the goal, the reward the outcome, ReAct turns too', () => {
    const p = parseCaptureText(fixture('tau-bench-results.json'), opts({ file: 'results.json' }));
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('tau');
    expect(p.sessions).toHaveLength(3);
    const raw = JSON.parse(fixture('tau-bench-results.json'));
    p.sessions.forEach((s, i) => {
      expect(s.goal).toBe(raw[i].info.task.instruction);
      expect(s.outcome).toBe(raw[i].reward === 1 ? 'success' : 'failure');
      expect(s.reward).toBe(raw[i].reward);
      expect(s.id).toMatch(new RegExp(`^tau-bench:task${raw[i].task_id}:trial${raw[i].trial}:[0-9a-f]{10}$`));
      expect(s.labels).toMatchObject({
        format: 'tau-bench',
        task_id: raw[i].task_id,
        first_user_message: raw[i].traj[1].content,
      });
      expect(p.records[i]).toMatchObject({ line: 1, path: `[${i}]`, format: 'tau' });
    });
    const [first] = p.sessions;
    const calls = raw[0].traj.filter(
      (m: { role: string; tool_calls?: unknown[] }) => m.role === 'assistant' && m.tool_calls?.length,
    );
    expect(first.calls.map((c) => c.tool)).toEqual(
      calls.map((m: { tool_calls: { function: { name: string } }[] }) => m.tool_calls[0].function.name),
    );
    expect(first.calls.some((c) => !c.ok)).toBe(true); // the fixture's failed call ("Error: ...")
    // ReAct: Action JSON in the text, "API output:" answers, the respond action is the final answer.
    const react = p.sessions[2];
    expect(react.calls).toEqual([
      expect.objectContaining({
        tool: 'get_order_details',
        args: { order_id: '#W7678072' },
        result: '{"order_id": "#W7678072", "status": "delivered"}',
        ok: true,
      }),
    ]);
    expect(p.records[2].finalAnswer).toBe('Your order #W7678072 has been delivered.');
  });

  it('reads a tau2-bench results file: agent calls only, user device calls as labels, reason_for_call as the goal', () => {
    const p = parseCaptureText(fixture('tau2-results.json'), opts({ file: 'tau2.json' }));
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('tau');
    const [ok, failed] = p.sessions;
    expect(ok).toMatchObject({
      id: 'tau2-bench:telecom:task[mobile_data_issue]data_mode_off:trial0:2569061b-8503-4e51-b2f1-d406c8877c68',
      goal: 'Your mobile data is not working.',
      outcome: 'success',
      reward: 1,
      agentId: 'gpt-4.1',
      source: 'tau2-bench',
      startedAt: '2025-06-23T10:00:01.000000',
    });
    expect(ok.calls.map((c) => [c.tool, c.args, c.ok])).toEqual([
      ['get_customer_by_phone', { phone_number: '555-123-2002' }, true],
      ['get_details_by_id', { id: 'L1002' }, true],
    ]);
    expect(ok.labels).toMatchObject({
      termination_reason: 'user_stop',
      user_tool_calls: [{ tool: 'toggle_data', ok: true }],
    });
    expect(p.records[0]).toMatchObject({ path: 'simulations[0]', finalAnswer: 'Great, glad it works now.' });
    expect(failed.outcome).toBe('failure');
    expect(failed.calls[0]).toMatchObject({ ok: false, error: 'Error: Customer not found' });
  });

  it('reports malformed tau records with their JSON path and reason', () => {
    const raw = JSON.parse(fixture('tau-bench-results.json'));
    raw[0].reward = 'high';
    raw[1].traj[2].tool_calls[0].function.arguments = '{"user_id": ';
    raw[2] = { task_id: 9, reward: 1, info: {}, traj: [{ role: 'system', content: 'policy' }] };
    const p = parseCaptureText(JSON.stringify(raw), opts({ file: 'bad.json', format: 'tau' }));
    expect(p.sessions).toEqual([]);
    expect(p.problems.map((x) => [x.line, x.path])).toEqual([
      [1, '[0]'],
      [1, '[1]'],
      [1, '[2]'],
    ]);
    expect(p.problems[0].reason).toBe('[0]: reward: must be a number');
    expect(p.problems[1].reason).toBe('[1]: traj[2].tool_calls[0].function.arguments: not valid JSON');
    expect(p.problems[2].reason).toMatch(/^\[2\]: no task instruction/);

    const tau2 = JSON.parse(fixture('tau2-results.json'));
    tau2.simulations[1].messages[1].tool_calls[0].name = '';
    const q = parseCaptureText(JSON.stringify(tau2), opts({ file: 'tau2.json' }));
    expect(q.sessions).toHaveLength(1);
    expect(q.problems).toEqual([
      {
        file: 'tau2.json',
        line: 1,
        path: 'simulations[1]',
        reason: 'simulations[1]: messages[1].tool_calls[0].name: missing',
      },
    ]);
  });

  it('a real tau-bench run rebuilt in the raw format parses to the same calls as its normalized record (every real session)', () => {
    const files = ['tau-retail-extra.jsonl', 'tau-dev.jsonl'];
    const normalized = files.flatMap(
      (f) => parseCaptureText(readFileSync(join(TRAJ, f), 'utf8'), opts({ file: f, format: 'jsonl' })).sessions,
    );
    const recs = files.flatMap((f) =>
      readFileSync(join(TRAJ, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    );
    const tauBench = recs.filter((r) => r.source !== 'tau2-bench');
    expect(tauBench.length).toBeGreaterThan(100);
    const raw = tauBench.map((r, k) => ({
      task_id: Number(r.meta.task_id),
      reward: r.reward,
      trial: r.meta.trial,
      info: { task: { user_id: r.meta.user_id, instruction: r.goal, actions: [], outputs: [] } },
      traj: [
        { role: 'system', content: 'policy' },
        { role: 'user', content: r.meta.first_user_message },
        ...r.steps.flatMap((s: { tool: string; args: object; result: string }, i: number) => [
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: `call_${k}_${i}`, type: 'function', function: { name: s.tool, arguments: JSON.stringify(s.args) } },
            ],
            function_call: null,
          },
          { role: 'tool', tool_call_id: `call_${k}_${i}`, name: s.tool, content: s.result },
        ]),
        { role: 'assistant', content: 'Done.', tool_calls: null },
      ],
    }));
    const p = parseCaptureText(JSON.stringify(raw), opts({ file: 'rebuilt.json' }));
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('tau');
    expect(p.sessions).toHaveLength(tauBench.length);
    const byId = new Map(normalized.map((s) => [s.id, s]));
    p.sessions.forEach((s, i) => {
      const n = byId.get(tauBench[i].session_id)!;
      expect(s.goal).toBe(n.goal);
      expect(s.outcome).toBe(n.outcome);
      expect(s.calls.map((c) => [c.tool, c.args, c.result])).toEqual(n.calls.map((c) => [c.tool, c.args, c.result]));
      // The normalized `ok` came from the benchmark's error replies: the raw reading agrees.
      expect(s.calls.map((c) => c.ok)).toEqual(n.calls.map((c) => c.ok));
    });
  });
});

describe('auto-detection', () => {
  it('detects each record on its own in a mixed file and says what it chose for each', () => {
    const normalized = { session_id: 'n1', goal: 'Normalized goal', success: true, steps: [{ tool: 'a', args: {} }] };
    const openai = fixture('openai-conversations.jsonl').split('\n')[0];
    const anthropic = fixture('anthropic-conversations.jsonl').split('\n')[1];
    const tau2sim = JSON.parse(fixture('tau2-results.json')).simulations[0];
    const otel = fixture('otel-genai-traces.jsonl').split('\n')[2];
    const tauRun = JSON.parse(fixture('tau-bench-results.json'))[2];
    const text = [line(normalized), openai, anthropic, line(tau2sim), otel, line(tauRun), '{"neither": true}'].join(
      '\n',
    );
    const p = parseCaptureText(text, opts({ file: 'mixed.jsonl' }));
    expect(p.format).toBe('mixed');
    expect(p.formats).toEqual({ jsonl: 1, openai: 1, anthropic: 1, tau: 2, otel: 1 });
    expect(p.records.map((r) => [r.line, r.format])).toEqual([
      [1, 'jsonl'],
      [2, 'openai'],
      [3, 'anthropic'],
      [4, 'tau'],
      [6, 'tau'],
      [5, 'otel'], // sessions from spans are built once the file has been read
    ]);
    expect(p.problems).toHaveLength(1);
    expect(p.problems[0].line).toBe(7);
    expect(p.problems[0].reason).toMatch(/session_id/);
  });

  it('detect() names the format of single records', () => {
    expect(detect({ steps: [] })).toBe('jsonl');
    expect(detect({ messages: [{ role: 'user', content: 'x' }] })).toBe('openai');
    expect(detect({ system: 'be nice', messages: [{ role: 'user', content: 'x' }] })).toBe('anthropic');
    expect(detect([{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'b', input: {} }] }])).toBe(
      'anthropic',
    );
    expect(detect({ resourceSpans: [] })).toBe('otel');
    expect(detect({ task_id: 1, reward: 1, traj: [] })).toBe('tau');
    expect(detect({ tasks: [], simulations: [] })).toBe('tau');
    expect(detect(42)).toBeNull();
  });

  it('the real normalized tau files are detected as jsonl and parse without a problem', () => {
    for (const [file, n] of [
      ['tau-dev.jsonl', 334],
      ['tau-retail-extra.jsonl', 100],
    ] as const) {
      const p = parseCaptureText(readFileSync(join(TRAJ, file), 'utf8'), opts({ file }));
      expect(p.problems).toEqual([]);
      expect(p.format).toBe('jsonl');
      expect(p.sessions).toHaveLength(n);
    }
  });
});
