import {
  dbExists,
  startCommand,
  dbPathFromFlags,
  processIo,
  type CommandFlags,
  type CommandIo,
} from '../command-support.js';
import { reembed, type ReembedReport, type ReembedStore } from '../../../pipeline/reembed.js';
import type { BackendDeps } from '../../../backends/from-config.js';
import { openEmbedder, openStoreAt } from '../../../app/backends.js';
import { shownLocation } from '../../../config/default-db.js';
import type { Embedder } from '../../../embedders/embedder.js';
import { exitCodeOf } from '../../../errors/error-codes.js';
import { NotFoundError } from '../../../errors/not-found-error.js';
import { SkillsmithError } from '../../../errors/skillsmith-error.js';
import { errorCodeOf } from '../../shapes.js';
import { errorLine } from '../output.js';
import { type Command, MEMORY_FLAGS } from '../command.js';

export interface ReembedCommandDeps extends BackendDeps {
  store?: ReembedStore & { close?(): Promise<void> };
  embedder?: Embedder;
}

/**
 * `skillsmith reembed [--config FILE] [--db PATH] [--namespace NS] [--dry-run] [--json]`: re-embeds every
 * skill of the namespace with the configured embedder and clears the cluster state, so the next synthesis
 * pass re-clusters with it. Exit 0 on success, 1 on failure (nothing written), 2 for bad usage or config.
 */
export async function reembedCommand(
  args: string[],
  flags: CommandFlags,
  io: CommandIo = processIo,
  deps: ReembedCommandDeps = {},
): Promise<number> {
  const config = startCommand('reembed', args, flags, io);
  if (config === 2) return 2;
  const dbPath = dbPathFromFlags(flags);
  if (!deps.store && !(await dbExists(dbPath))) {
    const none = `no memory at ${shownLocation(dbPath)}: nothing to re-embed (use --db PATH)`;
    io.stderr(errorLine(none, NotFoundError.code, { json: flags.json }));
    return 1;
  }
  const store = deps.store ?? (await openStoreAt(dbPath));
  let embedder: (Embedder & { close?(): Promise<void> }) | undefined;
  try {
    embedder = deps.embedder ?? (await openEmbedder(config, deps));
    const report = await reembed(store, embedder, config.namespace, { dryRun: !!flags['dry-run'] });
    if (flags.json) io.stdout(JSON.stringify(report, null, 2));
    else io.stdout(renderReembedReport(report));
    return 0;
  } catch (e) {
    // In words, the error's code in brackets; with --json, the code is a field of its own.
    const code = SkillsmithError.isInstance(e) && !flags.json ? ` [${e.code}]` : '';
    const hint = 'Nothing was written. Run "skillsmith doctor" to check the embedder.';
    io.stderr(
      errorLine(`reembed failed${code}: ${(e as Error)?.message ?? e}`, errorCodeOf(e), { json: flags.json, hint }),
    );
    return exitCodeOf(e);
  } finally {
    if (!deps.embedder) await embedder?.close?.();
    if (!deps.store) await store.close?.();
  }
}

export function renderReembedReport(r: ReembedReport): string {
  const from = Object.entries(r.from)
    .map(([id, n]) => `${id} (${n})`)
    .join(', ');
  if (r.dryRun) {
    return (
      `Dry run: ${r.skills} skill${r.skills === 1 ? '' : 's'} in namespace "${r.namespace}" would be re-embedded with ${r.embedderId}` +
      `${from ? `; now embedded with ${from}` : ''}. The cluster state would be cleared. Nothing was written.`
    );
  }
  return [
    `Re-embedded ${r.skills} skill${r.skills === 1 ? '' : 's'} in namespace "${r.namespace}" with ${r.embedderId} (${r.dimensions} dimensions)${from ? `; before: ${from}` : ''}.`,
    `Cleared ${r.clustersCleared} cluster${r.clustersCleared === 1 ? '' : 's'}: the next "skillsmith synthesize" re-clusters every session with the new embedder.`,
  ].join('\n');
}

/** `skillsmith reembed`: opens the store and the configured embedder itself (never the memory's pass). */
export const command: Command = {
  name: 'reembed',
  flags: [...MEMORY_FLAGS, 'dry-run', 'json'],
  help: `  reembed [--dry-run]         re-embed every skill with the configured embedder and clear the cluster state`,
  opens: 'self',
  run: (args, { flags }) => reembedCommand(args, flags),
};
