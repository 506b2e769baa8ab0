import { UsageError, type Command } from '../command.js';
import { need, out, printJson } from '../output.js';

/** `skillsmith facts add "TEXT" | facts list`: semantic memories that compiled skills can rest on. */
export const command: Command = {
  name: 'facts',
  help: `  facts add "TEXT" | facts list
                              semantic memories that compiled skills can rest on`,
  opens: 'memory',
  async run(args, { flags, memory: open }) {
    const memory = await open();
    const [sub, ...rest] = args;
    if (sub === 'add') {
      const { id } = await memory.facts.add(need(rest.join(' ').trim() || undefined, 'facts add "TEXT"'));
      if (flags.json) printJson({ id });
      else out(`fact ${id} stored`);
      return 0;
    }
    if (sub === 'list') {
      const facts = await memory.facts.list();
      if (flags.json) printJson(facts);
      else for (const f of facts) out(`${f.id}  ${f.text}`);
      return 0;
    }
    throw new UsageError('facts needs a subcommand: add or list');
  },
};
