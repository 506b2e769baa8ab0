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
  /**
   * The options its `--help` lists besides every command's (--db, --namespace, --config, --log-level, --help,
   * --version): `json` for --json output, `ingest` for the ingest flags (--format, --judge). Default: json.
   */
  helpOptions?: readonly HelpOption[];
  /** The command answers `--help` itself (and never opens --db on the way). */
  ownHelp?: boolean;
  /**
   * What this run does where --db names a SQLite file that is not there yet (a mistyped path, a memory nothing was
   * learned into), instead of creating it: `empty`, a run that only reads (a recall, a listing), answers as an
   * empty memory would; `fail`, a run that changes something stored (a skill's feedback, a session's outcome),
   * fails saying there is no memory there. Null or absent: the memory is created, as a run that stores does.
   */
  ifMissing?(args: string[]): 'empty' | 'fail' | null;
  /** What is wrong with the arguments, said before any memory opens (a mistyped subcommand creates nothing); null: fine. */
  usage?(args: string[], flags: Flags): string | null;
  /** The exit code. */
  run(args: string[], ctx: CommandContext): Promise<number>;
}

/** An option of `--help` that only some commands take. */
export type HelpOption = 'json' | 'ingest';

export interface CommandContext {
  flags: Flags;
  /** The memory of the global flags, opened once (for an `opens: 'memory'` command, before `run`). */
  memory(): Promise<Memory>;
}

export { UsageError } from '../../errors/usage-error.js';
