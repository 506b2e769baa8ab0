#!/usr/bin/env node
import { ConfigError } from '../../config/config.js';
import { BackendConfigError } from '../../llm/errors/backend-config-error.js';
import { openMemory, type Memory } from '../../memory.js';
import { UsageError, type Command, type CommandContext } from './command.js';
import { announcedDbPath, configFromFlags } from './command-support.js';
import { parseCommandLine } from './options.js';
import { writeErr } from './output.js';

/**
 * The routing table: every command by name, in the order `--help` lists them. Modules load on use, so a
 * command pays only for what it needs at start-up.
 */
const ROUTES: readonly { name: string; load: () => Promise<{ command: Command }> }[] = [
  { name: 'ingest', load: () => import('./commands/ingest.js') },
  { name: 'learn', load: () => import('./commands/learn.js') },
  { name: 'synthesize', load: () => import('./commands/synthesize.js') },
  { name: 'recall', load: () => import('./commands/recall.js') },
  { name: 'compile', load: () => import('./commands/compile.js') },
  { name: 'feedback', load: () => import('./commands/feedback.js') },
  { name: 'outcome', load: () => import('./commands/outcome.js') },
  { name: 'facts', load: () => import('./commands/facts.js') },
  { name: 'skills', load: () => import('./commands/skills.js') },
  { name: 'sessions', load: () => import('./commands/sessions.js') },
  { name: 'serve', load: () => import('./commands/serve.js') },
  { name: 'mcp', load: () => import('./commands/mcp.js') },
  { name: 'doctor', load: () => import('./commands/doctor.js') },
  { name: 'reembed', load: () => import('./commands/reembed.js') },
  { name: 'migrate', load: () => import('./commands/migrate.js') },
  { name: 'eval', load: () => import('./commands/eval.js') },
];

const OPTIONS_HELP = `Options
  --db PATH|URL      SQLite memory file or postgres://user@host:5432/db for a fleet (default: SKILLSMITH_DB, else
                     ./skillsmith.db when it exists, else skillsmith.db in the per-user data directory, e.g.
                     ~/.local/share/skillsmith/; named on stderr at start-up)
  --namespace NS     memory namespace (default "default")
  --config FILE      JSON configuration file (default: SKILLSMITH_CONFIG, else ./skillsmith.config.json when
                     present); SKILLSMITH_* variables override it (see README "Configuration")
  --format F         ingest format: auto | jsonl | openai | anthropic | otel | tau | claude-code | codex |
                     openai-agents | langchain (default auto: per file for transcripts, else per record)
  --judge J          outcome judge for sessions without one: rule | llm | off (default: capture.judge, rule)
  --json             machine-readable output (stable shapes, see README)
  --log-level L      debug | info | warn | error | silent (default warn)
  -h, --help         this text
`;

/** `skillsmith --help`: the commands' own lines, then the global options. */
async function help(): Promise<string> {
  const commands = await Promise.all(ROUTES.map(async (r) => (await r.load()).command.help));
  return `skillsmith: procedural memory for LLM agents\n\nUsage: skillsmith <command> [options]\n\nCommands\n${commands.join('\n')}\n\n${OPTIONS_HELP}`;
}

export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (e) {
    writeErr(`skillsmith: ${(e as Error).message}\nRun "skillsmith --help" for usage.\n`);
    return 2;
  }
  const { values: flags, positionals } = parsed;
  const [name, ...args] = positionals;
  const route = ROUTES.find((r) => r.name === name);
  const command = route && (await route.load()).command;
  if (flags.help && !command?.ownHelp) {
    process.stdout.write(await help());
    return 0;
  }
  if (!name) {
    writeErr(await help());
    return 2;
  }
  // An unknown command must not create a database on its way to failing.
  if (!command) {
    writeErr(`skillsmith: unknown command "${name}"\nRun "skillsmith --help" for usage.\n`);
    return 2;
  }
  let memory: Memory | null = null;
  const ctx: CommandContext = {
    flags,
    memory: async () =>
      (memory ??= await openMemory({
        db: announcedDbPath(flags.db),
        namespace: flags.namespace,
        config: configFromFlags(flags),
        logLevel: (flags['log-level'] as never) ?? 'warn',
      })),
  };
  try {
    if (command.opens === 'memory') await ctx.memory();
    return await command.run(args, ctx);
  } catch (e) {
    return exitCode(e);
  } finally {
    await (memory as Memory | null)?.close();
  }
}

/** What a command threw, said on stderr, as an exit code: 2 for bad usage or configuration, else 1. */
function exitCode(e: unknown): number {
  if (e instanceof UsageError) {
    writeErr(`skillsmith: ${e.message}\nRun "skillsmith --help" for usage.\n`);
    return 2;
  }
  if (e instanceof ConfigError || BackendConfigError.isInstance(e)) {
    writeErr(`skillsmith: ${e.message}\n`);
    return 2;
  }
  writeErr(`skillsmith: ${(e as Error).message}\n`);
  return 1;
}

// Output piped into `head` (or any reader that stops early) is not an error: stop quietly.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    writeErr(`skillsmith: ${(e as Error).stack ?? e}\n`);
    process.exitCode = 1;
  },
);
