import type { Command, Subcommand } from './command.js';
import type { FlagName } from './options.js';

/**
 * The routing table: every command by name, in the order `--help` lists them. Modules load on use, so a
 * command pays only for what it needs at start-up.
 */
export const ROUTES: readonly { name: string; load: () => Promise<{ command: Command }> }[] = [
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
  { name: 'hooks', load: () => import('./commands/hooks.js') },
  { name: 'doctor', load: () => import('./commands/doctor.js') },
  { name: 'reembed', load: () => import('./commands/reembed.js') },
  { name: 'migrate', load: () => import('./commands/migrate.js') },
  { name: 'eval', load: () => import('./commands/eval.js') },
];

/** The option lines of `--help`, by who takes them: every command, or the commands whose `flags` name them. */
const OPTION_LINES = {
  memory: `  --db PATH|URL      SQLite memory file or postgres://user@host:5432/db for a fleet (default: SKILLSMITH_DB, else
                     ./skillsmith.db when it exists, else skillsmith.db in the per-user data directory, e.g.
                     ~/.local/share/skillsmith/; named on stderr at start-up)
  --namespace NS     memory namespace (default "default")
  --config FILE      JSON configuration file (default: SKILLSMITH_CONFIG, else ./skillsmith.config.json when
                     present); SKILLSMITH_* variables override it (see README "Configuration")`,
  ingest: `  --format F         ingest format: auto | jsonl | openai | anthropic | otel | tau | claude-code | codex | gemini |
                     openai-agents | langchain | langchain-messages | ai-sdk | pydantic-ai | autogen (default
                     auto: per file for transcripts, else per record)
  --judge J          outcome judge for sessions without one: rule | llm | off (default: capture.judge, rule)`,
  json: '  --json             machine-readable output (stable shapes, see README)',
  common: `  --log-level L      debug | info | warn | error | silent (default warn)
  -h, --help         this text
  --version          the version of skillsmith`,
} as const;

/**
 * The "Options" section: the global options among `takes` (the memory's, the ingest flags, --json), in the order
 * `skillsmith --help` lists them, and those of every command. A command's own flags (--host, --top-k) are in its lines.
 */
function optionsHelp(takes: readonly FlagName[]): string {
  const lines = [
    ...(takes.includes('db') ? [OPTION_LINES.memory] : []),
    ...(takes.includes('format') ? [OPTION_LINES.ingest] : []),
    ...(takes.includes('json') ? [OPTION_LINES.json] : []),
    OPTION_LINES.common,
  ];
  return `Options\n${lines.join('\n')}\n`;
}

/** `skillsmith COMMAND --help`: that command's lines, then the options it takes. */
export function commandHelp(command: Pick<Command, 'name' | 'help' | 'flags' | 'subcommands'>): string {
  const one = command.subcommands
    ? `One subcommand and only its options: skillsmith ${command.name} SUBCOMMAND --help\n`
    : '';
  return `Usage: skillsmith ${command.name} [options]\n\n${command.help}\n\n${optionsHelp(command.flags)}\n${one}Every command: skillsmith --help\n`;
}

/** `skillsmith COMMAND SUBCOMMAND --help`: that subcommand's lines, then the options it takes, and no other's. */
export function subcommandHelp(command: Pick<Command, 'name'>, sub: Subcommand): string {
  return `Usage: skillsmith ${command.name} ${sub.name} [options]\n\n${sub.help}\n\n${optionsHelp(sub.flags)}\nEvery ${command.name} subcommand: skillsmith ${command.name} --help\nEvery command: skillsmith --help\n`;
}

/** `skillsmith --help`: the commands' own lines, then every option. */
export async function help(): Promise<string> {
  const commands = await Promise.all(ROUTES.map(async (r) => (await r.load()).command.help));
  return `skillsmith: procedural memory for LLM agents\n\nUsage: skillsmith <command> [options]\n\nCommands\n${commands.join('\n')}\n\n${optionsHelp(['db', 'format', 'json'])}`;
}
