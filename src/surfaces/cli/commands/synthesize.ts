import { type Command, MEMORY_FLAGS } from '../command.js';
import { memoryFlagsText } from '../command-support.js';
import { lookAlikeLines, out, printJson, reportFallback } from '../output.js';
import { learnedNothing, stableReport, synthesisLines } from '../../shapes.js';
import { progressBar } from '../progress.js';

/** `skillsmith synthesize [--dry-run]`: a synthesis pass over the sessions added since the last one. */
export const command: Command = {
  name: 'synthesize',
  flags: [...MEMORY_FLAGS, 'dry-run', 'json'],
  help: `  synthesize [--dry-run]      run a synthesis pass over the sessions added since the last one`,
  opens: 'memory',
  usage: (args) => (args.length ? `synthesize takes no arguments (got "${args.join(' ')}")` : null),
  // A pass over a memory that is not there has nothing to learn from: it says so and creates nothing.
  ifMissing: () => 'empty',
  async run(_args, { flags, memory: open }) {
    const memory = await open();
    const bar = flags.json ? null : progressBar('synthesis');
    const report = await memory.synthesize({
      dryRun: !!flags['dry-run'],
      onProgress: bar ? (p, d, t) => bar.update(p, d, t) : undefined,
    });
    bar?.done();
    reportFallback(report);
    if (flags.json) {
      printJson(stableReport(report));
      return 0;
    }
    for (const line of await synthesisLines(report, memory)) out(line);
    for (const line of lookAlikeLines(report, memoryFlagsText(flags))) out(line);
    if (learnedNothing(report)) out('Nothing new to learn.');
    return 0;
  },
};
