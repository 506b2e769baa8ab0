import { type Command, MEMORY_FLAGS } from '../command.js';
import { out, printJson } from '../output.js';

const USAGE = 'usage: skillsmith outcome SESSION success|failure';
const OUTCOMES = ['success', 'failure', 'unknown'];

/** `skillsmith outcome SESSION success|failure`: skills recalled for the session get a trial. */
export const command: Command = {
  name: 'outcome',
  flags: [...MEMORY_FLAGS, 'json'],
  help: `  outcome SESSION success|failure
                              report a session's outcome: skills recalled for it get a trial`,
  opens: 'memory',
  usage: ([session, outcome]) => (session && OUTCOMES.includes(outcome ?? '') ? null : USAGE),
  ifMissing: () => 'fail',
  async run(args, { flags, memory: open }) {
    const memory = await open();
    // `usage` checked both before the memory opened.
    const [session, outcome] = args as [string, 'success' | 'failure'];
    const res = await memory.reportOutcome(session, outcome);
    if (flags.json) printJson(res);
    else
      out(
        res.credited.length
          ? `Recorded; trial ${outcome === 'success' ? 'passed' : 'failed'} for: ${res.credited.join(', ')}`
          : 'Recorded; no recalled skill to credit.',
      );
    return 0;
  },
};
