import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI, type Run, runBuiltCli } from './support/built-cli.js';

// `skillsmith hooks install|uninstall` on real settings files in a scratch HOME, through the built CLI: what it
// writes is what the README shows, it merges into a file that holds other settings and hooks and takes out only its
// own, it refuses a file it cannot read as JSON and leaves it as it was, and the recall hook it writes runs.

const ROOT = new URL('..', import.meta.url).pathname;
const SAMPLE = join(ROOT, 'examples', 'tau-sample.jsonl');

let tmp: string;
let count = 0;

/** A new scratch HOME (with its XDG folders) and a working folder of its own. */
function scratch(): { home: string; cwd: string; env: Record<string, string> } {
  const base = join(tmp, `case-${++count}`);
  const home = join(base, 'home');
  const cwd = join(base, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const env = {
    HOME: home,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_RUNTIME_DIR: join(home, '.run'),
    // No `skillsmith` on the PATH: the hooks name this installation by its absolute path.
    PATH: [dirnameOf(process.execPath), '/usr/bin', '/bin'].join(delimiter),
  };
  return { home, cwd, env };
}

const dirnameOf = (p: string) => p.slice(0, p.lastIndexOf('/'));

function cli(args: string[], s: { cwd: string; env: Record<string, string> }): Run {
  return runBuiltCli(args, { cwd: s.cwd, env: s.env });
}

type Settings = { hooks?: Record<string, { hooks: { type: string; command: string; timeout: number }[] }[]> };

const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Settings & Record<string, unknown>;

/** Event to commands and timeouts, as a settings object holds them. */
const flat = (s: Settings) =>
  Object.fromEntries(
    Object.entries(s.hooks ?? {}).map(([e, groups]) => [
      e,
      groups.flatMap((g) => g.hooks.map((h) => [h.command, h.timeout])),
    ]),
  );

/** The README's JSON block that holds `event`. */
function readmeBlock(event: string): Settings {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
  const block = blocks.find((b) => b.includes(`"${event}"`) && b.includes('--hook'));
  if (!block) throw new Error(`no README block with ${event}`);
  return JSON.parse(block) as Settings;
}

beforeAll(() => {
  if (!existsSync(BUILT_CLI))
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  tmp = mkdtempSync(join(tmpdir(), 'skillsmith-hooks-install-'));
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('skillsmith hooks install', () => {
  it('in a fresh HOME creates ~/.claude/settings.json with the three hooks, and the recall hook it wrote runs from any folder', () => {
    const s = scratch();
    // A memory learned from the sample, named by a path relative to where install runs.
    const learned = cli(['learn', SAMPLE, '--db', 'memory/skills.db'], s);
    expect(learned.code, learned.stderr).toBe(0);
    const lines = readFileSync(SAMPLE, 'utf8').split('\n').filter(Boolean);
    const records = lines.map((l) => JSON.parse(l) as { goal: string; steps: { tool: string }[] });
    const tools = [...new Set(records.flatMap((r) => r.steps.map((st) => st.tool)))].join(',');

    const r = cli(['hooks', 'install', '--db', 'memory/skills.db', '--tools', tools], s);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('absolute path');
    const file = join(s.home, '.claude', 'settings.json');
    const settings = read(file);
    expect(Object.keys(settings.hooks!)).toEqual(['UserPromptSubmit', 'Stop', 'SessionEnd']);
    const recall = settings.hooks!.UserPromptSubmit![0]!.hooks[0]!;
    const db = join(s.cwd, 'memory', 'skills.db');
    expect(recall.command).toBe(
      `${process.execPath} ${BUILT_CLI} recall --hook --tools 'Bash,Read,Edit,MultiEdit,Write,Glob,Grep,LS,Task,WebFetch,WebSearch,NotebookEdit,mcp__*,${tools}' --db ${db}`,
    );
    expect(flat(settings).Stop).toEqual([[`${process.execPath} ${BUILT_CLI} ingest --hook --db ${db}`, 30]]);
    expect(flat(settings).SessionEnd).toEqual([[`${process.execPath} ${BUILT_CLI} learn --hook --db ${db}`, 60]]);

    // As Claude Code runs it: through a shell, in the agent's working folder, the hook input on stdin.
    const agentCwd = join(s.home, 'some-project');
    mkdirSync(agentCwd);
    const input = JSON.stringify({
      session_id: 'abc',
      transcript_path: join(agentCwd, 'abc.jsonl'),
      cwd: agentCwd,
      hook_event_name: 'UserPromptSubmit',
      prompt: records[0]!.goal,
    });
    const hook = spawnSync('sh', ['-c', recall.command], { cwd: agentCwd, env: s.env, input, encoding: 'utf8' });
    expect(hook.status, hook.stderr).toBe(0);
    expect(hook.stdout).toMatch(/^## Relevant procedures from past runs/);
  });

  it('with this installation first on the PATH writes exactly the README hooks, for Claude Code and Gemini CLI', () => {
    const s = scratch();
    const bin = join(s.home, 'bin');
    mkdirSync(bin);
    symlinkSync(BUILT_CLI, join(bin, 'skillsmith'));
    // What npm install -g and npm link make of the package's bin (tsc writes it without the executable bit).
    chmodSync(BUILT_CLI, 0o755);
    s.env.PATH = [bin, s.env.PATH].join(delimiter);
    const claude = cli(['hooks', 'install'], s);
    expect(claude.code, claude.stderr).toBe(0);
    expect(claude.stdout).toContain('`skillsmith`');
    expect(read(join(s.home, '.claude', 'settings.json'))).toEqual(readmeBlock('SessionEnd'));
    const gemini = cli(['hooks', 'install', '--agent', 'gemini'], s);
    expect(gemini.code, gemini.stderr).toBe(0);
    const written = read(join(s.home, '.gemini', 'settings.json'));
    expect(written).toEqual(readmeBlock('BeforeAgent'));
    // Gemini CLI's timeouts are in milliseconds.
    expect(flat(written)).toEqual({
      BeforeAgent: [[expect.stringMatching(/^skillsmith recall --hook --tools 'run_shell_command,/), 10000]],
      AfterAgent: [['skillsmith learn --hook', 60000]],
    });
    // Another `skillsmith` first on the PATH is not this installation: the absolute form.
    const other = join(s.home, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'skillsmith'), '#!/bin/sh\n', { mode: 0o755 });
    const shadowed = cli(['hooks', 'install', '--json', '--dry-run'], {
      ...s,
      env: { ...s.env, PATH: `${other}${delimiter}${s.env.PATH}` },
    });
    expect(JSON.parse(shadowed.stdout)).toMatchObject({ command: `${process.execPath} ${BUILT_CLI}`, onPath: false });
  });

  it('keeps other settings and hooks; again: nothing changes, byte for byte; uninstall: back to the original', () => {
    const s = scratch();
    const file = join(s.home, '.claude', 'settings.json');
    mkdirSync(join(s.home, '.claude'));
    const original = {
      model: 'opus',
      permissions: { allow: ['Bash(npm test)'] },
      hooks: {
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'other-tool remind', timeout: 5 }] }],
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard.sh' }] }],
      },
    };
    const text = `${JSON.stringify(original, null, 4)}\n`;
    writeFileSync(file, text, { mode: 0o600 });
    chmodSync(file, 0o600);

    const first = cli(['hooks', 'install', '--json'], s);
    expect(first.code, first.stderr).toBe(0);
    const shape = JSON.parse(first.stdout);
    expect(Object.keys(shape)).toEqual(
      expect.arrayContaining(['file', 'agent', 'command', 'added', 'replaced', 'unchanged', 'dryRun']),
    );
    expect(shape).toMatchObject({ file, agent: 'claude-code', replaced: [], unchanged: [], dryRun: false });
    expect(shape.added.map((e: { event: string }) => e.event)).toEqual(['UserPromptSubmit', 'Stop', 'SessionEnd']);
    expect(shape.backup).toBe(`${file}.bak`);
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe(text);
    const installed = readFileSync(file, 'utf8');
    // Its layout (4 spaces) and mode kept.
    expect(installed).toMatch(/^\{\n {4}"model"/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const merged = read(file);
    expect({ ...merged, hooks: undefined }).toEqual({ ...original, hooks: undefined });
    expect(flat(merged).UserPromptSubmit).toEqual([
      ['other-tool remind', 5],
      [expect.stringContaining(' recall --hook --tools '), 10],
    ]);
    expect(merged.hooks!.PreToolUse).toEqual(original.hooks.PreToolUse);

    const again = cli(['hooks', 'install', '--json'], s);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ added: [], replaced: [], written: false });
    expect(JSON.parse(again.stdout).unchanged).toHaveLength(3);
    expect(readFileSync(file, 'utf8')).toBe(installed);

    const out = cli(['hooks', 'uninstall'], s);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('removed');
    expect(read(file)).toEqual(original);
  });

  it('refuses a settings file that is not JSON, or whose hooks is not an object, and leaves it byte for byte', () => {
    const s = scratch();
    const file = join(s.home, '.claude', 'settings.json');
    mkdirSync(join(s.home, '.claude'));
    for (const text of ['{\n  "model": "opus"\n  "hooks": {}\n}\n', '{"hooks": []}\n']) {
      writeFileSync(file, text);
      for (const sub of ['install', 'uninstall']) {
        const r = cli(['hooks', sub], s);
        expect(r.code, `${sub}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toContain(file);
        expect(readFileSync(file, 'utf8')).toBe(text);
        expect(existsSync(`${file}.bak`)).toBe(false);
      }
    }
    writeFileSync(file, '{\n  "model": "opus"\n  "hooks": {}\n}\n');
    expect(cli(['hooks', 'install'], s).stderr).toMatch(/line 3, column 3: not valid JSON/);
    const json = cli(['hooks', 'install', '--json'], s);
    expect(JSON.parse(json.stderr)).toMatchObject({ code: 'CONFIG_INVALID' });
  });

  it('keeps the comments and layout of a settings file: only "hooks" is written, and uninstall gives the file back byte for byte', () => {
    const s = scratch();
    const file = join(s.home, '.gemini', 'settings.json');
    mkdirSync(join(s.home, '.gemini'));
    // Gemini CLI reads its settings with comments allowed.
    const original = [
      '{',
      '  // Gemini CLI settings, kept by hand',
      '  "theme": "GitHub", /* the light one */',
      '  "general": {',
      '    "vimMode": true // since 2025',
      '  },',
      '  "mcpServers": {}',
      '}',
      '',
    ].join('\n');
    writeFileSync(file, original);
    const install = cli(['hooks', 'install', '--agent', 'gemini'], s);
    expect(install.code, install.stderr).toBe(0);
    const installed = readFileSync(file, 'utf8');
    // Everything before the new key is the file as it was; the hooks follow, in its two-space layout.
    expect(installed.startsWith(original.slice(0, original.lastIndexOf('\n}')))).toBe(true);
    expect(installed).toContain('// since 2025');
    expect(installed).toMatch(/\n {2}"hooks": \{\n {4}"BeforeAgent": \[/);
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe(original);
    expect(cli(['hooks', 'install', '--agent', 'gemini'], s).stdout).toContain('Nothing to change');
    expect(readFileSync(file, 'utf8')).toBe(installed);
    expect(cli(['hooks', 'uninstall', '--agent', 'gemini'], s).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(original);

    // A file with tabs and Windows line ends keeps both, and so does a hook of another tool in it.
    const claude = join(s.home, '.claude', 'settings.json');
    mkdirSync(join(s.home, '.claude'));
    const other = { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }] }, model: 'opus' };
    const windows = `${JSON.stringify(other, null, '\t').replace(/\n/g, '\r\n')}\r\n`;
    writeFileSync(claude, windows);
    expect(cli(['hooks', 'install'], s).code).toBe(0);
    const written = readFileSync(claude, 'utf8');
    expect(written.replace(/\r\n/g, '')).not.toContain('\n');
    expect(written).toMatch(/\r\n\t"model": "opus"\r\n\}\r\n$/);
    expect(written).toMatch(/\r\n\t\t"UserPromptSubmit": \[/);
    expect(flat(read(claude)).Stop).toEqual([
      ['notify-send done', undefined],
      [expect.stringContaining(' ingest --hook'), 30],
    ]);
    expect(cli(['hooks', 'uninstall'], s).code).toBe(0);
    expect(readFileSync(claude, 'utf8')).toBe(windows);
  });

  it('refuses a trailing comma, which neither agent reads, naming the line and column, and leaves the file as it was', () => {
    const s = scratch();
    const file = join(s.home, '.gemini', 'settings.json');
    mkdirSync(join(s.home, '.gemini'));
    const text = '{\n  // mine\n  "theme": "GitHub",\n}\n';
    writeFileSync(file, text);
    const r = cli(['hooks', 'install', '--agent', 'gemini'], s);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/settings\.json: line 4, column 1: not valid JSON/);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(existsSync(`${file}.bak`)).toBe(false);
  });

  it('--dry-run writes nothing; --project writes ./.claude/settings.json', () => {
    const s = scratch();
    const dry = cli(['hooks', 'install', '--dry-run'], s);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('would add');
    expect(dry.stdout).toContain('"SessionEnd"');
    expect(existsSync(join(s.home, '.claude'))).toBe(false);
    // Taking out hooks that are not there would change nothing, and says so rather than print an empty object.
    const none = cli(['hooks', 'uninstall', '--dry-run'], s);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toContain("none of Skillsmith's hooks are there");
    expect(none.stdout).toContain('Nothing would change');
    expect(none.stdout).not.toContain('{}');
    const dryJson = JSON.parse(cli(['hooks', 'install', '--dry-run', '--json', '--agent', 'gemini'], s).stdout);
    expect(dryJson).toMatchObject({ agent: 'gemini', dryRun: true, written: false });
    expect(dryJson.added).toHaveLength(2);
    expect(existsSync(join(s.home, '.gemini'))).toBe(false);

    const project = cli(['hooks', 'install', '--project'], s);
    expect(project.code, project.stderr).toBe(0);
    expect(Object.keys(read(join(s.cwd, '.claude', 'settings.json')).hooks!)).toEqual([
      'UserPromptSubmit',
      'Stop',
      'SessionEnd',
    ]);
    expect(existsSync(join(s.home, '.claude'))).toBe(false);
    const text = readFileSync(join(s.cwd, '.claude', 'settings.json'), 'utf8');
    expect(cli(['hooks', 'uninstall', '--project', '--dry-run'], s).code).toBe(0);
    expect(readFileSync(join(s.cwd, '.claude', 'settings.json'), 'utf8')).toBe(text);
    expect(cli(['hooks', 'uninstall', '--project'], s).code).toBe(0);
    expect(read(join(s.cwd, '.claude', 'settings.json'))).toEqual({});
  });
});
