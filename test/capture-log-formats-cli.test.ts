import Database from 'better-sqlite3';
import { execFileSync, spawnSync } from 'node:child_process';
import { constants } from 'node:buffer';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { runCli } from './support/surfaces.js';

/** `skillsmith ingest` on the agent logs people have, through the real CLI: what is stored, and the exit code. */

const ROOT = new URL('..', import.meta.url).pathname;
const CLI = join(ROOT, 'dist', 'surfaces', 'cli', 'main.js');
const FIX = join(ROOT, 'test', 'fixtures', 'capture');
let tmp: string;
let n = 0;

const cli = (args: string[], input?: string) => runCli(args, tmp, input);

function calls(db: string): { session_id: string; tool: string; ok: number }[] {
  const raw = new Database(db, { readonly: true });
  try {
    return raw.prepare('SELECT session_id, tool, ok FROM tool_calls ORDER BY session_id, position').all() as {
      session_id: string;
      tool: string;
      ok: number;
    }[];
  } finally {
    raw.close();
  }
}

/** Each session's outcome and where it came from, in the order they were stored. */
function outcomes(db: string): [string, string][] {
  const raw = new Database(db, { readonly: true });
  try {
    return (
      raw.prepare('SELECT outcome, outcome_source FROM sessions ORDER BY seq').all() as Record<string, string>[]
    ).map((r) => [r.outcome, r.outcome_source]);
  } finally {
    raw.close();
  }
}

beforeAll(() => {
  if (!existsSync(CLI)) execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  tmp = mkdtempSync(join(tmpdir(), 'skillsmith-logs-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('skillsmith ingest: real agent logs', () => {
  it.each([
    ['claude-code-session.jsonl', 'claude-code', 3, 7],
    ['codex-rollout.jsonl', 'codex', 2, 5],
    ['openai-agents-history.json', 'openai-agents', 1, 4],
    ['responses-wrapped-messages.jsonl', 'openai-agents', 2, 5],
    ['langchain-run.json', 'langchain', 1, 4],
    ['langsmith-runs.jsonl', 'langchain', 1, 3],
    ['otel-traceloop-openai.jsonl', 'otel', 1, 2],
    ['otel-chat-messages.json', 'otel', 1, 3],
    // The logs of issue 28: current Claude Code and Codex, the JavaScript Agents SDK, Responses objects, OTel
    // agent spans without content.
    ['claude-code-2.1.jsonl', 'claude-code', 2, 8],
    ['codex-rollout-0.104.jsonl', 'codex', 2, 5],
    ['openai-agents-js-history.json', 'openai-agents', 1, 4],
    ['openai-agents-js-items.jsonl', 'openai-agents', 1, 2],
    ['openai-agents-js-run-state.json', 'openai-agents', 1, 2],
    ['responses-api-objects.json', 'openai-agents', 1, 2],
    ['otel-openai-agents-no-content.json', 'otel', 1, 3],
    // Gemini CLI, as it writes sessions now (JSONL) and before (one document), and a /chat save checkpoint.
    ['gemini-cli-session.jsonl', 'gemini', 2, 7],
    ['gemini-cli-session-legacy.json', 'gemini', 1, 4],
    ['gemini-chat-checkpoint.json', 'gemini', 1, 2],
    // Vercel AI SDK: a saved chat of UI messages, model messages, and AI SDK 4 messages one per line.
    ['ai-sdk-ui-messages.json', 'ai-sdk', 3, 6],
    ['ai-sdk-model-messages.json', 'ai-sdk', 1, 4],
    ['ai-sdk-v4-messages.jsonl', 'ai-sdk', 2, 4],
    ['ai-sdk-mastra-messages.json', 'ai-sdk', 1, 2],
    // Pydantic AI: a history of two runs, as ModelMessagesTypeAdapter.dump_json writes it.
    ['pydantic-ai-messages.json', 'pydantic-ai', 2, 4],
    // AutoGen AgentChat: a TaskResult whose user proxy asked a second task.
    ['autogen-task-result.json', 'autogen', 2, 5],
    // Google ADK: a session as its session services keep it.
    ['google-adk-session.json', 'gemini', 1, 3],
    // LangChain messages: a LangGraph server thread state, a saved chat history, a LangGraph.js state.
    ['langgraph-thread-state.json', 'langchain-messages', 2, 5],
    ['langchain-chat-history.json', 'langchain-messages', 1, 3],
    ['langgraphjs-state.json', 'langchain-messages', 1, 5],
    // An LLM gateway's log of every model call (LiteLLM): each conversation once, at its fullest.
    ['litellm-standard-logging.jsonl', 'openai', 2, 6],
  ])('%s: detected as %s, %i session(s) and %i tool calls stored, exit 0', (file, format, sessions, toolCalls) => {
    const db = join(tmp, `m${++n}.db`);
    const r = cli(['ingest', join(FIX, file), '--db', db, '--judge', 'off']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `${sessions} session${sessions === 1 ? '' : 's'} stored, 0 already present (${format}, auto-detected)`,
    );
    expect(calls(db)).toHaveLength(toolCalls);
  });

  it.each([
    ['otel-openai-no-content.jsonl', /chat span\(s\), 1 finishing with tool_calls, but no tool call is recorded/],
    ['unknown-shape.jsonl', /no known format matches this record \(keys: event, url, ts\)/],
  ])('%s: nothing to store is an error (exit 1) naming what was found', (file, reason) => {
    const db = join(tmp, `m${++n}.db`);
    const r = cli(['ingest', join(FIX, file), '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(reason);
    expect(r.stdout).toMatch(/0 sessions stored/);
  });

  it('- reads the log from standard input (ingest, --dry-run and learn), named stdin; twice is a usage error', () => {
    const chat = readFileSync(join(FIX, 'ai-sdk-ui-messages.json'), 'utf8');
    const db = join(tmp, `m${++n}.db`);
    const dry = cli(['ingest', '-', '--dry-run', '--db', db], chat);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(
      'stdin: dry run, nothing stored: 3 session(s) with 6 tool call(s) would be stored (ai-sdk, auto-detected)',
    );
    expect(existsSync(db)).toBe(false);
    const r = cli(['ingest', '-', '--db', db, '--judge', 'off', '--json'], chat);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject([{ file: 'stdin', format: 'ai-sdk', inserted: 3 }]);
    expect(calls(db)).toHaveLength(6);
    // A broken record from standard input is named as stdin:LINE.
    const bad = cli(['ingest', '-', '--db', db], '{"broken\n');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^stdin:1: not valid JSON/m);
    const twice = cli(['ingest', '-', '-', '--db', db], chat);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('- (standard input) can be read only once');
    // learn reads it the same way, then learns.
    const learned = cli(['learn', '-', '--db', join(tmp, `m${++n}.db`), '--judge', 'off'], chat);
    expect(learned.code).toBe(0);
    expect(learned.stdout).toContain('Ingested stdin: 3 new sessions, 0 already present.');
  });

  it('reads a gzip-compressed log, named or in a directory, as log rotation leaves them', () => {
    const dir = join(tmp, `gz${++n}`);
    mkdirSync(dir);
    const gz = join(dir, 'rollout-old.jsonl.gz');
    writeFileSync(gz, gzipSync(readFileSync(join(FIX, 'codex-rollout.jsonl'))));
    const db = join(tmp, `m${++n}.db`);
    const dry = cli(['ingest', gz, '--dry-run', '--db', db]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('2 session(s) with 5 tool call(s) would be stored (codex, auto-detected)');
    const r = cli(['ingest', dir, '--db', db, '--judge', 'off']);
    expect(r.code).toBe(0);
    expect(calls(db)).toHaveLength(5);
    // A file that only starts like one is named as such.
    const broken = join(dir, 'cut.jsonl.gz');
    writeFileSync(broken, gzipSync(readFileSync(join(FIX, 'codex-rollout.jsonl'))).subarray(0, 20));
    const bad = cli(['ingest', broken, '--db', db]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('a gzip file that does not decompress');
  });

  it('a log larger than one string can hold is refused by name and size, not a V8 "Invalid string length"', () => {
    const dir = join(tmp, `huge${++n}`);
    mkdirSync(dir);
    // A sparse file: 512 MB on disk costs nothing, and the refusal reads none of it.
    const big = join(dir, 'session.jsonl');
    const fd = openSync(big, 'w');
    ftruncateSync(fd, constants.MAX_STRING_LENGTH + 1);
    closeSync(fd);
    const db = join(tmp, `m${++n}.db`);
    for (const args of [
      ['ingest', big, '--db', db],
      ['ingest', '--dry-run', big],
    ]) {
      const r = cli(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${big}:1: is 536,870,889 bytes, more than the 536,870,888 a log may hold`);
      expect(r.stderr).toContain('split it between tasks');
      expect(r.stderr).not.toContain('Cannot create a string');
    }
    // Compressed, it is read line by line as it decompresses: its one line, longer than a string, is one problem.
    const gz = join(dir, 'rollout.jsonl.gz');
    writeFileSync(gz, gzipSync(Buffer.alloc(constants.MAX_STRING_LENGTH + 1, 0x20), { level: 1 }));
    const r = cli(['ingest', '--dry-run', gz]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${gz}:1: record is 536870889 bytes, over the 4194304-byte limit`);
    expect(r.stderr).not.toContain('Cannot create a string');
  });

  it('a folder with a log that cannot be read still stores the logs after it, and names that one', () => {
    // Where agents keep their logs, one file too large or cut short must not keep the rest out.
    const dir = join(tmp, `mixed${++n}`);
    mkdirSync(dir);
    copyFileSync(join(FIX, 'codex-rollout.jsonl'), join(dir, 'a-rollout.jsonl'));
    const big = join(dir, 'b-huge.jsonl');
    const fd = openSync(big, 'w');
    ftruncateSync(fd, constants.MAX_STRING_LENGTH + 1);
    closeSync(fd);
    const cut = join(dir, 'c-cut.jsonl.gz');
    writeFileSync(cut, gzipSync(readFileSync(join(FIX, 'claude-code-session.jsonl'))).subarray(0, 20));
    copyFileSync(join(FIX, 'claude-code-two-tasks.jsonl'), join(dir, 'd-claude.jsonl'));
    const alone = join(tmp, `m${++n}.db`);
    expect(cli(['ingest', join(dir, 'd-claude.jsonl'), '--db', alone, '--judge', 'off']).code).toBe(0);
    const expected = calls(alone).length;
    expect(expected).toBeGreaterThan(0);

    const db = join(tmp, `m${++n}.db`);
    const r = cli(['ingest', dir, '--db', db, '--judge', 'off']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${big}: not read (below)`);
    expect(r.stdout).toContain(`${join(dir, 'd-claude.jsonl')}: `);
    expect(r.stderr).toContain(`${big}:1: is 536,870,889 bytes, more than the 536,870,888 a log may hold`);
    expect(r.stderr).toContain(`${cut}:1: a gzip file that does not decompress`);
    // Both readable logs are stored: the rollout's 5 calls and the transcript's, as when it is ingested alone.
    expect(calls(db)).toHaveLength(5 + expected);

    // --json: one result per file, the unread ones with their one problem and nothing stored.
    const json = cli(['ingest', dir, '--db', join(tmp, `m${++n}.db`), '--judge', 'off', '--json']);
    expect(json.code).toBe(1);
    const results = JSON.parse(json.stdout) as {
      file: string;
      format: string;
      inserted: number;
      problems: unknown[];
    }[];
    expect(results.map((x) => [x.file, x.format, x.inserted > 0, x.problems.length])).toEqual([
      [join(dir, 'a-rollout.jsonl'), 'codex', true, 0],
      [big, 'unread', false, 1],
      [cut, 'unread', false, 1],
      [join(dir, 'd-claude.jsonl'), 'claude-code', true, 0],
    ]);

    // A dry run reads on past them too, and learn stores what ingest would.
    const dry = cli(['ingest', '--dry-run', dir]);
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain('2 session(s) with 5 tool call(s) would be stored (codex, auto-detected)');
    expect(dry.stdout).toContain(`${cut}: not read (below)`);
    const learned = join(tmp, `m${++n}.db`);
    const learn = cli(['learn', dir, '--db', learned, '--judge', 'off']);
    expect(learn.code).toBe(1);
    expect(learn.stderr).toContain(`${big}:1: is 536,870,889 bytes`);
    expect(calls(learned)).toHaveLength(5 + expected);
  });

  it('a file or folder below it that this account may not read is named, and the rest is read', () => {
    // As root, file modes bind nobody: the CLI then runs as the unprivileged user nobody (setpriv).
    const asRoot = process.getuid?.() === 0;
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-perm-'));
    try {
      chmodSync(dir, 0o755);
      copyFileSync(join(FIX, 'codex-rollout.jsonl'), join(dir, 'a-rollout.jsonl'));
      const closed = join(dir, 'b-closed.jsonl');
      copyFileSync(join(FIX, 'codex-rollout.jsonl'), closed);
      chmodSync(closed, 0o000);
      const locked = join(dir, 'c-locked');
      mkdirSync(locked);
      copyFileSync(join(FIX, 'claude-code-session.jsonl'), join(locked, 'inside.jsonl'));
      chmodSync(locked, 0o700);
      if (!asRoot) chmodSync(locked, 0o000);
      const main = join(ROOT, 'dist', 'surfaces', 'cli', 'main.js');
      const argv = ['ingest', '--dry-run', dir];
      const [cmd, args] = asRoot
        ? ['setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, main, ...argv]]
        : [process.execPath, [main, ...argv]];
      const r = spawnSync(cmd, args, { cwd: dir, encoding: 'utf8', env: { ...process.env, HOME: dir } });
      if (!asRoot) chmodSync(locked, 0o700);
      expect(r.status).toBe(1);
      expect(r.stdout).toContain(`note: ${dir}: left out 1 folder(s) below it that cannot be read (${locked})`);
      expect(r.stdout).toContain('2 session(s) with 5 tool call(s) would be stored (codex, auto-detected)');
      expect(r.stderr).toContain(`${closed}:1: cannot be read (permission denied): nothing was read from it`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a task with more calls than a session may hold names the setting that raises the limit', () => {
    const dir = join(tmp, `long${++n}`);
    mkdirSync(dir);
    const config = join(dir, 'skillsmith.config.json');
    writeFileSync(config, JSON.stringify({ capture: { maxCallsPerSession: 2 } }));
    const sid = '5b2e7c1d-3d4b-4f0e-9a61-2b8c5d7e1f03';
    const lines: object[] = [];
    const line = (type: string, message: object) =>
      lines.push({ type, sessionId: sid, uuid: `u${lines.length}`, timestamp: '2026-02-12T16:02:00.000Z', message });
    line('user', { role: 'user', content: 'Rename the config loader across the repository' });
    for (let i = 0; i < 3; i++) {
      line('assistant', {
        role: 'assistant',
        content: [{ type: 'tool_use', id: `t${i}`, name: 'Read', input: { i } }],
      });
      line('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'ok' }] });
    }
    line('assistant', { role: 'assistant', content: [{ type: 'text', text: 'Renamed.' }] });
    const file = join(dir, `${sid}.jsonl`);
    writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    for (const args of [
      ['ingest', file, '--config', config, '--db', join(tmp, `m${++n}.db`)],
      ['ingest', join(dir, 'steps.jsonl'), '--config', config, '--db', join(tmp, `m${++n}.db`)],
    ]) {
      if (args[1]!.endsWith('steps.jsonl'))
        writeFileSync(
          args[1]!,
          `${JSON.stringify({ session_id: 's1', goal: 'Rename the loader', steps: [1, 2, 3].map((i) => ({ tool: 'read', args: { i } })) })}\n`,
        );
      const r = cli(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('3 calls exceed the limit of 2 per session (capture.maxCallsPerSession)');
    }
  });

  it('learn says the notes of what it read, and offers an export only when it learned a skill', () => {
    const chat = JSON.stringify({
      messages: [
        { role: 'user', content: 'Restart the payments worker.' },
        {
          role: 'assistant',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'restart', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'restarted' },
        { role: 'assistant', content: 'Restarted.' },
        { role: 'user', content: 'Thanks!' },
        { role: 'assistant', content: 'Anytime.' },
      ],
    });
    const r = cli(['learn', '-', '--db', join(tmp, `m${++n}.db`), '--judge', 'off'], chat);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Ingested stdin: 1 new session, 0 already present.');
    expect(r.stdout).toMatch(/^ {2}note: line 1: 1 request\(s\) without a tool call .*\("Thanks!"\)$/m);
    // One session teaches nothing yet: no export to offer.
    expect(r.stdout).not.toContain('Export the SKILL.md files');
  });

  it('sessions list and show say which outcomes the judge gave, and --json carries outcomeSource', () => {
    const db = join(tmp, `m${++n}.db`);
    expect(cli(['ingest', join(FIX, 'langchain-chat-history.json'), '--db', db, '--judge', 'rule']).code).toBe(0);
    const list = cli(['sessions', 'list', '--db', db]);
    expect(list.stdout).toMatch(/^ {2}langchain-messages:[0-9a-f]{20} \[success \(judged\), 3 calls\] Move my 1:1/m);
    const [item] = JSON.parse(cli(['sessions', 'list', '--db', db, '--json']).stdout).items;
    expect(item).toMatchObject({ outcome: 'success', outcomeSource: 'judged' });
    expect(cli(['sessions', 'show', item.id, '--db', db]).stdout).toContain('outcome: success (judged)');
    // Read again, nothing is stored, so nothing is judged (with --judge llm, no model call is spent on it).
    const again = cli(['ingest', join(FIX, 'langchain-chat-history.json'), '--db', db, '--judge', 'rule', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject([{ inserted: 0, skipped: 1, judged: { judged: 0 } }]);
    // An outcome the log reported is shown as it is.
    const tau = join(tmp, `m${++n}.db`);
    expect(cli(['ingest', join(FIX, 'tau-bench-results.json'), '--db', tau]).code).toBe(0);
    const reported = JSON.parse(cli(['sessions', 'list', '--db', tau, '--json']).stdout).items;
    expect(reported.every((s: { outcomeSource: string }) => s.outcomeSource === 'reported')).toBe(true);
    expect(cli(['sessions', 'list', '--db', tau]).stdout).not.toContain('(judged)');
  });

  it('an empty file exits 1, and the total says nothing was stored; beside a good file, that the valid ones were', () => {
    const empty = join(tmp, 'empty.jsonl');
    writeFileSync(empty, '\n');
    const db = join(tmp, `m${++n}.db`);
    const r = cli(['ingest', empty, '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('empty.jsonl:1: the file is empty: no session');
    expect(r.stderr).toContain('1 problem(s); nothing was stored.');
    const learned = cli(['learn', empty, join(FIX, 'codex-rollout.jsonl'), '--db', db]);
    expect(learned.code).toBe(1);
    expect(learned.stderr).toContain('1 record(s) rejected; every valid record was stored.');
  });

  it('Responses items forced through --format openai exit 1 instead of storing sessions without calls', () => {
    const r = cli([
      'ingest',
      join(FIX, 'responses-wrapped-messages.jsonl'),
      '--format',
      'openai',
      '--db',
      join(tmp, `m${++n}.db`),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no tool call came out, though the record holds tool-call items/);
  });

  it('--format accepts the new format names; a misfit file is named', () => {
    const r = cli([
      'ingest',
      join(FIX, 'codex-rollout.jsonl'),
      '--format',
      'claude-code',
      '--db',
      join(tmp, `m${++n}.db`),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/expected a Claude Code transcript/);
  });

  it('a Claude Code transcript names the line kinds it read past under the file, with exit 0', () => {
    const r = cli(['ingest', join(FIX, 'claude-code-2.1.jsonl'), '--db', join(tmp, `m${++n}.db`), '--judge', 'off']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      '  note: line 1: skipped 15 line(s) of 8 kind(s) this version of Skillsmith does not read (progress 4, system 3,',
    );
    const json = cli([
      'ingest',
      join(FIX, 'claude-code-2.1.jsonl'),
      '--db',
      join(tmp, `m${++n}.db`),
      '--judge',
      'off',
      '--json',
    ]);
    const [result] = JSON.parse(json.stdout) as { inserted: number; unread: Record<string, number> }[];
    expect(result.inserted).toBe(2);
    expect(result.unread).toMatchObject({ progress: 4, 'file-history-snapshot': 2, 'queue-operation': 2, system: 3 });
  });
});

describe('skillsmith ingest on a transcript that is still being written', () => {
  it('a task stored while the agent was working grows when the transcript is read again; the summary says so', () => {
    const lines = readFileSync(join(FIX, 'claude-code-2.1.jsonl'), 'utf8').split('\n');
    // Cut after the agent's first edit: it has not run the tests nor answered yet.
    const early = join(tmp, 'early.jsonl');
    writeFileSync(early, `${lines.slice(0, 20).join('\n')}\n`);
    const db = join(tmp, `m${++n}.db`);
    const first = cli(['ingest', early, '--db', db, '--judge', 'off']);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/: 1 session stored, 0 already present/);
    const whole = cli(['ingest', join(FIX, 'claude-code-2.1.jsonl'), '--db', db, '--judge', 'off']);
    expect(whole.code).toBe(0);
    expect(whole.stdout).toMatch(/: 1 session stored, 1 grown \(stored before their task ended\), 0 already present/);
    const tools = calls(db).map((c) => c.tool);
    expect(tools).toHaveLength(8);
    expect(tools.filter((t) => t === 'Edit')).toHaveLength(2);
  });
});

describe('skillsmith ingest --hook and learn --hook: a Claude Code Stop hook', () => {
  const hookInput = (path: string) =>
    JSON.stringify({
      session_id: 'ab12',
      transcript_path: path,
      cwd: tmp,
      hook_event_name: 'Stop',
      stop_hook_active: false,
    });

  it('each reply stores the transcript as it stands, silently; the task grows as the agent goes on', () => {
    const lines = readFileSync(join(FIX, 'claude-code-2.1.jsonl'), 'utf8').split('\n');
    const transcript = join(tmp, 'live-transcript.jsonl');
    const db = join(tmp, `m${++n}.db`);
    // Read while Claude Code writes its next line: that line is half there, with no newline after it yet.
    expect(lines[20].length).toBeGreaterThan(80);
    writeFileSync(transcript, `${lines.slice(0, 20).join('\n')}\n${lines[20].slice(0, 60)}`);
    const first = cli(['ingest', '--hook', '--db', db], hookInput(transcript));
    expect([first.code, first.stdout, first.stderr]).toEqual([0, '', '']);
    // One edit in, the tests not run yet, no answer.
    expect(calls(db).map((c) => c.tool)).toEqual(['Bash', 'Read', 'Task', 'Edit']);
    // Read by hand, the same file stores the same and names its last line, saying why it may be unfinished.
    const byHand = cli(['ingest', transcript, '--db', join(tmp, `m${++n}.db`)]);
    expect(byHand.code).toBe(1);
    expect(byHand.stdout).toContain('1 session stored');
    expect(byHand.stderr).toContain(':21: the last line is not complete JSON and has no newline after it');
    // A broken line with lines after it is still a rejected record.
    writeFileSync(transcript, `${lines.slice(0, 20).join('\n')}\n${lines[20].slice(0, 60)}\n${lines[21]}\n`);
    const broken = cli(['ingest', transcript, '--db', join(tmp, `m${++n}.db`)]);
    expect(broken.code).toBe(1);
    expect(broken.stdout + broken.stderr).toContain('21: not valid JSON');
    // After /clear, the second task's calls are in, and the hook runs before its answer is written.
    writeFileSync(transcript, `${lines.slice(0, 38).join('\n')}\n`);
    expect(cli(['ingest', '--hook', '--db', db], hookInput(transcript)).code).toBe(0);
    expect(outcomes(db)).toEqual([
      ['success', 'judged'],
      ['unknown', 'reported'],
    ]);
    writeFileSync(transcript, readFileSync(join(FIX, 'claude-code-2.1.jsonl'), 'utf8'));
    const next = cli(['learn', '--hook', '--db', db], hookInput(transcript));
    expect([next.code, next.stdout, next.stderr]).toEqual([0, '', '']);
    // Grown in place: every call once, and the second task, answered now, judged.
    expect(calls(db)).toHaveLength(8);
    expect(outcomes(db)).toEqual([
      ['success', 'judged'],
      ['success', 'judged'],
    ]);
    // A plain path on stdin (any other wrapper) works too.
    const plain = cli(['ingest', '--hook', '--db', db, '--json'], `${transcript}\n`);
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.stdout)[0]).toMatchObject({ inserted: 0, skipped: 2 });
  });

  it('a Gemini CLI AfterAgent hook hands over its session file the same way: stored, nothing on stdout', () => {
    const db = join(tmp, `m${++n}.db`);
    const input = JSON.stringify({
      session_id: 'g1',
      transcript_path: join(FIX, 'gemini-cli-session.jsonl'),
      cwd: tmp,
      hook_event_name: 'AfterAgent',
      timestamp: '2026-12-05T10:00:00.000Z',
      prompt: 'x',
      prompt_response: 'y',
      stop_hook_active: false,
    });
    const r = cli(['learn', '--hook', '--db', db], input);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
    expect(calls(db)).toHaveLength(7);
  });

  it('learn --hook while another pass holds the memory stores the sessions and stays quiet', async () => {
    const db = join(tmp, `m${++n}.db`);
    const memory = await openMemory({ db, logLevel: 'silent' });
    const release = await memory.parts.store!.tryLock('synthesis:default', 'another-hook', 60_000);
    expect(release).not.toBeNull();
    try {
      const r = cli(['learn', '--hook', '--db', db], hookInput(join(FIX, 'claude-code-2.1.jsonl')));
      expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
      expect(calls(db)).toHaveLength(8);
      expect(await memory.skills.list()).toEqual([]);
    } finally {
      await release!();
      await memory.close();
    }
  });

  it('a session that has written no message yet (no transcript, or only snapshot lines) is nothing to store, quietly', () => {
    const db = join(tmp, `m${++n}.db`);
    const missing = cli(['learn', '--hook', '--db', db], hookInput(join(tmp, 'not-written-yet.jsonl')));
    expect([missing.code, missing.stdout, missing.stderr]).toEqual([0, '', '']);
    const lines = readFileSync(join(FIX, 'claude-code-2.1.jsonl'), 'utf8').split('\n');
    const start = join(tmp, 'session-start.jsonl');
    writeFileSync(start, `${lines.slice(0, 4).join('\n')}\n`);
    const begun = cli(['ingest', '--hook', '--db', db], hookInput(start));
    expect([begun.code, begun.stdout, begun.stderr]).toEqual([0, '', '']);
    writeFileSync(start, '');
    expect(cli(['ingest', '--hook', '--db', db], hookInput(start)).code).toBe(0);
    // A session resumed or cleared: a summary and the caveat of a local command, no request yet.
    const context = readFileSync(join(FIX, 'claude-code-session.jsonl'), 'utf8').split('\n').slice(0, 2);
    writeFileSync(start, `${context.join('\n')}\n`);
    const resumed = cli(['learn', '--hook', '--db', db], hookInput(start));
    expect([resumed.code, resumed.stdout, resumed.stderr]).toEqual([0, '', '']);
    const byHand = cli(['ingest', start, '--db', db]);
    expect(byHand.code).toBe(1);
    expect(byHand.stderr).toMatch(
      /a Claude Code transcript without a request yet \(only context: caveats, commands, summaries\): nothing to store/,
    );
    // Read by hand, the same file is still an error that says why.
    expect(cli(['ingest', start, '--db', db]).code).toBe(1);
    // A transcript path relative to the session's folder is read there.
    writeFileSync(start, readFileSync(join(FIX, 'claude-code-2.1.jsonl'), 'utf8'));
    const relative = JSON.stringify({
      transcript_path: 'session-start.jsonl',
      cwd: tmp,
      hook_event_name: 'SessionEnd',
    });
    expect(cli(['ingest', '--hook', '--db', db, '--json'], relative).stdout).toMatch(/"inserted": 2/);
  });

  it('a hook never exits 2, which Claude Code reads as blocking: bad input is exit 1 with the reason', () => {
    const db = join(tmp, `m${++n}.db`);
    const none = cli(['ingest', '--hook', '--db', db], JSON.stringify({ hook_event_name: 'Stop', cwd: '/tmp' }));
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(
      /ingest --hook: the hook input has no transcript_path \(its keys: hook_event_name, cwd\); a Claude Code hook hands over/,
    );
    const number = cli(['ingest', '--hook', '--db', db], JSON.stringify({ transcript_path: 42 }));
    expect([number.code, number.stderr]).toEqual([
      1,
      expect.stringMatching(/transcript_path of the hook input is 42, not the path/),
    ]);
    const empty = cli(['learn', '--hook', '--db', db], '');
    expect([empty.code, empty.stderr]).toEqual([
      1,
      expect.stringMatching(/learn --hook: the hook input on stdin is empty/),
    ]);
    const folder = cli(['ingest', '--hook', '--db', db], hookInput(FIX));
    expect([folder.code, folder.stderr]).toEqual([
      1,
      expect.stringMatching(/is a folder; a hook names one transcript file/),
    ]);
    const both = cli(['ingest', '--hook', join(FIX, 'claude-code-2.1.jsonl'), '--db', db], '');
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/give no FILE with it/);
    // The same holds for recall's hook: a bad flag is 1, not 2 (without --hook it stays a usage error, 2).
    expect(cli(['recall', '--hook', '--top-k', '0', '--db', db], '{"prompt":"x"}').code).toBe(1);
    expect(cli(['recall', 'x', '--top-k', '0', '--db', db]).code).toBe(2);
  });
});

describe('skillsmith ingest --dry-run', () => {
  it('prints the sessions, calls and skipped kinds it would store, and writes nothing (not even the database)', () => {
    const db = join(tmp, `dry${++n}.db`);
    const r = cli(['ingest', '--dry-run', join(FIX, 'claude-code-2.1.jsonl'), '--db', db]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(
      'claude-code-2.1.jsonl: dry run, nothing stored: 2 session(s) with 8 tool call(s) would be stored (claude-code, auto-detected)',
    );
    expect(r.stdout).toContain('claude-code:7c1e9a52-3d4b-4f0e-9a61-2b8c5d7e1f03: 6 call(s), 1 failed; goal "The cart');
    expect(r.stdout).toContain('    Bash, Read, Task, Edit, Edit, Bash');
    expect(r.stdout).toContain('skipped 15 line(s) of 8 kind(s)');
    expect(existsSync(db)).toBe(false);
  });

  it('--json gives each file with its sessions, calls, problems, notes and unread kinds; a bad record exits 1', () => {
    const bad = join(tmp, 'bad-then-good.jsonl');
    writeFileSync(bad, `${readFileSync(join(FIX, 'openai-agents-js-items.jsonl'), 'utf8')}{not json\n`);
    const r = cli(['ingest', '--dry-run', '--json', bad, join(FIX, 'responses-api-objects.json')]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as {
      file: string;
      dryRun: boolean;
      sessions: { tools: string[] }[];
      calls: number;
      problems: { line: number; reason: string }[];
      notes: { reason: string }[];
    }[];
    expect(out.map((f) => f.dryRun)).toEqual([true, true]);
    expect(out[0].problems).toEqual([
      expect.objectContaining({ line: 8, reason: expect.stringMatching(/not valid JSON/) }),
    ]);
    expect(out[1].sessions.map((s) => s.tools)).toEqual([['search_flights', 'hold_seat']]);
    expect(out[1].notes).toHaveLength(1);
  });
});

describe('skillsmith ingest on a file holding two logs of different formats', () => {
  it('--dry-run and ingest say the same: the line where the other log starts, that it was not read, what to do; exit 1', () => {
    const claude = readFileSync(join(FIX, 'claude-code-session.jsonl'), 'utf8').trimEnd().split('\n');
    const codex = readFileSync(join(FIX, 'codex-rollout.jsonl'), 'utf8').trimEnd().split('\n');
    const both = join(tmp, 'both.jsonl');
    writeFileSync(both, `${[...claude, ...codex].join('\n')}\n`);
    const from = claude.length + 1;
    const to = claude.length + codex.length;
    const said = `both.jsonl:${from}: lines ${from}-${to} (${codex.length} records) hold a Codex CLI rollout, inside a file read as a Claude Code transcript: they were not read. A file holds one log: move lines ${from}-${to} to a file of their own and ingest it (auto-detected, or with --format codex)`;
    const db = join(tmp, `mixed${++n}.db`);
    const dry = cli(['ingest', '--dry-run', both, '--db', db]);
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain('3 session(s) with 7 tool call(s) would be stored (claude-code, auto-detected)');
    expect(dry.stderr).toContain(said);
    expect(dry.stderr).toContain('1 record(s) would be rejected.');
    expect(existsSync(db)).toBe(false);
    const stored = cli(['ingest', both, '--db', db, '--judge', 'off']);
    expect(stored.code).toBe(1);
    expect(stored.stderr).toContain(said);
    expect(stored.stderr).toContain('1 record(s) rejected; every valid record was stored.');
    // Done as it says, the rollout is read too.
    const part = join(tmp, 'part.jsonl');
    writeFileSync(part, `${[...claude, ...codex].slice(from - 1, to).join('\n')}\n`);
    expect(cli(['ingest', part, '--db', db, '--judge', 'off']).code).toBe(0);
    const ids = [...new Set(calls(db).map((c) => c.session_id.replace(/#\d+$/, '').split(':')[0]))];
    expect(ids.sort()).toEqual(['claude-code', 'codex']);
  });
});

describe('skillsmith ingest DIR: where agents keep their logs', () => {
  /** A ~/.gemini/tmp laid out as the CLI leaves it: session logs under chats/, a checkpoint, the prompt log. */
  function geminiHome(): string {
    const home = mkdtempSync(join(tmp, 'gemini-tmp-'));
    const project = join(home, 'c41b7f0e9d2a6b58');
    mkdirSync(join(project, 'chats'), { recursive: true });
    mkdirSync(join(home, '.cache'), { recursive: true });
    copyFileSync(
      join(FIX, 'gemini-cli-session.jsonl'),
      join(project, 'chats', 'session-2026-06-02T08-15-3f9c1e2a.jsonl'),
    );
    copyFileSync(
      join(FIX, 'gemini-cli-session-legacy.json'),
      join(project, 'chats', 'session-2025-11-03T09-41-8d2e4f60.json'),
    );
    copyFileSync(join(FIX, 'gemini-chat-checkpoint.json'), join(project, 'checkpoint-todo.json'));
    writeFileSync(
      join(project, 'logs.json'),
      JSON.stringify([
        {
          sessionId: '3f9c1e2a',
          messageId: 0,
          type: 'user',
          message: 'Why does the build fail?',
          timestamp: '2026-06-02T08:15:10.000Z',
        },
        {
          sessionId: '3f9c1e2a',
          messageId: 1,
          type: 'user',
          message: 'Now commit',
          timestamp: '2026-06-02T08:16:30.000Z',
        },
      ]),
    );
    writeFileSync(join(project, 'shell_history'), 'npm test\n');
    writeFileSync(join(home, '.cache', 'stale.jsonl'), '{"not": "a log"}\n');
    return home;
  }

  it('reads every .jsonl and .json file below it in name order; hidden folders and other files are left out', () => {
    const home = geminiHome();
    const db = join(tmp, `dir${++n}.db`);
    const r = cli(['ingest', home, '--db', db, '--judge', 'off']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const files = r.stdout.split('\n').filter((l) => /sessions? stored/.test(l));
    expect(files).toEqual([
      expect.stringMatching(
        /c41b7f0e9d2a6b58\/chats\/session-2025-11-03T09-41-8d2e4f60\.json: 1 session stored, 0 already present \(gemini, auto-detected\)$/,
      ),
      expect.stringMatching(
        /chats\/session-2026-06-02T08-15-3f9c1e2a\.jsonl: 2 sessions stored, 0 already present \(gemini, auto-detected\)$/,
      ),
      expect.stringMatching(/c41b7f0e9d2a6b58\/checkpoint-todo\.json: 1 session stored/),
    ]);
    expect(calls(db)).toHaveLength(4 + 7 + 2);
    // The prompt log beside chats/ holds no session: left out, and said so.
    expect(r.stdout).toContain(
      `note: ${home}: left out 1 file(s) that hold no session of their own (subagent transcripts, whose work is a tool call of the main session, and the Gemini CLI's prompt log)`,
    );
    // --dry-run takes a directory the same way.
    const dry = cli(['ingest', '--dry-run', '--json', home]);
    expect((JSON.parse(dry.stdout) as { file: string }[]).map((f) => f.file.slice(home.length))).toEqual([
      '/c41b7f0e9d2a6b58/chats/session-2025-11-03T09-41-8d2e4f60.json',
      '/c41b7f0e9d2a6b58/chats/session-2026-06-02T08-15-3f9c1e2a.jsonl',
      '/c41b7f0e9d2a6b58/checkpoint-todo.json',
    ]);
    // Named on its own, the prompt log is read, and is one clear problem (not one per prompt).
    const named = cli(['ingest', join(home, 'c41b7f0e9d2a6b58', 'logs.json'), '--db', db]);
    expect(named.code).toBe(1);
    expect(named.stderr).toContain(
      'logs.json:1: a Gemini CLI prompt log (logs.json: the prompts typed, without replies or tool calls): nothing to store; the sessions are in chats/session-*.jsonl beside it',
    );
    expect(named.stderr).toContain('1 problem(s); nothing was stored.');
  });

  it('a Claude Code projects folder: every transcript, not the subagent files beside them; learn reads it too', () => {
    const projects = mkdtempSync(join(tmp, 'claude-projects-'));
    const project = join(projects, '-home-dev-acme-web');
    const session = '7c1e9a52-3d4b-4f0e-9a61-2b8c5d7e1f03';
    mkdirSync(join(project, session, 'subagents'), { recursive: true });
    const transcript = readFileSync(join(FIX, 'claude-code-2.1.jsonl'), 'utf8');
    writeFileSync(join(project, `${session}.jsonl`), transcript);
    writeFileSync(
      join(project, session, 'subagents', 'agent-a2898e3.jsonl'),
      transcript
        .split('\n')
        .filter((l) => l.includes('"isSidechain":true'))
        .join('\n'),
    );
    copyFileSync(join(FIX, 'claude-code-session.jsonl'), join(project, 'b2c3d4e5.jsonl'));
    const db = join(tmp, `dir${++n}.db`);
    const r = cli(['learn', projects, '--db', db, '--judge', 'off']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`note: ${projects}: left out 1 file(s) that hold no session of their own`);
    expect(r.stdout).toContain('b2c3d4e5.jsonl: 3 new sessions, 0 already present.');
    expect(r.stdout).toContain(`${session}.jsonl: 2 new sessions, 0 already present.`);
    expect(calls(db)).toHaveLength(7 + 8);
  });

  it('a path that does not exist, or a directory without a log, is a usage error (exit 2) that creates no database', () => {
    const db = join(tmp, `dir${++n}.db`);
    const missing = join(tmp, 'no-such-dir');
    const r = cli(['ingest', join(FIX, 'codex-rollout.jsonl'), missing, '--db', db]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`ingest: cannot read "${missing}": no such file or directory`);
    // Checked before the memory opens: no empty database file where --db pointed.
    expect(existsSync(db)).toBe(false);
    const empty = mkdtempSync(join(tmp, 'empty-'));
    const l = cli(['learn', empty, '--db', db]);
    expect(l.code).toBe(2);
    expect(l.stderr).toContain(`learn: "${empty}" is a directory with no .jsonl or .json session log below it`);
    expect(existsSync(db)).toBe(false);
    const f = cli(['ingest', join(FIX, 'codex-rollout.jsonl'), '--format', 'nope', '--db', db]);
    expect(f.code).toBe(2);
    expect(f.stderr).toContain('--format must be one of');
    expect(existsSync(db)).toBe(false);
  });

  it('learn on an existing memory still says what it already held after checking its paths first', () => {
    const db = join(tmp, `dir${++n}.db`);
    const first = cli(['learn', join(FIX, 'codex-rollout.jsonl'), '--db', db, '--judge', 'off']);
    expect(first.code).toBe(0);
    expect(first.stdout).not.toContain('This reused an existing memory');
    const again = cli(['learn', join(FIX, 'codex-rollout.jsonl'), '--db', db, '--judge', 'off']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`This reused an existing memory (${db})`);
  });
});
