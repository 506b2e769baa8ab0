import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/surfaces.js';

/** `skillsmith ingest` on the agent logs people have, through the real CLI: what is stored, and the exit code. */

const ROOT = new URL('..', import.meta.url).pathname;
const CLI = join(ROOT, 'dist', 'surfaces', 'cli', 'main.js');
const FIX = join(ROOT, 'test', 'fixtures', 'capture');
let tmp: string;
let n = 0;

const cli = (args: string[]) => runCli(args, tmp);

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
  ])('%s: detected as %s, %i session(s) and %i tool calls stored, exit 0', (file, format, sessions, toolCalls) => {
    const db = join(tmp, `m${++n}.db`);
    const r = cli(['ingest', join(FIX, file), '--db', db, '--judge', 'off']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${sessions} sessions stored, 0 already present (${format}, auto-detected)`);
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

  it('an empty file exits 1', () => {
    const empty = join(tmp, 'empty.jsonl');
    writeFileSync(empty, '\n');
    const r = cli(['ingest', empty, '--db', join(tmp, `m${++n}.db`)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('empty.jsonl:1: the file is empty: no session');
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
});
