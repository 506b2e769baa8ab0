import { skillJson } from '../../shapes.js';
import { UsageError, type Command, MEMORY_FLAGS } from '../command.js';
import { out, printJson } from '../output.js';

const USAGE = 'usage: skillsmith feedback NAME pass|fail|up|down|reward=<0..1>';

/** `skillsmith feedback NAME pass|fail|up|down|reward=R [--session ID] [--id KEY]`. */
export const command: Command = {
  name: 'feedback',
  flags: [...MEMORY_FLAGS, 'session', 'id', 'json'],
  help: `  feedback NAME pass|fail|up|down|reward=R [--session ID] [--id KEY]
                              a trial result, a thumbs up/down or a reward in [0,1]; --session: the
                              session it was used in (one trial a session), --id: a key of your own
                              that makes a retry safe (the same feedback again under it changes nothing)`,
  opens: 'memory',
  usage: ([name, signal]) => (name && signal ? null : USAGE),
  ifMissing: () => 'fail',
  async run(args, { flags, memory: open }) {
    const memory = await open();
    // `usage` checked both before the memory opened.
    const [name, signal] = args as [string, string];
    let res: Awaited<ReturnType<typeof memory.feedback>>;
    try {
      res = await memory.feedback(name, signal, { sessionId: flags.session, feedbackId: flags.id });
    } catch (e) {
      // A signal that does not parse is bad usage.
      if (e instanceof RangeError) throw new UsageError(e.message);
      throw e;
    }
    if (flags.json) printJson({ before: skillJson(res.before), after: skillJson(res.after), repeated: res.repeated });
    else if (res.repeated)
      out(
        `${res.after.name}: this feedback was given before${flags.id === undefined ? ' for this session' : ' under this --id'}; not counted again (eta ${res.after.eta.toFixed(2)}, ${res.after.status})`,
      );
    else
      out(
        `${res.after.name}: eta ${res.before.eta.toFixed(2)} -> ${res.after.eta.toFixed(2)}, utility ${res.after.utility.toFixed(2)}, ${res.before.status}${res.before.status !== res.after.status ? ` -> ${res.after.status}` : ''}`,
      );
    return 0;
  },
};
