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
      out(`  created ${verb} ${s.name} ${s.version} (cluster ${s.cluster})`.replace(/(\S) {2,}/g, '$1 '));
    for (const s of report.updated)
      out(
        `  updated ${verb} ${s.name} -> ${s.version}${sameProcedureVersion(s.version) ? ' (same procedure, written by this release)' : ''}`.replace(
          /(\S) {2,}/g,
          '$1 ',
        ),
      );
    // A skill several groups of sessions reinforced is one line, with how many.
    const reinforced = new Map<string, number>();
    for (const s of report.reinforced) reinforced.set(s.name, (reinforced.get(s.name) ?? 0) + 1);
    for (const [name, groups] of reinforced)
      out(
        `  reinforced ${verb} ${name}${groups > 1 ? ` (by ${groups} groups of sessions)` : ''}`.replace(
          /(\S) {2,}/g,
          '$1 ',
        ),
      );
    for (const s of report.superseded) {
      // The skill it replaced, by its name (and version): an id says nothing to the person reading.
      const old = await memory.skills.get(s.supersedes);
      const was = old ? `${old.name} ${old.version}` : s.supersedes;
      out(`  superseded ${verb} ${was} by ${s.name} ${s.version}`.replace(/(\S) {2,}/g, '$1 '));
    }
    // Clusters a pass examined a moment ago wait out their cooldown: one line, saying when to ask again.
    const cooling = report.skipped.filter((s) => s.reason.startsWith('cooldown:'));
    for (const s of report.skipped) if (!cooling.includes(s)) out(`  skipped ${s.cluster}: ${s.reason}`);
    if (cooling.length) {
      const wait = Math.ceil(memory.config.synthesis.cooldownMs / 1000);
      out(
        `  skipped ${cooling.length === 1 ? `cluster ${cooling[0]!.cluster}` : `${cooling.length} clusters`}: distilled less than ${wait} s ago (synthesis.cooldownMs); run synthesize again after that to examine ${cooling.length === 1 ? 'it' : 'them'}`,
      );
    }
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
