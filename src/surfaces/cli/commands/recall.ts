import { UsageError, type Command } from '../command.js';
import { recalledJson } from '../../shapes.js';
import { out, printJson } from '../output.js';

/** `skillsmith recall "GOAL" [--top-k N]`: the skills a planner would get for this goal. */
export const command: Command = {
  name: 'recall',
  help: `  recall "GOAL" [--top-k N]   the skills a planner would get for this goal`,
  opens: 'memory',
  async run(args, { flags, memory: open }) {
    const memory = await open();
    const goal = args.join(' ').trim();
    if (!goal) throw new UsageError('recall needs a GOAL, e.g. skillsmith recall "cancel my order"');
    const topK = flags['top-k'] ? Number(flags['top-k']) : undefined;
    if (topK !== undefined && (!Number.isInteger(topK) || topK < 1))
      throw new UsageError('--top-k must be a positive integer');
    const hits = await memory.recall(goal, { topK });
    if (flags.json) {
      printJson(hits.map(recalledJson));
      return 0;
    }
    if (hits.length === 0) {
      out('No skill matches this goal.');
      return 0;
    }
    out(memory.formatContext(hits));
    out(`Tools to load: ${memory.toolsFor(hits).join(', ')}`);
    return 0;
  },
};
