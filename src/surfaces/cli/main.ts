#!/usr/bin/env node
import { hookExitCode } from './hook-rules.js';
import { leanRecall, leanRecallArgs } from './lean-recall.js';

/*
 * The `skillsmith` executable. A plain `skillsmith recall "GOAL"` (what a hook runs before every prompt) takes
 * the short path (`lean-recall.ts`), which loads only what a recall needs; anything else, or any recall the
 * short path cannot answer exactly as the full CLI would, runs the full CLI (`cli.ts`).
 */

// Output piped into `head` (or any reader that stops early) is not an error: stop quietly.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

async function run(argv: string[]): Promise<number> {
  const lean = leanRecallArgs(argv);
  if (lean) {
    const code = await leanRecall(lean.args, lean.flags);
    if (code !== null) return hookExitCode(argv, code);
  }
  return (await import('./cli.js')).main(argv);
}

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  async (e) => {
    const { writeErr } = await import('./output.js');
    writeErr(`skillsmith: ${(e as Error).stack ?? e}\n`);
    process.exitCode = 1;
  },
);
