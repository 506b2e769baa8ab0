// The built CLI: forgetting sessions and skills, and which memory it opens without --db.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  forgetSessions,
  SECRET_GOAL_WORD,
  SECRET_RESULT,
  tracesInFile,
  writeDatedSessions,
} from './support/forget-fixture.js';

const ROOT = new URL('..', import.meta.url).pathname;
const CLI = join(ROOT, 'dist', 'surfaces', 'cli', 'main.js');

let tmp: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error('run `npm run build` first: the CLI tests drive dist/');
  tmp = mkdtempSync(join(tmpdir(), 'skillsmith-cli-forget-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function cli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const env = { ...process.env, SKILLSMITH_DB: '', SKILLSMITH_CONFIG: '', ...opts.env };
  delete (env as Record<string, string | undefined>).SKILLSMITH_DB;
  if (opts.env?.SKILLSMITH_DB) env.SKILLSMITH_DB = opts.env.SKILLSMITH_DB;
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: opts.cwd ?? tmp,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The fixture sessions in the interchange format. */
function writeSessions(file: string) {
  const lines = forgetSessions().map((s) =>
    JSON.stringify({
      session_id: s.id,
      goal: s.goal,
      success: true,
      steps: s.calls.map((c) => ({ tool: c.tool, args: c.args, result: c.result, ok: true })),
    }),
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
}

describe('skillsmith sessions forget / skills forget', () => {
  it('forgets a session (lineage marked, no trace in the file) and a skill (never recalled again)', () => {
    const db = join(tmp, 'cli.db');
    const file = join(tmp, 'sessions.jsonl');
    writeSessions(file);
    const learned = cli(['learn', file, '--db', db, '--json']);
    expect(learned.status, learned.stderr).toBe(0);
    const skills = JSON.parse(cli(['skills', 'list', '--db', db, '--json']).stdout) as {
      name: string;
      sourceSessions: string[];
    }[];
    expect(skills).toHaveLength(1);
    const name = skills[0].name;
    expect(skills[0].sourceSessions).toContain('fg-0');

    const forgot = cli(['sessions', 'forget', 'fg-0', 'no-such', '--db', db, '--json']);
    expect(forgot.status).toBe(1);
    expect(JSON.parse(forgot.stdout)).toEqual({
      forgotten: [{ id: 'fg-0', ref: expect.stringMatching(/^ses-/), calls: 3, skills: [name] }],
      missing: ['no-such'],
    });
    const explain = cli(['skills', 'explain', name, '--db', db]);
    expect(explain.stdout).toMatch(/1 parent session\(s\) forgotten/);
    expect(explain.stdout).not.toContain(SECRET_GOAL_WORD);
    expect(tracesInFile(db, [SECRET_GOAL_WORD, SECRET_RESULT])).toEqual([]);

    const text = cli(['sessions', 'forget', 'fg-1', '--db', db]);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/session fg-1 forgotten \(3 calls\); .* keep a forgotten-parent marker/);

    const gone = cli(['skills', 'forget', name, '--db', db, '--json']);
    expect(gone.status, gone.stderr).toBe(0);
    expect(JSON.parse(gone.stdout)).toEqual({ forgotten: { id: expect.any(String), name } });
    expect(JSON.parse(cli(['recall', 'Cancel my pending order #W5555', '--db', db, '--json']).stdout)).toEqual([]);
    expect(JSON.parse(cli(['skills', 'list', '--all', '--db', db, '--json']).stdout)).toEqual([]);
    const again = cli(['skills', 'forget', name, '--db', db]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/no skill named/);
    expect(cli(['sessions', 'forget', '--db', db]).status).toBe(2);
  });
});

describe('retention: sessions older than an age', () => {
  const ids = (db: string) =>
    (JSON.parse(cli(['sessions', 'list', '--db', db, '--json']).stdout) as { items: { id: string }[] }).items
      .map((s) => s.id)
      .sort();

  it('lists them on a dry run, then forgets them with their traces; the undated one is kept and said', () => {
    const db = join(tmp, 'retention.db');
    const file = join(tmp, 'dated.jsonl');
    writeDatedSessions(file, 'rt');
    expect(cli(['learn', file, '--db', db]).status).toBe(0);
    const [skill] = JSON.parse(cli(['skills', 'list', '--db', db, '--json']).stdout) as { name: string }[];

    const dry = cli(['sessions', 'forget', '--older-than', '90d', '--dry-run', '--db', db, '--json']);
    expect(dry.status, dry.stderr).toBe(0);
    const listed = JSON.parse(dry.stdout);
    expect(listed).toMatchObject({ dryRun: true, undated: ['rt-3'] });
    expect(listed.forgotten.map((f: { id: string }) => f.id)).toEqual(['rt-0', 'rt-1']);
    expect(ids(db)).toEqual(['rt-0', 'rt-1', 'rt-2', 'rt-3']);

    const text = cli(['sessions', 'forget', '--older-than', '90d', '--db', db]);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^2 sessions ended \(or, still open, last active\) before .*: forgotten$/m);
    expect(text.stdout).toMatch(new RegExp(`rt-0 .* 3 calls; ${skill!.name} keep a forgotten-parent marker`));
    expect(text.stdout).toMatch(/^1 session kept: its stored time reads as no date$/m);
    expect(ids(db)).toEqual(['rt-2', 'rt-3']);
    expect(tracesInFile(db, [SECRET_GOAL_WORD, SECRET_RESULT])).toEqual([]);
    expect(cli(['skills', 'explain', skill!.name, '--db', db]).stdout).toMatch(/2 parent session\(s\) forgotten/);
    // Nothing older is left: a second run forgets nothing.
    expect(
      JSON.parse(
        cli(['sessions', 'forget', '--before', '2099-01-01', '--dry-run', '--db', db, '--json']).stdout,
      ).forgotten.map((f: { id: string }) => f.id),
    ).toEqual(['rt-2']);
  });

  it('capture.retentionDays forgets them after each pass, and the pass says so', () => {
    const db = join(tmp, 'retention-config.db');
    const file = join(tmp, 'dated-config.jsonl');
    const config = join(tmp, 'retention.json');
    writeDatedSessions(file, 'rt');
    writeFileSync(config, JSON.stringify({ capture: { retentionDays: 30 } }));
    const learned = cli(['learn', file, '--db', db, '--config', config, '--json']);
    expect(learned.status, learned.stderr).toBe(0);
    // The pass learned from all four before the old ones went.
    const report = JSON.parse(learned.stdout);
    expect(report.created ?? report.synthesis?.created).toHaveLength(1);
    expect(JSON.stringify(report)).toMatch(/"retention":\{"before":"[^"]+","sessions":2,"undated":1\}/);
    expect(ids(db)).toEqual(['rt-2', 'rt-3']);
  });

  it('refuses an age or a date it cannot read, IDs with an age, and a dry run without one', () => {
    const db = join(tmp, 'retention-usage.db');
    for (const args of [
      ['--older-than', '90'],
      ['--older-than', '3m'],
      ['--before', 'next week'],
      ['--older-than', '90d', '--before', '2026-01-01'],
      ['rt-0', '--older-than', '90d'],
      ['rt-0', '--dry-run'],
    ]) {
      const r = cli(['sessions', 'forget', ...args, '--db', db]);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/no age|no date|not both|--dry-run lists/);
    }
  });
});

describe('the memory a surface opens without --db', () => {
  it('is the per-user data directory, named on stderr, when the working directory has no skillsmith.db', () => {
    const cwd = join(tmp, 'desktop-client-cwd');
    const xdg = join(tmp, 'xdg');
    mkdirSync(cwd, { recursive: true });
    const r = cli(['recall', 'anything', '--json'], { cwd, env: { XDG_DATA_HOME: xdg, HOME: join(tmp, 'home') } });
    expect(r.status, r.stderr).toBe(0);
    const perUser = join(xdg, 'skillsmith', 'skillsmith.db');
    expect(r.stderr).toContain(`skillsmith: memory ${perUser} (per-user data directory`);
    // A recall only reads: on a fresh machine it creates no memory; a command that writes creates it there.
    expect(existsSync(perUser)).toBe(false);
    const write = cli(['facts', 'add', 'a fact'], { cwd, env: { XDG_DATA_HOME: xdg, HOME: join(tmp, 'home') } });
    expect(write.status, write.stderr).toBe(0);
    expect(write.stderr).toContain(`skillsmith: memory ${perUser} (per-user data directory`);
    expect(existsSync(perUser)).toBe(true);
    expect(existsSync(join(cwd, 'skillsmith.db'))).toBe(false);
  });

  it('is ./skillsmith.db when it exists, and SKILLSMITH_DB over both', () => {
    const cwd = join(tmp, 'project');
    mkdirSync(cwd, { recursive: true });
    expect(cli(['facts', 'add', 'a fact', '--db', join(cwd, 'skillsmith.db')]).status).toBe(0);
    const env = { XDG_DATA_HOME: join(tmp, 'xdg2'), HOME: join(tmp, 'home') };
    const local = cli(['facts', 'list', '--json'], { cwd, env });
    expect(local.stderr).toContain(`skillsmith: memory ${join(cwd, 'skillsmith.db')} (working directory`);
    expect(JSON.parse(local.stdout).map((f: { text: string }) => f.text)).toEqual(['a fact']);
    expect(existsSync(join(tmp, 'xdg2'))).toBe(false);
    const other = join(tmp, 'env.db');
    const fromEnv = cli(['facts', 'add', 'another fact', '--json'], { cwd, env: { ...env, SKILLSMITH_DB: other } });
    expect(fromEnv.stderr).toContain(`skillsmith: memory ${other} (SKILLSMITH_DB`);
    expect(existsSync(other)).toBe(true);
    // --db is the person's own choice: nothing to announce.
    const chosen = cli(['facts', 'list', '--json', '--db', other], { cwd, env });
    expect(chosen.stderr).toBe('');
    expect(JSON.parse(chosen.stdout).map((f: { text: string }) => f.text)).toEqual(['another fact']);
  });

  it('mcp over stdio names it too (stderr; stdout carries only the protocol)', () => {
    const cwd = join(tmp, 'mcp-cwd');
    mkdirSync(cwd, { recursive: true });
    const xdg = join(tmp, 'xdg3');
    const r = spawnSync(process.execPath, [CLI, 'mcp'], {
      cwd,
      env: { ...process.env, SKILLSMITH_DB: '', XDG_DATA_HOME: xdg },
      input: '',
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.stderr).toContain(
      `skillsmith: memory ${join(xdg, 'skillsmith', 'skillsmith.db')} (per-user data directory`,
    );
    expect(r.stdout).toBe('');
  });
});
