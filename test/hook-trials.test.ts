import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { serveApi } from '../src/surfaces/http/server.js';
import { BUILT_CLI as CLI, copyMemory, LOG_MODULES, type Run, runBuiltCli } from './support/built-cli.js';

// A Claude Code user gets skills through the hooks (README "Claude Code and Gemini CLI hooks"): `recall --hook`
// before each prompt, `ingest --hook` after each reply. The recall is kept under the agent's session, and once the
// transcript's tasks are stored (`claude-code:ID`, `claude-code:ID#2`...) each recall belongs to the task it served:
// `skillsmith outcome ID#2 failure` then gives the skills served for that prompt their trial, and no others.

const ROOT = new URL('..', import.meta.url).pathname;
const SAMPLE = join(ROOT, 'examples', 'tau-sample.jsonl');
const TRANSCRIPT = join(ROOT, 'test', 'fixtures', 'capture', 'claude-code-two-tasks.jsonl');
const AGENT_SESSION = '5b2e7c1a-9d34-4f6e-8a21-3c4d5e6f7a8b';
const S = `claude-code:${AGENT_SESSION}`;
/** The two prompts of the transcript: each recalls a skill of the sample's of its own. */
const FIRST = 'My phone has no service, I paid the bill, please get my line working again';
const SECOND = 'return the office chair from my order, it came with broken pieces';

let tmp: string;
let learnedDb: string;
let counter = 0;
const runtimeDirs: string[] = [];

function cli(args: string[], input = '', env: Record<string, string> = {}): Run {
  return runBuiltCli(args, {
    cwd: tmp,
    env: { SKILLSMITH_RECALL_DAEMON: '0', SKILLSMITH_RECALL_DAEMON_IDLE_MS: '2500', ...env },
    unset: ['SKILLSMITH_LEAN_RECALL'],
    input,
  });
}

function ok(r: Run): Run {
  expect(r.code, r.stderr).toBe(0);
  return r;
}

const json = <T>(r: Run): T => JSON.parse(ok(r).stdout) as T;

/** What Claude Code hands a UserPromptSubmit hook. */
const promptSubmit = (prompt: string, transcript: string, sessionId = AGENT_SESSION) =>
  JSON.stringify({
    session_id: sessionId,
    transcript_path: transcript,
    cwd: tmp,
    permission_mode: 'default',
    hook_event_name: 'UserPromptSubmit',
    prompt,
  });

/** What Claude Code hands a Stop hook. */
const stop = (transcript: string, sessionId = AGENT_SESSION) =>
  JSON.stringify({
    session_id: sessionId,
    transcript_path: transcript,
    hook_event_name: 'Stop',
    stop_hook_active: false,
  });

const fixtureLines = (sessionId = AGENT_SESSION) =>
  readFileSync(TRANSCRIPT, 'utf8')
    .replaceAll(AGENT_SESSION, sessionId)
    .split('\n')
    .filter((l) => l.trim());

/** The transcript as Claude Code has written it so far: its first `lines` lines (the first task ends at line 6). */
function transcriptUpTo(path: string, lines: number, sessionId = AGENT_SESSION): void {
  writeFileSync(path, `${fixtureLines(sessionId).slice(0, lines).join('\n')}\n`);
}

const recalledNames = (db: string, id: string) =>
  json<{ recalled: { skill: string; similarity: number; at: string }[] }>(
    cli(['sessions', 'show', id, '--json', '--db', db]),
  ).recalled.map((r) => r.skill);

interface Explained {
  skill: { trialsAttempted: number; trialsPassed: number; eta: number; utility: number; status: string };
  trials: { signal: string; sessionId: string | null; actor: string | null }[];
  replaced: { signal: string; sessionId: string | null; actor: string | null; replacedBy: number | null }[];
  track: { signal: string; judged?: true }[];
}

const explained = (db: string, name: string, args: string[] = []) =>
  json<Explained>(cli(['skills', 'explain', name, '--json', '--db', db, ...args]));

/** A skill's trials that count: attempted, passed, and the sessions they came from (the judge's said so). */
const trials = (db: string, name: string, args: string[] = []) => {
  const ex = explained(db, name, args);
  return [
    ex.skill.trialsAttempted,
    ex.skill.trialsPassed,
    ex.trials.map((t) => `${t.signal} ${t.sessionId}${t.actor === 'judge' ? ' (judged)' : ''}`),
  ];
};

/** The same trials with the newest one told as `entry` (a reported trial in a judged one's place). */
const lastBecomes = (t: ReturnType<typeof trials>, entry: string, passed = t[1] as number) => [
  t[0],
  passed,
  [...(t[2] as string[]).slice(0, -1), entry],
];

/** Each skill's trials and how many of them were judged, as `skills list --json` gives them (name: [attempted, judged]). */
const judgedCounts = (db: string, args: string[] = []) =>
  Object.fromEntries(
    json<{ name: string; trialsAttempted: number; judgedTrials: number }[]>(
      cli(['skills', 'list', '--json', '--db', db, ...args]),
    ).map((s) => [s.name, [s.trialsAttempted, s.judgedTrials]]),
  );

/** The same counts from the REST list (GET /api/skills) and MCP's list_skills, each its own server on the memory. */
async function judgedCountsElsewhere(db: string): Promise<{ rest: unknown; mcp: unknown }> {
  const pick = (skills: { name: string; trialsAttempted: number; judgedTrials: number }[]) =>
    Object.fromEntries(skills.map((s) => [s.name, [s.trialsAttempted, s.judgedTrials]]));
  const memory = await openMemory({ db, logLevel: 'silent' });
  const server = await serveApi(memory, { port: 0, webRoot: null });
  let rest: unknown;
  try {
    rest = pick(((await (await fetch(`${server.url}/api/skills`)).json()) as { items: [] }).items);
  } finally {
    await server.close();
    await memory.close();
  }
  const client = new Client({ name: 'skillsmith-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--db', db, '--log-level', 'error'],
      stderr: 'pipe',
    }),
  );
  try {
    const r = (await client.callTool({ name: 'list_skills', arguments: {} })) as CallToolResult;
    return { rest, mcp: pick((r.structuredContent as { skills: [] }).skills) };
  } finally {
    await client.close();
  }
}

/**
 * A session of two tasks as the hooks see it: the recall for the first prompt, the Stop hook's ingest after the
 * first reply, the recall for the second prompt, and the ingest after the second reply (then once more, as the
 * next Stop or SessionEnd reads the same transcript again). `recall` runs one recall with a prompt.
 */
function hookedSession(db: string, recall: (prompt: string, transcript: string) => Run): string {
  const transcript = join(tmp, `transcript-${++counter}.jsonl`);
  transcriptUpTo(transcript, 0);
  expect(ok(recall(FIRST, transcript)).stdout).toMatch(/fix-phone-service/);
  transcriptUpTo(transcript, 6);
  ok(cli(['ingest', '--hook', '--db', db], stop(transcript)));
  expect(ok(recall(SECOND, transcript)).stdout).toMatch(/exchange-delivered-order-items/);
  transcriptUpTo(transcript, 12);
  ok(cli(['ingest', '--hook', '--db', db], stop(transcript)));
  ok(cli(['learn', '--hook', '--db', db], stop(transcript)));
  return transcript;
}

/**
 * The served skills get their trials from their own tasks: the judged outcome once the whole transcript is stored
 * (the second task's last call failed), which the task's reported outcome then replaces, never joins.
 */
function expectTrialsPerTask(db: string): void {
  expect(recalledNames(db, S)).toEqual(['fix-phone-service']);
  expect(recalledNames(db, `${S}#2`)).toEqual(['exchange-delivered-order-items']);
  const exchange = trials(db, 'exchange-delivered-order-items');
  const phone = trials(db, 'fix-phone-service');
  expect((exchange[2] as string[]).at(-1)).toBe(`trial.fail ${S}#2 (judged)`);
  expect((phone[2] as string[]).at(-1)).toBe(`trial.pass ${S} (judged)`);
  expect(json(cli(['outcome', `${S}#2`, 'failure', '--json', '--db', db]))).toEqual({
    credited: ['exchange-delivered-order-items'],
  });
  const failed = lastBecomes(exchange, `trial.fail ${S}#2`);
  expect(trials(db, 'exchange-delivered-order-items')).toEqual(failed);
  expect(trials(db, 'fix-phone-service')).toEqual(phone);
  expect(json(cli(['outcome', S, 'success', '--json', '--db', db]))).toEqual({ credited: ['fix-phone-service'] });
  expect(trials(db, 'fix-phone-service')).toEqual(lastBecomes(phone, `trial.pass ${S}`));
  expect(trials(db, 'exchange-delivered-order-items')).toEqual(failed);
}

beforeAll(() => {
  if (!existsSync(CLI)) execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  tmp = mkdtempSync(join(tmpdir(), 'skillsmith-hook-trials-'));
  learnedDb = join(tmp, 'learned', 'memory.db');
  ok(cli(['learn', SAMPLE, '--db', learnedDb]));
}, 120_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  for (const dir of runtimeDirs) rmSync(dir, { recursive: true, force: true });
});

const copyOf = () => copyMemory(learnedDb, join(tmp, `copy-${++counter}`));

describe("recall --hook: the served skills' trials come from the outcome of the task they served", () => {
  it('the full CLI: outcome S#2 failure credits the skill served for the second prompt, outcome S the first', () => {
    const db = copyOf();
    hookedSession(db, (prompt, transcript) =>
      cli(['recall', '--hook', '--db', db], promptSubmit(prompt, transcript), { SKILLSMITH_LEAN_RECALL: '0' }),
    );
    expectTrialsPerTask(db);
  });

  it('the short path, as the hook usually runs: the same', () => {
    const db = copyOf();
    hookedSession(db, (prompt, transcript) => cli(['recall', '--hook', '--db', db], promptSubmit(prompt, transcript)));
    expectTrialsPerTask(db);
  });

  it('the recall daemon: the same', async () => {
    const db = copyOf();
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-run-'));
    runtimeDirs.push(dir);
    const env = { SKILLSMITH_RECALL_DAEMON: '1', XDG_RUNTIME_DIR: dir };
    // The first recall of a memory starts its daemon; the hook's recalls are then answered by it.
    ok(cli(['recall', 'warm up', '--db', db], '', env));
    const end = Date.now() + 20_000;
    while (!(existsSync(join(dir, 'skillsmith')) && readdirSync(join(dir, 'skillsmith')).length)) {
      if (Date.now() > end) throw new Error('no recall daemon started');
      await new Promise((r) => setTimeout(r, 100));
    }
    const byDaemon: boolean[] = [];
    hookedSession(db, (prompt, transcript) => {
      const log = join(tmp, `modules-${++counter}.log`);
      const r = runBuiltCli(['recall', '--hook', '--db', db], {
        cwd: tmp,
        env: { ...env, SKILLSMITH_RECALL_DAEMON_IDLE_MS: '2500', LOG_MODULES_FILE: log },
        nodeArgs: ['--import', LOG_MODULES],
        unset: ['SKILLSMITH_LEAN_RECALL'],
        input: promptSubmit(prompt, transcript),
      });
      byDaemon.push(!readFileSync(log, 'utf8').includes('pipeline/recall.js'));
      return r;
    });
    expect(byDaemon).toEqual([true, true]);
    expectTrialsPerTask(db);
  });

  it('re-ingesting the growing transcript keeps one link per recall, and a file ingest of it links the same', () => {
    const db = copyOf();
    const transcript = hookedSession(db, (prompt, t) => cli(['recall', '--hook', '--db', db], promptSubmit(prompt, t)));
    ok(cli(['ingest', '--hook', '--db', db], stop(transcript)));
    ok(cli(['ingest', transcript, '--db', db]));
    expect(recalledNames(db, S)).toEqual(['fix-phone-service']);
    expect(recalledNames(db, `${S}#2`)).toEqual(['exchange-delivered-order-items']);
    // The one recall given to another task (the second prompt's, made under the agent's session) is in the audit
    // trail, once, with where it went from and to; reading the transcript again moved nothing more.
    const moves = readFileSync(`${db}.audit.jsonl`, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map(
        (l) => JSON.parse(l) as { action: string; actor: string; subjectKind: string; detail: Record<string, unknown> },
      )
      .filter((r) => r.action === 'recall.move');
    expect(moves.map((m) => [m.actor, m.subjectKind, m.detail.from, m.detail.to])).toEqual([
      ['capture', 'recall', S, `${S}#2`],
    ]);

    // The whole transcript ingested once, after the session (`skillsmith learn ~/.claude/projects`).
    const later = copyOf();
    for (const prompt of [FIRST, SECOND])
      ok(cli(['recall', '--hook', '--db', later], promptSubmit(prompt, transcript)));
    ok(cli(['ingest', transcript, '--db', later]));
    expectTrialsPerTask(later);
  });

  it('REST: GET /api/sessions/{id} lists the skills recalled for the task, and a reported outcome credits them', async () => {
    const db = copyOf();
    hookedSession(db, (prompt, t) => cli(['recall', '--hook', '--db', db], promptSubmit(prompt, t)));
    const memory = await openMemory({ db, logLevel: 'silent' });
    const server = await serveApi(memory, { port: 0, webRoot: null });
    try {
      const task = encodeURIComponent(`${S}#2`);
      const shown = (await (await fetch(`${server.url}/api/sessions/${task}`)).json()) as {
        recalled: { skill: string; similarity: number; at: string }[];
      };
      expect(shown.recalled).toEqual([
        { skill: 'exchange-delivered-order-items', similarity: expect.any(Number), at: expect.any(String) },
      ]);
      const res = await fetch(`${server.url}/api/sessions/${task}/outcome`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
        body: JSON.stringify({ outcome: 'failure' }),
      });
      expect(await res.json()).toMatchObject({ outcome: 'failure', credited: ['exchange-delivered-order-items'] });
    } finally {
      await server.close();
      await memory.close();
    }
  });

  it('--session ID records the recall of any other wrapper under that id, and wins over the hook payload', () => {
    const db = copyOf();
    const other = 'another-agent-session';
    const transcript = join(tmp, `transcript-${++counter}.jsonl`);
    transcriptUpTo(transcript, 12);
    // Plain text on stdin, as a wrapper other than Claude Code sends it.
    expect(ok(cli(['recall', '--hook', '--session', S, '--db', db], `${FIRST}\n`)).stdout).toMatch(/fix-phone-service/);
    // A goal given as arguments, and a hook payload naming another session: --session names the one it is for.
    ok(cli(['recall', SECOND, '--session', S, '--db', db]));
    ok(cli(['recall', '--hook', '--session', S, '--db', db], promptSubmit(SECOND, transcript, other)));
    ok(cli(['ingest', transcript, '--db', db]));
    expect(recalledNames(db, S)).toEqual(['fix-phone-service']);
    expect(recalledNames(db, `${S}#2`)).toEqual(['exchange-delivered-order-items', 'exchange-delivered-order-items']);
    expect(json(cli(['outcome', `${S}#2`, 'failure', '--json', '--db', db]))).toEqual({
      credited: ['exchange-delivered-order-items'],
    });
    const empty = cli(['recall', 'x', '--session', '  ', '--db', db]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/--session needs/);
  });

  it('Gemini CLI: a BeforeAgent recall is kept under gemini-cli:<session_id>, and the outcome of the task it served credits it', () => {
    geminiRecallIsCredited('7c2d9e4f-1a3b-4c5d-8e6f-0a1b2c3d4e5f');
  });

  it("Gemini CLI: a hook whose session_id is not its log's (a resumed session) links the recall to the log's task", () => {
    geminiRecallIsCredited('5e5e0000-aaaa-4bbb-8ccc-111122223333');
  });

  it('Gemini CLI: a log whose later $set changes its sessionId: the recall is credited to the session the ingest stores', () => {
    geminiRecallIsCredited('7c2d9e4f-1a3b-4c5d-8e6f-0a1b2c3d4e5f', '9a8b7c6d-0000-4111-8222-333344445555');
  });

  /**
   * A Gemini CLI session of two tasks, the second served by a BeforeAgent recall whose input names `hookId`; with
   * `setId`, a `$set` between the tasks changes the log's sessionId to it (the ingest stores the tasks under it).
   */
  function geminiRecallIsCredited(hookId: string, setId?: string) {
    const db = copyOf();
    const opened = '7c2d9e4f-1a3b-4c5d-8e6f-0a1b2c3d4e5f';
    const id = setId ?? opened;
    const transcript = join(tmp, `gemini-${++counter}.jsonl`);
    const shell = (n: number, command: string, output: string, at: string) => ({
      id: `run_shell_command-${n}`,
      name: 'run_shell_command',
      args: { command },
      status: 'success',
      timestamp: at,
      result: [
        {
          functionResponse: {
            id: `run_shell_command-${n}`,
            name: 'run_shell_command',
            response: { output: `Command: ${command}\nOutput: ${output}\nExit Code: 0` },
          },
        },
      ],
    });
    const lines: Record<string, unknown>[] = [
      {
        sessionId: opened,
        projectHash: 'ab12',
        startTime: '2025-09-01T10:00:00.000Z',
        lastUpdated: '2025-09-01T10:00:00.000Z',
        kind: 'main',
      },
      { id: 'm1', timestamp: '2025-09-01T10:00:00.000Z', type: 'user', content: [{ text: FIRST }] },
      {
        id: 'm2',
        timestamp: '2025-09-01T10:00:04.000Z',
        type: 'gemini',
        content: '',
        model: 'gemini-2.5-pro',
        toolCalls: [shell(1, 'linectl resume L-7731', 'line L-7731: active', '2025-09-01T10:00:05.000Z')],
      },
      {
        id: 'm3',
        timestamp: '2025-09-01T10:00:08.000Z',
        type: 'gemini',
        content: 'Your line is active again.',
        model: 'gemini-2.5-pro',
      },
      { id: 'm4', timestamp: '2025-09-01T10:05:00.000Z', type: 'user', content: [{ text: SECOND }] },
      {
        id: 'm5',
        timestamp: '2025-09-01T10:05:04.000Z',
        type: 'gemini',
        content: '',
        model: 'gemini-2.5-pro',
        toolCalls: [
          shell(2, 'orders return W4817 --item office-chair', 'return R-1 opened', '2025-09-01T10:05:05.000Z'),
        ],
      },
      {
        id: 'm6',
        timestamp: '2025-09-01T10:05:08.000Z',
        type: 'gemini',
        content: 'The return of the chair is opened.',
        model: 'gemini-2.5-pro',
      },
    ];
    if (setId) {
      lines.splice(4, 0, { $set: { sessionId: setId, lastUpdated: '2025-09-01T10:04:00.000Z' } });
      lines.push({ $set: { lastUpdated: '2025-09-01T10:05:08.000Z' } });
    }
    writeFileSync(transcript, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const beforeAgent = (prompt: string) =>
      JSON.stringify({
        session_id: hookId,
        transcript_path: transcript,
        cwd: tmp,
        hook_event_name: 'BeforeAgent',
        timestamp: '2025-09-01T10:05:00.000Z',
        prompt,
      });
    const answer = ok(cli(['recall', '--hook', '--db', db], beforeAgent(SECOND))).stdout;
    expect(JSON.parse(answer).hookSpecificOutput.additionalContext).toMatch(/exchange-delivered-order-items/);
    ok(
      cli(
        ['learn', '--hook', '--db', db],
        JSON.stringify({ session_id: hookId, transcript_path: transcript, hook_event_name: 'AfterAgent' }),
      ),
    );
    const task = `gemini-cli:${id}#2`;
    expect(recalledNames(db, task)).toEqual(['exchange-delivered-order-items']);
    expect(recalledNames(db, `gemini-cli:${id}`)).toEqual([]);
    expect(json(cli(['outcome', task, 'failure', '--json', '--db', db]))).toEqual({
      credited: ['exchange-delivered-order-items'],
    });
  }

  it("judged trials: a finished task's judged outcome is a trial, the Stop hook gives none to the task still going, and the reported outcome replaces it", async () => {
    const db = copyOf();
    // The same session with judged trials off, where only the reported outcomes are trials: what the skills must
    // end as once each task's outcome is reported.
    const reportedOnly = copyOf();
    const off = join(tmp, `judged-off-${++counter}.json`);
    writeFileSync(off, JSON.stringify({ lifecycle: { judgedTrials: false } }));
    const PHONE = 'fix-phone-service';
    const EXCHANGE = 'exchange-delivered-order-items';
    const state = (d: string, name: string, args: string[] = []) => {
      const { status, eta, utility, trialsAttempted, trialsPassed } = explained(d, name, args).skill;
      return { status, eta, utility, trialsAttempted, trialsPassed };
    };
    const phone = trials(db, PHONE);
    const exchange = trials(db, EXCHANGE);
    expect([phone[0], exchange[0]]).toEqual([0, 0]);
    const transcript = join(tmp, `transcript-${++counter}.jsonl`);
    const session = (d: string, args: string[], step: (n: number) => void) => {
      transcriptUpTo(transcript, 0);
      ok(cli(['recall', '--hook', '--db', d, ...args], promptSubmit(FIRST, transcript)));
      // The first reply is written and the Stop hook reads the transcript: the first task may still go on.
      transcriptUpTo(transcript, 6);
      ok(cli(['ingest', '--hook', '--db', d, ...args], stop(transcript)));
      step(1);
      ok(cli(['recall', '--hook', '--db', d, ...args], promptSubmit(SECOND, transcript)));
      // The second prompt and reply: a later task is stored, so the first is complete; the second may go on.
      transcriptUpTo(transcript, 12);
      ok(cli(['ingest', '--hook', '--db', d, ...args], stop(transcript)));
      step(2);
      // The session ends (SessionEnd): the transcript is whole, its last task complete too.
      ok(cli(['learn', '--hook', '--db', d, ...args], stop(transcript)));
      step(3);
    };
    session(reportedOnly, ['--config', off], () => {});
    expect([trials(reportedOnly, PHONE, ['--config', off])[0], trials(reportedOnly, EXCHANGE)[0]]).toEqual([0, 0]);

    session(db, [], (n) => {
      const p = trials(db, PHONE);
      const e = trials(db, EXCHANGE);
      if (n === 1) expect([p, e]).toEqual([phone, exchange]);
      // The judge read the first task as a success (its last call worked, and the agent answered).
      if (n >= 2) expect(p).toEqual([1, 1, [`trial.pass ${S} (judged)`]]);
      if (n === 2) expect(e).toEqual(exchange);
      // The second task's last call failed: judged a failure, and the skill it was served failed its trial.
      if (n === 3) expect(e).toEqual([1, 0, [`trial.fail ${S}#2 (judged)`]]);
    });
    expect(state(db, PHONE).status).toBe('probationary');
    const ex = explained(db, EXCHANGE);
    expect(ex.trials.map((t) => t.actor)).toEqual(['judge']);
    expect(ex.track.at(-1)).toMatchObject({ signal: 'trial.fail', judged: true });
    expect(ok(cli(['skills', 'show', EXCHANGE, '--db', db])).stdout).toContain(
      'trials 0/1 passed (1 judged, 0 of them passed',
    );
    expect(ok(cli(['skills', 'explain', EXCHANGE, '--db', db])).stdout).toMatch(/trial\.fail \(judged\)/);
    // The lists say how many of a skill's trials were judged: --json's judgedTrials beside its trial counts, the
    // text's trials column, `skills show --json`, REST and MCP alike.
    const judged = { [PHONE]: [1, 1], [EXCHANGE]: [1, 1] };
    expect(judgedCounts(db)).toMatchObject(judged);
    expect(ok(cli(['skills', 'list', '--db', db])).stdout).toMatch(
      new RegExp(`^${EXCHANGE}\\s.*\\s0/1 passed \\(1 judged\\)\\s`, 'm'),
    );
    expect(json<{ judgedTrials: number }>(cli(['skills', 'show', EXCHANGE, '--json', '--db', db])).judgedTrials).toBe(
      1,
    );
    expect(await judgedCountsElsewhere(db)).toEqual({
      rest: expect.objectContaining(judged),
      mcp: expect.objectContaining(judged),
    });
    // Read again (the next Stop, or the file), the same judgements change nothing.
    ok(cli(['ingest', '--hook', '--db', db], stop(transcript)));
    ok(cli(['ingest', transcript, '--db', db]));
    expect([trials(db, PHONE), trials(db, EXCHANGE)]).toEqual([
      [1, 1, [`trial.pass ${S} (judged)`]],
      [1, 0, [`trial.fail ${S}#2 (judged)`]],
    ]);

    // The person knows better, for both tasks: the reported outcomes replace the judged trials.
    for (const [d, args] of [
      [db, []],
      [reportedOnly, ['--config', off]],
    ] as const) {
      expect(json(cli(['outcome', S, 'failure', '--json', '--db', d, ...args]))).toEqual({ credited: [PHONE] });
      expect(json(cli(['outcome', `${S}#2`, 'success', '--json', '--db', d, ...args]))).toEqual({
        credited: [EXCHANGE],
      });
    }
    expect([trials(db, PHONE), trials(db, EXCHANGE)]).toEqual([
      [1, 0, [`trial.fail ${S}`]],
      [1, 1, [`trial.pass ${S}#2`]],
    ]);
    expect(judgedCounts(db)).toMatchObject({ [PHONE]: [1, 0], [EXCHANGE]: [1, 0] });
    expect(ok(cli(['skills', 'list', '--db', db])).stdout).not.toMatch(/judged\)/);
    // Counts, eta, utility and status as if only the reported trials had happened.
    for (const name of [PHONE, EXCHANGE]) expect(state(db, name)).toEqual(state(reportedOnly, name, ['--config', off]));
    const replaced = explained(db, EXCHANGE).replaced;
    expect(replaced.map((r) => [r.signal, r.sessionId, r.actor, typeof r.replacedBy])).toEqual([
      ['trial.fail', `${S}#2`, 'judge', 'number'],
    ]);
    // A reported trial is final: the transcript judged again gives nothing.
    ok(cli(['learn', '--hook', '--db', db], stop(transcript)));
    expect(trials(db, EXCHANGE)).toEqual([1, 1, [`trial.pass ${S}#2`]]);
  });

  it('judged trials: a newer judgement of a task that grew replaces the earlier judged trial', () => {
    const db = copyOf();
    const EXCHANGE = 'exchange-delivered-order-items';
    const transcript = join(tmp, `transcript-${++counter}.jsonl`);
    transcriptUpTo(transcript, 12);
    ok(cli(['recall', '--hook', '--db', db], promptSubmit(SECOND, transcript)));
    // The file read while the agent was still at it (taken as whole, as `ingest FILE` takes it): the second task
    // ends on the failed return, judged a failure.
    transcriptUpTo(transcript, 11);
    ok(cli(['ingest', transcript, '--db', db]));
    expect(trials(db, EXCHANGE)).toEqual([1, 0, [`trial.fail ${S}#2 (judged)`]]);
    // It went on: the agent retried with the override, it worked, and it said so. The task grows, judged again.
    const lines = fixtureLines().slice(0, 11);
    const retry = JSON.parse(lines[9]);
    retry.uuid = '00000190-0000-4000-8000-000000000000';
    retry.parentUuid = '00000111-0000-4000-8000-000000000000';
    retry.timestamp = '2025-09-01T10:05:20.000Z';
    retry.message.content[0] = {
      ...retry.message.content[0],
      id: 'toolu_01B9',
      input: { command: 'orders return W4817 --item office-chair --override', description: 'Return the chair' },
    };
    const result = JSON.parse(lines[10]);
    result.uuid = '00000191-0000-4000-8000-000000000000';
    result.parentUuid = retry.uuid;
    result.timestamp = '2025-09-01T10:05:22.000Z';
    result.message.content = [
      { tool_use_id: 'toolu_01B9', type: 'tool_result', content: 'return R-1 opened for #W4817', is_error: false },
    ];
    const answer = JSON.parse(fixtureLines()[11]);
    answer.uuid = '00000192-0000-4000-8000-000000000000';
    answer.parentUuid = result.uuid;
    answer.timestamp = '2025-09-01T10:05:24.000Z';
    answer.message.content = [{ type: 'text', text: 'The return of the chair is opened (R-1).' }];
    writeFileSync(transcript, `${[...lines, ...[retry, result, answer].map((l) => JSON.stringify(l))].join('\n')}\n`);
    const grown = json<{ grown?: number }[]>(cli(['ingest', transcript, '--json', '--db', db]));
    expect(grown[0].grown).toBe(1);
    expect(trials(db, EXCHANGE)).toEqual([1, 1, [`trial.pass ${S}#2 (judged)`]]);
    expect(explained(db, EXCHANGE).replaced.map((r) => [r.signal, r.actor])).toEqual([['trial.fail', 'judge']]);
  });

  it("judged trials: a skill's record follows the task's latest judgement: success, then failure replaces it, unknown takes it back", () => {
    const db = copyOf();
    const EXCHANGE = 'exchange-delivered-order-items';
    const state = (d: string) => {
      const { status, eta, utility, trialsAttempted, trialsPassed } = explained(d, EXCHANGE).skill;
      return { status, eta, utility, trialsAttempted, trialsPassed };
    };
    const untried = state(db);
    const transcript = join(tmp, `transcript-${++counter}.jsonl`);
    transcriptUpTo(transcript, 12);
    ok(cli(['recall', '--hook', '--db', db], promptSubmit(SECOND, transcript)));
    // The transcript's lines as the agent goes on with the second task: each a copy of a fixture line (8: a tool's
    // result, 9: a Bash call, 11: the agent's answer), chained after the one before it.
    const base = fixtureLines();
    let n = 0;
    let parent = JSON.parse(base[8]).uuid as string;
    const next = (from: number, change: (line: Record<string, any>) => void) => {
      const line = JSON.parse(base[from]);
      line.uuid = `00000${300 + ++n}-0000-4000-8000-000000000000`;
      line.parentUuid = parent;
      line.timestamp = `2025-09-01T10:06:${String(n).padStart(2, '0')}.000Z`;
      change(line);
      parent = line.uuid;
      return JSON.stringify(line);
    };
    const answer = (text: string) => next(11, (l) => (l.message.content = [{ type: 'text', text }]));
    const call = (id: string, command: string) =>
      next(
        9,
        (l) => (l.message.content[0] = { ...l.message.content[0], id, input: { command, description: command } }),
      );
    const result = (id: string, content: string, isError: boolean) =>
      next(8, (l) => (l.message.content = [{ tool_use_id: id, type: 'tool_result', content, is_error: isError }]));
    const ingested = (lines: string[]) => {
      writeFileSync(transcript, `${lines.join('\n')}\n`);
      return json<{ inserted: number; grown?: number }[]>(cli(['ingest', transcript, '--json', '--db', db]))[0];
    };
    // The agent found the order and said so: judged a success.
    const found = [...base.slice(0, 9), answer('Order #W4817 was delivered with the office chair and a desk lamp.')];
    ingested(found);
    expect(trials(db, EXCHANGE)).toEqual([1, 1, [`trial.pass ${S}#2 (judged)`]]);
    // It went on, and its return failed: judged a failure, which replaces the judged pass.
    const failed = [
      ...found,
      call('toolu_03A1', 'orders return W4817 --item office-chair'),
      result('toolu_03A1', 'error: item office-chair of #W4817 is past its return window', true),
      answer('The chair is past its return window.'),
    ];
    expect(ingested(failed).grown).toBe(1);
    expect(trials(db, EXCHANGE)).toEqual([1, 0, [`trial.fail ${S}#2 (judged)`]]);
    // It retried with the override, and the file was read before it answered: the judge cannot tell (unknown). The
    // judged trial is taken back: the skill stands as if it had never been tried.
    const retried = [
      ...failed,
      call('toolu_03A2', 'orders return W4817 --item office-chair --override'),
      result('toolu_03A2', 'return R-1 opened for #W4817', false),
    ];
    expect(ingested(retried).grown).toBe(1);
    expect(trials(db, EXCHANGE)).toEqual([0, 0, []]);
    expect(state(db)).toEqual(untried);
    expect(judgedCounts(db)[EXCHANGE]).toEqual([0, 0]);
    expect(explained(db, EXCHANGE).replaced.map((r) => [r.signal, r.actor])).toEqual([
      ['trial.pass', 'judge'],
      ['trial.fail', 'judge'],
    ]);
    // Read again, nothing changes; then it answered: judged a success, one trial again.
    ingested(retried);
    expect(trials(db, EXCHANGE)).toEqual([0, 0, []]);
    const answered = [
      ...retried,
      call('toolu_03A3', 'orders show W4817'),
      result('toolu_03A3', '#W4817 delivered: office chair (return R-1 opened), desk lamp', false),
      answer('The return of the chair is opened (R-1).'),
    ];
    expect(ingested(answered).grown).toBe(1);
    expect(trials(db, EXCHANGE)).toEqual([1, 1, [`trial.pass ${S}#2 (judged)`]]);
    // The reported outcome wins over any judgement: the transcript read again judges nothing.
    expect(json(cli(['outcome', `${S}#2`, 'failure', '--json', '--db', db]))).toEqual({ credited: [EXCHANGE] });
    expect(trials(db, EXCHANGE)).toEqual([1, 0, [`trial.fail ${S}#2`]]);
    ok(cli(['learn', '--hook', '--db', db], stop(transcript)));
    expect(trials(db, EXCHANGE)).toEqual([1, 0, [`trial.fail ${S}#2`]]);
  });

  it('an agent session id that capture privacy stores as a keyed hash is keyed alike by the recall and the ingest', () => {
    const db = copyOf();
    // An id holding an e-mail address is stored as sid_<hash>, its tasks each under a hash of their own id.
    const personal = 'alice@example.com';
    const transcript = join(tmp, `transcript-${++counter}.jsonl`);
    transcriptUpTo(transcript, 12, personal);
    ok(cli(['recall', '--hook', '--db', db], promptSubmit(SECOND, transcript, personal)));
    ok(cli(['ingest', '--hook', '--db', db], stop(transcript, personal)));
    const id = `claude-code:${personal}#2`;
    const shown = json<{ id: string; recalled: { skill: string }[] }>(
      cli(['sessions', 'show', id, '--json', '--db', db]),
    );
    expect(shown.id).toMatch(/^sid_/);
    expect(shown.recalled.map((r) => r.skill)).toEqual(['exchange-delivered-order-items']);
    expect(json(cli(['outcome', id, 'failure', '--json', '--db', db]))).toEqual({
      credited: ['exchange-delivered-order-items'],
    });
  });
});
