// A developer's week with Claude Code and Skillsmith's hooks, as the README sets them up: the week's transcripts
// grow reply by reply (test/fixtures/claude-code-week.mjs), the built CLI runs as each hook (UserPromptSubmit:
// recall --hook; Stop: ingest --hook; SessionEnd: learn --hook) in a HOME of its own, and the user then looks at
// what was stored and learned.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drive, type HookRun } from './fixtures/claude-code-week.mjs';
import { BUILT_CLI, runBuiltCli } from './support/built-cli.js';
import { CONFIG_ENV } from '../src/config/sources.js';

let home: string;
let runs: HookRun[];
let env: NodeJS.ProcessEnv;
const cli = (...args: string[]) => {
  const r = runBuiltCli([...args, '--json'], { cwd: home, env: env as Record<string, string> });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'skillsmith-week-'));
  const config = join(home, 'skillsmith.config.json');
  // The week's passes are days apart; here they are a second apart, so no cluster waits out the cooldown.
  writeFileSync(config, JSON.stringify({ synthesis: { cooldownMs: 0 } }));
  env = {
    ...process.env,
    HOME: home,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
  };
  for (const name of ['SKILLSMITH_DB', ...CONFIG_ENV.map((v) => v.name)]) delete env[name];
  env.SKILLSMITH_CONFIG = config;
  runs = drive({ cli: BUILT_CLI, home, env });
}, 240_000);
afterAll(() => rmSync(home, { recursive: true, force: true }));

interface Listed {
  id: string;
  goal: string;
  outcome: string;
  outcomeSource: string;
}
const sessions = (): Listed[] => cli('sessions', 'list', '--limit', '200').items;

describe("a week of Claude Code sessions through Skillsmith's hooks", () => {
  it('runs every hook quietly', () => {
    for (const r of runs) {
      expect(r.status, `${r.event} ${r.prompt ?? ''}: ${r.stderr}`).toBe(0);
      if (r.event !== 'UserPromptSubmit') expect(r.stdout).toBe('');
    }
  });

  it('does not take a task the user said was wrong for a success', () => {
    const all = sessions();
    // The agent bumped the minor version; the user said "No, that's wrong" and left it.
    const minor = all.find((s) => s.goal === 'ship a patch release please')!;
    expect(minor.outcome).toBe('failure');
    const shown = cli('sessions', 'show', minor.id);
    expect(shown.labels.user_rejected_answer).toMatch(/^No, that's wrong/);
    // A lint fix the user rejected and the agent did again: one task, and not a judged success.
    const lint = all.find((s) => s.goal === 'CI lint job fails, clean up the lint warnings')!;
    expect(lint.outcome).toBe('unknown');
    expect(all.some((s) => /that's wrong/i.test(s.goal))).toBe(false);
  });

  it('learns one skill for each recurring task, with its commands, and none from one-off or rejected work', () => {
    const skills: { name: string; description: string; sourceSessions: string[] }[] = cli('skills', 'list');
    const out = join(home, 'exported');
    cli('skills', 'export', '--out', out);
    const bodies = skills.map((s) => readFileSync(join(out, s.name, 'SKILL.md'), 'utf8')).join('\n');
    for (const command of ['npm version patch', 'git push --follow-tags', 'git rebase origin/main', 'npm run lint'])
      expect(bodies).toContain(`\`${command}\``);
    // Why CI failed: the runs, then the failed run's log; not one `gh run` step done twice.
    expect(bodies).toMatch(/1\. Run a `gh run list` command[^\n]*\n2\. Run a `gh run view` command[^\n]*--log-failed/);
    expect(bodies).not.toContain('npm version minor');
    expect(bodies).not.toContain('eslint-disable');
    expect(skills).toHaveLength(6);
    // A rename read and edited six to eight files each time: all three runs followed the one procedure (before, none
    // did: "0 successful sessions follow the procedure"), which says to repeat the pair for each file.
    const renames = skills.find((s) => s.name === 'rename');
    expect(renames?.sourceSessions).toHaveLength(3);
    expect(bodies).toContain(
      '2. Call `Read` with `file_path` from the result of `Grep`; repeat for each file concerned.',
    );
    // Named by what was asked: not `read` (the Read that ends a look at CI) nor `check-origin` (a rebase).
    const names = skills.map((s) => s.name);
    expect(names).toContain('check-ci');
    expect(names.filter((n) => n.startsWith('rebase-'))).toHaveLength(1);
    // A description says the commands a procedure runs, not words its arguments gave (`git diff --stat
    // package.json` once read "looks up json"), nor their paths or messages.
    const said = new Map(skills.map((s) => [s.name, s.description]));
    expect(said.get('install-package')).toMatch(
      /^Install Package: runs npm install, git diff, npm test, git add and git commit \(/,
    );
    expect(said.get('check-ci')).toMatch(/runs gh run list and gh run view/);
    expect(said.get('fix-lint')).toMatch(/runs npm run lint/);
    expect([...said.values()].join('\n')).not.toMatch(/looks up (?:json|list|origin|lint)\b|package\.json/);
    const goals = new Map(sessions().map((s) => [s.id, s.goal]));
    const rejected = ['ship a patch release please', 'CI lint job fails, clean up the lint warnings'];
    for (const s of skills) for (const id of s.sourceSessions) expect(rejected).not.toContain(goals.get(id));
  });

  it('keeps the npm token out of the memory and the skills', () => {
    const db = readFileSync(join(home, '.local', 'share', 'skillsmith', 'skillsmith.db'));
    expect(db.includes('npm_Q7xWk2LmP9vRt4YsZb8NcD3fHj6AaE1uGo5i')).toBe(false);
  });

  it('hands the fifth patch-release request the release procedure, short', () => {
    const last = runs.filter((r) => r.event === 'UserPromptSubmit').pop()!;
    expect(last.prompt).toMatch(/another patch release/);
    const pack = last.stdout;
    expect(pack).toContain('Run `npm version patch` with `Bash`.');
    expect(pack).toContain('Run `npm publish` with `Bash`.');
    expect(pack.length).toBeLessThan(1500);
  });
});
