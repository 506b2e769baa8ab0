import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI as CLI, copyMemory, LOG_MODULES, type Run, runBuiltCli } from './support/built-cli.js';

// `skillsmith recall` takes a short path (src/surfaces/cli/lean-recall.ts) that loads only what a recall needs.
// It must be indistinguishable from the full CLI: same stdout, stderr and exit code, and the same trace left in
// the memory, for the same memory and command line. SKILLSMITH_LEAN_RECALL=0 runs the full CLI.

const ROOT = new URL('..', import.meta.url).pathname;
const SAMPLE = join(ROOT, 'examples', 'tau-sample.jsonl');

let tmp: string;
let learnedDb: string;
let goals: string[];
let counter = 0;

function cli(
  args: string[],
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
  cwd = tmp,
  input = '',
  inputAfterMs?: number,
): Run {
  return runBuiltCli(args, { cwd, env, nodeArgs, unset: ['SKILLSMITH_LEAN_RECALL'], input, inputAfterMs });
}

/** A private copy of a memory file (with its recall index file, if any). */
const copyOf = (db: string) => copyMemory(db, join(tmp, `copy-${++counter}`));

/** What a recall leaves in the memory: its recall rows (goal, skills served), without times. */
function recallTrace(db: string): unknown[] {
  const raw = new Database(db, { readonly: true });
  try {
    return raw
      .prepare('SELECT * FROM recalls ORDER BY id')
      .all()
      .map((r) => {
        const { at: _at, created_at: _c, ...rest } = r as Record<string, unknown>;
        return rest;
      });
  } finally {
    raw.close();
  }
}

/** Runs the same command line on two copies of `db`, short path and full CLI, and returns both. */
function both(db: string | null, args: (db: string) => string[], env: Record<string, string> = {}, input = '') {
  const [a, b] = db ? [copyOf(db), copyOf(db)] : [join(tmp, `new-${++counter}.db`), join(tmp, `new-${++counter}.db`)];
  const lean = cli(args(a), env, [], tmp, input);
  const full = cli(args(b), { ...env, SKILLSMITH_LEAN_RECALL: '0' }, [], tmp, input);
  return { lean, full, a, b };
}

function expectSame(r: ReturnType<typeof both>) {
  expect(r.lean.code).toBe(r.full.code);
  expect(r.lean.stdout).toBe(r.full.stdout);
  expect(r.lean.stderr.replaceAll(r.a, 'DB')).toBe(r.full.stderr.replaceAll(r.b, 'DB'));
}

beforeAll(() => {
  if (!existsSync(CLI)) execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  tmp = mkdtempSync(join(tmpdir(), 'skillsmith-lean-'));
  learnedDb = join(tmp, 'learned', 'memory.db');
  const learned = cli(['learn', SAMPLE, '--db', learnedDb]);
  expect(learned.code, learned.stderr).toBe(0);
  goals = readFileSync(SAMPLE, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as { goal: string }).goal)
    .slice(0, 4);
}, 120_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('skillsmith recall --hook: the request on stdin, as a Claude Code UserPromptSubmit hook hands it over', () => {
  const claudeCode = (prompt: string) =>
    JSON.stringify({
      session_id: 'abc',
      transcript_path: '/home/me/.claude/projects/p/abc.jsonl',
      cwd: '/home/me/p',
      hook_event_name: 'UserPromptSubmit',
      prompt,
    });

  it('prints the context pack for a prompt that matches, from the JSON or from plain text, short path and full CLI alike', () => {
    for (const input of [claudeCode(goals[0]), `${goals[0]}\n`]) {
      for (const extra of [[], ['--json']]) {
        const r = both(learnedDb, (db) => ['recall', '--hook', '--db', db, ...extra], {}, input);
        expectSame(r);
        expect(r.lean.code).toBe(0);
        if (extra.length) expect((JSON.parse(r.lean.stdout) as unknown[]).length).toBeGreaterThan(0);
        else expect(r.lean.stdout).toMatch(/^## Relevant procedures from past runs/);
      }
    }
    // The same skills as the goal given as an argument.
    const direct = cli(['recall', goals[0], '--db', copyOf(learnedDb), '--json']);
    const hooked = cli(['recall', '--hook', '--db', copyOf(learnedDb), '--json'], {}, [], tmp, claudeCode(goals[0]));
    expect(hooked.stdout).toBe(direct.stdout);
  });

  it('prints the pack when its configuration sends it past the short path (model or synthesis settings): the prompt read once is kept', () => {
    const config = join(tmp, `full-config-${++counter}.json`);
    writeFileSync(config, JSON.stringify({ synthesis: { minOccurrences: 2 } }));
    for (const env of [{}, { SKILLSMITH_CONFIG: config }] as Record<string, string>[]) {
      const flags = 'SKILLSMITH_CONFIG' in env ? [] : ['--config', config];
      const r = both(learnedDb, (db) => ['recall', '--hook', '--db', db, ...flags], env, claudeCode(goals[0]));
      expectSame(r);
      expect(r.lean.code).toBe(0);
      expect(r.lean.stdout).toMatch(/^## Relevant procedures from past runs/);
    }
  });

  it("reads no memory or configuration of the folder it runs in: a cloned repository's files do not reach the agent", () => {
    // A repository that carries a memory of its own and a configuration that points the embedder at its server.
    const repo = join(tmp, `repo-${++counter}`);
    mkdirSync(repo, { recursive: true });
    copyFileSync(learnedDb, join(repo, 'skillsmith.db'));
    writeFileSync(
      join(repo, 'skillsmith.config.json'),
      JSON.stringify({ embedder: { provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'x' } }),
    );
    const home = { XDG_DATA_HOME: join(tmp, `home-${counter}`), SKILLSMITH_RECALL_DAEMON: '0' };
    for (const env of [home, { ...home, SKILLSMITH_LEAN_RECALL: '0' }]) {
      // The hook: the per-user memory (none yet), on the defaults: nothing to add, exit 0.
      const hooked = cli(['recall', '--hook'], env, [], repo, claudeCode(goals[0]));
      expect([hooked.code, hooked.stdout, hooked.stderr]).toEqual([0, '', '']);
      // Run by a person in that folder, the same command line reads both (and fails on the configuration).
      const typed = cli(['recall', goals[0]], env, [], repo);
      expect(typed.stderr).toContain(join(repo, 'skillsmith.db'));
    }
    // Given explicitly, a project's memory is the hook's memory.
    const chosen = cli(['recall', '--hook', '--db', join(repo, 'skillsmith.db')], home, [], repo, claudeCode(goals[0]));
    expect([chosen.code, chosen.stdout.startsWith('## Relevant procedures from past runs')]).toEqual([0, true]);
  });

  it('answers a hook while another process holds the memory for writing: the pack printed, exit 0, the record dropped', () => {
    const db = copyOf(learnedDb);
    const before = recallTrace(db);
    const writer = new Database(db);
    try {
      // A synthesis pass or an ingest in another process, mid-transaction.
      writer.exec('BEGIN IMMEDIATE');
      const r = cli(['recall', '--hook', '--db', db], {}, [], tmp, claudeCode(goals[0]));
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect(r.stdout).toMatch(/^## Relevant procedures from past runs/);
      writer.exec('ROLLBACK');
    } finally {
      writer.close();
    }
    expect(recallTrace(db)).toEqual(before);
  });

  it('answers a Gemini CLI BeforeAgent hook in the JSON it reads: the pack as hookSpecificOutput.additionalContext', () => {
    const gemini = (prompt: string) =>
      JSON.stringify({
        session_id: 'g1',
        transcript_path: '/home/me/.gemini/tmp/h/chats/session-1.json',
        cwd: '/home/me/p',
        hook_event_name: 'BeforeAgent',
        timestamp: '2026-12-05T10:00:00.000Z',
        prompt,
      });
    const r = both(learnedDb, (db) => ['recall', '--hook', '--db', db], {}, gemini(goals[0]));
    expectSame(r);
    expect(r.lean.code).toBe(0);
    const plain = both(learnedDb, (db) => ['recall', '--hook', '--db', db], {}, claudeCode(goals[0])).lean.stdout;
    expect(JSON.parse(r.lean.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'BeforeAgent', additionalContext: plain.trimEnd() },
    });
    // Gemini CLI would show any other text to the user: with nothing to add, nothing is printed.
    const none = both(learnedDb, (db) => ['recall', '--hook', '--db', db], {}, gemini('write a haiku about autumn'));
    expectSame(none);
    expect([none.lean.code, none.lean.stdout]).toEqual([0, '']);
  });

  it('waits for input that comes late, as a slow hook runner or a shell pipeline writes it', () => {
    const input = claudeCode(goals[0]);
    const direct = cli(['recall', '--hook', '--db', copyOf(learnedDb)], {}, [], tmp, input);
    expect(direct.stdout).toContain('## Relevant procedures from past runs');
    for (const env of [{}, { SKILLSMITH_LEAN_RECALL: '0' }, { SKILLSMITH_RECALL_DAEMON: '0' }] as Record<
      string,
      string
    >[]) {
      // Before: the short path and the full CLI read an empty stdin, and printed nothing.
      const late = cli(['recall', '--hook', '--db', copyOf(learnedDb)], env, [], tmp, input, 600);
      expect([late.code, late.stdout, late.stderr]).toEqual([0, direct.stdout, '']);
    }
    // A memory chosen by SKILLSMITH_DB is named on stderr, except to a hook, which prints nothing but the pack.
    for (const env of [{}, { SKILLSMITH_LEAN_RECALL: '0' }] as Record<string, string>[]) {
      const named = cli(['recall', goals[0]], { ...env, SKILLSMITH_DB: copyOf(learnedDb) });
      expect(named.stderr).toMatch(/^skillsmith: memory .* \(SKILLSMITH_DB; --db PATH to choose another\)\n$/);
      const hooked = cli(['recall', '--hook'], { ...env, SKILLSMITH_DB: copyOf(learnedDb) }, [], tmp, input);
      expect([hooked.code, hooked.stdout, hooked.stderr]).toEqual([0, direct.stdout, '']);
    }
  });

  it('adds nothing, and exits 0, when no skill matches or the prompt is empty: a hook never nags or blocks', () => {
    for (const input of [
      claudeCode('write a haiku about autumn'),
      claudeCode(''),
      claudeCode('   '),
      '',
      '{"prompt": 42}',
      // Another event's input (a Stop hook's, sent to recall by mistake) asks for nothing.
      JSON.stringify({ hook_event_name: 'Stop', session_id: 's1', transcript_path: '/tmp/t.jsonl' }),
    ]) {
      const r = both(learnedDb, (db) => ['recall', '--hook', '--db', db], {}, input);
      expectSame(r);
      expect(r.lean.code).toBe(0);
      expect(r.lean.stdout).toBe('');
    }
    // Without --hook an empty goal is still a usage error.
    expect(cli(['recall', '--db', copyOf(learnedDb)]).code).toBe(2);
    // The README's Claude Code hook names the agent's tools: a memory holding a shop's skills hands it none.
    const coding = both(
      learnedDb,
      (db) => ['recall', '--hook', '--tools', 'Bash,Read,Edit,Write,Glob,Grep,Task,mcp__*', '--db', db],
      {},
      claudeCode(goals[0]),
    );
    expectSame(coding);
    expect([coding.lean.code, coding.lean.stdout]).toEqual([0, '']);
    // A pasted log far over the 64 KiB a recall takes is recalled for by its beginning and end, not refused.
    const pasted = cli(
      ['recall', '--hook', '--db', copyOf(learnedDb)],
      {},
      [],
      tmp,
      claudeCode(`${'x'.repeat(200_000)} fix it`),
    );
    expect([pasted.code, pasted.stderr]).toEqual([0, '']);
    // With --hook no mistake exits 2 (which the agent reads as "block"): a misspelt flag, a flag without its value,
    // a misspelt command. Each is an error (1), said on stderr.
    for (const argv of [
      ['recall', '--hook', '--topk', '3'],
      ['recall', '--hook', '--db'],
      ['recal', '--hook'],
      ['learn', '--hook', '--no-such-flag'],
    ]) {
      const r = cli(argv, {}, [], tmp, claudeCode('fix the failing test'));
      expect([argv.join(' '), r.code]).toEqual([argv.join(' '), 1]);
      expect(r.stderr).toMatch(/^skillsmith: /);
    }
  });
});

/** A phone-support agent's tools (tau2 telecom). */
const PHONE =
  'get_customer_by_phone,get_details_by_id,get_bills_for_customer,send_payment_request,resume_line,check_status_bar,toggle_airplane_mode';

describe('skillsmith recall --tools: an agent that names its tools', () => {
  it('is handed only skills whose steps it can take, and told when none of them fits', () => {
    const shop = cli(['recall', goals[0], '--db', copyOf(learnedDb), '--json']);
    const first = (JSON.parse(shop.stdout) as { name: string; toolSequence: string[] }[])[0];
    expect(first, 'the first sample goal recalls a skill').toBeTruthy();
    const tools = PHONE.split(',');
    expect(first.toolSequence.every((t) => tools.includes(t))).toBe(false);
    const phone = both(learnedDb, (db) => ['recall', goals[0], '--db', db, '--tools', PHONE, '--json']);
    expectSame(phone);
    for (const s of JSON.parse(phone.lean.stdout) as { name: string; toolSequence: string[] }[])
      expect(
        s.toolSequence.every((t) => tools.includes(t)),
        s.name,
      ).toBe(true);
    const own = both(learnedDb, (db) => ['recall', goals[0], '--db', db, '--tools', first.toolSequence.join(',')]);
    expectSame(own);
    expect(own.lean.stdout).toContain(`### Skill: ${first.name}`);
  });
});

describe('skillsmith recall: the short path and the full CLI', () => {
  it('print the same skills, text and --json, and record the same recalls', () => {
    for (const goal of [...goals, 'write a haiku about autumn']) {
      for (const extra of [[], ['--json'], ['--top-k', '1', '--json'], ['--top-k', '3'], ['--tools', PHONE]]) {
        const r = both(learnedDb, (db) => ['recall', goal, '--db', db, ...extra]);
        expectSame(r);
        expect(r.lean.code).toBe(0);
        expect(recallTrace(r.a)).toEqual(recallTrace(r.b));
      }
    }
  });

  it('agree on the audit file and on a memory whose recall index file is missing or stale', () => {
    const r = both(learnedDb, (db) => ['recall', goals[0], '--db', db]);
    expectSame(r);
    expect(readFileSync(`${r.a}.audit.jsonl`, 'utf8').split('\n').length).toBe(
      readFileSync(`${r.b}.audit.jsonl`, 'utf8').split('\n').length,
    );
    // A skill disabled after the index file was written is not served by either.
    const first = JSON.parse(cli(['recall', goals[0], '--db', learnedDb, '--json']).stdout) as { name: string }[];
    expect(first.length).toBeGreaterThan(0);
    const changed = copyOf(learnedDb);
    expect(cli(['skills', 'disable', first[0].name, '--db', changed]).code).toBe(0);
    const after = both(changed, (db) => ['recall', goals[0], '--db', db, '--json']);
    expectSame(after);
    expect((JSON.parse(after.lean.stdout) as { name: string }[]).map((h) => h.name)).not.toContain(first[0].name);
  });

  it('agree with settings from a file, the environment and --namespace', () => {
    const config = join(tmp, 'recall.config.json');
    writeFileSync(config, JSON.stringify({ recall: { topK: 3, wordWeight: 0, maxBodyChars: 100 } }));
    expectSame(both(learnedDb, (db) => ['recall', goals[1], '--db', db, '--config', config]));
    expectSame(both(learnedDb, (db) => ['recall', goals[1], '--db', db], { SKILLSMITH_LOG_LEVEL: 'error' }));
    expectSame(both(learnedDb, (db) => ['recall', goals[1], '--db', db, '--namespace', 'elsewhere', '--json']));
    expectSame(both(learnedDb, (db) => ['recall', goals[1], '--db', db], { SKILLSMITH_DISABLED: '1' }));
    // Settings the short path does not check itself go through the full CLI, with the same result.
    writeFileSync(config, JSON.stringify({ distiller: 'heuristic', capture: { resultChars: 10 } }));
    expectSame(both(learnedDb, (db) => ['recall', goals[1], '--db', db, '--config', config]));
  });

  it('fail the same way: invalid settings, a bad goal or --top-k, a memory file that is not one', () => {
    const config = join(tmp, 'bad.config.json');
    writeFileSync(config, JSON.stringify({ recall: { topK: 0, centering: 3 } }));
    const bad = both(learnedDb, (db) => ['recall', goals[0], '--db', db, '--config', config]);
    expectSame(bad);
    expect(bad.lean.code).toBe(2);
    expect(bad.lean.stderr).toMatch(/recall\.topK/);
    const env = both(learnedDb, (db) => ['recall', goals[0], '--db', db], { SKILLSMITH_DISABLED: 'maybe' });
    expectSame(env);
    expect(env.lean.code).toBe(2);
    expectSame(both(learnedDb, (db) => ['recall', '--db', db]));
    expectSame(both(learnedDb, (db) => ['recall', goals[0], '--db', db, '--top-k', '0']));
    const noTools = both(learnedDb, (db) => ['recall', goals[0], '--db', db, '--tools', ' , ']);
    expectSame(noTools);
    expect(noTools.lean.code).toBe(2);
    expect(noTools.lean.stderr).toMatch(/--tools needs the names of the tools/);
    expectSame(both(learnedDb, (db) => ['recall', 'x'.repeat(70_000), '--db', db]));
    const junk = join(tmp, 'junk.db');
    writeFileSync(junk, 'not a database');
    const j1 = cli(['recall', goals[0], '--db', junk]);
    const j2 = cli(['recall', goals[0], '--db', junk], { SKILLSMITH_LEAN_RECALL: '0' });
    expect(j1).toEqual(j2);
    expect(j1.code).not.toBe(0);
  });

  it('agree on a memory that does not exist yet (answered as empty; neither creates it)', () => {
    const r = both(null, (db) => ['recall', 'cancel my order', '--db', db]);
    expectSame(r);
    expect(r.lean.stdout).toBe('No skill matches this goal.\n');
    expect(r.lean.stderr).toContain(`no memory at ${r.a} yet`);
    expect(existsSync(r.a)).toBe(false);
    expect(existsSync(r.b)).toBe(false);
  });

  it('names the memory on stderr when --db does not, as the full CLI does', () => {
    const cwd = join(tmp, `cwd-${++counter}`);
    mkdirSync(cwd);
    copyFileSync(learnedDb, join(cwd, 'skillsmith.db'));
    const lean = cli(['recall', goals[0]], {}, [], cwd);
    const full = cli(['recall', goals[0]], { SKILLSMITH_LEAN_RECALL: '0' }, [], cwd);
    expect(lean).toEqual(full);
    expect(lean.stderr).toMatch(/^skillsmith: memory .*skillsmith\.db \(working directory/);
  });

  it('loads no configuration schema, YAML, command table or dashboard', () => {
    const log = join(tmp, 'modules.log');
    const r = cli(['recall', goals[0], '--db', copyOf(learnedDb), '--json'], { LOG_MODULES_FILE: log }, [
      '--import',
      LOG_MODULES,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const loaded = readFileSync(log, 'utf8');
    expect(loaded).toMatch(/pipeline\/recall\.js/);
    for (const absent of ['/zod/', '/yaml/', 'cli/routes', 'cli/cli.js', 'surfaces/web', 'hono'])
      expect(loaded).not.toContain(absent);
  });
});
