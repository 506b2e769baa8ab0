import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareCapture } from '../src/capture/ingest.js';
import { RuleJudge } from '../src/capture/judge.js';
import { openMemory } from '../src/app/open-memory.js';
import type { Memory } from '../src/app/memory.js';
import { ingestCommand, ingestOptions, IngestUsageError } from '../src/surfaces/cli/commands/ingest.js';
import { TAU_DIR, tempDbPath } from './support/tau.js';
import { diskText, leaked, PLANTED } from './support/capture.js';

const FIXTURES = new URL('./fixtures/capture/', import.meta.url).pathname;
const TRAJ = TAU_DIR;
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const tmp = mkdtempSync(join(tmpdir(), 'skillsmith-capture-'));
const P = PLANTED;

/** One file per format, each with secrets planted in the goal, arguments, results, errors and labels. */
function plantedFiles(): Record<string, string> {
  const jsonl = JSON.stringify({
    session_id: 'planted-jsonl',
    goal: `Rotate the key ${P.openai} for ${P.email}`,
    steps: [
      { tool: 'get_key', args: { api_key: P.openai, owner: P.email }, result: `{"token": "${P.github}"}`, ok: true },
      { tool: 'charge', args: { card: P.card }, error: `declined with ${P.stripe}`, ok: false },
    ],
    meta: { note: `aws ${P.aws}` },
  });
  const openai = JSON.stringify({
    messages: [
      { role: 'user', content: `Log me in, password ${P.password}, jwt ${P.jwt}` },
      {
        role: 'assistant',
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'login', arguments: JSON.stringify({ user: P.email, password: P.password }) },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: `Error: token ${P.github} expired` },
      { role: 'assistant', content: `Here is your new key ${P.openai}` },
    ],
  });
  const anthropic = JSON.stringify({
    system: 'agent',
    messages: [
      { role: 'user', content: `Charge my card ${P.card}` },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't1', name: 'charge', input: { card_number: P.card, key: P.stripe } }],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 't1',
            is_error: true,
            content: [{ type: 'text', text: `aws ${P.aws} denied` }],
          },
        ],
      },
    ],
  });
  const span = (id: string, parent: string | null, name: string, attrs: Record<string, string>) => ({
    traceId: 'feedfacefeedfacefeedfacefeedface',
    spanId: id,
    ...(parent ? { parentSpanId: parent } : {}),
    name,
    startTimeUnixNano: '1735689600000000000',
    endTimeUnixNano: '1735689601000000000',
    attributes: Object.entries(attrs).map(([key, v]) => ({ key, value: { stringValue: v } })),
  });
  const otel = JSON.stringify({
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: [
              span('a1', null, 'invoke_agent x', {
                'gen_ai.operation.name': 'invoke_agent',
                'gen_ai.input.messages': JSON.stringify([
                  { role: 'user', parts: [{ type: 'text', content: `Use ${P.openai} to sync ${P.email}` }] },
                ]),
              }),
              span('t1', 'a1', 'execute_tool sync', {
                'gen_ai.tool.name': 'sync',
                'gen_ai.tool.call.arguments': JSON.stringify({ authorization: `Bearer ${P.jwt}`, email: P.email }),
                'gen_ai.tool.call.result': `synced with ${P.github}`,
              }),
            ],
          },
        ],
      },
    ],
  });
  const tau = JSON.stringify([
    {
      task_id: 1,
      reward: 1,
      trial: 0,
      info: {
        task: { user_id: 'u', instruction: `You are ${P.email}; your card is ${P.card}`, actions: [], outputs: [] },
      },
      traj: [
        { role: 'system', content: 'policy' },
        { role: 'user', content: `Hi, I am ${P.email}` },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'x',
              type: 'function',
              function: { name: 'find_user_id_by_email', arguments: JSON.stringify({ email: P.email }) },
            },
          ],
        },
        {
          role: 'tool',
          tool_call_id: 'x',
          name: 'find_user_id_by_email',
          content: `{"payment": "${P.card}", "secret": "${P.password}"}`,
        },
      ],
    },
  ]);
  return { jsonl, openai, anthropic, otel, tau };
}

async function ingestWith(memory: Memory, file: string, text: string) {
  const c = memory.config.capture;
  const { parsed, judgement } = await prepareCapture(text, {
    file,
    namespace: memory.namespace,
    now: '2025-01-01T00:00:00.000Z',
    resultChars: c.resultChars,
    maxRecordBytes: c.maxRecordBytes,
    maxCallsPerSession: c.maxCallsPerSession,
    judge: new RuleJudge(),
  });
  const r = await memory.ingest(parsed.sessions);
  return { parsed, judgement, ...r };
}

describe('capture -> store (works before and after the memory wiring)', () => {
  it('planted secrets in every format never reach the database', async () => {
    const db = tempDbPath();
    const memory = await openMemory({ db, logLevel: 'silent' });
    for (const [format, text] of Object.entries(plantedFiles())) {
      const r = await ingestWith(memory, `${format}.planted`, text);
      expect(r.parsed.problems, format).toEqual([]);
      expect(r.parsed.format, format).toBe(format);
      expect(r.inserted, format).toBe(1);
      // The unprotected parse does hold them: the test plants real secrets.
      expect(leaked(JSON.stringify(r.parsed.sessions)), format).toEqual([]);
    }
    await memory.close();
    const disk = diskText(db);
    expect(disk).toContain('[REDACTED:');
    expect(leaked(disk)).toEqual([]);
  });

  it('every fixture ingests to the expected sessions and calls', async () => {
    const memory = await openMemory({ db: tempDbPath(), logLevel: 'silent' });
    const expected: [string, string, number[]][] = [
      ['openai-conversations.jsonl', 'openai', [3, 2]],
      ['openai-message-array.json', 'openai', [1]],
      ['anthropic-conversations.jsonl', 'anthropic', [5, 3]],
      ['anthropic-message-array.json', 'anthropic', [1]],
      ['otel-genai-traces.jsonl', 'otel', [4, 1, 1]],
      ['tau-bench-results.json', 'tau', [10, 10, 1]],
      ['tau2-results.json', 'tau', [2, 1]],
    ];
    for (const [file, format, calls] of expected) {
      const r = await ingestWith(memory, file, fixture(file));
      expect(r.parsed.problems, file).toEqual([]);
      expect(r.parsed.format, file).toBe(format);
      expect(r.inserted, file).toBe(calls.length);
      for (const [i, rec] of r.parsed.records.entries()) {
        const stored = (await memory.parts.store!.getSession('default', rec.sessionId))!;
        expect(stored.calls.length, `${file} #${i}`).toBe(calls[i]);
        expect(stored.calls.map((c) => c.position)).toEqual(stored.calls.map((_c, k) => k));
      }
      // Idempotent: the same file again stores nothing.
      expect((await ingestWith(memory, file, fixture(file))).inserted, file).toBe(0);
    }
    await memory.close();
  });

  it('the real tau trajectories ingest completely, with their reported outcomes', async () => {
    const memory = await openMemory({ db: tempDbPath(), logLevel: 'silent' });
    let total = 0;
    for (const file of ['tau-dev.jsonl', 'tau-retail-extra.jsonl']) {
      const r = await ingestWith(memory, file, readFileSync(join(TRAJ, file), 'utf8'));
      expect(r.parsed.problems).toEqual([]);
      expect(r.judgement!.judged).toBe(0); // every real session has an outcome: nothing to judge
      total += r.inserted;
    }
    expect(total).toBe(434);
    expect(await memory.parts.store!.countSessions('default')).toBe(434);
    await memory.close();
  });
});

describe('ingest --format / --judge options', () => {
  it('accepts the six formats and three judge modes, and names what is allowed otherwise', () => {
    for (const f of ['auto', 'jsonl', 'openai', 'anthropic', 'otel', 'tau'])
      expect(ingestOptions({ format: f }).format).toBe(f);
    expect(() => ingestOptions({ format: 'xml' })).toThrow(IngestUsageError);
    expect(() => ingestOptions({ format: 'xml' })).toThrow(/auto, jsonl, openai, anthropic, otel, tau/);
    expect(() => ingestOptions({ judge: 'maybe' })).toThrow(/rule, llm, off/);
  });
});

const sourceOf = (memory: Memory, id: string) =>
  (memory.parts.store as unknown as { db: { prepare(s: string): { get(...a: unknown[]): unknown } } }).db
    .prepare('SELECT outcome, outcome_source FROM sessions WHERE namespace = ? AND id = ?')
    .get('default', id) as {
    outcome: string;
    outcome_source: string;
  };

describe('memory.ingestFile and the CLI command, with the wiring applied', () => {
  it('judges sessions without an outcome, stores them as judged, and a reported outcome replaces the judgement', async () => {
    const memory = await openMemory({ db: tempDbPath(), logLevel: 'silent' });
    const r = await memory.ingestFile(join(FIXTURES, 'otel-genai-traces.jsonl'));
    expect(r).toMatchObject({
      format: 'otel',
      inserted: 3,
      detected: true,
      judged: { judge: 'rule', judged: 2, success: 2, failure: 0, unknown: 0 },
    });
    const [a, b, c] = r.records!.map((x) => x.sessionId);
    expect(sourceOf(memory, a)).toEqual({ outcome: 'success', outcome_source: 'judged' }); // last call ok + final answer
    expect(sourceOf(memory, b)).toEqual({ outcome: 'failure', outcome_source: 'reported' }); // agent span status ERROR
    expect(sourceOf(memory, c)).toEqual({ outcome: 'success', outcome_source: 'judged' });
    expect((await memory.parts.store!.getSession('default', a))!.outcomeSource).toBe('judged');
    await memory.reportOutcome(a, 'failure');
    expect(sourceOf(memory, a)).toEqual({ outcome: 'failure', outcome_source: 'reported' });
    await memory.close();
  });

  it('judging off leaves them unknown; the anthropic fixture judged by rule', async () => {
    const memory = await openMemory({
      db: tempDbPath(),
      logLevel: 'silent',
      config: { capture: { judge: { mode: 'off' } } } as never,
    });
    const r = await memory.ingestFile(join(FIXTURES, 'anthropic-conversations.jsonl'));
    expect(r.judged).toBeNull();
    expect(sourceOf(memory, r.records![1].sessionId)).toEqual({ outcome: 'unknown', outcome_source: 'reported' });
    const r2 = await memory.ingestFile(join(FIXTURES, 'anthropic-message-array.json'), { judge: 'rule' });
    expect(r2.judged).toMatchObject({ judged: 1, failure: 1 });
    expect(sourceOf(memory, r2.records![0].sessionId)).toEqual({ outcome: 'failure', outcome_source: 'judged' });
    await memory.close();
  });

  it('planted secrets in every format never reach the database through ingestFile', async () => {
    const db = tempDbPath();
    const memory = await openMemory({ db, logLevel: 'silent' });
    for (const [format, text] of Object.entries(plantedFiles())) {
      const file = join(tmp, `planted.${format}`);
      writeFileSync(file, text);
      const r = await memory.ingestFile(file);
      expect(r.problems, format).toEqual([]);
      expect(r.inserted, format).toBe(1);
    }
    // The library's own recorder applies the same policy.
    const s = await memory.startSession({ goal: `key ${P.openai}` });
    await s.call({
      tool: 'x',
      args: { password: P.password },
      result: `token ${P.github}`,
      error: `card ${P.card}`,
      ok: false,
    });
    await s.end('failure');
    await memory.close();
    expect(leaked(diskText(db))).toEqual([]);
  });

  it('the CLI command says what auto-detection chose, per record when a file is mixed, and what the judge did', async () => {
    const memory = await openMemory({ db: tempDbPath(), logLevel: 'silent' });
    const mixed = join(tmp, 'mixed.jsonl');
    writeFileSync(
      mixed,
      [
        fixture('openai-conversations.jsonl').split('\n')[0],
        fixture('anthropic-conversations.jsonl').split('\n')[1],
        '{"broken',
        // A newline after it: a broken record, not a last line still being written.
        '',
      ].join('\n'),
    );
    const out: string[] = [];
    const err: string[] = [];
    const code = await ingestCommand(
      memory,
      [join(FIXTURES, 'tau2-results.json'), mixed],
      {},
      { out: (s) => out.push(s), err: (s) => err.push(s) },
    );
    expect(code).toBe(1);
    expect(out[0]).toBe(
      `${join(FIXTURES, 'tau2-results.json')}: 2 sessions stored, 0 already present (tau, auto-detected)`,
    );
    expect(out[1]).toBe(
      `${mixed}: 2 sessions stored, 0 already present (mixed: openai 1, anthropic 1, auto-detected per record)`,
    );
    expect(out[2]).toBe('  line 1: openai -> conv-repeat');
    expect(out[3]).toMatch(/^ {2}line 2: anthropic -> anthropic:[0-9a-f]+$/);
    expect(out[4]).toBe('  1 session(s) without an outcome judged by rule: 1 success, 0 failure, 0 left unknown');
    expect(err[0]).toMatch(new RegExp(`^${mixed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: not valid JSON`));
    await memory.close();
  });

  it('a binary file is one problem that says so, not a line of noise per line; what was stored stays', async () => {
    const memory = await openMemory({ db: tempDbPath(), config: { capture: { judge: { mode: 'off' } } } });
    await ingestWith(memory, 'sample.json', fixture('tau2-results.json'));
    const image = join(tmp, 'photo.jsonl');
    // A PNG's signature and header: NUL bytes among text that happens to hold newlines.
    writeFileSync(image, Buffer.from('89504e470d0a1a0a0000000d4948445200000010000000100806000000', 'hex'));
    const latin1 = join(tmp, 'latin1.jsonl');
    writeFileSync(latin1, Buffer.from(Array.from({ length: 200 }, (_, i) => 0xa0 + (i % 90))));
    const err: string[] = [];
    const code = await ingestCommand(memory, [image, latin1], {}, { out: () => {}, err: (s) => err.push(s) });
    expect(code).toBe(1);
    expect(err.filter((l) => l.startsWith(image))).toEqual([
      `${image}:1: this is a binary file, not a log (a NUL byte at character 9): nothing was read; a log is JSON or JSONL text`,
    ]);
    expect(err.filter((l) => l.startsWith(latin1))).toEqual([
      `${latin1}:1: this is not UTF-8 text (200 of the first 200 characters are not): nothing was read; a log is JSON or JSONL text in UTF-8`,
    ]);
    expect(await memory.sessions.list()).toHaveLength(2);
    await memory.close();
  });
});
