import type { Memory } from '../../app/memory.js';
import type { FlagName, Flags } from './options.js';

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
   * Every flag it takes besides --log-level, --help and --version (MEMORY_FLAGS for a command that opens the memory
   * of --db). Any other flag is refused before anything runs (exit 2): one parser knows every command's flags, and a
   * flag another command takes (`skills forget NAME --dry-run`) would otherwise be dropped without a word. Its
   * `--help` lists the global ones it takes (--db, --format, --json, ...); its own lines describe the rest.
   */
  flags: readonly FlagName[];
  /**
   * Its subcommands (`skills list|show|forget|...`), the first argument after its name: each takes only its own
   * flags (`skills forget NAME --all` is refused as `recall --all` is), and `COMMAND SUBCOMMAND --help` lists only
   * those. `flags` and `help` are then theirs put together (`withSubcommands`).
   */
  subcommands?: readonly Subcommand[];
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

/** One subcommand of a command (`skills forget`). */
export interface Subcommand {
  /** Its name, the argument after the command's. */
  name: string;
  /** Every flag it reads besides --log-level, --help and --version: any other is refused before anything runs. */
  flags: readonly FlagName[];
  /** Its lines of the command's help; two that share a line (`skills enable|disable NAME`) give the same text. */
  help: string;
}

/**
 * The `flags`, `help` and `subcommands` of a command made of subcommands: it takes what any of them takes (an
 * unknown subcommand is then told so by `usage`, not by a flag), and its help is theirs, each line once, in order.
 */
export function withSubcommands(subcommands: readonly Subcommand[]): Pick<Command, 'flags' | 'help' | 'subcommands'> {
  return {
    flags: [...new Set(subcommands.flatMap((s) => s.flags))],
    help: [...new Set(subcommands.map((s) => s.help))].join('\n'),
    subcommands,
  };
}

/** The subcommand a command line names (`skills forget NAME`: forget), if the command has it. */
export function subcommandOf(command: Pick<Command, 'subcommands'>, args: readonly string[]): Subcommand | undefined {
  return command.subcommands?.find((s) => s.name === args[0]);
}

/** The flags that name a memory: every command that opens the memory of the global flags takes them. */
export const MEMORY_FLAGS = ['db', 'namespace', 'config'] as const satisfies readonly FlagName[];

/** The flags every command takes. */
export const EVERY_COMMAND_FLAGS: readonly FlagName[] = ['log-level', 'help', 'version'];

export interface CommandContext {
  flags: Flags;
  /** The memory of the global flags, opened once (for an `opens: 'memory'` command, before `run`). */
  memory(): Promise<Memory>;
}

export { UsageError } from '../../errors/usage-error.js';
