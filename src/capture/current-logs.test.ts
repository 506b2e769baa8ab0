import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCaptureText, type ParseOptions } from './parse-file.js';
import { resolvePrivacy } from './privacy.js';

/**
 * The logs people have today (issue 28): a current Claude Code transcript with every line type, a Codex 0.104
 * rollout whose request sits in the event stream, the JavaScript Agents SDK's history (array and JSONL) and
 * run state, raw Responses API objects, and OTel agent spans with content capture off. Fixture sources:
 * test/fixtures/capture/SOURCES.md.
 */

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test', 'fixtures', 'capture');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

function parse(name: string, over: Partial<ParseOptions> = {}) {
  return parseCaptureText(fixture(name), {
    file: name,
    namespace: 'default',
    format: 'auto',
    maxRecordBytes: 4 * 1024 * 1024,
    resultChars: 2000,
    maxCallsPerSession: 1000,
    now: '2026-03-01T12:00:00.000Z',
    ...over,
  });
}

const steps = (s: { calls: { tool: string; ok: boolean }[] }) => s.calls.map((c) => (c.ok ? c.tool : `${c.tool}!`));

describe('Claude Code 2.1 transcript with every line type', () => {
  const parsed = parse('claude-code-2.1.jsonl');

  it('is detected although it opens with snapshot, queue and hook lines, and gives one session per task', () => {
    expect(parsed.problems).toEqual([]);
    expect(parsed.format).toBe('claude-code');
    expect(parsed.sessions.map((s) => s.goal)).toEqual([
      'The cart total is wrong when a coupon and free shipping are combined; fix it and make the tests pass',
      'Bump the patch version in package.json and add a changelog line',
    ]);
    expect(parsed.sessions[1].id).toBe('claude-code:7c1e9a52-3d4b-4f0e-9a61-2b8c5d7e1f03#2');
    expect(parsed.sessions[0].labels).toMatchObject({ version: '2.1.39', git_branch: 'fix-cart-total' });
  });

  it('keeps the calls in order with arguments, results and status; the subagent sidechain and the compaction summary are not steps or goals', () => {
    const [fix, bump] = parsed.sessions;
    expect(steps(fix)).toEqual(['Bash', 'Read', 'Task', 'Edit!', 'Edit', 'Bash']);
    expect(fix.calls.map((c) => c.position)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(fix.calls[0].args).toEqual({ command: 'npm test -- cart', description: 'Run the cart tests' });
    expect(fix.calls[0].result).toMatch(/^FAIL src\/cart.test.ts/);
    expect(fix.calls[2].result).toMatch(/^Free shipping is applied in src\/shipping.ts/);
    expect(fix.calls[3].error).toMatch(/File has been modified since read/);
    expect(fix.calls[5].result).toBe('PASS src/cart.test.ts (12 tests)');
    expect(steps(bump)).toEqual(['Read', 'Bash']);
    expect(parsed.records[1].finalAnswer).toMatch(/^Version bumped to 1.4.1/);
  });

  it('counts the lines it reads past by kind and says so in a note, not as a problem', () => {
    expect(parsed.unread).toEqual({
      progress: 4,
      system: 3,
      'file-history-snapshot': 2,
      'queue-operation': 2,
      summary: 1,
      'custom-title': 1,
      'last-prompt': 1,
      'pr-link': 1,
    });
    expect(parsed.notes.map((n) => n.reason)).toEqual([
      'skipped 15 line(s) of 8 kind(s) this version of Skillsmith does not read (progress 4, system 3, file-history-snapshot 2, queue-operation 2, summary 1, custom-title 1, last-prompt 1, pr-link 1)',
    ]);
  });

  it('a line type no version has written yet is read past too, and --format claude-code reads the file as well', () => {
    const future = `${fixture('claude-code-2.1.jsonl')}{"type":"brand-new-kind","sessionId":"x","uuid":"y","payload":{}}\n`;
    const p = parseCaptureText(future, baseOpts('claude-code'));
    expect(p.problems).toEqual([]);
    expect(p.sessions).toHaveLength(2);
    expect(p.unread['brand-new-kind']).toBe(1);
  });
});

function baseOpts(format: ParseOptions['format']): ParseOptions {
  return {
    file: 'x.jsonl',
    namespace: 'default',
    format,
    maxRecordBytes: 4 * 1024 * 1024,
    resultChars: 2000,
    maxCallsPerSession: 1000,
    now: '2026-03-01T12:00:00.000Z',
  };
}

describe('Codex CLI 0.104 rollout', () => {
  const parsed = parse('codex-rollout-0.104.jsonl');

  it('takes the request from the event stream when no response item carries it, and from behind an <environment_context> block', () => {
    expect(parsed.problems).toEqual([]);
    expect(parsed.format).toBe('codex');
    expect(parsed.sessions.map((s) => s.goal)).toEqual([
      'The checkout page shows the wrong tax for Canadian addresses; find the cause and fix it',
      'Add a test for a Quebec address',
    ]);
  });

  it('keeps calls, arguments, results and exit status; an unknown item kind is counted', () => {
    const [tax, quebec] = parsed.sessions;
    expect(steps(tax)).toEqual(['exec_command', 'apply_patch', 'exec_command']);
    expect(tax.calls[0].args).toEqual({ cmd: 'rg -n "taxRate" src', workdir: '/home/dev/shop' });
    expect(tax.calls[1].args.input).toMatch(/^\*\*\* Begin Patch/);
    expect(steps(quebec)).toEqual(['exec_command!', 'exec_command']);
    expect(quebec.calls[0].error).toMatch(/exit code 1/);
    expect(parsed.unread).toEqual({ 'response_item ghost_snapshot': 1 });
  });
});

describe('OpenAI Agents SDK (JavaScript) and raw Responses API objects', () => {
  it('history as a JSON array: callId, function_call_result with {type: text} output, hosted tool calls, providerData', () => {
    const p = parse('openai-agents-js-history.json');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('openai-agents');
    const [s] = p.sessions;
    expect(s.goal).toBe('Where is my parcel 7731-QX? If it is stuck, open a claim.');
    expect(steps(s)).toEqual(['track_parcel', 'web_search', 'open_claim!', 'request_invoice']);
    expect(s.calls[0].args).toEqual({ tracking_id: '7731-QX' });
    expect(s.calls[0].result).toContain('held_at_customs');
    expect(s.calls[1].args).toEqual({ query: 'customs hold parcel how long' });
    expect(s.calls[2].error).toMatch(/need the invoice number/);
    expect(p.records[0].finalAnswer).toMatch(/^Your parcel is held at customs/);
  });

  it('history as JSONL, one item per line: shell calls fail on a non-zero exit code', () => {
    const p = parse('openai-agents-js-items.jsonl');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('openai-agents');
    const [s] = p.sessions;
    expect(s.goal).toBe('Rename the staging bucket to shop-assets-staging and update the CDN origin');
    expect(steps(s)).toEqual(['rename_bucket', 'shell!']);
    expect(s.calls[1].args).toEqual({
      commands: ['cdnctl origin set staging shop-assets-staging'],
      timeoutMs: 60000,
    });
    expect(s.calls[1].result).toBe('cdnctl: permission denied');
  });

  it('a serialised RunState: the original input is the goal, generated items the calls (an approval request is not a second call)', () => {
    const p = parse('openai-agents-js-run-state.json');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('openai-agents');
    const [s] = p.sessions;
    expect(s.goal).toBe('Refund order A-1043, the jacket arrived torn');
    expect(s.agentId).toBe('Refund desk');
    expect(steps(s)).toEqual(['get_order', 'issue_refund']);
    expect(s.calls[0].result).toContain('"delivered":true');
    expect(s.calls[1]).toMatchObject({ args: { order_id: 'A-1043', amount: 89.9 }, result: '' });
  });

  it('the state of JSON.stringify(result) ({state: RunState}) reads the same', () => {
    const state = JSON.parse(fixture('openai-agents-js-run-state.json')) as unknown;
    const p = parseCaptureText(JSON.stringify({ state, finalOutput: null }), baseOpts('auto'));
    expect(p.problems).toEqual([]);
    expect(p.sessions.map(steps)).toEqual([['get_order', 'issue_refund']]);
  });

  it('a list of Response objects: one history of their outputs; the goal comes from instructions, said in a note', () => {
    const p = parse('responses-api-objects.json');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('openai-agents');
    const [s] = p.sessions;
    expect(s.goal).toMatch(/^Find the cheapest direct flight from Lisbon to Berlin/);
    expect(steps(s)).toEqual(['search_flights', 'hold_seat']);
    expect(s.calls[1].args).toEqual({ flight: 'TP 536', fare: 'light' });
    expect(p.notes.map((n) => n.reason)).toEqual([
      expect.stringMatching(/the goal is taken from their instructions and the calls have no results/),
    ]);
  });

  it('the same objects one per line read the same', () => {
    const lines = (JSON.parse(fixture('responses-api-objects.json')) as unknown[]).map((r) => JSON.stringify(r));
    const p = parseCaptureText(`${lines.join('\n')}\n`, baseOpts('auto'));
    expect(p.problems).toEqual([]);
    expect(p.sessions.map(steps)).toEqual([['search_flights', 'hold_seat']]);
  });
});

describe('OTel GenAI agent spans with message content capture off', () => {
  const p = parse('otel-openai-agents-no-content.json');

  it('stores the tool names, order, status and timing the spans hold, and names what is missing', () => {
    expect(p.problems).toEqual([]);
    const [s] = p.sessions;
    expect(s.goal).toBe('Order support run (goal not recorded)');
    expect(steps(s)).toEqual(['lookup_order', 'check_stock!', 'check_stock']);
    expect(s.calls.map((c) => c.args)).toEqual([{}, {}, {}]);
    expect(s.calls[1].error).toBe('stock service timed out');
    expect(s.calls[0].durationMs).toBe(390);
    expect(s.labels).toMatchObject({ not_recorded: 'goal,arguments,results' });
    expect(p.notes).toHaveLength(1);
    expect(p.notes[0].reason).toMatch(
      /3 call\(s\) stored with tool name, order, status and timing; not recorded in the spans: goal, arguments, results/,
    );
  });
});

describe('the new readers go through capture privacy', () => {
  it.each(['claude-code-2.1.jsonl', 'codex-rollout-0.104.jsonl', 'openai-agents-js-history.json'])(
    '%s: no secret or address reaches a session',
    (name) => {
      const raw = fixture(name);
      expect(raw).toMatch(/AKIAIOSFODNN7EXAMPLE|mia\.li3818@example\.com/);
      const p = parse(name, { privacy: resolvePrivacy() });
      expect(p.sessions.length).toBeGreaterThan(0);
      const text = JSON.stringify(p.sessions);
      expect(text).not.toContain('AKIAIOSFODNN7EXAMPLE');
      expect(text).not.toContain('mia.li3818@example.com');
      expect(text).toContain('[REDACTED');
    },
  );
});
