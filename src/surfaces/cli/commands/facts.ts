import { type Command, MEMORY_FLAGS, withSubcommands } from '../command.js';
import { out, printJson } from '../output.js';

const SUBCOMMAND = 'facts needs a subcommand: add or list';
const ADD_USAGE = 'usage: skillsmith facts add "TEXT"';

/** One help line for both subcommands. */
const HELP = `  facts add "TEXT" | facts list
                              semantic memories that compiled skills can rest on`;

/** `skillsmith facts add "TEXT" | facts list`: semantic memories that compiled skills can rest on. */
export const command: Command = {
  name: 'facts',
  ...withSubcommands([
    { name: 'add', flags: [...MEMORY_FLAGS, 'json'], help: HELP },
    { name: 'list', flags: [...MEMORY_FLAGS, 'json'], help: HELP },
  ]),
  opens: 'memory',
  ifMissing: ([sub]) => (sub === 'list' ? 'empty' : null),
  usage: ([sub, ...rest]) =>
    sub === 'list' ? null : sub === 'add' ? (rest.join(' ').trim() ? null : ADD_USAGE) : SUBCOMMAND,
  async run(args, { flags, memory: open }) {
    const memory = await open();
    const [sub, ...rest] = args;
    if (sub === 'add') {
      // `usage` checked there is text before the memory opened.
      const { id } = await memory.facts.add(rest.join(' ').trim());
      if (flags.json) printJson({ id });
      else out(`fact ${id} stored`);
      return 0;
    }
    // `list`: `usage` let no other subcommand through.
    const facts = await memory.facts.list();
    if (flags.json) printJson(facts);
    else for (const f of facts) out(`${f.id}  ${f.text}`);
    return 0;
  },
};
