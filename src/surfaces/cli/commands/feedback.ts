import { skillJson } from '../../shapes.js';
import { UsageError, type Command, MEMORY_FLAGS } from '../command.js';
import { out, printJson } from '../output.js';

const USAGE = 'usage: skillsmith feedback NAME pass|fail|up|down|reward=<0..1>';

/** `skillsmith feedback NAME pass|fail|up|down|reward=R [--session ID]`. */
export const command: Command = {
  name: 'feedback',
  flags: [...MEMORY_FLAGS, 'session', 'json'],
  help: `  feedback NAME pass|fail|up|down|reward=R
                              a trial result, a thumbs up/down or a reward in [0,1]`,
  opens: 'memory',
  usage: ([name, signal]) => (name && signal ? null : USAGE),
  ifMissing: () => 'fail',
  async run(args, { flags, memory: open }) {
    const memory = await open();
    // `usage` checked both before the memory opened.
    const [name, signal] = args as [string, string];
    let res: Awaited<ReturnType<typeof memory.feedback>>;
    try {
      res = await memory.feedback(name, signal, { sessionId: flags.session });
    } catch (e) {
      // A signal that does not parse is bad usage.
      if (e instanceof RangeError) throw new UsageError(e.message);
      throw e;
    }
    if (flags.json) printJson({ before: skillJson(res.before), after: skillJson(res.after) });
    else
      out(
        `${res.after.name}: eta ${res.before.eta.toFixed(2)} -> ${res.after.eta.toFixed(2)}, utility ${res.after.utility.toFixed(2)}, ${res.before.status}${res.before.status !== res.after.status ? ` -> ${res.after.status}` : ''}`,
      );
    return 0;
  },
};
