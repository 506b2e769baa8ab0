import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Run, runBuiltCli } from './support/built-cli.js';

// With --json, a command's error is one line of JSON on stderr, `{"error", "code"}` with the code REST gives
// (README "Recording from any language (REST)"), stdout empty and the exit code as without it; without --json the
// error is said as it always was.

const SAMPLE = new URL('../examples/tau-sample.jsonl', import.meta.url).pathname;

let tmp: string;
let db: string;
let junk: string;

const cli = (args: string[], env: Record<string, string> = {}): Run =>
  runBuiltCli(args, { cwd: tmp, env, unset: ['SKILLSMITH_LEAN_RECALL'] });

/** A failed run with --json: its exit code and the one JSON line it wrote on stderr, stdout empty. */
function failedJson(r: Run): { code: number | null; error: { error: string; code: string } } {
  expect(r.stdout).toBe('');
  const lines = r.stderr.split('\n');
  expect(lines, r.stderr).toHaveLength(2);
  expect(lines[1]).toBe('');
  return { code: r.code, error: JSON.parse(lines[0]) as { error: string; code: string } };
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'skillsmith-json-errors-'));
  db = join(tmp, 'memory.db');
  const ingested = cli(['ingest', SAMPLE, '--db', db]);
  expect(ingested.code, ingested.stderr).toBe(0);
  junk = join(tmp, 'junk.db');
  writeFileSync(junk, 'not a database');
}, 120_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('an error with --json', () => {
  it('is one line of JSON with its code: a skill or session that is not there is NOT_FOUND, exit 1', () => {
    expect(failedJson(cli(['skills', 'show', 'nope', '--db', db, '--json']))).toEqual({
      code: 1,
      error: { error: 'no skill named "nope"', code: 'NOT_FOUND' },
    });
    expect(failedJson(cli(['sessions', 'show', 'nope', '--db', db, '--json']))).toEqual({
      code: 1,
      error: { error: 'no session "nope" (sessions list shows the stored ones)', code: 'NOT_FOUND' },
    });
  });

  it('recall --json on a file that is no memory: the same line from the short path and the full CLI, a hook too', () => {
    const expected = {
      code: 1,
      error: {
        error: `cannot open SQLite memory at ${junk}: the file is not a SQLite database`,
        code: 'BACKEND_UNAVAILABLE',
      },
    };
    for (const extra of [[], ['--hook']]) {
      const args = ['recall', 'cancel my order', '--db', junk, '--json', ...extra];
      expect(failedJson(cli(args))).toEqual(expected);
      expect(failedJson(cli(args, { SKILLSMITH_LEAN_RECALL: '0' }))).toEqual(expected);
    }
  });

  it('a command line the CLI cannot run is USAGE, exit 2: an unknown flag, command or subcommand, a flag not taken', () => {
    for (const [args, error] of [
      [['skills', 'show', 'nope', '--db', db, '--json', '--bogus'], 'unknown flag --bogus'],
      [['skils', 'list', '--json'], 'unknown command "skils" (did you mean "skills"?)'],
      [
        ['skills', 'lst', '--db', db, '--json'],
        expect.stringMatching(/^unknown skills subcommand "lst" \(did you mean "list"\?\)/),
      ],
      [
        ['skills', 'show', 'nope', '--all', '--db', db, '--json'],
        expect.stringMatching(/^skills show does not take --all/),
      ],
      [['doctor', 'extra', '--json'], 'doctor takes no arguments (got "extra")'],
    ] as const)
      expect(failedJson(cli([...args])), args.join(' ')).toEqual({ code: 2, error: { error, code: 'USAGE' } });
  });
});

describe('the same errors without --json', () => {
  it('are said as before: skillsmith: MESSAGE, with where to read the usage after a usage mistake', () => {
    const said = (args: string[]) => {
      const r = cli(args);
      expect(r.stdout).toBe('');
      return { code: r.code, stderr: r.stderr };
    };
    expect(said(['skills', 'show', 'nope', '--db', db])).toEqual({
      code: 1,
      stderr: 'skillsmith: no skill named "nope"\n',
    });
    expect(said(['sessions', 'show', 'nope', '--db', db])).toEqual({
      code: 1,
      stderr: 'skillsmith: no session "nope" (sessions list shows the stored ones)\n',
    });
    expect(said(['recall', 'cancel my order', '--db', junk])).toEqual({
      code: 1,
      stderr: `skillsmith: cannot open SQLite memory at ${junk}: the file is not a SQLite database\n`,
    });
    expect(said(['skills', 'show', 'nope', '--db', db, '--bogus'])).toEqual({
      code: 2,
      stderr: 'skillsmith: unknown flag --bogus\nRun "skillsmith --help" for usage.\n',
    });
    expect(said(['skills', 'show', 'nope', '--all', '--db', db])).toEqual({
      code: 2,
      stderr: expect.stringMatching(
        /^skillsmith: skills show does not take --all .*\nRun "skillsmith skills show --help" for usage\.\n$/,
      ),
    });
    // A --json after -- is an argument (a goal), not the flag.
    expect(said(['skils', '--', '--json'])).toEqual({
      code: 2,
      stderr: 'skillsmith: unknown command "skils" (did you mean "skills"?)\nRun "skillsmith --help" for usage.\n',
    });
  });
});
