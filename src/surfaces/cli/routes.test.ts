import { describe, expect, it } from 'vitest';
import { help, ROUTES } from './routes.js';

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
