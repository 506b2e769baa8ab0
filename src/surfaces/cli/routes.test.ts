import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Memory } from '../../app/memory.js';
import { type Command, EVERY_COMMAND_FLAGS, MEMORY_FLAGS } from './command.js';
import { memoryFromFlags } from './command-support.js';
import { FLAG_NAMES, type Flags } from './options.js';
import { commandHelp, help, ROUTES, subcommandHelp } from './routes.js';

describe('the CLI routing table', () => {
  it('routes each name to the command module of that name, once', async () => {
    expect(new Set(ROUTES.map((r) => r.name)).size).toBe(ROUTES.length);
    for (const route of ROUTES) {
      const { command } = await route.load();
      expect(command.name).toBe(route.name);
      expect(['memory', 'self']).toContain(command.opens);
      expect(typeof command.run).toBe('function');
    }
  });

  it('builds the help from the commands own lines, in table order', async () => {
    const text = await help();
    let from = 0;
    for (const route of ROUTES) {
      const { command } = await route.load();
      expect(command.help.startsWith(`  ${route.name}`)).toBe(true);
      const at = text.indexOf(command.help, from);
      expect(at, route.name).toBeGreaterThan(-1);
      from = at + command.help.length;
    }
    expect(text).toMatch(/^skillsmith: procedural memory for LLM agents\n/);
    expect(text).toMatch(/\nOptions\n/);
  });

  it("a command's --help lists the options it takes: serve's and mcp's none of ingest's, nor --json", async () => {
    const helpOf = async (name: string) => commandHelp((await ROUTES.find((r) => r.name === name)!.load()).command);
    for (const name of ['serve', 'mcp']) {
      const text = await helpOf(name);
      expect(text, name).toMatch(new RegExp(`^Usage: skillsmith ${name} \\[options\\]\n\n {2}${name} \\[`));
      for (const own of [
        '--db PATH|URL',
        '--namespace NS',
        '--config FILE',
        '--log-level L',
        '-h, --help',
        '--version',
      ])
        expect(text, `${name} ${own}`).toContain(own);
      for (const other of ['--format', '--judge', '--json']) expect(text, `${name} ${other}`).not.toContain(other);
    }
    expect(await helpOf('serve')).toContain('--host: the address to listen on');
    for (const name of ['ingest', 'learn'])
      for (const flag of ['--format F', '--judge J', '--json']) expect(await helpOf(name), name).toContain(flag);
    const recall = await helpOf('recall');
    expect(recall).toContain('--json');
    expect(recall).not.toContain('--format');
    // The overview still lists every option.
    for (const flag of ['--db PATH|URL', '--format F', '--judge J', '--json', '--log-level L'])
      expect(await help()).toContain(flag);
  });

  it('every flag the parser knows is taken by a command, and each command takes only flags the parser knows', async () => {
    const commands = await Promise.all(ROUTES.map(async (r) => (await r.load()).command));
    const taken = new Set<string>([...EVERY_COMMAND_FLAGS, ...commands.flatMap((c) => c.flags)]);
    expect(FLAG_NAMES.filter((f) => !taken.has(f))).toEqual([]);
    for (const c of commands)
      expect(
        c.flags.filter((f) => !FLAG_NAMES.includes(f)),
        c.name,
      ).toEqual([]);
    // The commands that open the memory of --db take the flags that name it; migrate and eval name their own.
    for (const c of commands.filter((c) => !['migrate', 'eval'].includes(c.name)))
      for (const f of MEMORY_FLAGS) expect(c.flags, c.name).toContain(f);
    expect(commands.find((c) => c.name === 'migrate')!.flags).not.toContain('db');
  });

  it('only the evaluation answers --help itself; it, the servers, ingest and learn (which check their paths first) and hooks (which opens none) open what they need', async () => {
    const commands = await Promise.all(ROUTES.map(async (r) => (await r.load()).command));
    expect(commands.filter((c) => c.ownHelp).map((c) => c.name)).toEqual(['eval']);
    expect(
      commands
        .filter((c) => c.opens === 'self')
        .map((c) => c.name)
        .sort(),
    ).toEqual(['doctor', 'eval', 'hooks', 'ingest', 'learn', 'mcp', 'migrate', 'reembed', 'serve']);
  });
});

const loadAll = () => Promise.all(ROUTES.map(async (r) => (await r.load()).command));

/** `--name` as a flag in a text, not the start of a longer one (--db, not --dry-run's --d). */
const mentions = (text: string, flag: string) => new RegExp(`--${flag}(?![\\w-])`).test(text);

describe("the CLI's subcommands", () => {
  it('a command made of subcommands declares them: each takes flags the parser knows, and its command what they take together', async () => {
    const commands = await loadAll();
    // A command that asks for a subcommand has its table (else each would take every flag of the others).
    const asking = commands.filter((c) => /needs a subcommand/.test(c.usage?.([], {}) ?? ''));
    expect(asking.map((c) => c.name).sort()).toEqual(['facts', 'hooks', 'sessions', 'skills']);
    for (const c of commands) expect(!!c.subcommands, c.name).toBe(asking.includes(c));
    for (const c of asking) {
      const subs = c.subcommands!;
      expect(new Set(subs.map((s) => s.name)).size, c.name).toBe(subs.length);
      for (const sub of subs) {
        const where = `${c.name} ${sub.name}`;
        expect(
          sub.flags.filter((f) => !FLAG_NAMES.includes(f)),
          where,
        ).toEqual([]);
        expect(new Set(sub.flags).size, where).toBe(sub.flags.length);
        // Every one of a command that opens the memory of --db takes the flags that name it.
        if (c.opens === 'memory') for (const f of MEMORY_FLAGS) expect(sub.flags, where).toContain(f);
        // Its lines are among its command's, as `skillsmith --help` shows them.
        expect(c.help, where).toContain(sub.help);
        expect(sub.help.trimStart().startsWith(`${c.name} `), where).toBe(true);
        expect(sub.help, where).toMatch(new RegExp(`${c.name} (\\w+\\|)*${sub.name}\\b`));
      }
      expect([...c.flags].sort(), c.name).toEqual([...new Set(subs.flatMap((s) => s.flags))].sort());
    }
  });

  it("a subcommand's --help names its own flags and no flag it does not take", async () => {
    for (const c of await loadAll())
      for (const sub of c.subcommands ?? []) {
        const where = `${c.name} ${sub.name}`;
        const text = subcommandHelp(c, sub);
        expect(text.startsWith(`Usage: skillsmith ${where} [options]\n\n${sub.help}\n\nOptions\n`), where).toBe(true);
        const takes = new Set<string>([...sub.flags, ...EVERY_COMMAND_FLAGS]);
        for (const f of FLAG_NAMES) expect(mentions(text, f), `${where} --${f}`).toBe(takes.has(f));
        // A flag of its own (not a global one the options describe) is said in its lines.
        for (const f of sub.flags.filter((f) => !['db', 'namespace', 'config', 'json'].includes(f)))
          expect(mentions(sub.help, f), `${where} --${f}`).toBe(true);
      }
  });
});

/**
 * Runs each subcommand as the CLI does (its `usage`, then `run`) on a real SQLite memory, with flags that record
 * which of them it reads: it must read each flag it declares besides the memory's (which the CLI reads to open it),
 * else a flag it takes would be accepted and ignored, and read none it does not declare, which the CLI refuses.
 */
describe('the flags each subcommand reads', () => {
  const ROOT = new URL('../../../', import.meta.url).pathname;
  let dir: string;
  let memory: Memory;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'skillsmith-subflags-'));
    memory = await memoryFromFlags({ db: join(dir, 'memory.db') });
    await memory.ingestText(readFileSync(join(ROOT, 'examples', 'tau-sample.jsonl'), 'utf8'));
    await memory.synthesize();
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await memory?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A folder holding one skill folder to import (a test beside the code reads nothing from test/). */
  const skillFolder = () => {
    const folder = join(dir, 'to-import', 'triage-support-ticket');
    mkdirSync(folder, { recursive: true });
    const lines = [
      '---',
      'name: triage-support-ticket',
      'description: Triage an inbound support ticket. Use when the user pastes a support ticket.',
      '---',
      '',
      '# Triage a Support Ticket',
      '',
      '1. Pull matching policy docs with `query_documents`.',
      '2. Record the disposition with `remember`.',
    ];
    writeFileSync(join(folder, 'SKILL.md'), `${lines.join('\n')}\n`);
    return join(dir, 'to-import');
  };

  /** The arguments and flag values of a run of each subcommand that gets to its end (exit 0), in this order. */
  type Run = () => Promise<{ args: string[]; flags?: Flags }>;
  const skill = async (i: number) => (await memory.skills.list()).filter((s) => s.corpus === 'internal')[i]!.name;
  const session = async () => (await memory.sessions.list({ limit: 1, offset: 0 }))[0]!.id;
  const RUNS: Record<string, Record<string, Run>> = {
    skills: {
      list: async () => ({ args: ['list'] }),
      show: async () => ({ args: ['show', await skill(0)] }),
      explain: async () => ({ args: ['explain', await skill(0)] }),
      diff: async () => ({ args: ['diff', await skill(0)] }),
      disable: async () => ({ args: ['disable', await skill(0)] }),
      enable: async () => ({ args: ['enable', await skill(0)] }),
      export: async () => ({ args: ['export'], flags: { out: join(dir, 'export') } }),
      import: async () => ({ args: ['import', skillFolder()] }),
      promote: async () => ({
        args: ['promote', (await memory.skills.list()).find((s) => s.corpus === 'external')!.name],
      }),
      rename: async () => ({ args: ['rename', await skill(1), 'renamed-by-a-person'] }),
      edit: async () => {
        const s = (await memory.skills.get(await skill(0)))!;
        const file = join(dir, 'edited.SKILL.md');
        writeFileSync(file, `${s.skillMd.trimEnd()}\n\nA note a person added.\n`);
        return { args: ['edit', s.name], flags: { file } };
      },
      forget: async () => ({ args: ['forget', await skill(2)] }),
    },
    sessions: {
      list: async () => ({ args: ['list'] }),
      show: async () => ({ args: ['show', await session()] }),
      alike: async () => ({ args: ['alike'] }),
      forget: async () => ({ args: ['forget', await session()] }),
    },
    facts: {
      add: async () => ({ args: ['add', 'refunds go to the original payment method'] }),
      list: async () => ({ args: ['list'] }),
    },
    // In a HOME of its own: the settings file it writes is under it.
    hooks: {
      install: async () => {
        vi.stubEnv('HOME', join(dir, 'home'));
        return { args: ['install'], flags: { agent: 'gemini', project: false, tools: 'get_order', json: true } };
      },
      uninstall: async () => {
        vi.stubEnv('HOME', join(dir, 'home'));
        return { args: ['uninstall'], flags: { agent: 'gemini', project: false, 'dry-run': true, json: false } };
      },
    },
  };

  /** Flags that note each one read. */
  function recording(values: Flags): { flags: Flags; read: Set<string> } {
    const read = new Set<string>();
    const flags = new Proxy(values, {
      get(target, key, receiver) {
        if (typeof key === 'string') read.add(key);
        return Reflect.get(target, key, receiver);
      },
    });
    return { flags, read };
  }

  async function readBy(command: Command, run: Run): Promise<Set<string>> {
    const { args, flags: values = {} } = await run();
    const { flags, read } = recording(values);
    const quiet = [process.stdout, process.stderr].map((s) => vi.spyOn(s, 'write').mockImplementation(() => true));
    try {
      expect(command.usage?.(args, flags) ?? null, args.join(' ')).toBeNull();
      expect(await command.run(args, { flags, memory: async () => memory }), args.join(' ')).toBe(0);
    } finally {
      for (const q of quiet) q.mockRestore();
    }
    return read;
  }

  it('each reads every flag it declares, and none other', async () => {
    const commands = (await loadAll()).filter((c) => c.subcommands);
    expect(commands.map((c) => c.name).sort()).toEqual(Object.keys(RUNS).sort());
    for (const command of commands) {
      const runs = RUNS[command.name]!;
      // A subcommand added to the table is run here too.
      expect(Object.keys(runs).sort(), command.name).toEqual(command.subcommands!.map((s) => s.name).sort());
      for (const [name, run] of Object.entries(runs)) {
        const sub = command.subcommands!.find((s) => s.name === name)!;
        const read = [...(await readBy(command, run))].filter((f) => !EVERY_COMMAND_FLAGS.includes(f as never));
        const where = `${command.name} ${name}`;
        expect(
          read.filter((f) => !sub.flags.includes(f as never)),
          `${where} reads flags it does not declare`,
        ).toEqual([]);
        expect(
          sub.flags.filter((f) => !(MEMORY_FLAGS as readonly string[]).includes(f) && !read.includes(f)),
          `${where} declares flags it never reads`,
        ).toEqual([]);
      }
    }
  });
});
