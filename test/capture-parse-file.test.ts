import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCaptureText, type ParseOptions } from '../src/capture/parse-file.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'capture');
const NOW = '2025-03-01T12:00:00.000Z';

function opts(over: Partial<ParseOptions> = {}): ParseOptions {
  return {
    file: 'input.jsonl',
    namespace: 'default',
    format: 'auto',
    maxRecordBytes: 4096,
    resultChars: 2000,
    maxCallsPerSession: 1000,
    now: NOW,
    ...over,
  };
}

const line = (v: unknown) => JSON.stringify(v);
const call = (id: string, name: string) => ({ id, type: 'function', function: { name, arguments: '{}' } });

function good(id: string, extra: Record<string, unknown> = {}) {
  return {
    session_id: id,
    goal: `Goal of ${id}`,
    source: 'test',
    success: true,
    steps: [
      { tool: 'get_user', args: { user_id: 'u1' }, result: 'ok', ok: true },
      { tool: 'get_order', args: { order_id: '#W1' }, result: { status: 'pending' }, ok: true },
    ],
    ...extra,
  };
}

describe('normalized JSONL', () => {
  it('keeps every valid line and reports each bad line with its 1-based number and a reason naming the problem', () => {
    // Over 16 times the limit: refused unread (a record a few times over it has its long texts cut, below).
    const oversized = line(good('too-big', { goal: 'x'.repeat(70_000) }));
    const text = [
      line(good('s1')), // 1
      '', // 2 (blank)
      '{"session_id": "broken", "goal": "missing brace"', // 3
      line({ session_id: 'bad-types', goal: 42, steps: 'not a list' }), // 4
      '   ', // 5 (blank)
      line(good('s2')), // 6
      oversized, // 7
      line(good('s3')), // 8
      '', // 9 (trailing)
    ].join('\n');
    const parsed = parseCaptureText(text, opts({ maxRecordBytes: 4096 }));

    expect(parsed.format).toBe('jsonl');
    expect(parsed.sessions.map((s) => s.id)).toEqual(['s1', 's2', 's3']);
    expect(parsed.problems.map((p) => [p.file, p.line])).toEqual([
      ['input.jsonl', 3],
      ['input.jsonl', 4],
      ['input.jsonl', 7],
    ]);
    const [malformed, wrongTypes, tooBig] = parsed.problems.map((p) => p.reason);
    expect(malformed).toMatch(/not valid JSON/i);
    expect(wrongTypes).toMatch(/\bgoal\b/);
    expect(wrongTypes).toMatch(/\bsteps\b/);
    expect(tooBig).toMatch(/byte/);
    expect(tooBig).toContain('4096');
  });

  it('names the field of a bad step and rejects a record that is not an object', () => {
    const text = [
      line(good('s1', { steps: [{ tool: '', args: {} }] })),
      line(good('s2', { steps: [{ tool: 'get_user', args: 'user_id=1' }] })),
      line(good('s3', { reward: 3 })),
      '42',
      line(good('s4', { session_id: undefined })),
    ].join('\n');
    const parsed = parseCaptureText(text, opts());
    expect(parsed.sessions).toEqual([]);
    expect(parsed.problems.map((p) => p.line)).toEqual([1, 2, 3, 4, 5]);
    expect(parsed.problems[0].reason).toMatch(/steps\.0\.tool/);
    expect(parsed.problems[1].reason).toMatch(/steps\.0\.args/);
    expect(parsed.problems[2].reason).toMatch(/reward/);
    expect(parsed.problems[3].reason.length).toBeGreaterThan(0);
    expect(parsed.problems[4].reason).toMatch(/session_id/);
  });

  it('cuts the long texts of a record over the byte limit (a file the agent wrote) and keeps it, with a note', () => {
    const written = 'y'.repeat(9000);
    const text = [
      line(good('s1')),
      line(
        good('wrote-a-file', {
          steps: [{ tool: 'Write', args: { file_path: '/r/big.txt', content: written }, result: 'ok' }],
        }),
      ),
    ].join('\n');
    const parsed = parseCaptureText(text, opts({ maxRecordBytes: 4096, resultChars: 500 }));
    expect(parsed.problems).toEqual([]);
    expect(parsed.sessions.map((s) => s.id)).toEqual(['s1', 'wrote-a-file']);
    expect(parsed.sessions[1].calls[0].args).toEqual({
      file_path: '/r/big.txt',
      content: `${'y'.repeat(500)}… (8,500 characters cut)`,
    });
    expect(parsed.notes).toEqual([
      {
        file: 'input.jsonl',
        line: 2,
        reason: expect.stringMatching(
          /^record is \d+ bytes, over the 4096-byte limit: its 1 longest text\(s\) were cut to 500 characters$/,
        ),
      },
    ]);
  });

  it('refuses a session whose tool has a name no tool-calling API gives (space, backtick, markup), in any format, keeping the rest', () => {
    const jsonl = [
      line(good('s1')),
      line(good('s2', { steps: [{ tool: 'get weather`<script>alert(1)</script>', args: {} }] })),
    ].join('\n');
    const parsed = parseCaptureText(jsonl, opts());
    expect(parsed.sessions.map((s) => s.id)).toEqual(['s1']);
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0].line).toBe(2);
    expect(parsed.problems[0].reason).toMatch(/steps\.0\.tool.*is not a tool name.*a space/);

    const chat = JSON.stringify([
      { role: 'user', content: 'What is the weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [call('c1', 'get_weather')] },
      { role: 'tool', tool_call_id: 'c1', content: '12C' },
      { role: 'assistant', content: null, tool_calls: [call('c2', 'post message')] },
      { role: 'tool', tool_call_id: 'c2', content: 'ok' },
      { role: 'assistant', content: 'Done.' },
    ]);
    const fromChat = parseCaptureText(chat, opts({ file: 'chat.json' }));
    expect(fromChat.sessions).toEqual([]);
    expect(fromChat.problems.map((p) => p.reason)).toEqual([
      expect.stringMatching(
        /call 2 of the session: "post message" is not a tool name: .*a space; the session is not stored/,
      ),
    ]);
  });

  it('accepts CRLF line endings', () => {
    const parsed = parseCaptureText(`${[line(good('a')), line(good('b'))].join('\r\n')}\r\n`, opts());
    expect(parsed.problems).toEqual([]);
    expect(parsed.sessions.map((s) => s.id)).toEqual(['a', 'b']);
  });

  it('maps success true/false/absent to outcome success/failure/unknown', () => {
    const text = [
      line(good('yes', { success: true })),
      line(good('no', { success: false })),
      line(good('absent', { success: undefined })),
      line(good('null', { success: null })),
    ].join('\n');
    const parsed = parseCaptureText(text, opts());
    expect(parsed.problems).toEqual([]);
    expect(parsed.sessions.map((s) => [s.id, s.outcome])).toEqual([
      ['yes', 'success'],
      ['no', 'failure'],
      ['absent', 'unknown'],
      ['null', 'unknown'],
    ]);
  });

  it('keeps failed steps with ok false, caps results with the truncation marker and keeps meta as labels', () => {
    const long = 'abcdefghij'.repeat(10); // 100 chars
    const rec = {
      session_id: 'detailed',
      goal: 'Return the office chair',
      success: true,
      reward: 0.5,
      agent_id: 'gpt-x',
      started_at: '2024-01-01T00:00:00Z',
      steps: [
        { tool: 'find_user', args: { zip: '80217' }, result: 'u_1', ok: true, duration_ms: 12 },
        {
          tool: 'return_items',
          args: { order_id: '#W2' },
          result: 'Error: order not delivered',
          ok: false,
          error: 'order not delivered',
        },
        { tool: 'get_order', args: {}, result: long },
        { tool: 'get_order', result: { items: [1, 2] } },
        { tool: 'lookup', error: 'timeout' },
      ],
      meta: { family: 'retail/return', task: 18, tags: ['a', 'b'] },
    };
    const parsed = parseCaptureText(line(rec), opts({ resultChars: 40 }));
    expect(parsed.problems).toEqual([]);
    const [s] = parsed.sessions;
    expect(s).toMatchObject({
      id: 'detailed',
      namespace: 'default',
      goal: 'Return the office chair',
      outcome: 'success',
      reward: 0.5,
      agentId: 'gpt-x',
      startedAt: '2024-01-01T00:00:00Z',
      labels: { family: 'retail/return', task: 18, tags: ['a', 'b'] },
    });
    expect(s.calls.map((c) => c.position)).toEqual([0, 1, 2, 3, 4]);
    expect(s.calls[0]).toMatchObject({
      tool: 'find_user',
      args: { zip: '80217' },
      result: 'u_1',
      ok: true,
      error: null,
      durationMs: 12,
    });
    expect(s.calls[1]).toMatchObject({ tool: 'return_items', ok: false, error: 'order not delivered' });
    expect(s.calls[2].result).toBe(`${long.slice(0, 40)}… (truncated)`);
    expect(s.calls[3].result).toBe('{"items":[1,2]}');
    expect(s.calls[3].args).toEqual({});
    // A step with an error and no explicit ok is a failed step.
    expect(s.calls[4]).toMatchObject({ ok: false, error: 'timeout', result: '' });
  });

  it('does not truncate a result of exactly resultChars', () => {
    const parsed = parseCaptureText(
      line(good('exact', { steps: [{ tool: 't', result: 'x'.repeat(40) }] })),
      opts({ resultChars: 40 }),
    );
    expect(parsed.sessions[0].calls[0].result).toBe('x'.repeat(40));
  });

  it('uses the given time as startedAt when the record has none, and the namespace asked for', () => {
    const parsed = parseCaptureText(line(good('t')), opts({ namespace: 'team-a' }));
    expect(parsed.sessions[0].startedAt).toBe(NOW);
    expect(parsed.sessions[0].namespace).toBe('team-a');
  });

  it('parses every session of the real tau sample without a problem', () => {
    const text = readFileSync(join(ROOT, 'examples', 'tau-sample.jsonl'), 'utf8');
    const parsed = parseCaptureText(text, opts({ file: 'tau-sample.jsonl', maxRecordBytes: 4 * 1024 * 1024 }));
    expect(parsed.problems).toEqual([]);
    expect(parsed.format).toBe('jsonl');
    expect(parsed.sessions).toHaveLength(89);
    expect(new Set(parsed.sessions.map((s) => s.id)).size).toBe(89);
    const outcomes = new Set(parsed.sessions.map((s) => s.outcome));
    expect(outcomes.has('success') && outcomes.has('failure')).toBe(true);
    expect(parsed.sessions.every((s) => s.goal.length > 0 && s.calls.every((c, i) => c.position === i))).toBe(true);
  });
});

describe('OpenAI chat-completions logs', () => {
  const conversations = () => readFileSync(join(FIXTURES, 'openai-conversations.jsonl'), 'utf8');

  it('reads one {"messages": [...]} per line: goal from the first user message, calls in order', () => {
    const parsed = parseCaptureText(conversations(), opts({ file: 'conv.jsonl' }));
    expect(parsed.problems).toEqual([]);
    expect(parsed.format).toBe('openai');
    expect(parsed.sessions).toHaveLength(2);
    const [a, b] = parsed.sessions;
    expect(a.id).toBe('conv-repeat');
    expect(a.goal).toBe('Please cancel order #W100 and tell me the refund.');
    expect(a.outcome).toBe('success');
    expect(a.calls.map((c) => c.tool)).toEqual(['get_order_details', 'get_refund_policy', 'cancel_pending_order']);
    expect(a.calls.map((c) => c.position)).toEqual([0, 1, 2]);
    expect(a.calls[0].args).toEqual({ order_id: '#W100' });
    expect(a.calls[2].args).toEqual({ order_id: '#W100', reason: 'no longer needed' });
    // Content given as parts is joined.
    expect(b.goal).toBe('Change my flight to Friday.');
    expect(b.outcome).toBe('failure');
  });

  it('pairs tool results with calls by order when ids repeat', () => {
    const [a] = parseCaptureText(conversations(), opts()).sessions;
    expect(a.calls.map((c) => [c.tool, c.result])).toEqual([
      ['get_order_details', '{"order_id": "#W100", "status": "pending"}'],
      ['get_refund_policy', 'Refunds go back to the original payment method.'],
      ['cancel_pending_order', '{"order_id": "#W100", "status": "cancelled"}'],
    ]);
    expect(a.calls.every((c) => c.ok)).toBe(true);
  });

  it('pairs results by id when the ids differ, whatever the order of the tool messages', () => {
    const [, b] = parseCaptureText(conversations(), opts()).sessions;
    expect(b.calls.map((c) => [c.tool, c.result])).toEqual([
      ['find_reservation', 'Error: reservation not found for user mia'],
      ['search_flights', '[]'],
    ]);
  });

  it('marks a call whose tool message starts with "Error" as failed', () => {
    const [, b] = parseCaptureText(conversations(), opts()).sessions;
    expect(b.calls[0].ok).toBe(false);
    expect(b.calls[0].error).toMatch(/^Error: reservation not found/);
    expect(b.calls[1].ok).toBe(true);
    expect(b.calls[1].error).toBeNull();
  });

  it('reads a whole-file JSON array of messages as one conversation', () => {
    const text = readFileSync(join(FIXTURES, 'openai-message-array.json'), 'utf8');
    const parsed = parseCaptureText(text, opts({ file: 'log.json' }));
    expect(parsed.problems).toEqual([]);
    expect(parsed.format).toBe('openai');
    expect(parsed.sessions).toHaveLength(1);
    const [s] = parsed.sessions;
    expect(s.goal).toBe('What is the status of flight HAT001?');
    expect(s.outcome).toBe('unknown');
    expect(s.calls).toHaveLength(1);
    expect(s.calls[0]).toMatchObject({
      tool: 'get_flight_status',
      args: { flight_number: 'HAT001', date: '2024-05-16' },
      result: 'available',
      ok: true,
    });
  });

  it('reads a whole-file JSON array of conversations', () => {
    const convs = conversations()
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l));
    const parsed = parseCaptureText(JSON.stringify(convs, null, 2), opts());
    expect(parsed.problems).toEqual([]);
    expect(parsed.sessions.map((s) => s.goal)).toEqual([
      'Please cancel order #W100 and tell me the refund.',
      'Change my flight to Friday.',
    ]);
  });

  it('gives a conversation without an id a stable content-hash id', () => {
    const text = readFileSync(join(FIXTURES, 'openai-message-array.json'), 'utf8');
    const first = parseCaptureText(text, opts()).sessions[0].id;
    const second = parseCaptureText(text, opts({ now: '2030-01-01T00:00:00.000Z' })).sessions[0].id;
    expect(first).toBe(second);
    expect(first).toMatch(/^openai:[0-9a-f]+$/);
    // The same id whether the conversation comes as a message array or as one JSONL line.
    const asLine = JSON.stringify({ messages: JSON.parse(text) });
    expect(parseCaptureText(asLine, opts()).sessions[0].id).toBe(first);
    // Another conversation gets another id.
    const other = JSON.parse(text);
    other[1].content = 'What is the status of flight HAT002?';
    expect(parseCaptureText(JSON.stringify(other), opts()).sessions[0].id).not.toBe(first);
    // The second fixture conversation has no id either: stable across parses too.
    const ids1 = parseCaptureText(conversations(), opts()).sessions.map((s) => s.id);
    const ids2 = parseCaptureText(conversations(), opts()).sessions.map((s) => s.id);
    expect(ids1).toEqual(ids2);
    expect(ids1[1]).toMatch(/^openai:/);
  });

  it('reports arguments that are not valid JSON with the path to them, and keeps the other conversations', () => {
    const bad = {
      messages: [
        { role: 'user', content: 'Cancel order #W1' },
        {
          role: 'assistant',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'get_order', arguments: '{"order_id": "#W1"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'pending' },
        {
          role: 'assistant',
          tool_calls: [{ id: 'c2', type: 'function', function: { name: 'cancel_order', arguments: '{order_id: #W1' } }],
        },
        { role: 'tool', tool_call_id: 'c2', content: 'cancelled' },
      ],
    };
    // A request with a call: one without any is no session (it holds no procedure).
    const okConv = {
      id: 'fine',
      messages: [
        { role: 'user', content: 'Where is #W2?' },
        {
          role: 'assistant',
          tool_calls: [{ id: 'c9', type: 'function', function: { name: 'get_order', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c9', content: 'shipped' },
      ],
    };
    const parsed = parseCaptureText(
      [JSON.stringify(okConv), JSON.stringify(bad)].join('\n'),
      opts({ file: 'conv.jsonl' }),
    );
    expect(parsed.sessions.map((s) => s.id)).toEqual(['fine']);
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0]).toMatchObject({ file: 'conv.jsonl', line: 2 });
    expect(parsed.problems[0].reason).toContain('messages[3].tool_calls[0].function.arguments');
    expect(parsed.problems[0].reason).toMatch(/JSON/);
  });

  it('reports a conversation without a user message, and a tool result with no pending call', () => {
    const noUser = {
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'assistant', content: 'hi' },
      ],
    };
    const orphan = {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'tool', tool_call_id: 'x', content: 'r' },
      ],
    };
    const parsed = parseCaptureText([JSON.stringify(noUser), JSON.stringify(orphan)].join('\n'), opts());
    expect(parsed.sessions).toEqual([]);
    expect(parsed.problems.map((p) => p.line)).toEqual([1, 2]);
    expect(parsed.problems[0].reason).toMatch(/user message/);
    expect(parsed.problems[1].reason).toMatch(/messages\[1\]/);
  });
});

describe('a JSON document that does not parse', () => {
  const conversation = {
    messages: [
      { role: 'user', content: 'Cancel #W1' },
      { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'cancel', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c', content: 'ok' },
    ],
  };

  it('is one error at the line where the parser stopped, for an object or an array spread over lines', () => {
    for (const doc of [conversation, [conversation, conversation]]) {
      const lines = JSON.stringify(doc, null, 2).split('\n');
      const at = lines.findIndex((l) => l.includes('"content": "Cancel #W1"'));
      lines[at] = lines[at].replace('"content":', '"content"');
      const parsed = parseCaptureText(`\n${lines.join('\n')}`, opts({ file: 'broken.json' }));
      expect(parsed.sessions).toEqual([]);
      expect(parsed.problems).toHaveLength(1);
      // One blank line before the document: its line `at` (0-based) is line at + 2 of the file.
      expect(parsed.problems[0]).toMatchObject({ file: 'broken.json', line: at + 2 });
      expect(parsed.problems[0].reason).toMatch(/^not valid JSON \(column \d+\): .*the file is one JSON document/);
    }
  });

  it('JSONL whose records are arrays still reads line by line, naming only the broken line', () => {
    const good = JSON.stringify(conversation.messages);
    const parsed = parseCaptureText(
      `${good}\n[{"role": "user" "content": "x"}]\n${good}\n`,
      opts({ file: 'lines.jsonl' }),
    );
    expect(parsed.sessions).toHaveLength(2);
    expect(parsed.problems.map((p) => p.line)).toEqual([2]);
  });
});
