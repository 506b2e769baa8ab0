import type { Memory } from '../../app/memory.js';
import { type Command, type CommandContext, EVERY_COMMAND_FLAGS, subcommandOf, UsageError } from './command.js';
import { memoryFromFlags } from './command-support.js';
import { FLAG_NAMES, jsonAsked, parseCommandLine } from './options.js';
import { commandHelp, help, ROUTES, subcommandHelp } from './routes.js';
import { nearestName } from '../../support/nearest-name.js';
import { parseErrorMessage } from './suggest.js';
import { errorLine, exitCode, writeErr } from './output.js';
import { hookExitCode } from './hook-rules.js';

/** The full command line: parses it, routes to the command by name and returns its exit code (see main.ts). */
export async function main(argv: string[]): Promise<number> {
  return hookExitCode(argv, await runCommandLine(argv));
}

async function runCommandLine(argv: string[]): Promise<number> {
  // A usage mistake: exit 2, said with where to read the usage, or as one line of JSON for a command line with --json.
  const usage = (message: string, json: unknown, hint = 'Run "skillsmith --help" for usage.') => {
    process.stderr.write(errorLine(message, UsageError.code, { json, hint }));
    return 2;
  };
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (e) {
    return usage(parseErrorMessage(e, FLAG_NAMES), jsonAsked(argv));
  }
  const { values: flags, positionals } = parsed;
  const [name, ...args] = positionals;
  const route = ROUTES.find((r) => r.name === name);
  const command = route && (await route.load()).command;
  if (flags.version) {
    const { VERSION } = await import('../version.js');
    process.stdout.write(`skillsmith ${VERSION}\n`);
    return 0;
  }
  // `skills forget --help`: that subcommand's; a command without one named: the command's.
  const sub = command && subcommandOf(command, args);
  if (flags.help && !command?.ownHelp) {
    process.stdout.write(sub ? subcommandHelp(command, sub) : command ? commandHelp(command) : await help());
    return 0;
  }
  if (!name) {
    if (flags.json) return usage('no command given', true);
    writeErr(await help());
    return 2;
  }
  // An unknown command must not create a database on its way to failing.
  if (!command) {
    const guess = nearestName(
      name,
      ROUTES.map((r) => r.name),
    );
    const hint = guess === undefined ? '' : ` (did you mean "${guess}"?)`;
    return usage(`unknown command "${name}"${hint}`, flags.json);
  }
  // A subcommand takes its own flags, not every one of its command's (`skills forget NAME --all` forgets nothing).
  const takes = sub ? { name: `${command.name} ${sub.name}`, flags: sub.flags } : command;
  const refused = flagsNotTaken(takes, Object.keys(flags));
  if (refused) return usage(refused, flags.json, `Run "skillsmith ${takes.name} --help" for usage.`);
  let memory: Memory | null = null;
  const ctx: CommandContext = {
    flags,
    // A hook's recall stays silent when there is nothing to add, a missing memory included.
    memory: async () =>
      (memory ??= await memoryFromFlags(flags, {
        ifMissing: command.ifMissing?.(args) ?? null,
        quiet: !!flags.hook,
        hook: !!flags.hook,
      })),
  };
  try {
    const wrong = command.usage?.(args, flags);
    if (wrong) throw new UsageError(wrong);
    if (command.opens === 'memory') await ctx.memory();
    return await command.run(args, ctx);
  } catch (e) {
    return exitCode(e, flags.json);
  } finally {
    await (memory as Memory | null)?.close();
  }
}

/**
 * What is wrong when a command line carries flags its command, or subcommand, does not take (`skills forget NAME
 * --all` forgets): one parser knows every command's flags, so without this such a flag would be dropped without a word.
 */
function flagsNotTaken(command: Pick<Command, 'name' | 'flags'>, given: readonly string[]): string | null {
  const takes = new Set<string>([...command.flags, ...EVERY_COMMAND_FLAGS]);
  const others = given.filter((f) => !takes.has(f)).map((f) => `--${f}`);
  if (others.length === 0) return null;
  const own = command.flags.map((f) => `--${f}`).join(', ');
  return `${command.name} does not take ${others.join(', ')}${own ? ` (it takes ${own})` : ''}`;
}
