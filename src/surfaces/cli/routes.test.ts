import { describe, expect, it } from 'vitest';
import { EVERY_COMMAND_FLAGS, MEMORY_FLAGS } from './command.js';
import { FLAG_NAMES } from './options.js';
import { commandHelp, help, ROUTES } from './routes.js';

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

  it('only the evaluation answers --help itself; it, the servers, ingest and learn (which check their paths first) open what they need', async () => {
    const commands = await Promise.all(ROUTES.map(async (r) => (await r.load()).command));
    expect(commands.filter((c) => c.ownHelp).map((c) => c.name)).toEqual(['eval']);
    expect(
      commands
        .filter((c) => c.opens === 'self')
        .map((c) => c.name)
        .sort(),
    ).toEqual(['doctor', 'eval', 'ingest', 'learn', 'mcp', 'migrate', 'reembed', 'serve']);
  });
});
