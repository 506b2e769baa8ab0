import type { Memory } from '../../app/memory.js';
import type { Flags } from './options.js';

/**
 * One CLI command. Every command has this shape; `main.ts` routes to it by name, parses the flags and turns
 * what it throws into an exit code (UsageError: 2, a configuration error: 2, anything else: 1).
 */
export interface Command {
  name: string;
  /** Its lines of the "Commands" section of `skillsmith --help`. */
  help: string;
  /**
   * `memory`: main opens the memory of the global flags (--db, --namespace, --config, --log-level) before
   * `run` and closes it after. `self`: the command opens what it needs (or nothing) itself.
   */
  opens: 'memory' | 'self';
  /** The command answers `--help` itself (and never opens --db on the way). */
  ownHelp?: boolean;
  /**
   * This run only reads the memory (a recall, a listing): where --db names a SQLite file that is not there yet (a
   * mistyped path, a memory nothing was learned into), it answers as an empty memory would and creates no file.
   */
  readsOnly?(args: string[]): boolean;
  /** What is wrong with the arguments, said before any memory opens (a mistyped subcommand creates nothing); null: fine. */
  usage?(args: string[], flags: Flags): string | null;
  /** The exit code. */
  run(args: string[], ctx: CommandContext): Promise<number>;
}

export interface CommandContext {
  flags: Flags;
  /** The memory of the global flags, opened once (for an `opens: 'memory'` command, before `run`). */
  memory(): Promise<Memory>;
}

export { UsageError } from '../../errors/usage-error.js';
