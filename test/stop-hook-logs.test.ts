import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Memory } from '../src/app/memory.js';
import { storedSessions, suiteMemories } from './support/hook-reads.js';
import { runBuiltCli } from './support/built-cli.js';

// The Stop hook (`ingest --hook`, memory.ingestTranscript) reads a Codex CLI rollout or a Gemini CLI JSONL session log
// from the first line of the task its last run for the file ended in, as it reads a Claude Code transcript. What it
// stores must be what one read of the whole file stores: each log is written a piece at a time (after every line, and
// inside a few lines: a write in progress), the hook after each piece into one SQLite memory, then compared with
// another that read the whole log once. Where lines after a checkpoint change what was read before it (a Gemini
// session id set again, a rewind to an earlier message, a message before it written again), the hook must store what
// it stored when it read the whole log at every stop: compared stop by stop with a memory that does.

const CAPTURE = join(new URL('..', import.meta.url).pathname, 'test', 'fixtures', 'capture');

const hooks = suiteMemories('stop-hook-logs');
const fresh = hooks.fresh;
const memoryAt = hooks.at;

type Json = Record<string, unknown>;
const linesOf = (name: string) =>
  readFileSync(join(CAPTURE, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Json);

/** A value with every id of a repeat made new (`-r<k>`) and every time moved on by k hours. */
function renamed(v: unknown, k: number): unknown {
  if (Array.isArray(v)) return v.map((x) => renamed(x, k));
  if (!v || typeof v !== 'object') return v;
  const out: Json = {};
  for (const [key, x] of Object.entries(v as Json)) {
    if (typeof x === 'string' && ['id', 'call_id', 'turn_id', '$rewindTo'].includes(key)) out[key] = `${x}-r${k}`;
    else if (typeof x === 'string' && ['timestamp', 'lastUpdated'].includes(key) && !Number.isNaN(Date.parse(x)))
      out[key] = new Date(Date.parse(x) + k * 3_600_000).toISOString();
    else out[key] = renamed(x, k);
  }
  return out;
}

/** A fixture's first line, then the rest of it `times` times over with new ids and times: a longer session. */
function repeated(name: string, times: number): string[] {
  const [first, ...rest] = linesOf(name);
  const out = [JSON.stringify(first)];
  for (let k = 0; k < times; k++) for (const l of rest) out.push(JSON.stringify(k ? renamed(l, k) : l));
  return out;
}

/** Where a log is cut: after every line, and inside a few lines (halfway through their bytes). */
function cutsOf(bytes: Buffer, midLines: number): number[] {
  const ends: number[] = [];
  for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) ends.push(i + 1);
  const cuts = new Set(ends);
  const step = Math.max(1, Math.floor(ends.length / (midLines + 1)));
  for (let m = 1; m <= midLines; m++) {
    const from = ends[m * step - 1] ?? 0;
    const to = ends[m * step] ?? bytes.length;
    cuts.add(from + Math.floor((to - from) / 2));
  }
  return [...cuts].filter((c) => c > 0 && c <= bytes.length).sort((a, b) => a - b);
}

const stored = storedSessions;

/** The hook's run after a piece: what it read from (absent: the whole file). */
async function stop(memory: Memory, log: string) {
  return memory.ingestTranscript(log, { finished: false });
}

/**
 * The log written a piece at a time with the hook after each piece; with `byFile`, a memory that reads the whole log
 * after each piece too (what the hook did before), compared after each. Returns the hooked memory and the line each
 * run read from (null: whole).
 */
async function hooked(
  lines: string[],
  file: string,
  opts: { byFile?: boolean; midLines?: number; cuts?: number[] } = {},
) {
  const bytes = Buffer.from(`${lines.join('\n')}\n`);
  const log = hooks.path(file);
  writeFileSync(log, '');
  const memory = await fresh();
  const byFile = opts.byFile ? await fresh() : null;
  const readFrom: (number | null)[] = [];
  let written = 0;
  for (const cut of opts.cuts ?? cutsOf(bytes, opts.midLines ?? 3)) {
    appendFileSync(log, bytes.subarray(written, cut));
    written = cut;
    const r = await stop(memory, log);
    readFrom.push(r.readFrom?.line ?? null);
    if (r.readFrom) expect(bytes[r.readFrom.byte - 1]).toBe(0x0a);
    if (byFile) {
      await byFile.ingestFile(log, { finished: false });
      expect(await stored(memory)).toEqual(await stored(byFile));
    }
  }
  return { memory, log, readFrom };
}

/** What one read of the whole log stores. */
async function wholeOnce(log: string) {
  const memory = await fresh();
  await memory.ingestFile(log);
  return stored(memory);
}

const markOf = hooks.markOf;

const CODEX = [
  { name: 'codex-rollout.jsonl', file: 'rollout-2025-09-12T14-02-11-0198a3c4.jsonl' },
  { name: 'codex-rollout-0.104.jsonl', file: 'rollout-2026-02-23T11-40-01-019c8a4c.jsonl' },
];
const GEMINI = { name: 'gemini-cli-session.jsonl', file: 'session-2026-06-02T08-15-3f9c1e2a.jsonl' };

/**
 * The byte offsets where a Gemini CLI turn ends (before each request that is not taken back, and the end): where its
 * AfterAgent hook runs. Inside a turn the CLI writes a message again as its calls run (`executing`, then `success`)
 * and may take a request back: a read between those stores what a read of the whole log never holds (a copy that a
 * later one cannot grow, a task taken back), whichever way it reads; that is compared stop by stop below.
 */
function turnEnds(lines: string[]): number[] {
  const rewound = new Set<unknown>(lines.map((l) => (JSON.parse(l) as Json).$rewindTo));
  const cuts: number[] = [];
  let offset = 0;
  lines.forEach((l, i) => {
    const v = JSON.parse(l) as Json;
    if (i > 1 && v.type === 'user' && !rewound.has(v.id)) cuts.push(offset);
    offset += Buffer.byteLength(l) + 1;
  });
  return [...cuts, offset];
}

describe('the Stop hook reads Codex CLI and Gemini CLI logs on from its mark, and stores what a whole read stores', () => {
  for (const c of CODEX)
    it(`${c.name}, 3 times over, written a line at a time and cut inside lines`, async () => {
      const { memory, log, readFrom } = await hooked(repeated(c.name, 3), c.file);
      // Once a second task began, each run read from a task's first line, not from the start.
      expect(readFrom.filter((l) => l !== null).length).toBeGreaterThan(readFrom.length / 2);
      const whole = await wholeOnce(log);
      expect(whole.length).toBe(6);
      expect(await stored(memory)).toEqual(whole);
    }, 120_000);

  it(`${GEMINI.name}, 5 times over, the hook after each turn`, async () => {
    const lines = repeated(GEMINI.name, 5);
    const { memory, log, readFrom } = await hooked(lines, GEMINI.file, { cuts: turnEnds(lines) });
    expect(readFrom.filter((l) => l !== null).length).toBe(readFrom.length - 2);
    const whole = await wholeOnce(log);
    expect(whole.length).toBe(10);
    expect(await stored(memory)).toEqual(whole);
  }, 120_000);

  it(`${GEMINI.name}, 3 times over, written a line at a time and cut inside lines: what a whole read at each stop stores`, async () => {
    const { readFrom } = await hooked(repeated(GEMINI.name, 3), GEMINI.file, { byFile: true });
    expect(readFrom.filter((l) => l !== null).length).toBeGreaterThan(readFrom.length / 2);
  }, 120_000);

  it('keeps a short mark on a long session: a count of the tasks before it, not an id each', async () => {
    const lines = repeated('codex-rollout-0.104.jsonl', 100);
    const log = hooks.path('rollout-2026-02-23T11-40-01-019c8a4c.jsonl');
    writeFileSync(log, `${lines.join('\n')}\n`);
    const memory = await fresh();
    const first = await stop(memory, log);
    expect(first.inserted).toBe(200);
    const mark = markOf(memory);
    const parsed = JSON.parse(mark) as { format: string; tasks: Record<string, unknown> };
    expect(parsed.format).toBe('codex');
    expect(parsed.tasks).toEqual({ 'codex:019c8a4c-ed82-79a1-aa28-7738fc5ab61a': [[1, 199]] });
    // Every task id listed took about 122 bytes a task: 24 KB here. The filter of the 500 call ids before it
    // (id-filter.ts, for end events after it) takes about 3.3 KB.
    expect(mark.length).toBeLessThan(4500);
    // Read again from the mark: the 199 tasks before it are counted present, as a whole read counts them.
    const again = await stop(memory, log);
    expect(again.readFrom).toBeDefined();
    expect({ inserted: again.inserted, skipped: again.skipped }).toEqual({ inserted: 0, skipped: 200 });
  }, 120_000);
});

describe('lines after the mark that change what was read before it: the hook stores what reading the whole log at every stop stored', () => {
  const gemini = () => repeated('gemini-cli-session.jsonl', 3);
  const at = (lines: string[], test: (v: Json) => boolean, from = 0) =>
    lines.findIndex((l, i) => i >= from && test(JSON.parse(l) as Json));
  const users = (lines: string[]) => lines.flatMap((l, i) => ((JSON.parse(l) as Json).type === 'user' ? [i] : []));

  it('a Gemini CLI $set of the session id after the mark: that stop reads the whole log, the next ones read on', async () => {
    const lines = gemini();
    const third = users(lines)[3]!;
    lines.splice(
      third,
      0,
      JSON.stringify({ $set: { sessionId: 'resumed-5d1e', lastUpdated: '2026-06-02T10:00:00Z' } }),
    );
    const { memory, readFrom } = await hooked(lines, GEMINI.file, {
      byFile: true,
      midLines: 0,
    });
    // The stop that read the $set read the whole log (its tasks before the mark are stored under the new id too).
    expect(readFrom[third]).toBeNull();
    expect(readFrom.slice(third + 3).some((l) => l !== null)).toBe(true);
    const ids = (await stored(memory)).map((s) => s.id);
    expect(ids).toContain('gemini-cli:resumed-5d1e');
    expect(ids).toContain('gemini-cli:3f9c1e2a-7b4d-4c8e-9a1f-2d3e4f5a6b7c');
  }, 120_000);

  it('a Gemini CLI $set of the same session id (a resumed session) changes nothing: read on', async () => {
    const lines = gemini();
    const third = users(lines)[3]!;
    const id = (JSON.parse(lines[0]!) as Json).sessionId;
    lines.splice(third, 0, JSON.stringify({ $set: { sessionId: id } }));
    const { readFrom } = await hooked(lines, GEMINI.file, { byFile: true, midLines: 0 });
    expect(readFrom[third]).not.toBeNull();
  }, 120_000);

  /** A Gemini CLI log built record by record: a task is a request, a message with its calls, and the answer. */
  const sessionMeta = { sessionId: 'g-1', projectHash: 'p-1', startTime: '2026-06-02T08:00:00Z', kind: 'main' };
  let clock = 0;
  const time = () => new Date(Date.parse('2026-06-02T08:00:00Z') + ++clock * 1000).toISOString();
  const request = (id: string, text: string) => ({ id, timestamp: time(), type: 'user', content: [{ text }] });
  const working = (id: string, commands: string[], model = 'gemini-2.5-pro') => ({
    id,
    timestamp: time(),
    type: 'gemini',
    content: '',
    model,
    toolCalls: commands.map((command, k) => ({
      id: `${id}-call-${k}`,
      name: 'run_shell_command',
      args: { command },
      status: 'success',
      timestamp: time(),
      result: [
        {
          functionResponse: {
            id: `${id}-call-${k}`,
            name: 'run_shell_command',
            response: { output: `Command: ${command}\nExit Code: 0` },
          },
        },
      ],
    })),
  });
  const answer = (id: string, text: string) => ({ id, timestamp: time(), type: 'gemini', content: text });
  const task = (name: string) => [
    request(`${name}-q`, `Task ${name}: run the checks for package ${name}`),
    working(`${name}-w`, [`npm test --workspace ${name}`]),
    answer(`${name}-a`, `The checks for ${name} pass.`),
  ];
  const logOf = (...records: unknown[]) => [JSON.stringify(sessionMeta), ...records.map((r) => JSON.stringify(r))];

  it('a Gemini CLI rewind to a request before the mark: the whole log is read', async () => {
    const lines = logOf(...task('a'), ...task('b'), ...task('c'), { $rewindTo: 'b-q' }, ...task('d'), ...task('e'));
    const { memory } = await hooked(lines, GEMINI.file, { byFile: true, midLines: 0 });
    // D and E took the places of B and C: the ids B and C were stored under, another task each (not stored).
    expect((await stored(memory)).map((s) => s.goal)).not.toContain('Task e: run the checks for package e');
  }, 120_000);

  it("a Gemini CLI rewind to the mark's own request, then a word that the answer before it was wrong", async () => {
    const lines = logOf(
      ...task('a'),
      ...task('b'),
      ...task('c'),
      { $rewindTo: 'c-q' },
      request('c2-q', "No, that's wrong: the checks for b must run with --ci"),
      working('c2-w', ['npm test --workspace b -- --ci']),
      answer('c2-a', 'With --ci the checks for b pass.'),
    );
    const { memory } = await hooked(lines, GEMINI.file, { byFile: true, midLines: 0 });
    const b = (await stored(memory)).find((s) => s.goal.startsWith('Task b'));
    expect(b?.labels).toMatchObject({ user_rejected_answer: "No, that's wrong: the checks for b must run with --ci" });
  }, 120_000);

  it('a Gemini CLI message before the mark written again after it (a call added)', async () => {
    const rewritten = working('b-w', ['npm test --workspace b', 'npm run lint --workspace b']);
    const lines = logOf(...task('a'), ...task('b'), ...task('c'), rewritten, ...task('d'));
    const { memory } = await hooked(lines, GEMINI.file, { byFile: true, midLines: 0 });
    const b = (await stored(memory)).find((s) => s.goal.startsWith('Task b'));
    expect(b?.calls.length).toBe(2);
  }, 120_000);

  it('a Gemini CLI message far before the last task written again in the same read: no mark past it', async () => {
    const tasks = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].flatMap(task);
    const rewritten = working('a-w', ['npm test --workspace a', 'npm run lint --workspace a']);
    const lines = logOf(...tasks, rewritten, ...task('h'));
    const whole = Buffer.byteLength(`${lines.slice(0, -3).join('\n')}\n`);
    const all = Buffer.byteLength(`${lines.join('\n')}\n`);
    const cuts = [whole, ...cutsOf(Buffer.from(`${lines.join('\n')}\n`), 0).filter((c) => c > whole), all];
    const { memory } = await hooked(lines, GEMINI.file, { byFile: true, cuts: [...new Set(cuts)] });
    const a = (await stored(memory)).find((s) => s.goal.startsWith('Task a'));
    expect(a?.calls.length).toBe(2);
  }, 120_000);

  it('a Gemini CLI request written again inside its task, read with the lines before it', async () => {
    const c = task('c');
    const lines = logOf(
      ...task('a'),
      ...task('b'),
      c[0],
      working('c-w1', ['npm test --workspace c']),
      c[0],
      working('c-w2', ['npm run lint --workspace c']),
      working('c-w3', ['npm run build --workspace c']),
      c[2],
      ...task('d'),
    );
    // No stop between the request and its copy: the read that takes in the copy begins before the request.
    const ends = lines.map((_, i) => Buffer.byteLength(`${lines.slice(0, i + 1).join('\n')}\n`));
    const cuts = ends.filter((_, i) => i !== 7 && i !== 8);
    const { memory } = await hooked(lines, GEMINI.file, { byFile: true, cuts });
    const c3 = (await stored(memory)).find((s) => s.goal.startsWith('Task c'));
    expect(c3?.calls.length).toBe(3);
  }, 120_000);

  it('a Gemini CLI conversation rewritten after the mark ($set of messages, a result masked)', async () => {
    const before: Json[] = [...task('a'), ...task('b'), ...task('c')];
    const masked = before.map((m) =>
      m.id === 'b-w' ? { ...m, toolCalls: [{ ...(m.toolCalls as Json[])[0], result: '<masked>' }] } : m,
    );
    const lines = logOf(...before, { $set: { messages: masked } }, ...task('d'), ...task('e'));
    const { memory } = await hooked(lines, GEMINI.file, { byFile: true, midLines: 0 });
    expect((await stored(memory)).filter((s) => s.goal.startsWith('Task e')).map((s) => s.id)).toEqual([
      'gemini-cli:g-1#5',
    ]);
  }, 120_000);

  it('a Gemini CLI session whose model changes: each task keeps the model that did it, as a whole read', async () => {
    const pro = [...task('a'), ...task('b')];
    const flash = (name: string) => [
      request(`${name}-q`, `Task ${name}: run the checks for package ${name}`),
      working(`${name}-w`, [`npm test --workspace ${name}`], 'gemini-2.5-flash'),
      answer(`${name}-a`, `The checks for ${name} pass.`),
    ];
    const lines = logOf(...pro, ...flash('c'), ...flash('d'));
    const { memory, log, readFrom } = await hooked(lines, GEMINI.file, { midLines: 0 });
    expect(readFrom.filter((l) => l !== null).length).toBeGreaterThan(readFrom.length / 2);
    const all = await stored(memory);
    expect(Object.fromEntries(all.map((s) => [s.goal.slice(0, 6), (s.labels as Json).model]))).toEqual({
      'Task a': 'gemini-2.5-pro',
      'Task b': 'gemini-2.5-pro',
      'Task c': 'gemini-2.5-flash',
      'Task d': 'gemini-2.5-flash',
    });
    expect(all).toEqual(await wholeOnce(log));
  }, 120_000);

  it('a Gemini CLI message older than the recent ids kept, written again after the mark: the whole log is read', async () => {
    const names = 'abcdefghijklmnopqrst'.split('');
    const rewritten = working('a-w', ['npm test --workspace a', 'npm run lint --workspace a']);
    const lines = logOf(...names.flatMap(task), rewritten, ...task('u'));
    const { memory, readFrom } = await hooked(lines, GEMINI.file, { byFile: true, midLines: 0 });
    expect(readFrom.filter((l) => l !== null).length).toBeGreaterThan(readFrom.length / 2);
    const a = (await stored(memory)).find((s) => s.goal.startsWith('Task a'));
    expect(a?.calls.length).toBe(2);
  }, 120_000);

  it('a Codex rollout whose model and working folder change: each task keeps those it was done with, as a whole read', async () => {
    const lines = repeated('codex-rollout-0.104.jsonl', 3);
    const contexts = lines.flatMap((l, i) => ((JSON.parse(l) as Json).type === 'turn_context' ? [i] : []));
    for (const c of contexts.slice(3)) {
      const v = JSON.parse(lines[c]!) as Json;
      lines[c] = JSON.stringify({ ...v, payload: { ...(v.payload as Json), model: 'gpt-5.4-codex' } });
    }
    const meta = JSON.parse(lines[0]!) as Json;
    lines.splice(
      contexts[4]!,
      0,
      JSON.stringify({ ...meta, payload: { ...(meta.payload as Json), cwd: '/srv/shop' } }),
    );
    const { memory, log, readFrom } = await hooked(lines, 'rollout-2026-02-23T11-40-01-019c8a4c.jsonl', {
      midLines: 0,
    });
    expect(readFrom.filter((l) => l !== null).length).toBeGreaterThan(readFrom.length / 2);
    const all = await stored(memory);
    expect(all.map((s) => (s.labels as Json).model)).toEqual([
      'gpt-5.3-codex',
      'gpt-5.3-codex',
      'gpt-5.3-codex',
      'gpt-5.4-codex',
      'gpt-5.4-codex',
      'gpt-5.4-codex',
    ]);
    expect(new Set(all.map((s) => (s.labels as Json).cwd)).size).toBe(2);
    expect(all).toEqual(await wholeOnce(log));
  }, 120_000);

  it('a Codex end event after the mark for a call whose item and output came before it: the whole log is read', async () => {
    const lines = repeated('codex-rollout-0.104.jsonl', 3);
    const requests = lines.flatMap((l, i) =>
      ((JSON.parse(l) as Json).payload as Json | undefined)?.type === 'user_message' ? [i] : [],
    );
    // The first task's shell call (item and output at its start), ended again four tasks on (an event Codex writes
    // late, after an interrupt): a whole read knows the call and does not count it twice.
    const end = {
      timestamp: '2026-02-23T15:00:00.000Z',
      type: 'event_msg',
      payload: {
        type: 'mcp_tool_call_end',
        call_id: 'call_zC8Bb98J',
        invocation: { server: 'shell', tool: 'exec', arguments: { cmd: 'rg taxRate' } },
        result: { Ok: { content: [{ type: 'text', text: 'done' }] } },
      },
    };
    lines.splice(requests[4]! + 2, 0, JSON.stringify(end));
    const { memory, log, readFrom } = await hooked(lines, 'rollout-2026-02-23T11-40-01-019c8a4c.jsonl', {
      midLines: 0,
    });
    expect(readFrom.filter((l) => l !== null).length).toBeGreaterThan(readFrom.length / 2);
    const whole = await wholeOnce(log);
    expect(whole.flatMap((s) => s.calls.map((c) => c.tool))).not.toContain('shell__exec');
    expect(await stored(memory)).toEqual(whole);
  }, 120_000);

  it('a Codex rollout whose model and working folder change, and an end event and an output for calls before the mark', async () => {
    const lines = repeated('codex-rollout-0.104.jsonl', 3);
    const contexts = lines.flatMap((l, i) => ((JSON.parse(l) as Json).type === 'turn_context' ? [i] : []));
    // From the fourth turn on, another model (the fourth task's first work is the late end event below, done under
    // the model before: the fifth and sixth tasks are the new model's).
    for (const c of contexts.slice(3)) {
      const later = JSON.parse(lines[c]!) as Json;
      lines[c] = JSON.stringify({ ...later, payload: { ...(later.payload as Json), model: 'gpt-5.4-codex' } });
    }
    const meta = JSON.parse(lines[0]!) as Json;
    lines.splice(
      contexts[4]!,
      0,
      JSON.stringify({ ...meta, payload: { ...(meta.payload as Json), cwd: '/srv/shop' } }),
    );
    // A call whose output never came, then its end event after the next request (an MCP call an interrupt cut).
    const request = at(lines, (v) => (v.payload as Json | undefined)?.type === 'user_message', contexts[2]!);
    const call = {
      timestamp: '2026-02-23T13:40:00.000Z',
      type: 'response_item',
      payload: { type: 'function_call', name: 'docs__search', arguments: '{"q":"tax"}', call_id: 'call_mcp_1' },
    };
    const answer = {
      timestamp: '2026-02-23T13:40:01.000Z',
      type: 'response_item',
      payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Stopped.' }] },
    };
    const end = {
      timestamp: '2026-02-23T13:41:00.000Z',
      type: 'event_msg',
      payload: {
        type: 'mcp_tool_call_end',
        call_id: 'call_mcp_1',
        invocation: { server: 'docs', tool: 'search', arguments: { q: 'tax' } },
        result: { Ok: { content: [{ type: 'text', text: 'no hits' }] } },
      },
    };
    // And a call that cannot be read (its arguments are no JSON), answered after the next request: left out with it.
    const broken = {
      timestamp: '2026-02-23T13:40:00.500Z',
      type: 'response_item',
      payload: { type: 'function_call', name: 'exec_command', arguments: '{"cmd": ', call_id: 'call_broken_1' },
    };
    const brokenOutput = {
      timestamp: '2026-02-23T13:41:00.500Z',
      type: 'response_item',
      payload: { type: 'function_call_output', call_id: 'call_broken_1', output: 'Process exited with code 0' },
    };
    lines.splice(request - 1, 0, JSON.stringify(call), JSON.stringify(broken), JSON.stringify(answer));
    const next = at(lines, (v) => (v.payload as Json | undefined)?.type === 'user_message', request + 3);
    lines.splice(next + 1, 0, JSON.stringify(end), JSON.stringify(brokenOutput));
    const { memory } = await hooked(lines, 'rollout-2026-02-23T11-40-01-019c8a4c.jsonl', {
      byFile: true,
      midLines: 0,
    });
    const models = new Set((await stored(memory)).map((s) => (s.labels as Json | null)?.model));
    expect(models).toEqual(new Set(['gpt-5.3-codex', 'gpt-5.4-codex']));
  }, 120_000);
});

describe('a Claude Code transcript of many prompts', () => {
  /** A Claude Code transcript: each task a prompt, a Bash call, its result and an answer, each line under the last. */
  function claudeTasks(
    names: string[],
    parent: string | null,
    clock: { t: number },
    sessionId = '7c9d2e4f-1a3b-4c5d-8e6f-0a1b2c3d4e5f',
  ) {
    const out: Json[] = [];
    let last = parent;
    const line = (type: string, message: Json) => {
      const uuid = `${String(out.length).padStart(4, '0')}-${names[0]}-${clock.t}`;
      out.push({
        parentUuid: last,
        isSidechain: false,
        userType: 'external',
        cwd: '/home/dev/lines',
        sessionId,
        version: '2.0.14',
        gitBranch: 'main',
        type,
        message,
        uuid,
        timestamp: new Date(Date.parse('2026-03-02T09:00:00Z') + ++clock.t * 1000).toISOString(),
      });
      last = uuid;
    };
    for (const n of names) {
      line('user', { role: 'user', content: `Check the line of customer ${n}` });
      line('assistant', {
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'tool_use', id: `toolu_${n}`, name: 'Bash', input: { command: `linectl status ${n}` } }],
      });
      line('user', { role: 'user', content: [{ tool_use_id: `toolu_${n}`, type: 'tool_result', content: 'active' }] });
      line('assistant', {
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: `${n}: active.` }],
      });
    }
    return out;
  }

  it('keeps its mark short past 256 prompts, reads on, and reads whole when a prompt goes back further', async () => {
    const clock = { t: 0 };
    const early = claudeTasks(
      Array.from({ length: 300 }, (_, i) => `c${i}`),
      null,
      clock,
    );
    const next = claudeTasks(['c300'], early[early.length - 1]!.uuid as string, clock);
    // The prompt of the fifth task edited and run again, in the session resumed under another id (so that its tasks
    // are numbered apart): a prompt under the line the fifth prompt hung from.
    const fifth = early[4 * 4]!;
    const resumed = '0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b';
    const rewind = claudeTasks(['c4-edited'], fifth.parentUuid as string, clock, resumed);
    const after = claudeTasks(['c301'], rewind[rewind.length - 1]!.uuid as string, clock, resumed);
    // Then, before the last answer, a call written late under a line of the branch the edit left (an answer of task
    // c200): left with it.
    const late = {
      ...early[200 * 4 + 3]!,
      parentUuid: early[200 * 4 + 3]!.uuid,
      uuid: 'late-0',
      message: {
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'tool_use', id: 'toolu_late', name: 'Bash', input: { command: 'linectl status c200' } }],
      },
    };
    const lines = [...early, ...next, ...rewind, ...after.slice(0, 3), late, after[3]!].map((l) => JSON.stringify(l));
    const ends = lines.map((_, i) => Buffer.byteLength(`${lines.slice(0, i + 1).join('\n')}\n`));
    const cuts = ends.slice(early.length - 1);
    const { memory, readFrom } = await hooked(lines, 'claude-many.jsonl', { byFile: true, cuts });
    // The task after the 300th and the one after the edited prompt were read on from the mark; the edited prompt
    // (under a line far before the mark) made that stop read the whole transcript.
    expect(readFrom[0]).toBeNull();
    expect(readFrom.slice(1, 1 + next.length).every((l) => l !== null)).toBe(true);
    expect(readFrom[1 + next.length]).toBeNull();
    expect(readFrom.slice(-5, -2).every((l) => l !== null)).toBe(true);
    // The late line under a rewound line before the mark (one its filter may hold): read whole while it is after it.
    expect(readFrom.slice(-2)).toEqual([null, null]);
    // The parents of 300 prompts listed took 40 bytes each (12 KB), the 1,184 lines of the branch the edit left
    // (tasks c4 to c300) 17 KB; past 256 of either none is listed, and each is kept as a filter (id-filter.ts): about
    // 1.5 KB and 6.8 KB.
    const mark = markOf(memory);
    expect(mark.length).toBeLessThan(10_000);
    const context = (JSON.parse(mark) as { context: Json }).context;
    expect(context).toMatchObject({ promptParents: [], promptParentsDropped: true, rewound: [], rewoundDropped: true });
    expect((context.promptParentsSeen as { count: number }).count).toBeGreaterThan(256);
    expect((context.rewoundSeen as { count: number }).count).toBeGreaterThan(1000);
  }, 120_000);

  it('past 256 prompts, a prompt under a line the transcript never had is read on; one under the parent of a prompt before the mark is read whole', async () => {
    const clock = { t: 0 };
    const early = claudeTasks(
      Array.from({ length: 300 }, (_, i) => `d${i}`),
      null,
      clock,
    );
    // A prompt whose parent names no line of the transcript (Claude Code writes one after a compaction or a resume
    // whose parent it did not copy): no rewind to an earlier point, which names a line before it.
    const dangling = claudeTasks(['d300'], 'gone-0001', clock);
    const next = claudeTasks(['d301', 'd302'], dangling[dangling.length - 1]!.uuid as string, clock);
    // Then a prompt under that same missing line again: the prompt d300 was edited and run again, whatever its parent.
    const again = claudeTasks(['d300-edited'], 'gone-0001', clock);
    const after = claudeTasks(['d303'], again[again.length - 1]!.uuid as string, clock);
    const lines = [...early, ...dangling, ...next, ...again, ...after].map((l) => JSON.stringify(l));
    const ends = lines.map((_, i) => Buffer.byteLength(`${lines.slice(0, i + 1).join('\n')}\n`));
    const cuts = ends.slice(early.length - 1);
    const { memory, log, readFrom } = await hooked(lines, 'claude-dangling.jsonl', { byFile: true, cuts });
    expect(readFrom[0]).toBeNull();
    // The dangling prompt's task and the two after it: read on from the mark at every stop.
    const readOn = readFrom.slice(1, 1 + dangling.length + next.length);
    expect(readOn.every((l) => l !== null)).toBe(true);
    // The prompt under the missing line a prompt before the mark hung from: the whole transcript, that stop.
    expect(readFrom[1 + dangling.length + next.length]).toBeNull();
    // What reading the whole transcript at every stop stored (compared at each): d300's task, stored before it was
    // edited, stays; a read of the final transcript leaves it out.
    expect((await wholeOnce(log)).map((s) => s.goal)).not.toContain('Check the line of customer d300');
    // The parents of the prompts before the mark, past 256, are kept as a filter: a few bytes each.
    const mark = markOf(memory);
    expect(mark.length).toBeLessThan(4000);
    expect((JSON.parse(mark) as { context: Json }).context).toMatchObject({ promptParentsDropped: true });
  }, 120_000);
});

describe('the hook as the agent runs it', () => {
  it('`ingest --hook --json` after each reply of a Codex CLI session and of a Gemini CLI one says where it read from', () => {
    for (const [name, file] of [
      ['codex-rollout-0.104.jsonl', 'rollout-2026-02-23T11-40-01-019c8a4c.jsonl'],
      [GEMINI.name, GEMINI.file],
    ] as const) {
      const lines = repeated(name, 2);
      const log = hooks.path(file);
      const db = hooks.path('cli.db');
      const hook = () => {
        const r = runBuiltCli(['ingest', '--hook', '--json', '--db', db], {
          cwd: hooks.dir(),
          env: { SKILLSMITH_RECALL_DAEMON: '0' },
          input: JSON.stringify({ session_id: 's', transcript_path: log, hook_event_name: 'Stop' }),
        });
        expect(r.code, r.stderr).toBe(0);
        return (JSON.parse(r.stdout) as { inserted: number; skipped: number; readFrom?: { line: number } }[])[0]!;
      };
      const half = Math.floor(lines.length / 2) + 1;
      writeFileSync(log, `${lines.slice(0, half).join('\n')}\n`);
      expect(hook().readFrom).toBeUndefined();
      appendFileSync(log, `${lines.slice(half).join('\n')}\n`);
      const next = hook();
      expect(next.readFrom?.line).toBeGreaterThan(1);
      expect(next.inserted + next.skipped).toBeGreaterThanOrEqual(3);
    }
  }, 120_000);
});

describe('a Codex CLI call whose output comes after the next request', () => {
  const META = JSON.stringify({
    timestamp: '2026-05-04T10:00:00.000Z',
    type: 'session_meta',
    payload: { id: '019de1f0-7a2b-7c3d-8e4f-5a6b7c8d9e0f', cwd: '/home/dev/api', cli_version: '0.104.0' },
  });
  const FILE = 'rollout-2026-05-04T10-00-00-019de1f0-7a2b-7c3d-8e4f-5a6b7c8d9e0f.jsonl';

  /**
   * The turns of a rollout as Codex CLI writes them (after its meta line, META): each a request, calls, outputs, an
   * answer and its end event. With `far`, four more, the first a deploy whose output comes three requests on.
   */
  function rollout(far = false) {
    let t = 0;
    const at = () => new Date(Date.parse('2026-05-04T10:00:00Z') + ++t * 1000).toISOString();
    const line = (type: string, payload: Json) => JSON.stringify({ timestamp: at(), type, payload });
    const request = (text: string) => [
      line('event_msg', { type: 'task_started', turn_id: `t-${t}` }),
      line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] }),
      line('event_msg', { type: 'user_message', message: text }),
      line('turn_context', { cwd: '/home/dev/api', model: 'gpt-5.3-codex' }),
    ];
    const call = (id: string, cmd: string) =>
      line('response_item', {
        type: 'function_call',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd }),
        call_id: id,
      });
    const ended = (id: string) => line('event_msg', { type: 'exec_command_end', call_id: id, exit_code: 0 });
    const output = (id: string, text: string) =>
      line('response_item', {
        type: 'function_call_output',
        call_id: id,
        output: `Process exited with code 0\n${text}`,
      });
    const answer = (text: string) =>
      line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
    const end = (kind = 'task_complete') => line('event_msg', { type: kind });
    const turns = [
      [
        ...request('List the routes'),
        call('c1', 'rg -n router src'),
        ended('c1'),
        output('c1', 'src/routes.ts'),
        answer('Three routes.'),
        end(),
      ],
      // The build's end event came, then the user stopped the turn: its output is written after the next request.
      [...request('Build the api'), call('c2', 'npm run build'), ended('c2'), answer('Stopped.'), end('turn_aborted')],
      [
        ...request('Run the tests'),
        output('c2', 'built in 12s'),
        call('c3', 'npm test'),
        ended('c3'),
        answer('Stopped again.'),
        end('turn_aborted'),
      ],
      [
        ...request('Lint the code'),
        call('c4', 'npm run lint'),
        ended('c4'),
        output('c4', 'no problems'),
        answer('Clean.'),
        end(),
      ],
      // The tests' output, two requests on.
      [
        ...request('Format the code'),
        output('c3', '42 passed'),
        call('c5', 'npm run format'),
        ended('c5'),
        output('c5', 'formatted'),
        answer('Done.'),
        end(),
      ],
    ];
    if (far)
      turns.push(
        [
          ...request('Deploy to staging'),
          call('c6', 'make deploy'),
          ended('c6'),
          answer('Stopped.'),
          end('turn_aborted'),
        ],
        [...request('Show the logs'), call('c7', 'make logs'), output('c7', 'no errors'), answer('Clean.'), end()],
        [...request('Show the metrics'), call('c8', 'make metrics'), output('c8', 'p99 40ms'), answer('Fine.'), end()],
        [
          ...request('Show the alerts'),
          output('c6', 'deployed'),
          call('c9', 'make alerts'),
          output('c9', 'none'),
          answer('None.'),
          end(),
        ],
      );
    return turns;
  }

  it('is given to its task: the hook reads on and stores what a whole read of the final rollout stores', async () => {
    const log = hooks.path(FILE);
    const db = hooks.path('cli.db');
    writeFileSync(log, `${META}\n`);
    const readFrom: (number | null)[] = [];
    for (const turn of rollout()) {
      appendFileSync(log, `${turn.join('\n')}\n`);
      const r = runBuiltCli(['ingest', '--hook', '--json', '--db', db], {
        cwd: hooks.dir(),
        env: { SKILLSMITH_RECALL_DAEMON: '0' },
        input: JSON.stringify({ session_id: 's', transcript_path: log, hook_event_name: 'Stop' }),
      });
      expect(r.code, r.stderr).toBe(0);
      const [result] = JSON.parse(r.stdout) as { problems: unknown[]; readFrom?: { line: number } }[];
      expect(result!.problems).toEqual([]);
      readFrom.push(result!.readFrom?.line ?? null);
    }
    // From the third stop on, each read on from a mark.
    expect(readFrom.slice(2).every((l) => l !== null)).toBe(true);
    const hooked = await memoryAt(db);
    const all = await stored(hooked);
    const whole = await wholeOnce(log);
    const results = (s: (typeof whole)[number]) => s.calls.map((c) => c.result);
    expect(whole.map((s) => s.goal)).toEqual([
      'List the routes',
      'Build the api',
      'Run the tests',
      'Lint the code',
      'Format the code',
    ]);
    expect(results(whole[1]!)).toEqual(['Process exited with code 0\nbuilt in 12s']);
    expect(results(whole[2]!)).toEqual(['Process exited with code 0\n42 passed']);
    expect(all).toEqual(whole);
  }, 120_000);

  it('written a line at a time and cut inside lines: what a whole read at each stop stores; an output further on reads whole', async () => {
    const lines = [META, ...rollout(true).flat()];
    const { memory, log, readFrom } = await hooked(lines, FILE, { byFile: true, midLines: 3 });
    // The deploy's output, three requests on (further back than a mark waits for): read whole at the line it came.
    const deployed = lines.findIndex((l) => l.includes('"call_id":"c6","output"'));
    const cuts = cutsOf(Buffer.from(`${lines.join('\n')}\n`), 3);
    const at = cuts.indexOf(Buffer.byteLength(`${lines.slice(0, deployed + 1).join('\n')}\n`));
    expect(at).toBeGreaterThan(0);
    // After the stop that read the second task's request, every stop but that one read on (outputs two requests on
    // among them).
    const second = cuts.indexOf(Buffer.byteLength(`${lines.slice(0, 12).join('\n')}\n`));
    expect(readFrom.slice(0, second + 1).every((l) => l === null)).toBe(true);
    expect(readFrom.flatMap((l, i) => (i > second && l === null ? [i] : []))).toEqual([at]);
    const whole = await wholeOnce(log);
    expect(whole.find((s) => s.goal === 'Deploy to staging')?.calls.map((c) => c.result)).toEqual([
      'Process exited with code 0\ndeployed',
    ]);
    expect(await stored(memory)).toEqual(whole);
  }, 120_000);
});

describe('a mark the hook kept before', () => {
  it('of version 1 (a Claude Code transcript, every task id listed) is read on from, as before', async () => {
    const bytes = readFileSync(join(CAPTURE, 'claude-code-session.jsonl'));
    const ends: number[] = [];
    for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) ends.push(i + 1);
    const log = hooks.path('claude.jsonl');
    const memory = await fresh();
    // All but the last five lines, read by the hook: a mark past the first task.
    writeFileSync(log, bytes.subarray(0, ends[ends.length - 6]));
    await stop(memory, log);
    const mark = JSON.parse(markOf(memory)) as Json & { tasks: Record<string, (string | [number, number])[]> };
    expect(mark.v).toBe(2);
    // The same mark as the version before wrote it.
    const { format: _f, ...rest } = mark;
    const tasks = Object.fromEntries(
      Object.entries(mark.tasks).map(([base, runs]) => [
        base,
        runs.flatMap((r) =>
          typeof r === 'string'
            ? [r]
            : Array.from({ length: r[1] - r[0] + 1 }, (_, k) => (r[0] + k === 1 ? base : `${base}#${r[0] + k}`)),
        ),
      ]),
    );
    expect(Object.values(tasks).flat().length).toBeGreaterThan(0);
    const sql = new Database(hooks.dbOf(memory));
    sql
      .prepare("UPDATE state SET value = ? WHERE key LIKE 'transcript:%'")
      .run(JSON.stringify({ ...rest, v: 1, tasks }));
    sql.close();
    appendFileSync(log, bytes.subarray(ends[ends.length - 6]));
    const r = await stop(memory, log);
    expect(r.readFrom).toBeDefined();
    expect(await stored(memory)).toEqual(await wholeOnce(log));
  }, 120_000);
});
