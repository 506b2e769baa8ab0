import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCaptureText, type ParseOptions } from '../src/capture/parse-file.js';
import { resolvePrivacy } from '../src/capture/privacy.js';
import { parseOptions } from './support/parse-options.js';

/** The agent logs people have: Claude Code, Codex CLI, Gemini CLI, OpenAI Agents SDK / Responses, LangChain, OTel chat spans. */

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'capture');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const NOW = '2025-03-01T12:00:00.000Z';

function parse(name: string, over: Partial<ParseOptions> = {}) {
  return parseText(fixture(name), name, over);
}

function parseText(text: string, file: string, over: Partial<ParseOptions> = {}) {
  return parseCaptureText(text, parseOptions(file, NOW, over));
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

describe('a Claude Code task started with a slash command', () => {
  // The shape Claude Code writes (1.0.x: command-message first; 2.x: command-name first), then the command's
  // expanded prompt as a meta line. Content made up.
  const line = (n: number, type: 'user' | 'assistant', content: unknown, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      parentUuid: n > 1 ? `u${n - 1}` : null,
      isSidechain: false,
      cwd: '/home/dev/todo',
      sessionId: 'sess-slash',
      version: '1.0.98',
      type,
      message: { role: type, content },
      uuid: `u${n}`,
      timestamp: `2025-09-03T00:52:${String(10 + n).padStart(2, '0')}.000Z`,
      ...extra,
    });
  const use = (n: number, id: string, command: string) =>
    line(n, 'assistant', [{ type: 'tool_use', id, name: 'Bash', input: { command } }]);
  const result = (n: number, id: string, out: string) =>
    line(n, 'user', [{ type: 'tool_result', tool_use_id: id, content: out }]);
  const transcript = [
    line(1, 'user', 'Run the unit tests and tell me what fails'),
    use(2, 't1', 'npm test'),
    result(3, 't1', '2 passing'),
    line(4, 'assistant', [{ type: 'text', text: 'All tests pass.' }]),
    line(
      5,
      'user',
      '<command-message>scaffold is running…</command-message>\n<command-name>/scaffold</command-name>\n<command-args>create a TODO app with Next.js</command-args>',
    ),
    line(6, 'user', [{ type: 'text', text: 'Create the project skeleton the user describes: $ARGUMENTS' }], {
      isMeta: true,
    }),
    use(7, 't2', 'npx create-next-app todo'),
    result(8, 't2', 'Success! Created todo'),
    line(9, 'assistant', [{ type: 'text', text: 'The app is created.' }]),
    line(
      10,
      'user',
      '<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>opus</command-args>',
    ),
    line(11, 'user', '<local-command-stdout>Set model to opus</local-command-stdout>'),
    line(
      12,
      'user',
      '<command-name>/review-pr</command-name>\n<command-message>review-pr</command-message>\n<command-args></command-args>',
    ),
    use(13, 't3', 'gh pr diff 12'),
    result(14, 't3', 'diff --git a/app.ts b/app.ts'),
  ].join('\n');

  it('is a task of its own, whose goal is the command as typed; a command that manages the session is none', () => {
    const p = parseText(transcript, 'slash.jsonl');
    expect(p.problems).toEqual([]);
    expect(p.sessions.map((s) => [s.goal, steps(s).length])).toEqual([
      ['Run the unit tests and tell me what fails', 1],
      ['/scaffold create a TODO app with Next.js', 1],
      ['/review-pr', 1],
    ]);
    expect(p.sessions[1].calls[0].args).toEqual({ command: 'npx create-next-app todo' });
  });

  it('opening the transcript, it gives the calls their goal (they were refused as having none)', () => {
    const p = parseText(transcript.split('\n').slice(4, 9).join('\n'), 'slash-first.jsonl');
    expect(p.problems).toEqual([]);
    expect(p.sessions.map((s) => s.goal)).toEqual(['/scaffold create a TODO app with Next.js']);
  });
});

describe('a Claude Code transcript with a rewound prompt', () => {
  // A prompt edited and run again: Claude Code keeps the first branch's lines, and the new prompt takes the same
  // parent (the shape of daaain/claude-code-log's compact-after-rewind fixture, MIT; content made up).
  const at = (n: number) => `2025-10-01T10:00:${String(n).padStart(2, '0')}.000Z`;
  const msg = (uuid: string, parentUuid: string | null, type: 'user' | 'assistant', content: unknown, n: number) =>
    JSON.stringify({
      parentUuid,
      isSidechain: false,
      sessionId: 'sess-rewind',
      type,
      message: { role: type, content },
      uuid,
      timestamp: at(n),
    });
  const transcript = [
    JSON.stringify({ type: 'attachment', uuid: 'att', parentUuid: null, sessionId: 'sess-rewind', attachment: {} }),
    msg('p1', 'att', 'user', 'Delete the build folder', 1),
    msg('a1', 'p1', 'assistant', [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'rm -rf /' } }], 2),
    msg('r1', 'a1', 'user', [{ type: 'tool_result', tool_use_id: 't1', content: 'rm: refusing', is_error: true }], 3),
    msg('p2', 'att', 'user', 'Delete the build folder (only ./build)', 4),
    msg(
      'a2',
      'p2',
      'assistant',
      [{ type: 'tool_use', id: 't2', name: 'Bash', input: { command: 'rm -rf ./build' } }],
      5,
    ),
    msg('r2', 'a2', 'user', [{ type: 'tool_result', tool_use_id: 't2', content: '' }], 6),
    msg('a3', 'r2', 'assistant', [{ type: 'text', text: 'Deleted ./build.' }], 7),
  ].join('\n');

  it('keeps the branch that was run again: its prompt is the goal, the abandoned calls are left out, and a note says so', () => {
    const p = parseText(transcript, 'rewind.jsonl');
    expect(p.sessions.map((s) => [s.goal, s.calls.map((c) => c.args.command)])).toEqual([
      ['Delete the build folder (only ./build)', ['rm -rf ./build']],
    ]);
    expect(p.problems).toEqual([]);
    expect(p.notes.map((n) => [n.line, n.reason])).toEqual([
      [1, 'skipped 1 line(s) of 1 kind(s) this version of Skillsmith does not read (attachment 1)'],
      [
        2,
        "3 line(s) of a branch the user rewound (a prompt edited and run again) were left out: its calls are not the session's",
      ],
    ]);
  });
});

describe('Claude Code transcripts joined into one file', () => {
  const msg = (sessionId: string, n: number, type: 'user' | 'assistant', content: unknown) =>
    JSON.stringify({
      parentUuid: null,
      isSidechain: false,
      sessionId,
      type,
      message: { role: type, content },
      uuid: `${sessionId}-${n}`,
    });
  const session = (id: string, goal: string, command: string) => [
    msg(id, 1, 'user', goal),
    msg(id, 2, 'assistant', [{ type: 'tool_use', id: `${id}-t`, name: 'Bash', input: { command } }]),
    msg(id, 3, 'user', [{ type: 'tool_result', tool_use_id: `${id}-t`, content: 'ok' }]),
    msg(id, 4, 'assistant', [{ type: 'text', text: 'Done.' }]),
  ];

  it("stores each session's tasks under its own id, as its own file would (`cat *.jsonl > all.jsonl`)", () => {
    const p = parseText(
      [...session('aaaa-1', 'Run the tests', 'npm test'), ...session('bbbb-2', 'Build the site', 'npm run build')].join(
        '\n',
      ),
      'all.jsonl',
    );
    expect(p.sessions.map((x) => [x.id, x.goal])).toEqual([
      ['claude-code:aaaa-1', 'Run the tests'],
      ['claude-code:bbbb-2', 'Build the site'],
    ]);
  });
});

describe('two logs of different formats in one file: the other one is named where it starts, never dropped unsaid', () => {
  const lines = (name: string) => fixture(name).trimEnd().split('\n');
  const claude = lines('claude-code-session.jsonl');
  const codex = lines('codex-rollout.jsonl');
  const alone = (name: string) => parse(name).sessions.map((s) => [s.id, s.goal, steps(s)]);
  const read = (p: ReturnType<typeof parseText>) => p.sessions.map((s) => [s.id, s.goal, steps(s)]);

  it('a Codex rollout after a Claude Code transcript: the transcript is read, the rollout is one problem at its first line', () => {
    const p = parseText([...claude, ...codex].join('\n'), 'both.jsonl');
    expect(p.format).toBe('claude-code');
    expect(read(p)).toEqual(alone('claude-code-session.jsonl'));
    const from = claude.length + 1;
    const to = claude.length + codex.length;
    expect(p.problems).toEqual([
      {
        file: 'both.jsonl',
        line: from,
        reason: `lines ${from}-${to} (${codex.length} records) hold a Codex CLI rollout, inside a file read as a Claude Code transcript: they were not read. A file holds one log: move lines ${from}-${to} to a file of their own and ingest it (auto-detected, or with --format codex)`,
      },
    ]);
    // Not said to be kinds this version does not read (it reads them, in a file of their own).
    expect(p.notes.map((n) => n.reason).join('\n')).not.toMatch(/response_item|event_msg|session_meta/);
    // The tasks of the transcript are whole: they are judged as usual.
    expect(p.sessions.every((s) => s.outcomeSource !== 'judged')).toBe(true);
  });

  it('OpenAI conversations before a Codex rollout, and a Gemini CLI session before a Claude Code transcript', () => {
    const openai = lines('openai-conversations.jsonl');
    const a = parseText([...openai, ...codex].join('\n'), 'a.jsonl');
    expect(read(a)).toEqual(alone('codex-rollout.jsonl'));
    expect(a.problems.map((q) => [q.line, q.reason.split(': ')[0]])).toEqual([
      [1, `lines 1-${openai.length} (2 records) hold OpenAI chat messages, inside a file read as a Codex CLI rollout`],
    ]);
    expect(a.problems[0].reason).toMatch(/--format openai\)$/);
    // Every line of the Gemini session, the ones its own reader reads past too, is one stretch.
    const gemini = lines('gemini-cli-session.jsonl');
    const b = parseText([...gemini, ...claude].join('\n'), 'b.jsonl');
    expect(read(b).map(([id, goal]) => [id, goal])).toEqual(
      alone('claude-code-session.jsonl').map(([id, goal]) => [id, goal]),
    );
    expect(b.problems.map((q) => [q.line, q.reason.split(': ')[0]])).toEqual([
      [
        1,
        `lines 1-${gemini.length} (${gemini.length} records) hold a Gemini CLI session, inside a file read as a Claude Code transcript`,
      ],
    ]);
  });

  it('a transcript appended to a file of records is one problem, not one per line', () => {
    // Enough records that the file is read one record per line (detection reads the first 50).
    const records = Array.from({ length: 30 }, (_, i) =>
      JSON.stringify({
        session_id: `n${i}`,
        goal: `Refund order ${i}`,
        success: true,
        steps: [{ tool: 'refund', args: {} }],
      }),
    );
    const p = parseText([...records, ...claude].join('\n'), 'records.jsonl');
    expect(p.format).toBe('jsonl');
    expect(p.sessions).toHaveLength(30);
    const from = records.length + 1;
    const to = records.length + claude.length;
    expect(p.problems.map((q) => [q.line, q.reason])).toEqual([
      [
        from,
        `lines ${from}-${to} (${claude.length} records) hold a Claude Code transcript, inside a file of one record per line: they were not read. A file holds one log: move lines ${from}-${to} to a file of their own and ingest it (auto-detected, or with --format claude-code)`,
      ],
    ]);
  });

  it('with --format: the lines of the format asked for are read, the others named; a file with none of them is a misfit as before', () => {
    const p = parseText([...claude, ...codex].join('\n'), 'both.jsonl', { format: 'codex' });
    expect(read(p)).toEqual(alone('codex-rollout.jsonl'));
    expect(p.problems.map((q) => [q.line, q.reason.split(': ')[0]])).toEqual([
      [
        1,
        `lines 1-${claude.length} (${claude.length} records) hold a Claude Code transcript, inside a file read as a Codex CLI rollout`,
      ],
    ]);
    const misfit = parseText(codex.join('\n'), 'codex.jsonl', { format: 'claude-code' });
    expect(misfit.problems.map((q) => q.reason)).toEqual([
      'expected a Claude Code transcript (lines with type user/assistant, message, sessionId, uuid)',
    ]);
  });
});

describe("Anthropic server tools: the API's own result in the same message", () => {
  // The Messages API's documented blocks: server_tool_use, then web_search_tool_result with its tool_use_id, in one
  // assistant message; an error result is an object with an error_code. Content made up.
  const conversation = (result: unknown) => [
    { role: 'user', content: 'What is the weather in Paris today? Save it to my notes.' },
    {
      role: 'assistant',
      content: [
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'Paris weather today' } },
        { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: result },
        { type: 'text', text: 'It is 8°C and cloudy.' },
        { type: 'tool_use', id: 'toolu_2', name: 'save_note', input: { text: 'Paris: 8°C, cloudy' } },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_2',
          content: [
            { type: 'text', text: 'saved' },
            { type: 'text', text: 'note id 7' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          ],
        },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'Saved.' }] },
  ];

  it('pairs the search with its hits, and a search error fails the call', () => {
    const hits = [
      {
        type: 'web_search_result',
        url: 'https://weather.example/paris',
        title: 'Paris weather',
        encrypted_content: 'Eqg',
      },
    ];
    const ok = parseText(JSON.stringify(conversation(hits)), 'server-tools.json');
    expect(ok.problems).toEqual([]);
    expect(ok.sessions[0].calls.map((c) => [c.tool, c.result, c.ok])).toEqual([
      ['web_search', 'Paris weather https://weather.example/paris', true],
      // Text blocks a line each, and the picture said as one.
      ['save_note', 'saved\nnote id 7\n[image/png]', true],
    ]);
    const failed = parseText(
      JSON.stringify(conversation({ type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' })),
      'server-tools-error.json',
    );
    expect(failed.sessions[0].calls[0]).toMatchObject({
      tool: 'web_search',
      ok: false,
      result: 'error: max_uses_exceeded',
    });
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

describe('a Codex rollout of a newer version: calls written only as their end events', () => {
  // The shapes of a Codex 0.14x rollout: an MCP call and an applied patch as event_msg end events with no
  // response item, a function_call_output whose output is a content part. Content made up.
  const at = '2026-08-03T10:48:56.000Z';
  const line = (type: string, payload: Record<string, unknown>) => JSON.stringify({ timestamp: at, type, payload });
  const rollout = [
    line('session_meta', { id: '019fc8be-0000-7000-8000-00000000aaaa', cwd: '/tmp/repo', cli_version: '0.146.0' }),
    line('event_msg', { type: 'user_message', message: 'Rename the title and list the files' }),
    line('response_item', { type: 'function_call', call_id: 'call-1', name: 'shell', arguments: '{"command":["ls"]}' }),
    line('response_item', {
      type: 'function_call_output',
      call_id: 'call-1',
      output: { type: 'input_text', text: 'a.txt\n' },
    }),
    line('event_msg', {
      type: 'mcp_tool_call_end',
      call_id: 'call-2',
      invocation: { server: 'notes', tool: 'set_title', arguments: { title: 'Draft 2' } },
      result: { Ok: { content: [{ type: 'text', text: 'title set' }], isError: false } },
    }),
    line('event_msg', {
      type: 'patch_apply_end',
      call_id: 'call-3',
      success: false,
      stdout: '',
      stderr: 'hunk 1 failed',
      changes: { '/tmp/repo/a.txt': { type: 'update' } },
    }),
    // An end event whose call is a response item too is that call, not a second one.
    line('response_item', {
      type: 'custom_tool_call',
      call_id: 'call-4',
      name: 'apply_patch',
      input: '*** Begin Patch',
    }),
    line('response_item', { type: 'custom_tool_call_output', call_id: 'call-4', output: 'Success' }),
    line('event_msg', { type: 'patch_apply_end', call_id: 'call-4', success: true, stdout: 'Success', changes: {} }),
    line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] }),
  ].join('\n');

  it('stores them as calls in their order, with their results; a content part is its text', () => {
    const p = parseText(rollout, 'rollout-2026-08-03T10-48-56-019fc8be-0000-7000-8000-00000000aaaa.jsonl');
    expect(p.problems).toEqual([]);
    expect(p.sessions[0].calls.map((c) => [c.tool, c.args, c.result, c.ok])).toEqual([
      ['shell', { command: ['ls'] }, 'a.txt\n', true],
      ['notes__set_title', { title: 'Draft 2' }, 'title set', true],
      ['apply_patch', { files: ['/tmp/repo/a.txt'] }, 'hunk 1 failed', false],
      ['apply_patch', { input: '*** Begin Patch' }, 'Success', true],
    ]);
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

  it('reads a page of the Conversations API ({object: "list", data}), newest first as it is listed by default, or in order', () => {
    const items = JSON.parse(fixture('openai-agents-history.json')) as Record<string, unknown>[];
    const page = (data: unknown[]) => ({ object: 'list', data, first_id: 'msg_1', last_id: 'msg_9', has_more: false });
    const expected = ['get_forecast', 'get_forecast', 'book_table!', 'book_table'];
    for (const data of [[...items].reverse(), items]) {
      const p = parseText(JSON.stringify(page(data)), 'conversation-items.json');
      expect(p.problems).toEqual([]);
      expect(p.format).toBe('openai-agents');
      expect(p.sessions.map(steps)).toEqual([expected]);
      expect(p.records[0].finalAnswer).toMatch(/^Lisbon will be warmer/);
    }
    // A call without a name is named at its place in the page as it was listed.
    const broken = [...items].reverse();
    const at = broken.findIndex((x) => x.type === 'function_call');
    broken[at] = { ...broken[at], name: undefined };
    const named = parseText(JSON.stringify(page(broken)), 'conversation-items.json');
    expect(named.problems.map((x) => x.path)).toEqual([`data[${at}]`]);
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

// The logs of issue 28, as people have them today: a current Claude Code transcript with every line type, a Codex
// 0.104 rollout whose request sits in the event stream, the JavaScript Agents SDK's history (array and JSONL) and
// run state, raw Responses API objects, and OTel agent spans with content capture off. Sources of the shapes:
// test/fixtures/capture/SOURCES.md.

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
    const p = parseText(future, 'future.jsonl', { format: 'claude-code' });
    expect(p.problems).toEqual([]);
    expect(p.sessions).toHaveLength(2);
    expect(p.unread['brand-new-kind']).toBe(1);
  });
});

describe('a command whose exit status 1 is its answer', () => {
  it('is no failed call in a Claude Code transcript: a search that finds nothing, an outdated check; a failing build is', () => {
    const base = { sessionId: 's-exit', cwd: '/home/dev/app', version: '2.1.39', userType: 'external' };
    let n = 0;
    const at = () => `2026-03-03T10:00:0${n}.000Z`;
    const user = (content: unknown) =>
      JSON.stringify({ ...base, type: 'user', uuid: `u${++n}`, timestamp: at(), message: { role: 'user', content } });
    const bash = (id: string, command: string) =>
      JSON.stringify({
        ...base,
        type: 'assistant',
        uuid: `a${++n}`,
        timestamp: at(),
        message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command } }] },
      });
    const result = (id: string, content: string) =>
      user([{ type: 'tool_result', tool_use_id: id, content, is_error: true }]);
    const text = [
      user('Upgrade zod and make sure nothing else still imports the old helper'),
      bash('t1', 'grep -rn "zodLegacy" src'),
      result('t1', 'Exit code 1'),
      bash('t2', 'npm outdated'),
      result('t2', 'Exit code 1\nPackage  Current  Wanted  Latest\nzod       3.23.8  3.23.8  3.24.2'),
      bash('t3', 'npm run build'),
      result('t3', 'Exit code 1\nError: Cannot find module "zod/v4"'),
      bash('t4', 'grep -rn x missing-dir'),
      result('t4', 'Exit code 2\ngrep: missing-dir: No such file or directory'),
    ].join('\n');
    const p = parseText(text, 'exit.jsonl');
    expect(p.problems).toEqual([]);
    const [s] = p.sessions;
    expect(steps(s)).toEqual(['Bash', 'Bash', 'Bash!', 'Bash!']);
    expect(s.calls.map((c) => c.error)).toEqual([
      null,
      null,
      'Exit code 1\nError: Cannot find module "zod/v4"',
      'Exit code 2\ngrep: missing-dir: No such file or directory',
    ]);
    // What the command printed is kept as its result, and a note says what was read as an answer.
    expect(s.calls[1].result).toContain('zod       3.23.8');
    expect(p.notes.map((n) => n.reason)).toEqual([
      '2 command(s) the log marks failed are stored as succeeded: exit status 1 is their answer, not a failure (grep 1, npm outdated 1)',
    ]);
  });

  it('is no failed call from a Codex rollout or an Agents SDK shell call either', () => {
    const codex = fixture('codex-rollout-0.104.jsonl').replace(
      '"cmd\\": \\"npm test -- tax -t Quebec\\"',
      '"cmd\\": \\"rg -n Quebec test\\"',
    );
    expect(codex).toContain('rg -n Quebec test');
    const [, quebec] = parseText(codex, 'rollout.jsonl').sessions;
    expect(steps(quebec)).toEqual(['exec_command', 'exec_command']);
    const sdk = fixture('openai-agents-js-items.jsonl').replace(
      'cdnctl origin set staging shop-assets-staging',
      'diff -u cdn.old.json cdn.json',
    );
    const [s] = parseText(sdk, 'items.jsonl').sessions;
    expect(steps(s)).toEqual(['rename_bucket', 'shell']);
    const gemini = fixture('gemini-cli-session.jsonl')
      .replaceAll('npm run build --workspace packages/api', 'git diff --exit-code packages/api')
      .replaceAll('Exit Code: 2', 'Exit Code: 1');
    const [diffed] = parseText(gemini, 'session.jsonl').sessions;
    expect(steps(diffed)).toEqual(['run_shell_command', 'read_file', 'replace', 'run_shell_command']);
    // A command that failed stays failed, with its exit status said.
    const [kept] = parse('openai-agents-js-items.jsonl').sessions;
    expect(kept.calls[1]).toMatchObject({ ok: false, error: 'exit code 1: cdnctl: permission denied' });
  });
});

describe('a Claude Code session file without messages', () => {
  it('is one clear problem naming what it holds, not a rejection per line', () => {
    const text = [
      '{"type":"summary","summary":"Cart fix","leafUuid":"a1"}',
      '{"type":"file-history-snapshot","messageId":"m1","snapshot":{"messageId":"m1","trackedFileBackups":{}},"isSnapshotUpdate":false}',
      '{"type":"summary","summary":"Version bump","leafUuid":"a2"}',
    ].join('\n');
    const p = parseText(text, 'only-summaries.jsonl');
    expect(p.sessions).toEqual([]);
    expect(p.problems.map((x) => `${x.line}: ${x.reason}`)).toEqual([
      '1: a Claude Code transcript without a single user or assistant message: nothing to store (summary 2, file-history-snapshot 1)',
    ]);
  });
});

describe('a Claude Code subagent file (subagents/agent-*.jsonl)', () => {
  it('is one clear problem pointing to the main session file', () => {
    const sub = fixture('claude-code-2.1.jsonl')
      .split('\n')
      .filter((l) => l.includes('"isSidechain":true'))
      .join('\n');
    const p = parseText(sub, 'agent-a2898e3.jsonl');
    expect(p.sessions).toEqual([]);
    expect(p.problems.map((x) => x.reason)).toEqual([
      "a Claude Code subagent transcript (all 2 message lines are sidechain): nothing to store on its own; ingest the main session file, where the subagent's work is its Task call",
    ]);
  });
});

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

  it('reads the request out of a message whose parts are AGENTS.md, environment and request, or behind the IDE context', () => {
    const line = (type: string, payload: unknown) =>
      JSON.stringify({ timestamp: '2026-02-23T11:40:29.278Z', type, payload });
    const user = (...texts: string[]) =>
      line('response_item', {
        type: 'message',
        role: 'user',
        content: texts.map((text) => ({ type: 'input_text', text })),
      });
    const call = (id: string) => [
      line('response_item', { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"ls"}', call_id: id }),
      line('response_item', { type: 'function_call_output', call_id: id, output: 'Process exited with code 0' }),
      line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] }),
    ];
    const text = [
      line('session_meta', { id: '019c0000-0000-7000-8000-000000000001', cli_version: '0.104.0' }),
      user(
        '# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nBe brief.\n</INSTRUCTIONS>',
        '<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>',
        'List the files in the repository',
      ),
      ...call('c1'),
      user('# Context from my IDE setup:\n\n## Active file: src/a.ts\n\n## My request for Codex:\nExplain src/a.ts'),
      ...call('c2'),
    ].join('\n');
    const p = parseText(text, 'rollout-x.jsonl');
    expect(p.problems).toEqual([]);
    expect(p.sessions.map((x) => x.goal)).toEqual(['List the files in the repository', 'Explain src/a.ts']);
  });

  it('reads the request of later versions from the item_completed UserMessage event, past a plugins block', () => {
    // Codex 0.147+ (shapes as described in vectorize-io/hindsight#4377 and Daily-Nerd/daimon#623 and seen in
    // public rollout-reader tests): the typed request is an `item_completed` UserMessage event; the desktop app
    // puts a <recommended_plugins> block in a user message first; new line types such as `world_state`.
    const lines = [
      { type: 'session_meta', payload: { id: '01a01ec8-3867-7730-8acf-8911ef19b587', cli_version: '0.150.0' } },
      {
        type: 'response_item',
        payload: {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: '<recommended_plugins>github, linear</recommended_plugins>' }],
        },
      },
      { type: 'event_msg', payload: { type: 'turn_started', turn_id: 't1' } },
      {
        type: 'event_msg',
        payload: {
          type: 'item_completed',
          turn_id: 't1',
          item: {
            type: 'UserMessage',
            id: 'um-1',
            content: [{ type: 'text', text: 'Why does CI fail on main?', text_elements: [] }],
          },
        },
      },
      { type: 'world_state', payload: { full: false, state: { cwd: '/p' } } },
      {
        type: 'response_item',
        payload: { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"gh run list"}', call_id: 'c1' },
      },
      {
        type: 'response_item',
        payload: { type: 'function_call_output', call_id: 'c1', output: 'Process exited with code 0' },
      },
    ].map((l, i) => JSON.stringify({ timestamp: `2026-09-15T09:25:2${i}.000Z`, ...l }));
    const p = parseText(lines.join('\n'), 'rollout-new.jsonl');
    expect(p.problems).toEqual([]);
    expect(p.sessions.map((x) => x.goal)).toEqual(['Why does CI fail on main?']);
    expect(p.sessions.map(steps)).toEqual([['exec_command']]);
    expect(p.unread).toEqual({ world_state: 1 });
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

  it('an item kind this version does not know is read past and counted, not a reason to reject the history', () => {
    const later = fixture('openai-agents-js-items.jsonl').replace(
      /\n/,
      '\n{"type":"future_item","id":"fi_1","providerData":{}}\n',
    );
    const p = parseText(later, 'later.jsonl');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('openai-agents');
    expect(p.sessions.map(steps)).toEqual([['rename_bucket', 'shell!']]);
    expect(p.unread).toEqual({ future_item: 1 });
  });

  it('a call that cannot be read is one problem: its result is left out with it, the rest is kept', () => {
    const broken = fixture('openai-agents-js-items.jsonl').replace(
      '"name": "rename_bucket", "status": "completed", "arguments"',
      '"status": "completed", "arguments"',
    );
    const p = parseText(broken, 'broken.jsonl');
    expect(p.problems.map((x) => [x.line, x.reason])).toEqual([[3, '[2].name: missing']]);
    expect(p.sessions.map(steps)).toEqual([['shell!']]);
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
    expect(p.notes.map((n) => n.reason)).toEqual([
      'the run stopped for approval: 1 call(s) awaiting it (issue_refund) never ran and have no result',
    ]);
  });

  it('the state of JSON.stringify(result) ({state: RunState}) reads the same', () => {
    const state = JSON.parse(fixture('openai-agents-js-run-state.json')) as unknown;
    const p = parseText(JSON.stringify({ state, finalOutput: null }), 'result.json');
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
    const p = parseText(`${lines.join('\n')}\n`, 'responses.jsonl');
    expect(p.problems).toEqual([]);
    expect(p.sessions.map(steps)).toEqual([['search_flights', 'hold_seat']]);
  });
});

describe('OTel GenAI agent spans with message content capture off', () => {
  const p = parse('otel-openai-agents-no-content.json');

  it('stores the tool names, order, status and timing the spans hold, and names what is missing', () => {
    expect(p.problems).toEqual([]);
    const [s] = p.sessions;
    expect(s.goal).toBe('Order support run calling lookup_order, check_stock (goal not recorded)');
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

describe('OTel tool and model spans without an agent span, content capture off', () => {
  it('are one run too: the model calls around the tools say it was an agent', () => {
    const doc = JSON.parse(fixture('otel-openai-agents-no-content.json')) as {
      resourceSpans: { scopeSpans: { spans: { spanId: string; parentSpanId?: string }[] }[] }[];
    };
    const scope = doc.resourceSpans[0].scopeSpans[0];
    scope.spans = scope.spans.filter((x) => x.spanId !== 'a000000000000001');
    for (const x of scope.spans) delete x.parentSpanId;
    const p = parseText(JSON.stringify(doc), 'no-agent.json');
    expect(p.problems).toEqual([]);
    expect(p.sessions.map((x) => x.goal)).toEqual(['agent run calling lookup_order, check_stock (goal not recorded)']);
    expect(p.sessions.map(steps)).toEqual([['lookup_order', 'check_stock!', 'check_stock']]);
  });
});

describe('the new readers go through capture privacy', () => {
  it.each([
    'claude-code-2.1.jsonl',
    'codex-rollout-0.104.jsonl',
    'openai-agents-js-history.json',
    'gemini-cli-session.jsonl',
    'ai-sdk-ui-messages.json',
    'pydantic-ai-messages.json',
    'langgraph-thread-state.json',
  ])('%s: no secret or address reaches a session', (name) => {
    const raw = fixture(name);
    expect(raw).toMatch(/AKIAIOSFODNN7EXAMPLE|mia\.li3818@example\.com/);
    const p = parse(name, { privacy: resolvePrivacy() });
    expect(p.sessions.length).toBeGreaterThan(0);
    const text = JSON.stringify(p.sessions);
    expect(text).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(text).not.toContain('mia.li3818@example.com');
    expect(text).toContain('[REDACTED');
  });
});

describe('Gemini CLI session logs (JSONL, since the CLI appends records)', () => {
  const parsed = parse('gemini-cli-session.jsonl');
  const [fix, commit] = parsed.sessions;

  it('is detected as one transcript and split into one session per task; a rewound prompt is no task', () => {
    expect(parsed.problems).toEqual([]);
    expect(parsed.format).toBe('gemini');
    expect(parsed.detected).toBe(true);
    expect(parsed.sessions.map((s) => s.id)).toEqual([
      'gemini-cli:3f9c1e2a-7b4d-4c8e-9a1f-2d3e4f5a6b7c',
      'gemini-cli:3f9c1e2a-7b4d-4c8e-9a1f-2d3e4f5a6b7c#2',
    ]);
    // The typed prompt, not the file its @reference pasted after it; "Delete node_modules..." was taken back.
    expect(parsed.sessions.map((s) => s.goal)).toEqual([
      'Why does `npm run build` fail in packages/api? Fix it. @packages/api/tsconfig.json',
      'Now run the api tests and commit the fix',
    ]);
  });

  it('reads the last copy of a message written twice, with the calls in order, their arguments, results and status', () => {
    expect(steps(fix)).toEqual(['run_shell_command!', 'read_file', 'replace', 'run_shell_command']);
    // The first copy had the build still running and no result: the second one counts.
    expect(fix.calls[0].args).toEqual({
      command: 'npm run build --workspace packages/api',
      description: 'Build the api package',
    });
    expect(fix.calls[0].result).toContain("error TS2307: Cannot find module '@acme/common'");
    expect(fix.calls[0].error).toContain('Exit Code: 2');
    expect(fix.calls[0].at).toBe('2026-06-02T08:15:12.000Z');
    expect(fix.calls[2].args).toMatchObject({ file_path: '/home/dev/acme/packages/api/tsconfig.json' });
    expect(fix.calls[2].result).toBe(
      'Successfully modified file: /home/dev/acme/packages/api/tsconfig.json (1 replacements).',
    );
    expect(fix.calls[3].result).toContain('Exit Code: 0');
    // A call the person declined did not happen: it failed, with the reason.
    expect(steps(commit)).toEqual(['run_shell_command', 'run_shell_command', 'run_shell_command!']);
    expect(commit.calls[2].args).toEqual({ command: 'git push' });
    expect(commit.calls[2].error).toContain('User denied execution');
    expect(parsed.records.map((r) => r.finalAnswer)).toEqual([
      'Fixed: `packages/api/tsconfig.json` now references `../common`, and `npm run build --workspace packages/api` exits 0.',
      'The 42 api tests pass and the fix is committed as 1a2b3c4. I did not push: you declined it.',
    ]);
  });

  it('leaves the outcome to the judge, keeps the project and model as labels, and counts what it reads past', () => {
    for (const s of parsed.sessions)
      expect(s).toMatchObject({ outcome: 'unknown', source: 'gemini-cli', agentId: 'gemini-cli' });
    expect(fix.labels).toEqual({
      format: 'gemini',
      project_hash: 'c41b7f0e9d2a6b58e3f1a07c9d4e2b6f8a1c3e5d7f90b2d4e6a8c0e2f4a6b8d0',
      model: 'gemini-2.5-pro',
    });
    expect(parsed.unread).toEqual({ memory_update: 1, 'message info': 1 });
    expect(parsed.notes.map((n) => n.reason)).toEqual([
      'skipped 2 line(s) of 2 kind(s) this version of Skillsmith does not read (memory_update 1, message info 1)',
    ]);
  });

  it('--format gemini reads it the same, and on another log says what it expected', () => {
    const forced = parse('gemini-cli-session.jsonl', { format: 'gemini' });
    expect(forced.sessions.map((s) => s.calls.length)).toEqual([4, 3]);
    expect(forced.detected).toBe(false);
    const wrong = parse('codex-rollout.jsonl', { format: 'gemini' });
    expect(wrong.sessions).toEqual([]);
    expect(wrong.problems[0].reason).toMatch(/^expected a Gemini CLI session \(\{sessionId, projectHash, messages\}\)/);
  });

  it('a rewrite of the history ($set messages) replaces the messages before it; records after it still count', () => {
    const lines = fixture('gemini-cli-session.jsonl').split('\n');
    const rewrite = {
      $set: {
        messages: [
          {
            id: 'r1',
            timestamp: '2026-06-02T09:00:00.000Z',
            type: 'user',
            content: [{ text: 'Count the lines of README.md' }],
          },
          {
            id: 'r2',
            timestamp: '2026-06-02T09:00:02.000Z',
            type: 'gemini',
            content: '',
            toolCalls: [
              {
                id: 'c1',
                name: 'run_shell_command',
                args: { command: 'wc -l README.md' },
                status: 'success',
                result: [
                  { functionResponse: { id: 'c1', name: 'run_shell_command', response: { output: '120 README.md' } } },
                ],
              },
            ],
          },
        ],
      },
    };
    const answer = {
      id: 'r3',
      timestamp: '2026-06-02T09:00:04.000Z',
      type: 'gemini',
      content: 'README.md has 120 lines.',
    };
    const p = parseText([...lines.slice(0, 8), JSON.stringify(rewrite), JSON.stringify(answer)].join('\n'), 's.jsonl');
    expect(p.problems).toEqual([]);
    expect(p.sessions.map((s) => [s.goal, steps(s)])).toEqual([
      ['Count the lines of README.md', ['run_shell_command']],
    ]);
    expect(p.records[0].finalAnswer).toBe('README.md has 120 lines.');
  });

  it('a subagent session, or a session of metadata only, is one clear problem', () => {
    const lines = fixture('gemini-cli-session.jsonl').split('\n');
    const sub = [lines[0].replace('"kind": "main"', '"kind": "subagent"'), ...lines.slice(1)].join('\n');
    const p = parseText(sub, 'codebase_investigator-1.jsonl');
    expect(p.sessions).toEqual([]);
    expect(p.problems.map((x) => x.reason)).toEqual([
      "a Gemini CLI subagent session (kind: subagent): nothing to store on its own; ingest the main session file, where the subagent's work is its tool call",
    ]);
    const empty = parseText(
      `${lines[0]}\n{"$set": {"lastUpdated": "2026-06-02T09:00:00.000Z"}}`,
      'session-empty.jsonl',
    );
    expect(empty.sessions).toEqual([]);
    expect(empty.problems.map((x) => x.reason)).toEqual([
      'a Gemini CLI session without a single user or gemini message: nothing to store',
    ]);
  });
});

describe('Gemini CLI sessions of older versions (one JSON document)', () => {
  it('reads the messages of the document: a failed edit and its retry, the answer after them', () => {
    const p = parse('gemini-cli-session-legacy.json');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('gemini');
    expect(p.sessions.map((s) => s.id)).toEqual(['gemini-cli:8d2e4f60-1a3b-4c5d-8e9f-0a1b2c3d4e5f']);
    const [s] = p.sessions;
    expect(s.goal).toBe('Find where the retry limit for the HTTP client is set and raise it to 5');
    expect(steps(s)).toEqual(['search_file_content', 'read_file', 'replace!', 'replace']);
    expect(s.calls[2].error).toContain('0 occurrences found for old_string');
    expect(s.calls[0].result).toContain('L12: const maxRetries = 3;');
    expect(s.labels).toMatchObject({ model: 'gemini-2.5-flash' });
    expect(p.records[0].finalAnswer).toMatch(/^The retry limit is `maxRetries`/);
  });
});

describe('Gemini API contents (a /chat save checkpoint, a genai SDK history, a generateContent request)', () => {
  it("a checkpoint: the CLI's setup context is no goal, thoughts are no answer, responses pair with calls by id", () => {
    const p = parse('gemini-chat-checkpoint.json');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('gemini');
    expect(p.sessions).toHaveLength(1);
    const [s] = p.sessions;
    expect(s.goal).toBe('List the open TODO comments in src/ and put them in TODO.md');
    expect(steps(s)).toEqual(['search_file_content', 'write_file']);
    expect(s.calls[0].args).toEqual({ pattern: 'TODO', include: 'src/**/*.ts' });
    expect(s.calls[0].result).toContain('src/a.ts L3: // TODO: handle timeouts');
    expect(s.calls[1].result).toBe('Successfully created and wrote to new file: /home/dev/acme/TODO.md.');
    expect(s).toMatchObject({ source: 'gemini', outcome: 'unknown', labels: { format: 'gemini' } });
    expect(p.records[0].finalAnswer).toBe('TODO.md now lists the 2 open TODO comments.');
    // The same content gives the same id: ingesting the file again adds nothing.
    expect(parse('gemini-chat-checkpoint.json').sessions[0].id).toBe(s.id);
  });

  it('bare contents or under "contents", one conversation a line: responses without ids pair in order; an error fails a call', () => {
    const turns = [
      { role: 'user', parts: [{ text: 'What is the weather in Oslo and Bergen?' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } },
          { functionCall: { name: 'get_weather', args: { city: 'Bergen' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { output: 'Oslo: 4 C, rain' } } },
          { functionResponse: { name: 'get_weather', response: { error: 'station offline' } } },
        ],
      },
      { role: 'model', parts: [{ text: 'Oslo has 4 C and rain; the Bergen station is offline.' }] },
    ];
    const p = parseText(
      `${JSON.stringify(turns)}\n${JSON.stringify({ contents: turns.slice(0, 3) })}\n`,
      'genai.jsonl',
    );
    expect(p.problems).toEqual([]);
    expect(p.records.map((r) => r.format)).toEqual(['gemini', 'gemini']);
    for (const s of p.sessions) {
      expect(steps(s)).toEqual(['get_weather', 'get_weather!']);
      expect(s.calls.map((c) => c.args.city)).toEqual(['Oslo', 'Bergen']);
      expect(s.calls[0].result).toBe('Oslo: 4 C, rain');
      expect(s.calls[1].error).toBe('station offline');
    }
  });

  it('a function call without a name is named with its place; the rest is kept', () => {
    const turns = [
      { role: 'user', parts: [{ text: 'Book the 9:00 room' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { args: { room: 'A' } } },
          { functionCall: { name: 'book_room', args: { room: 'A' } } },
        ],
      },
      { role: 'user', parts: [{ functionResponse: { name: 'book_room', response: { output: 'booked' } } }] },
    ];
    const p = parseText(JSON.stringify({ history: turns }), 'checkpoint-x.json');
    expect(p.problems.map((x) => `${x.line}: ${x.reason}`)).toEqual(['1: history[1].parts.name: missing']);
    expect(p.sessions.map(steps)).toEqual([['book_room']]);
    expect(p.sessions[0].calls[0].result).toBe('booked');
  });
});

describe('Vercel AI SDK conversations', () => {
  it('a saved chat of UI messages: one session per task, tool parts with input and output, errors and denials fail', () => {
    const p = parse('ai-sdk-ui-messages.json');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('ai-sdk');
    expect(p.detected).toBe(true);
    expect(p.sessions.map((s) => s.id)).toEqual(['chat_7f3k2q9d', 'chat_7f3k2q9d#2', 'chat_7f3k2q9d#3']);
    expect(p.sessions.map((s) => s.goal)).toEqual([
      'Where is my order #W2378156? It should have arrived by now.',
      'Thanks. Please also change the email on my account to mia.li3818@example.com',
      'Cancel the order then, I will buy it locally.',
    ]);
    const [track, email, cancel] = p.sessions;
    // A retried call is two calls: the first failed with the part's errorText.
    expect(steps(track)).toEqual(['getOrder', 'trackShipment!', 'trackShipment']);
    expect(track.calls[0].args).toEqual({ orderId: 'W2378156' });
    expect(JSON.parse(track.calls[0].result)).toMatchObject({ status: 'shipped', carrier: 'UPS' });
    expect(track.calls[1].error).toBe('Carrier API timed out after 10000 ms');
    expect(track.calls[2].result).toContain('"delayed":true');
    // Times come from the messages' metadata.createdAt (epoch milliseconds).
    expect(track.startedAt).toBe('2026-06-02T08:00:00.000Z');
    expect(track.calls[0].at).toBe('2026-06-02T08:00:03.000Z');
    // A dynamic tool keeps the name it was called by.
    expect(steps(email)).toEqual(['updateAccountEmail', 'crm.logInteraction']);
    expect(email.calls[0].result).toBe('email updated; verification sent');
    // A call the person did not approve never ran: it failed, with the reason.
    expect(steps(cancel)).toEqual(['cancelOrder!']);
    expect(cancel.calls[0].error).toBe('execution denied: customer support must confirm shipped cancellations');
    expect(p.records.map((r) => r.finalAnswer)).toEqual([
      'Your order shipped with UPS and is delayed in Louisville, KY; the new delivery date is June 4.',
      'Done: a verification link is on its way to the new address.',
      'I could not cancel it: an order that has shipped needs a support agent to confirm. I have asked one to call you.',
    ]);
    for (const s of p.sessions)
      expect(s).toMatchObject({ outcome: 'unknown', source: 'ai-sdk', labels: { format: 'ai-sdk' } });
  });

  it('reasoning, data, source and step parts are read past; a part kind this version does not know is counted', () => {
    const p = parse('ai-sdk-ui-messages.json');
    expect(p.unread).toEqual({ 'widget-card': 1 });
    expect(p.notes.map((n) => n.reason)).toEqual([
      'skipped 1 part(s) of 1 kind(s) this version of Skillsmith does not read (widget-card 1)',
    ]);
  });

  it('model messages: tool-call parts answered by tool-result parts by id, whatever the order; an error output fails', () => {
    const p = parse('ai-sdk-model-messages.json');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('ai-sdk');
    const [s] = p.sessions;
    expect(p.sessions).toHaveLength(1);
    expect(s.goal).toBe('Move my cleaning appointment on Friday to next Tuesday afternoon, patient id P-20931.');
    expect(steps(s)).toEqual(['findAppointments', 'listOpenSlots!', 'listOpenSlots', 'rescheduleAppointment']);
    expect(s.calls[0].result).toBe('[{"appointmentId":"A-7781","kind":"cleaning","start":"2026-06-05T09:30:00"}]');
    expect(s.calls[1]).toMatchObject({ args: { date: '2026-06-09', provider: 'hyg-1' }, ok: false });
    expect(s.calls[1].error).toBe('provider hyg-1 is on leave on 2026-06-09');
    expect(s.calls[2].result).toBe('{"slots":["14:00","15:30"]}');
    expect(s.calls[3].result).toBe('rescheduled A-7781 to 2026-06-09T14:00:00 with hyg-2');
    expect(p.records[0].finalAnswer).toBe(
      'Your cleaning is now on Tuesday, June 9 at 14:00 with our second hygienist.',
    );
  });

  it('AI SDK 4 messages, one per line: tool-invocation parts, or the toolInvocations list before the answer', () => {
    const p = parse('ai-sdk-v4-messages.jsonl');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('ai-sdk');
    expect(p.sessions.map((s) => s.goal)).toEqual([
      "What's the weather in Lisbon tomorrow, and should I book the 9am ferry to Cacilhas?",
      'Book the 10:00 one for two adults then.',
    ]);
    // The parts and the toolInvocations list of one message hold the same calls: read once.
    expect(p.sessions.map(steps)).toEqual([
      ['getWeather', 'getFerryStatus'],
      ['bookFerry', 'sendTicketEmail'],
    ]);
    expect(p.records.map((r) => r.line)).toEqual([1, 3]);
    const [, book] = p.sessions;
    expect(book.calls[0]).toMatchObject({ args: { adults: 2 }, result: '{"reference":"FX-2231"}', ok: true });
    expect(p.records[1].finalAnswer).toBe('Booked: two adults on the 10:00 ferry, reference FX-2231.');
    // A call still in state "call" never ran: stored without a result, and said.
    expect(book.calls[1].result).toBe('');
    expect(p.notes.map((n) => n.reason)).toEqual([
      '1 call(s) never got a result (sendTicketEmail): stored without one',
    ]);
  });

  it('messages as Mastra stores them (content: {format: 2, parts, toolInvocations}) read the same, the thread as id', () => {
    const p = parse('ai-sdk-mastra-messages.json');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('ai-sdk');
    const [s] = p.sessions;
    expect(p.sessions).toHaveLength(1);
    expect(s.id).toBe('thread-support-311');
    expect(s.goal).toBe('Renew the TLS certificate of shop.example.net before it expires on Friday');
    expect(steps(s)).toEqual(['certStatus', 'renewCertificate']);
    expect(s.calls[1]).toMatchObject({ args: { domain: 'shop.example.net', challenge: 'dns-01' }, ok: true });
    expect(s.calls[1].at).toBe('2025-09-18T14:02:15.007Z');
    expect(p.records[0].finalAnswer).toBe('Renewed: the certificate of shop.example.net now expires on December 17.');
  });

  it('one saved chat per JSONL line ({id, messages}) is one conversation per line', () => {
    const chat = JSON.parse(fixture('ai-sdk-ui-messages.json')) as { id: string; messages: unknown[] };
    const other = { id: 'chat_b', messages: JSON.parse(fixture('ai-sdk-model-messages.json')) as unknown[] };
    const p = parseText(`${JSON.stringify(chat)}\n${JSON.stringify(other)}\n`, 'chats.jsonl');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('ai-sdk');
    expect(p.sessions.map((s) => s.id)).toEqual(['chat_7f3k2q9d', 'chat_7f3k2q9d#2', 'chat_7f3k2q9d#3', 'chat_b']);
    expect(p.records.map((r) => r.line)).toEqual([1, 1, 1, 2]);
  });

  it('--format ai-sdk reads the same; --format openai on these messages says which format they are', () => {
    const forced = parse('ai-sdk-model-messages.json', { format: 'ai-sdk' });
    expect(forced.problems).toEqual([]);
    expect(forced.detected).toBe(false);
    expect(forced.sessions.map(steps)).toEqual([
      ['findAppointments', 'listOpenSlots!', 'listOpenSlots', 'rescheduleAppointment'],
    ]);
    const wrong = parse('ai-sdk-model-messages.json', { format: 'openai' });
    expect(wrong.sessions).toEqual([]);
    expect(wrong.problems.map((x) => x.reason)).toEqual([
      'this is a Vercel AI SDK conversation, not OpenAI chat messages: use --format ai-sdk or auto',
    ]);
    const notChat = parseText('{"messages":[{"role":"user","content":"hi"}]}\n', 'plain.jsonl', { format: 'ai-sdk' });
    expect(notChat.problems.map((x) => x.reason)).toEqual([
      expect.stringMatching(/^expected a Vercel AI SDK conversation/),
    ]);
  });

  it('a tool call without a tool name is a problem naming its place; the rest of the conversation is kept', () => {
    const messages = JSON.parse(fixture('ai-sdk-model-messages.json')) as { content: unknown }[];
    const call = (messages[4].content as Record<string, unknown>[])[1];
    delete call.toolName;
    const p = parseText(JSON.stringify(messages), 'broken.json');
    expect(p.problems.map((x) => [x.path, x.reason])).toEqual([['[4].content[1]', '[4].content[1].toolName: missing']]);
    // Its result is left out with it; every other call is stored.
    expect(p.sessions.map(steps)).toEqual([['findAppointments', 'listOpenSlots', 'rescheduleAppointment']]);
  });

  it('OpenAI chat messages with tool messages are not taken for AI SDK ones', () => {
    const p = parse('openai-message-array.json');
    expect(p.format).toBe('openai');
    expect(p.sessions.length).toBeGreaterThan(0);
  });
});

describe('Pydantic AI message history', () => {
  it('ModelRequest / ModelResponse parts: one session per run, calls paired by tool_call_id, a retry prompt fails the call', () => {
    const p = parse('pydantic-ai-messages.json');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('pydantic-ai');
    expect(p.detected).toBe(true);
    expect(p.sessions.map((s) => s.goal)).toEqual([
      'What was the revenue of the EU region in Q3 2025?',
      'Chart it by month and email the chart to mia.li3818@example.com',
    ]);
    const [revenue, chart] = p.sessions;
    // A history without an id of its own: each task is named by the history up to its end.
    expect(revenue.id).toMatch(/^pydantic-ai:[0-9a-f]{20}$/);
    expect(chart.id).toMatch(/^pydantic-ai:[0-9a-f]{20}#2$/);
    // The first query failed (the tool asked for a retry); the second, with its JSON-string args, answered.
    expect(steps(revenue)).toEqual(['run_sql!', 'run_sql']);
    expect(revenue.calls[0].error).toBe('column "quarter" does not exist; orders has order_date (date)');
    expect(revenue.calls[1].args.query).toMatch(/order_date >= '2025-07-01'/);
    expect(revenue.calls[1].result).toBe('[{"sum":1843920.55}]');
    expect(revenue.calls[1].at).toBe('2025-11-04T09:12:03.415Z');
    // A tool return the person denied fails; the output tool (final_result) is the answer, not a step.
    expect(steps(chart)).toEqual(['make_chart', 'send_email!']);
    expect(chart.calls[0].args).toMatchObject({ kind: 'bar' });
    expect(chart.calls[1].error).toMatch(/^The user denied this tool call/);
    expect(p.records.map((r) => r.finalAnswer)).toEqual([
      'EU revenue in Q3 2025 was 1,843,920.55 EUR.',
      expect.stringContaining('"chart_id":"ch_5512"'),
    ]);
    for (const s of p.sessions)
      expect(s).toMatchObject({ outcome: 'unknown', source: 'pydantic-ai', labels: { format: 'pydantic-ai' } });
  });

  it('a tool call without a tool_name is a problem naming its place; the rest of the history is kept', () => {
    const messages = JSON.parse(fixture('pydantic-ai-messages.json')) as { parts: Record<string, unknown>[] }[];
    delete messages[7].parts[0].tool_name;
    const p = parseText(JSON.stringify(messages), 'broken.json');
    expect(p.problems.map((x) => [x.path, x.reason])).toEqual([['[7].parts[0]', '[7].parts[0].tool_name: missing']]);
    expect(p.sessions.map(steps)).toEqual([['run_sql!', 'run_sql'], ['send_email!']]);
  });

  it('system prompts and thinking are not requests or steps; a part kind this version does not know is counted', () => {
    const p = parse('pydantic-ai-messages.json');
    expect(p.sessions.flatMap((s) => s.calls.map((c) => c.tool))).not.toContain('final_result');
    expect(p.unread).toEqual({ citation: 1 });
    expect(p.notes.map((n) => n.reason)).toEqual([
      'skipped 1 part(s) of 1 kind(s) this version of Skillsmith does not read (citation 1)',
    ]);
  });

  it('one message per JSONL line reads the same; --format pydantic-ai does too, and a history without a call is named', () => {
    const lines = (JSON.parse(fixture('pydantic-ai-messages.json')) as unknown[]).map((m) => JSON.stringify(m));
    const p = parseText(`${lines.join('\n')}\n`, 'history.jsonl');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('pydantic-ai');
    expect(p.sessions.map(steps)).toEqual([
      ['run_sql!', 'run_sql'],
      ['make_chart', 'send_email!'],
    ]);
    // The second task starts at the line of its prompt.
    expect(p.records.map((r) => r.line)).toEqual([1, 7]);
    const forced = parse('pydantic-ai-messages.json', { format: 'pydantic-ai' });
    expect(forced.problems).toEqual([]);
    expect(forced.sessions).toHaveLength(2);
    const chatOnly = JSON.stringify([
      { parts: [{ content: 'hi', timestamp: '2025-11-04T09:00:00Z', part_kind: 'user-prompt' }], kind: 'request' },
      { parts: [{ content: 'Hello!', part_kind: 'text' }], kind: 'response' },
    ]);
    const none = parseText(chatOnly, 'chat.json', { format: 'pydantic-ai' });
    expect(none.sessions).toEqual([]);
    expect(none.problems.map((x) => x.reason)).toEqual([
      expect.stringMatching(/^expected a Pydantic AI message history/),
    ]);
  });
});

describe('AutoGen AgentChat runs', () => {
  it('TaskResult messages: tool call events paired by call_id, is_error fails a call, a user proxy asked again starts a task', () => {
    const p = parse('autogen-task-result.json');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('autogen');
    expect(p.sessions.map((s) => s.goal)).toEqual([
      'Our staging deploy of checkout-svc failed. Find out why and roll it back to the last good release.',
      'Good. Open a ticket for the missing variable and assign it to the payments team.',
    ]);
    const [rollback, ticket] = p.sessions;
    expect(steps(rollback)).toEqual(['get_deploy_log', 'list_releases', 'rollback!', 'rollback']);
    expect(rollback.calls[0].args).toEqual({ service: 'checkout-svc', env: 'staging' });
    expect(rollback.calls[2].error).toMatch(/^ValueError: release must be a release id/);
    expect(rollback.calls[3]).toMatchObject({ args: { release: 'r2025.10.01-7' }, ok: true });
    expect(rollback.calls[3].at).toBe('2025-10-02T07:41:15.900Z');
    expect(steps(ticket)).toEqual(['create_ticket']);
    expect(p.records.map((r) => r.finalAnswer)).toEqual([
      expect.stringMatching(/^The deploy failed its readiness probe/),
      '{"ticket": "PAY-4182", "assignee": "payments"}',
    ]);
    // Thoughts and the input request are read past; a type this version does not know is counted.
    expect(p.unread).toEqual({ ReviewSummaryEvent: 1 });
    expect(p.notes.map((n) => n.reason)).toEqual([
      'skipped 1 message(s) of 1 kind(s) this version of Skillsmith does not read (ReviewSummaryEvent 1)',
    ]);
    for (const s of p.sessions) expect(s).toMatchObject({ source: 'autogen', labels: { format: 'autogen' } });
  });

  it('the model context of an agent state (UserMessage, AssistantMessage calls, FunctionExecutionResultMessage) reads too', () => {
    const state = {
      type: 'AssistantAgentState',
      version: '1.0.0',
      llm_context: {
        messages: [
          { content: 'You are an ops agent.', type: 'SystemMessage' },
          { content: 'Restart the worker pool of invoice-svc', source: 'user', type: 'UserMessage' },
          {
            content: [{ id: 'c1', arguments: '{"service": "invoice-svc"}', name: 'restart_workers' }],
            thought: null,
            source: 'ops_agent',
            type: 'AssistantMessage',
          },
          {
            content: [{ content: 'restarted 4 workers', name: 'restart_workers', call_id: 'c1', is_error: false }],
            type: 'FunctionExecutionResultMessage',
          },
          { content: 'The 4 workers of invoice-svc restarted.', source: 'ops_agent', type: 'AssistantMessage' },
        ],
      },
    };
    const p = parseText(JSON.stringify(state), 'state.json');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('autogen');
    expect(p.sessions.map((s) => [s.goal, steps(s)])).toEqual([
      ['Restart the worker pool of invoice-svc', ['restart_workers']],
    ]);
    expect(p.sessions[0].calls[0].result).toBe('restarted 4 workers');
    expect(p.records[0].finalAnswer).toBe('The 4 workers of invoice-svc restarted.');
  });

  it('a team state (save_state of a group chat) reads the manager thread, which holds the tool call events', () => {
    const { messages } = JSON.parse(fixture('autogen-task-result.json')) as { messages: unknown[] };
    const team = {
      type: 'TeamState',
      version: '1.0.0',
      agent_states: {
        ops_agent: {
          type: 'ChatAgentContainerState',
          version: '1.0.0',
          agent_state: { type: 'AssistantAgentState', version: '1.0.0', llm_context: { messages: [] } },
          message_buffer: [],
        },
        RoundRobinGroupChatManager: {
          type: 'RoundRobinManagerState',
          version: '1.0.0',
          message_thread: messages,
          current_turn: 4,
          next_speaker_index: 1,
        },
      },
    };
    const p = parseText(JSON.stringify(team), 'team.json');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('autogen');
    expect(p.sessions.map(steps)).toEqual([
      ['get_deploy_log', 'list_releases', 'rollback!', 'rollback'],
      ['create_ticket'],
    ]);
    // A call without a name is named at its place in the team state.
    const broken = JSON.parse(JSON.stringify(team));
    const thread = broken.agent_states.RoundRobinGroupChatManager.message_thread as {
      type: string;
      content: { name?: string }[];
    }[];
    const at = thread.findIndex((m) => m.type === 'ToolCallRequestEvent');
    delete thread[at].content[0].name;
    const named = parseText(JSON.stringify(broken), 'team.json');
    expect(named.problems.map((x) => x.path)).toEqual([
      `agent_states.RoundRobinGroupChatManager.message_thread[${at}]`,
    ]);
  });

  it('the events run_stream() yields, one per JSONL line, read the same', () => {
    const { messages } = JSON.parse(fixture('autogen-task-result.json')) as { messages: unknown[] };
    const p = parseText(`${messages.map((m) => JSON.stringify(m)).join('\n')}\n`, 'stream.jsonl');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('autogen');
    expect(p.sessions.map(steps)).toEqual([
      ['get_deploy_log', 'list_releases', 'rollback!', 'rollback'],
      ['create_ticket'],
    ]);
    expect(p.records.map((r) => r.line)).toEqual([1, 11]);
  });
});

describe('Google ADK sessions', () => {
  it('a session (appName, userId, events): Gemini contents inside the events, the session id, the agent, times from the events', () => {
    const p = parse('google-adk-session.json');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('gemini');
    const [s] = p.sessions;
    expect(p.sessions).toHaveLength(1);
    expect(s).toMatchObject({
      id: '7f4e2a10-93c1-4b8e-a5d2-6c0b9e1f3a77',
      source: 'google-adk',
      agentId: 'expense_agent',
      labels: { format: 'gemini', app: 'expense_agent' },
      goal: 'File my taxi receipts from the Lisbon trip as one expense claim.',
    });
    // A function response holding an error fails its call; the retry with the cost center succeeds.
    expect(steps(s)).toEqual(['find_receipts', 'submit_claim!', 'submit_claim']);
    expect(s.calls[1].error).toBe('cost_center is required');
    expect(s.calls[2].args).toEqual({ receipts: ['R-881', 'R-884'], cost_center: 'CC-310' });
    expect(s.calls[0].at).toBe('2025-11-05T09:00:01.702Z');
    // The streamed partial reply is not the answer; the whole one is.
    expect(p.records[0].finalAnswer).toBe(
      'Claim EXP-20931 is submitted: two taxi receipts, 41.50 EUR, cost center CC-310.',
    );
  });

  it('the event list the /run endpoint answers reads the same', () => {
    const { events } = JSON.parse(fixture('google-adk-session.json')) as { events: unknown[] };
    const p = parseText(JSON.stringify(events), 'run.json');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('gemini');
    expect(p.sessions.map(steps)).toEqual([['find_receipts', 'submit_claim!', 'submit_claim']]);
    expect(p.sessions[0]).toMatchObject({ source: 'google-adk', agentId: 'expense_agent' });
  });
});

describe('LangChain messages (LangGraph state and threads, saved chat histories, LangChain.js)', () => {
  it('a LangGraph thread state: one session per request, calls paired by tool_call_id, status error fails a call', () => {
    const p = parse('langgraph-thread-state.json');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('langchain-messages');
    expect(p.detected).toBe(true);
    // The system prompt is not a request; the second request starts a task.
    expect(p.sessions.map((s) => s.goal)).toEqual([
      "My order #W5521 still hasn't arrived after two weeks. Can you find out where it is and reship it if it's lost?",
      'Thanks! Please email that tracking number to mia.li3818@example.com too.',
    ]);
    const [reship, email] = p.sessions;
    // The thread id (from the checkpoint) names the sessions.
    expect(reship.id).toBe('4e1b7f0c-9a43-4c7e-b3f6-0d5a8e2c1b77');
    expect(email.id).toBe('4e1b7f0c-9a43-4c7e-b3f6-0d5a8e2c1b77#2');
    // ToolNode's error message (status "error") fails the first tracking call; the retry, whose call also sits in
    // an Anthropic tool_use block of the content, is read once.
    expect(steps(reship)).toEqual(['get_order_status', 'track_shipment!', 'track_shipment', 'create_reshipment']);
    expect(reship.calls[1].error).toMatch(/^Error: TimeoutError\('carrier API did not answer in 10s'\)/);
    expect(reship.calls[0].args).toEqual({ order_id: '#W5521' });
    expect(reship.calls[2].result).toBe(
      '{"last_scan": "2025-10-05", "state": "exception", "detail": "package lost in transit"}',
    );
    expect(steps(email)).toEqual(['send_email']);
    expect(p.records.map((r) => r.finalAnswer)).toEqual([
      expect.stringMatching(/^UPS lost the package on October 5/),
      'Done: the tracking number is on its way to your inbox.',
    ]);
    for (const s of p.sessions)
      expect(s).toMatchObject({
        outcome: 'unknown',
        source: 'langchain-messages',
        labels: { format: 'langchain-messages' },
      });
  });

  it('a chat history saved with messages_to_dict by LangChain 0.1: the calls of additional_kwargs, their JSON arguments', () => {
    const p = parse('langchain-chat-history.json');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('langchain-messages');
    const [s] = p.sessions;
    expect(p.sessions).toHaveLength(1);
    expect(s.goal).toBe('Move my 1:1 with Priya from Thursday to Friday, same time.');
    expect(steps(s)).toEqual(['search_events', 'check_availability', 'update_event']);
    expect(s.calls[2].args).toEqual({
      event_id: 'evt_4410',
      start: '2025-11-14T15:00:00+01:00',
      end: '2025-11-14T15:30:00+01:00',
      notify: true,
    });
    expect(s.calls[1].result).toBe('{"free": true}');
    expect(s.id).toMatch(/^langchain-messages:[0-9a-f]{20}$/);
  });

  it('a LangGraph.js state written with JSON.stringify: constructors, an unparsable call kept as failed, an unknown kind counted', () => {
    const p = parse('langgraphjs-state.json');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('langchain-messages');
    const [s] = p.sessions;
    expect(s.goal).toBe('The nightly backup job on db-prod-2 failed. Check its log and rerun it.');
    // The call whose arguments the model wrote as broken JSON never ran: a failed step with its error.
    expect(steps(s)).toEqual(['read_job_log!', 'read_job_log', 'rerun_job!', 'cleanup_snapshots', 'rerun_job']);
    expect(s.calls[0]).toMatchObject({ args: {}, error: 'invalid tool call: Malformed args.' });
    expect(s.calls[2].error).toBe('JobFailed: /var/backups is 100% full');
    expect(s.calls[3].args).toEqual({ host: 'db-prod-2', keep_days: 7 });
    expect(p.records[0].finalAnswer).toMatch(/^The backup failed because \/var\/backups was full/);
    expect(p.unread).toEqual({ ReasoningMessage: 1 });
    expect(p.notes.map((n) => n.reason)).toEqual([
      'skipped 1 message(s) of 1 kind(s) this version of Skillsmith does not read (ReasoningMessage 1)',
    ]);
  });

  it('one message per JSONL line, and a thread history (newest state first), read the same', () => {
    const state = JSON.parse(fixture('langgraph-thread-state.json')) as {
      values: { messages: Record<string, unknown>[] };
    };
    const messages = state.values.messages;
    const lines = parseText(`${messages.map((m) => JSON.stringify(m)).join('\n')}\n`, 'thread.jsonl');
    expect(lines.problems).toEqual([]);
    expect(lines.format).toBe('langchain-messages');
    expect(lines.sessions.map(steps)).toEqual([
      ['get_order_status', 'track_shipment!', 'track_shipment', 'create_reshipment'],
      ['send_email'],
    ]);
    // Each task starts at the line of its request (line 1 is the system prompt).
    expect(lines.records.map((r) => r.line)).toEqual([2, 12]);
    // GET /threads/{id}/history: every checkpoint holds the messages so far; the fullest one is read, once.
    const older = { ...state, values: { messages: messages.slice(0, 4) } };
    const history = parseText(JSON.stringify([state, older]), 'history.json');
    expect(history.problems).toEqual([]);
    expect(history.sessions.map((s) => s.id)).toEqual([
      '4e1b7f0c-9a43-4c7e-b3f6-0d5a8e2c1b77',
      '4e1b7f0c-9a43-4c7e-b3f6-0d5a8e2c1b77#2',
    ]);
    expect(history.sessions.map(steps)).toEqual(lines.sessions.map(steps));
  });

  it('a call without a name is a problem naming its field; another format asked for names this one', () => {
    const state = JSON.parse(fixture('langgraph-thread-state.json')) as {
      values: { messages: { tool_calls?: Record<string, unknown>[] }[] };
    };
    delete state.values.messages[8].tool_calls?.[0].name;
    const broken = parseText(JSON.stringify(state), 'broken.json');
    expect(broken.problems.map((x) => [x.path, x.reason])).toEqual([
      ['values.messages[8].tool_calls[0]', 'values.messages[8].tool_calls[0].name: missing'],
    ]);
    expect(broken.sessions.map(steps)).toEqual([
      ['get_order_status', 'track_shipment!', 'track_shipment'],
      ['send_email'],
    ]);
    const forced = parse('langchain-chat-history.json', { format: 'langchain-messages' });
    expect(forced.problems).toEqual([]);
    expect(forced.sessions).toHaveLength(1);
    for (const [format, reason] of [
      ['openai', 'this is a LangChain / LangGraph conversation, not OpenAI chat messages'],
      ['langchain', 'this is a LangChain / LangGraph conversation, not LangChain / LangSmith runs'],
    ] as const) {
      const wrong = parse('langchain-chat-history.json', { format });
      expect(wrong.sessions).toEqual([]);
      expect(wrong.problems.map((x) => x.reason)).toEqual([`${reason}: use --format langchain-messages or auto`]);
    }
    const chatOnly = JSON.stringify([
      { type: 'human', content: 'hi' },
      { type: 'ai', content: 'Hello!', tool_calls: [], invalid_tool_calls: [] },
    ]);
    // A chat without a call yet (the agent only answered) is read, and its request said to be left out.
    const none = parseText(chatOnly, 'chat.json', { format: 'langchain-messages' });
    expect(none.sessions).toEqual([]);
    expect(none.problems).toEqual([]);
    expect(none.notes.map((x) => x.reason)).toEqual([expect.stringMatching(/^1 request\(s\) without a tool call/)]);
    // Messages of other kinds are no LangChain conversation.
    const other = parseText(JSON.stringify([{ type: 'note', content: 'x' }]), 'x.json', {
      format: 'langchain-messages',
    });
    expect(other.problems.map((x) => x.reason)).toEqual([expect.stringMatching(/^expected LangChain messages/)]);
  });
});

describe('a conversation without an id of its own, sent again as it grows', () => {
  const lists: [string, string, (raw: any) => unknown[], number][] = [
    ['pydantic-ai-messages.json', 'pydantic-ai', (raw) => raw, 6],
    ['ai-sdk-ui-messages.json', 'ai-sdk', (raw) => raw.messages, 2],
    ['langgraph-thread-state.json', 'langchain-messages', (raw) => raw.values.messages, 11],
  ];
  it.each(lists)(
    '%s: its finished tasks keep their ids, and a log that differs before a task never shares it',
    (name, format, messagesOf, firstTaskEnd) => {
      const messages = messagesOf(JSON.parse(fixture(name)));
      const whole = parseText(JSON.stringify(messages), 'whole.json');
      const early = parseText(JSON.stringify(messages.slice(0, firstTaskEnd)), 'early.json');
      expect(whole.problems).toEqual([]);
      expect(early.problems).toEqual([]);
      expect(whole.format).toBe(format);
      expect(early.sessions).toHaveLength(1);
      // The first task, finished when the log was first sent, has the same id in the grown log: stored once.
      expect(whole.sessions[0].id).toBe(early.sessions[0].id);
      expect(whole.sessions[0].id).toMatch(new RegExp(`^${format}:[0-9a-f]{20}$`));
      expect(whole.sessions[1].id).toMatch(new RegExp(`^${format}:[0-9a-f]{20}#2$`));
      // Another conversation whose first request differs names its later tasks apart too.
      const first = whole.sessions[0].goal.slice(0, 20);
      const changed = parseText(JSON.stringify(messages).replace(first, 'Another request:'), 'other.json');
      expect(changed.sessions.map((s) => s.id)).toHaveLength(whole.sessions.length);
      for (const [i, s] of changed.sessions.entries()) expect(s.id).not.toBe(whole.sessions[i].id);
    },
  );
});

describe('a conversation logged again each time it grew', () => {
  const NOTE =
    /^\d+ record\(s\) were earlier snapshots of a later record \(the same conversation with fewer messages\): each conversation was read once, at its fullest$/;

  it('a request log (every chat-completions request with all its messages so far), two agents interleaved: each read once', () => {
    const [first, second] = fixture('openai-conversations.jsonl')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l).messages as { role: string }[]);
    // A request goes out after each user or tool message; a proxy logs the two agents' requests as they come.
    const requests = (messages: { role: string }[]) =>
      messages.flatMap((m, k) =>
        m.role === 'user' || m.role === 'tool' ? [{ model: 'gpt-4.1', messages: messages.slice(0, k + 1) }] : [],
      );
    const a = requests(first);
    const b = requests(second);
    const log = [...a, ...b].sort((x, y) => x.messages.length - y.messages.length);
    const jsonl = (records: unknown[]) => `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
    const p = parseText(jsonl(log), 'requests.jsonl');
    expect(p.problems).toEqual([]);
    // The same sessions as the two fullest requests alone give.
    const fullest = parseText(jsonl([a[a.length - 1], b[b.length - 1]]), 'fullest.jsonl');
    expect(fullest.sessions).toHaveLength(2);
    const view = (x: typeof p) => x.sessions.map((s) => [s.id, s.goal, steps(s)]).sort();
    expect(view(p)).toEqual(view(fullest));
    expect(p.notes.map((n) => n.reason)).toEqual([expect.stringMatching(NOTE)]);
    expect(p.notes[0].reason).toMatch(new RegExp(`^${a.length + b.length - 2} record`));
  });

  it('session records that carry messages besides their steps are never snapshots of each other', () => {
    const messages = [
      { role: 'user', content: 'Cancel #W1' },
      { role: 'assistant', content: 'Done.' },
    ];
    const step = { tool: 'cancel_pending_order', args: { order_id: '#W1' }, result: 'ok', ok: true };
    const records = [
      { session_id: 'trial-1', goal: 'Cancel #W1', success: false, steps: [step], messages: messages.slice(0, 1) },
      { session_id: 'trial-2', goal: 'Cancel #W1', success: true, steps: [step], messages },
    ];
    const p = parseText(records.map((r) => JSON.stringify(r)).join('\n'), 'trials.jsonl');
    expect(p.problems).toEqual([]);
    expect(p.sessions.map((x) => x.id)).toEqual(['trial-1', 'trial-2']);
    expect(p.notes).toEqual([]);
  });

  it('a LangGraph values stream (the whole state after each step, one per line, or as a JSON array) stores each task once', () => {
    const { messages } = JSON.parse(fixture('langgraph-thread-state.json')).values as { messages: unknown[] };
    const states = [3, 4, 6, 8, 10, 11, 12, 14, 15].map((k) => ({ messages: messages.slice(0, k) }));
    for (const text of [`${states.map((s) => JSON.stringify(s)).join('\n')}\n`, JSON.stringify(states)]) {
      const p = parseText(text, 'values.jsonl');
      expect(p.problems).toEqual([]);
      expect(p.sessions.map(steps)).toEqual([
        ['get_order_status', 'track_shipment!', 'track_shipment', 'create_reshipment'],
        ['send_email'],
      ]);
      expect(p.notes.map((n) => n.reason)).toEqual([expect.stringMatching(/^8 record\(s\) were earlier snapshots/)]);
    }
  });
});

describe('logged model calls (an LLM gateway or a logging wrapper: the messages sent and the answer)', () => {
  it("LiteLLM's standard logging payloads of two agents, interleaved: one session each, with the final answer", () => {
    const p = parse('litellm-standard-logging.jsonl');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('openai');
    const byGoal = Object.fromEntries(p.sessions.map((s, i) => [s.goal, { s, answer: p.records[i].finalAnswer }]));
    const mfa = byGoal["Reset the MFA device for jdoe, she lost her phone. Tell her when it's done."];
    expect(steps(mfa.s)).toEqual(['lookup_user', 'reset_mfa!', 'list_mfa_enrolments', 'reset_mfa', 'send_message']);
    expect(mfa.s.calls[1].error).toBe('Error: device id must be the enrolment id, e.g. enr_...');
    expect(mfa.s.calls[3].args).toEqual({ user_id: 'U-2291', device: 'enr_71c2' });
    // The answer is only in the last call's response: it is read.
    expect(mfa.answer).toMatch(/^Done: Jane's MFA enrolment enr_71c2 is reset/);
    const incident = byGoal["What's the status of incident INC-4471?"];
    expect(steps(incident.s)).toEqual(['get_incident']);
    expect(incident.answer).toBe('INC-4471 was resolved on 3 November at 16:20 UTC.');
    expect(p.notes.map((n) => n.reason)).toEqual([expect.stringMatching(/^5 record\(s\) were earlier snapshots/)]);
    // As a JSON array of payloads, the same.
    const rows = fixture('litellm-standard-logging.jsonl')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l));
    const asArray = parseText(JSON.stringify(rows), 'calls.json');
    expect(asArray.problems).toEqual([]);
    expect(asArray.sessions.map((s) => s.id).sort()).toEqual(p.sessions.map((s) => s.id).sort());
  });

  it('{request, response} pairs of the Anthropic Messages API: the system beside the messages, tool_use answered by the next request', () => {
    const system = 'You manage the team calendar.';
    const sent = [{ role: 'user', content: 'Book room Orion for the design review on Friday at 10.' }];
    const use = {
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'toolu_1', name: 'book_room', input: { room: 'Orion', start: '2025-11-14T10:00' } },
      ],
    };
    const result = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'booked: BK-310' }],
    };
    const pairs = [
      {
        request: { model: 'claude-sonnet-4-5', system, messages: sent },
        response: { id: 'msg_1', type: 'message', ...use, stop_reason: 'tool_use' },
      },
      {
        request: { model: 'claude-sonnet-4-5', system, messages: [...sent, use, result] },
        response: {
          id: 'msg_2',
          type: 'message',
          role: 'assistant',
          content: [{ type: 'text', text: 'Orion is booked (BK-310).' }],
          stop_reason: 'end_turn',
        },
      },
    ];
    const p = parseText(pairs.map((x) => JSON.stringify(x)).join('\n'), 'anthropic-calls.jsonl');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('anthropic');
    expect(p.sessions.map((s) => [s.goal, steps(s)])).toEqual([
      ['Book room Orion for the design review on Friday at 10.', ['book_room']],
    ]);
    expect(p.sessions[0].calls[0].result).toBe('booked: BK-310');
    expect(p.records[0].finalAnswer).toBe('Orion is booked (BK-310).');
  });
});

describe('a request the agent asks about before it acts, and small talk after', () => {
  it('LangChain messages: the answer to the question back joins the goal; the thanks is a note, redacted', () => {
    const chat = [
      { type: 'human', content: "Hi! I'd like to cancel an order I placed yesterday." },
      { type: 'ai', content: 'Sure. Could you give me your email and the order number?', tool_calls: [] },
      { type: 'human', content: 'mia.li3818@example.com, order #W2378156' },
      {
        type: 'ai',
        content: '',
        tool_calls: [{ name: 'find_user_by_email', args: { email: 'mia.li3818@example.com' }, id: 'c1' }],
      },
      { type: 'tool', content: '{"user_id": "mia_li_3668"}', tool_call_id: 'c1' },
      {
        type: 'ai',
        content: '',
        tool_calls: [{ name: 'cancel_pending_order', args: { order_id: '#W2378156' }, id: 'c2' }],
      },
      { type: 'tool', content: '{"status": "cancelled"}', tool_call_id: 'c2' },
      { type: 'ai', content: 'Your order #W2378156 is cancelled.', tool_calls: [] },
      { type: 'human', content: 'Great, thanks! Send the receipt to mia.li3818@example.com' },
      { type: 'ai', content: 'It is on its way.', tool_calls: [] },
    ];
    const p = parseText(JSON.stringify(chat), 'chat.json', { privacy: resolvePrivacy() });
    expect(p.problems).toEqual([]);
    expect(p.sessions.map((s) => [s.goal, steps(s)])).toEqual([
      [
        "Hi! I'd like to cancel an order I placed yesterday.\n[REDACTED:email], order #W2378156",
        ['find_user_by_email', 'cancel_pending_order'],
      ],
    ]);
    expect(p.notes.map((n) => n.reason)).toEqual([
      '1 request(s) without a tool call (answered without one, or not acted on yet) were not stored, as they hold no procedure to learn ("Great, thanks! Send the receipt to [REDACTED:email]")',
    ]);
  });

  it('a Claude Code transcript: the same rule, with its own session numbering', () => {
    const base = { sessionId: 's-1', cwd: '/repo', version: '2.1.39', isSidechain: false };
    const lines = [
      {
        type: 'user',
        message: { role: 'user', content: 'The release build fails.' },
        uuid: 'u1',
        timestamp: '2025-11-04T09:00:00Z',
      },
      {
        type: 'assistant',
        message: { role: 'assistant', content: [{ type: 'text', text: 'Which target: web or cli?' }] },
        uuid: 'a1',
        timestamp: '2025-11-04T09:00:02Z',
      },
      { type: 'user', message: { role: 'user', content: 'cli' }, uuid: 'u2', timestamp: '2025-11-04T09:00:10Z' },
      {
        type: 'assistant',
        message: {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm run build:cli' } }],
        },
        uuid: 'a2',
        timestamp: '2025-11-04T09:00:12Z',
      },
      {
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'built in 4s' }] },
        uuid: 'u3',
        timestamp: '2025-11-04T09:00:20Z',
      },
      {
        type: 'assistant',
        message: { role: 'assistant', content: [{ type: 'text', text: 'It builds now.' }] },
        uuid: 'a3',
        timestamp: '2025-11-04T09:00:22Z',
      },
      { type: 'user', message: { role: 'user', content: 'thanks!' }, uuid: 'u4', timestamp: '2025-11-04T09:01:00Z' },
      {
        type: 'assistant',
        message: { role: 'assistant', content: [{ type: 'text', text: 'Anytime.' }] },
        uuid: 'a4',
        timestamp: '2025-11-04T09:01:01Z',
      },
    ].map((l) => JSON.stringify({ ...base, ...l }));
    const p = parseText(`${lines.join('\n')}\n`, 'session.jsonl');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('claude-code');
    expect(p.sessions.map((s) => [s.id, s.goal, steps(s)])).toEqual([
      ['claude-code:s-1', 'The release build fails.\ncli', ['Bash']],
    ]);
    expect(p.notes.map((n) => [n.line, n.reason])).toEqual([
      [
        7,
        '1 request(s) without a tool call (answered without one, or not acted on yet) were not stored, as they hold no procedure to learn ("thanks!")',
      ],
    ]);
  });
});

describe('OpenAI and Anthropic conversations of several requests', () => {
  const openai = [
    { role: 'system', content: 'You are a support agent.' },
    { role: 'user', content: 'I need to change the address on my order.' },
    { role: 'assistant', content: 'Sure, which order, and what is the new address?' },
    { role: 'user', content: 'Order #W100, to 12 Elm St, Springfield' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'get_order_details', arguments: '{"order_id": "#W100"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'c1', content: '{"status": "pending"}' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'c2',
          type: 'function',
          function: {
            name: 'modify_pending_order_address',
            arguments: '{"order_id": "#W100", "address1": "12 Elm St"}',
          },
        },
      ],
    },
    { role: 'tool', tool_call_id: 'c2', content: '{"status": "pending", "address1": "12 Elm St"}' },
    { role: 'assistant', content: 'The address of #W100 is now 12 Elm St.' },
    { role: 'user', content: 'Thanks! Also cancel order #W200, I ordered it twice.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'c3',
          type: 'function',
          function: {
            name: 'cancel_pending_order',
            arguments: '{"order_id": "#W200", "reason": "ordered by mistake"}',
          },
        },
      ],
    },
    { role: 'tool', tool_call_id: 'c3', content: '{"status": "cancelled"}' },
    { role: 'assistant', content: '#W200 is cancelled.' },
    { role: 'user', content: 'Perfect, thank you!' },
    { role: 'assistant', content: 'Glad to help!' },
  ];

  it('an OpenAI chat: one session per request, the answer to a question back in its goal, the thanks left out', () => {
    const p = parseText(JSON.stringify({ messages: openai }), 'chat.json');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('openai');
    expect(p.sessions.map((s) => [s.goal, steps(s)])).toEqual([
      [
        'I need to change the address on my order.\nOrder #W100, to 12 Elm St, Springfield',
        ['get_order_details', 'modify_pending_order_address'],
      ],
      ['Thanks! Also cancel order #W200, I ordered it twice.', ['cancel_pending_order']],
    ]);
    expect(p.records.map((r) => r.finalAnswer)).toEqual([
      'The address of #W100 is now 12 Elm St.',
      '#W200 is cancelled.',
    ]);
    expect(p.notes.map((n) => n.reason)).toEqual([
      '1 request(s) without a tool call (answered without one, or not acted on yet) were not stored, as they hold no procedure to learn ("Perfect, thank you!")',
    ]);
    // Without an id, each task is named by the messages up to its end: the chat sent before its second request
    // names its first task alike, and a conversation of one task keeps the id a whole conversation had.
    const [first, second] = p.sessions.map((s) => s.id);
    expect(first).toMatch(/^openai:[0-9a-f]{20}$/);
    expect(second).toMatch(/^openai:[0-9a-f]{20}#2$/);
    const early = parseText(JSON.stringify({ messages: openai.slice(0, 9) }), 'early.json');
    expect(early.sessions.map((s) => s.id)).toEqual([first]);
    // With an id of its own: <id>, <id>#2.
    const named = parseText(JSON.stringify({ id: 'chat-7', messages: openai }), 'named.json');
    expect(named.sessions.map((s) => s.id)).toEqual(['chat-7', 'chat-7#2']);
  });

  it('a conversation that names its goal is one task, as a benchmark trajectory is', () => {
    const p = parseText(JSON.stringify({ goal: 'Fix the orders of customer 42', messages: openai }), 'goal.json');
    expect(p.problems).toEqual([]);
    expect(p.sessions.map((s) => [s.goal, steps(s)])).toEqual([
      ['Fix the orders of customer 42', ['get_order_details', 'modify_pending_order_address', 'cancel_pending_order']],
    ]);
    expect(p.notes).toEqual([]);
  });

  it('an Anthropic conversation splits the same way; a user turn holding only tool results is no request', () => {
    const messages = [
      { role: 'user', content: 'Restart the payments worker.' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't1', name: 'restart_service', input: { name: 'payments-worker' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'restarted' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Restarted.' }] },
      { role: 'user', content: 'Now show me its last 20 log lines.' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't2', name: 'tail_logs', input: { name: 'payments-worker', lines: 20 } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'ok: listening on :8080' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'It is listening on :8080.' }] },
    ];
    const p = parseText(JSON.stringify({ system: 'You run the ops tools.', messages }), 'ops.json');
    expect(p.problems).toEqual([]);
    expect(p.format).toBe('anthropic');
    expect(p.sessions.map((s) => [s.id.replace(/[0-9a-f]{20}/, 'H'), s.goal, steps(s)])).toEqual([
      ['anthropic:H', 'Restart the payments worker.', ['restart_service']],
      ['anthropic:H#2', 'Now show me its last 20 log lines.', ['tail_logs']],
    ]);
  });
});
