import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCaptureText, type ParseOptions } from './parse-file.js';

/** The agent logs people have: Claude Code, Codex CLI, OpenAI Agents SDK / Responses, LangChain, OTel chat spans. */

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test', 'fixtures', 'capture');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const NOW = '2025-03-01T12:00:00.000Z';

function parse(name: string, over: Partial<ParseOptions> = {}) {
  return parseCaptureText(fixture(name), {
    file: name,
    namespace: 'default',
    format: 'auto',
    maxRecordBytes: 4 * 1024 * 1024,
    resultChars: 2000,
    maxCallsPerSession: 1000,
    now: NOW,
    ...over,
  });
}

const steps = (s: { calls: { tool: string; ok: boolean }[] }) => s.calls.map((c) => (c.ok ? c.tool : `${c.tool}!`));

describe('Claude Code transcripts', () => {
  const parsed = parse('claude-code-session.jsonl');

  it('is detected as a whole-file transcript and split into one session per task (/clear, and a new prompt after a final answer)', () => {
    expect(parsed.problems).toEqual([]);
    expect(parsed.format).toBe('claude-code');
    expect(parsed.detected).toBe(true);
    expect(parsed.sessions.map((s) => s.id)).toEqual([
      'claude-code:6f1c2a9e-3b7d-4e21-9a55-0c8d1e2f3a4b',
      'claude-code:6f1c2a9e-3b7d-4e21-9a55-0c8d1e2f3a4b#2',
      'claude-code:6f1c2a9e-3b7d-4e21-9a55-0c8d1e2f3a4b#3',
    ]);
    expect(parsed.sessions.map((s) => s.goal)).toEqual([
      'Fix the failing test for parseDate in src/utils/date.ts',
      'Add a CHANGELOG entry for release 2.4.1 mentioning the ISO week fix',
      'Now commit both changes',
    ]);
  });

  it('skips meta lines, command echoes and the sidechain; pairs tool_result by id; is_error fails a call; times from the lines', () => {
    const [fix, changelog, commit] = parsed.sessions;
    // The sidechain's Grep call is not the main agent's step.
    expect(steps(fix)).toEqual(['Bash!', 'Read', 'Edit', 'Bash']);
    expect(fix.calls[0].args).toEqual({
      command: 'npm test -- src/utils/date.test.ts',
      description: 'Run the date tests',
    });
    expect(fix.calls[0].error).toMatch(/^FAIL src\/utils\/date.test.ts/);
    expect(fix.calls[0].durationMs).toBe(6500);
    expect(fix.calls[0].at).toBe('2025-08-04T09:00:08.000Z');
    expect(fix.calls[3].result).toBe('PASS src/utils/date.test.ts\nTests: 12 passed');
    expect(steps(changelog)).toEqual(['Read', 'Edit']);
    expect(changelog.calls[0].result).toContain('## 2.4.0');
    expect(steps(commit)).toEqual(['Bash']);
    expect(parsed.records.map((r) => r.finalAnswer)).toEqual([
      'Fixed: parseDate now understands ISO week dates, and all 12 date tests pass.',
      'Added the 2.4.1 entry to CHANGELOG.md.',
      'Committed as 4e5f6a7.',
    ]);
  });

  it('leaves the outcome to the judge (Claude Code logs none) and keeps where it ran as labels', () => {
    for (const s of parsed.sessions)
      expect(s).toMatchObject({ outcome: 'unknown', source: 'claude-code', agentId: 'claude-code' });
    expect(parsed.sessions[0].labels).toMatchObject({
      format: 'claude-code',
      cwd: '/home/dev/acme-web',
      git_branch: 'main',
    });
    expect(parsed.sessions[0].startedAt).toBe('2025-08-04T09:00:05.000Z');
  });

  it('a tool_result for an id no tool_use had is named with its line; the rest of the transcript is kept', () => {
    const lines = fixture('claude-code-session.jsonl').split('\n');
    const bad = JSON.parse(lines[4]);
    bad.message.content[0].tool_use_id = 'toolu_nowhere';
    lines[4] = JSON.stringify(bad);
    const p = parseCaptureText(lines.join('\n'), {
      file: 'cc.jsonl',
      namespace: 'default',
      format: 'auto',
      maxRecordBytes: 1e6,
      resultChars: 2000,
      maxCallsPerSession: 1000,
      now: NOW,
    });
    expect(p.problems).toEqual([
      {
        file: 'cc.jsonl',
        line: 5,
        reason: 'message.content[0]: tool_result for toolu_nowhere, which no earlier tool_use has',
      },
    ]);
    expect(p.sessions).toHaveLength(3);
  });
});

describe('Codex CLI rollouts', () => {
  const parsed = parse('codex-rollout.jsonl');

  it('reads response_item lines: context messages are not goals, reasoning is not a step, exit codes fail shell calls', () => {
    expect(parsed.problems).toEqual([]);
    expect(parsed.format).toBe('codex');
    const [fix, log] = parsed.sessions;
    expect(fix).toMatchObject({
      id: 'codex:0198a3c4-7e21-7c10-9b5d-2f6e8a1b3c4d',
      goal: 'The balance test fails after the rounding change; make cargo test pass',
      outcome: 'unknown',
      source: 'codex',
    });
    expect(steps(fix)).toEqual(['shell!', 'shell', 'apply_patch', 'shell']);
    expect(fix.calls[0].args).toEqual({
      command: ['bash', '-lc', 'cargo test balance'],
      workdir: '/home/dev/ledger',
      timeout_ms: 120000,
    });
    expect(fix.calls[0].error).toMatch(/^exit code 101: running 3 tests/);
    expect(fix.calls[2].args).toEqual({ input: expect.stringContaining('*** Update File: src/money.rs') });
    expect(fix.calls[2].at).toBe('2025-09-12T14:02:40.000Z');
    expect(fix.labels).toMatchObject({
      format: 'codex',
      cwd: '/home/dev/ledger',
      cli_version: '0.36.0',
      model: 'gpt-5-codex',
    });
    // A second prompt after the final answer is a second task; the text `Exit code: 0` form is read too.
    expect(log).toMatchObject({
      id: 'codex:0198a3c4-7e21-7c10-9b5d-2f6e8a1b3c4d#2',
      goal: 'Show me the last three commits',
    });
    expect(steps(log)).toEqual(['shell']);
    expect(parsed.records.map((r) => r.finalAnswer)).toEqual([
      "Switched round_cents to banker's rounding; cargo test passes (3/3).",
      'The last three commits are 9f1e2d3, 1a2b3c4 and 5d6e7f8.',
    ]);
  });

  it('--format codex on a file that is not a rollout says what it expected', () => {
    const p = parse('claude-code-session.jsonl', { format: 'codex' });
    expect(p.sessions).toEqual([]);
    expect(p.problems[0].reason).toMatch(/expected a Codex CLI rollout/);
  });
});

describe('OpenAI Agents SDK / Responses API items', () => {
  it('reads to_input_list() history: function_call paired with function_call_output by call_id, whatever the order', () => {
    const parsed = parse('openai-agents-history.json');
    expect(parsed.problems).toEqual([]);
    expect(parsed.format).toBe('openai-agents');
    const [s] = parsed.sessions;
    expect(s.goal).toBe(
      'What will the weather be in Lisbon and Porto tomorrow? Book a table outside in the warmer city.',
    );
    expect(steps(s)).toEqual(['get_forecast', 'get_forecast', 'book_table!', 'book_table']);
    expect(s.calls.map((c) => c.result)).toEqual([
      '{"high_c": 27, "sky": "sunny"}',
      '{"high_c": 22, "sky": "cloudy"}',
      'Error: no outside tables left at 20:00',
      '{"confirmation": "LX-4471"}',
    ]);
    expect(s.outcome).toBe('unknown');
    expect(parsed.records[0].finalAnswer).toMatch(/^Lisbon will be warmer/);
  });

  it('reads Responses items wrapped as messages (once stored with 0 calls), with the container outcome', () => {
    const parsed = parse('responses-wrapped-messages.jsonl');
    expect(parsed.problems).toEqual([]);
    expect(parsed.format).toBe('openai-agents');
    expect(parsed.sessions.map((s) => [s.id, s.outcome, s.agentId, steps(s).join(' ')])).toEqual([
      ['run_7c1', 'success', 'travel-agent', 'get_forecast get_forecast book_table! book_table'],
      ['run_7c2', 'unknown', null, 'convert_currency'],
    ]);
  });

  it('reads one item per JSONL line as one history', () => {
    const parsed = parse('openai-agents-items.jsonl');
    expect(parsed.problems).toEqual([]);
    expect(parsed.sessions).toHaveLength(1);
    expect(steps(parsed.sessions[0])).toEqual(['get_forecast', 'get_forecast']);
  });

  it('read as chat-completions (--format openai), the items give no call: that is an error, not a silent 0', () => {
    const parsed = parse('responses-wrapped-messages.jsonl', { format: 'openai' });
    expect(parsed.problems.length).toBeGreaterThan(0);
    expect(parsed.problems[0].reason).toMatch(
      /no tool call came out, though the record holds tool-call items .*try --format auto/,
    );
  });
});

describe('LangChain / LangSmith runs', () => {
  it('reads a nested run tree: the root is the session, tool runs (at any depth) are its calls by start time', () => {
    const parsed = parse('langchain-run.json');
    expect(parsed.problems).toEqual([]);
    expect(parsed.format).toBe('langchain');
    const [s] = parsed.sessions;
    expect(s).toMatchObject({
      id: 'langchain:1f0a9c2e-55b1-4c8e-9d3a-7b6e5f4a3c21',
      goal: 'Why was invoice INV-2291 charged twice?',
      outcome: 'unknown',
      agentId: 'AgentExecutor',
      source: 'langchain',
    });
    expect(steps(s)).toEqual(['lookup_invoice', 'list_charges!', 'list_charges', 'refund_charge']);
    expect(s.calls[0].args).toEqual({ invoice_id: 'INV-2291' });
    expect(s.calls[1].error).toBe('RateLimitError: 429 Too Many Requests');
    // A serialised ToolMessage output gives its content.
    expect(s.calls[2].result).toBe('[{"id": "ch_1", "status": "succeeded"}, {"id": "ch_2", "status": "succeeded"}]');
    expect(s.calls[3].durationMs).toBe(800);
    expect(parsed.records[0].finalAnswer).toMatch(/^INV-2291 was charged twice/);
  });

  it('reads a flat LangSmith export (one run per line, parent_run_id): the goal from the LangGraph messages', () => {
    const parsed = parse('langsmith-runs.jsonl');
    expect(parsed.problems).toEqual([]);
    expect(parsed.format).toBe('langchain');
    expect(parsed.sessions).toHaveLength(1);
    const [s] = parsed.sessions;
    expect(s.goal).toBe('Summarise the open P1 bugs for the mobile app');
    expect(steps(s)).toEqual(['search_issues', 'get_issue', 'get_issue']);
    expect(s.calls.map((c) => c.args)).toEqual([
      { jql: 'project = MOB AND priority = P1 AND status = Open' },
      { issue_key: 'MOB-311' },
      { issue_key: 'MOB-318' },
    ]);
    expect(parsed.records[0].finalAnswer).toMatch(/^There are 2 open P1 bugs/);
  });

  it('a root run with an error is a failure', () => {
    const run = JSON.parse(fixture('langchain-run.json'));
    run.error = 'GraphRecursionError: Recursion limit of 25 reached';
    const p = parseCaptureText(JSON.stringify(run, null, 2), {
      file: 'r.json',
      namespace: 'default',
      format: 'auto',
      maxRecordBytes: 1e6,
      resultChars: 2000,
      maxCallsPerSession: 1000,
      now: NOW,
    });
    expect(p.sessions[0].outcome).toBe('failure');
  });
});

describe('OTel GenAI chat spans with tool calls in their messages', () => {
  it('@traceloop/instrumentation-openai: flattened gen_ai.completion.N.tool_calls, results from later prompts by tool_call_id', () => {
    const parsed = parse('otel-traceloop-openai.jsonl');
    expect(parsed.problems).toEqual([]);
    expect(parsed.format).toBe('otel');
    expect(parsed.sessions).toHaveLength(1);
    const [s] = parsed.sessions;
    expect(s.goal).toBe('Pay supplier invoice 88-1034 from Nordic Timber if it is approved');
    expect(steps(s)).toEqual(['get_invoice', 'schedule_payment']);
    expect(s.calls[0].args).toEqual({ invoice_no: '88-1034' });
    expect(s.calls[0].result).toContain('"status": "approved"');
    expect(s.calls[1].result).toBe('{"payment_id": "pay_5521", "scheduled_for": "2025-08-05"}');
    expect(s.outcome).toBe('unknown');
    expect(parsed.records[0].finalAnswer).toMatch(/^Invoice 88-1034 is approved/);
  });

  it('semantic conventions: tool_call parts in gen_ai.output.messages, tool_call_response parts in later input messages', () => {
    const parsed = parse('otel-chat-messages.json');
    expect(parsed.problems).toEqual([]);
    const [s] = parsed.sessions;
    expect(s.goal).toBe('Rotate the API key of the staging service and tell me the new key id');
    expect(steps(s)).toEqual(['list_keys', 'rotate_key!', 'rotate_key']);
    expect(s.calls[2].args).toEqual({ service: 'staging', key_id: 'k_17', force: true });
    expect(s.calls[2].result).toBe('{"new_key_id":"k_18"}');
    expect(parsed.records[0].finalAnswer).toBe('Rotated: the new staging key is k_18.');
  });

  it('chat spans that asked for tools but carry no content: an error saying what was seen and what to turn on', () => {
    const parsed = parse('otel-openai-no-content.jsonl');
    expect(parsed.sessions).toEqual([]);
    expect(parsed.format).toBe('otel');
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0].reason).toMatch(
      /2 chat span\(s\), 1 finishing with tool_calls, but no tool call is recorded.*content capture/,
    );
  });
});

describe('files that give nothing', () => {
  it('an unknown shape names the keys it saw on every line', () => {
    const parsed = parse('unknown-shape.jsonl');
    expect(parsed.sessions).toEqual([]);
    expect(parsed.problems.map((p) => p.line)).toEqual([1, 2]);
    expect(parsed.problems[0].reason).toMatch(/^no known format matches this record \(keys: event, url, ts\)/);
  });

  it('an empty file, or one of blank lines, is an error', () => {
    for (const text of ['', '\n\n  \n']) {
      const p = parseCaptureText(text, {
        file: 'e.jsonl',
        namespace: 'default',
        format: 'auto',
        maxRecordBytes: 1e6,
        resultChars: 2000,
        maxCallsPerSession: 1000,
        now: NOW,
      });
      expect(p.problems).toEqual([{ file: 'e.jsonl', line: 1, reason: 'the file is empty: no session' }]);
    }
  });

  it('a JSON document of no known shape is an error naming its keys', () => {
    const p = parseCaptureText('{\n  "data": {"rows": []},\n  "version": 3\n}\n', {
      file: 'x.json',
      namespace: 'default',
      format: 'auto',
      maxRecordBytes: 1e6,
      resultChars: 2000,
      maxCallsPerSession: 1000,
      now: NOW,
    });
    expect(p.sessions).toEqual([]);
    expect(p.problems).toHaveLength(1);
    expect(p.problems[0].reason).toMatch(/keys: data, version/);
  });
});
