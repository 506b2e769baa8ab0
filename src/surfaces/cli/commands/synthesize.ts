import { sameProcedureVersion } from '../../../domain/reconcile.js';
import type { Command } from '../command.js';
import { memoryFlagsText } from '../command-support.js';
import { lookAlikeLines, out, printJson, reportFallback, stableReport } from '../output.js';
import { progressBar } from '../progress.js';

/** `skillsmith synthesize [--dry-run]`: a synthesis pass over the sessions added since the last one. */
export const command: Command = {
  name: 'synthesize',
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
    const verb = flags['dry-run'] ? 'would be' : '';
    out(
      `${report.stats.newSessions} new sessions, ${report.stats.clusters} clusters, ${report.stats.dirtyClusters} to examine${flags['dry-run'] ? ' (dry run: nothing written)' : ''}.`,
    );
    for (const s of report.created)
      out(`  created ${verb} ${s.name} ${s.version} (cluster ${s.cluster})`.replace(/ {2,}/g, ' '));
    for (const s of report.updated)
      out(
        `  updated ${verb} ${s.name} -> ${s.version}${sameProcedureVersion(s.version) ? ' (same procedure, written by this release)' : ''}`.replace(
          / {2,}/g,
          ' ',
        ),
      );
    for (const s of report.reinforced) out(`  reinforced ${verb} ${s.name}`.replace(/ {2,}/g, ' '));
    for (const s of report.superseded)
      out(`  superseded ${verb} ${s.supersedes} by ${s.name} ${s.version}`.replace(/ {2,}/g, ' '));
    for (const s of report.skipped) out(`  skipped ${s.cluster}: ${s.reason}`);
    for (const line of lookAlikeLines(report, memoryFlagsText(flags))) out(line);
    if (
      !report.created.length &&
      !report.updated.length &&
      !report.reinforced.length &&
      !report.superseded.length &&
      !report.skipped.length
    ) {
      out('Nothing new to learn.');
    }
    return 0;
  },
};
