import {
  accessSync,
  chmodSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import { applyEdits, modify, type ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import { isPostgresUrl, repeatableLocation } from '../../../config/default-db.js';
import {
  agentHooks,
  HOOK_AGENTS,
  type HookAgent,
  type HookEntry,
  type HookPlan,
  installHooks,
  uninstallHooks,
} from '../../../domain/agent-hooks.js';
import { ConfigError } from '../../../errors/config-error.js';
import { type Command, MEMORY_FLAGS, withSubcommands } from '../command.js';
import type { Flags } from '../options.js';
import { out, printJson, shellWord, writeErr } from '../output.js';

const SUBCOMMAND = 'hooks needs a subcommand: install or uninstall';

const INSTALL_HELP = `  hooks install [--agent claude-code|gemini] [--project] [--tools A,B] [--dry-run]
                              add the recall, ingest and learn hooks to the agent's settings (~/.claude/settings.json,
                              ~/.gemini/settings.json; --project: ./.claude/ or ./.gemini/ in this folder), every other
                              setting and hook kept, the previous file kept as settings.json.bak; --tools: tools the
                              recall hook allows besides the agent's own; --db, --namespace, --config are written into
                              the hooks' commands; --dry-run: print what would change, write nothing`;
const UNINSTALL_HELP = `  hooks uninstall [--agent claude-code|gemini] [--project] [--dry-run]
                              take out only Skillsmith's hooks (an event or "hooks" left empty goes too)`;

const AGENT_NAMES: Record<HookAgent, string> = { 'claude-code': 'Claude Code', gemini: 'Gemini CLI' };

/** `skillsmith hooks install|uninstall`: Claude Code's and Gemini CLI's hooks set up without editing JSON by hand. */
export const command: Command = {
  name: 'hooks',
  ...withSubcommands([
    {
      name: 'install',
      flags: [...MEMORY_FLAGS, 'agent', 'project', 'tools', 'dry-run', 'json'],
      help: INSTALL_HELP,
    },
    { name: 'uninstall', flags: ['agent', 'project', 'dry-run', 'json'], help: UNINSTALL_HELP },
  ]),
  opens: 'self',
  usage: ([sub, ...rest], flags) => {
    if (sub !== 'install' && sub !== 'uninstall') return SUBCOMMAND;
    if (rest.length) return `hooks ${sub} takes no arguments (given: ${rest.join(' ')})`;
    if (flags.agent !== undefined && !HOOK_AGENTS.includes(flags.agent as HookAgent))
      return `--agent must be one of ${HOOK_AGENTS.join(', ')} (given: ${flags.agent})`;
    if (sub === 'install' && flags.tools !== undefined && toolNames(flags.tools).length === 0)
      return "--tools needs the names of tools the recall hook allows besides the agent's own, e.g. --tools get_order";
    return null;
  },
  async run([sub], { flags }) {
    const agent = (flags.agent ?? 'claude-code') as HookAgent;
    const file = settingsFile(agent, !!flags.project);
    const dryRun = !!flags['dry-run'];
    const { settings, text } = readSettings(file);
    if (sub === 'uninstall') {
      const plan = uninstallHooks(settings, file);
      const written = plan.changed && !dryRun ? writeSettings(file, text, plan.settings) : null;
      if (flags.json)
        printJson({ file, agent, removed: plan.removed, dryRun, written: !!written, backup: written?.backup ?? null });
      else report(agent, file, null, plan, dryRun, written);
      return 0;
    }
    const { program, onPath } = hookProgram();
    const { text: carried, notes } = carriedFlags(flags);
    const extraTools = flags.tools === undefined ? [] : toolNames(flags.tools);
    const entries = agentHooks(agent, program, { flags: carried, extraTools });
    const plan = installHooks(settings, entries, file);
    for (const n of notes) writeErr(`skillsmith: ${n}\n`);
    const written = plan.changed && !dryRun ? writeSettings(file, text, plan.settings) : null;
    if (flags.json)
      printJson({
        file,
        agent,
        command: program,
        onPath,
        added: plan.added,
        replaced: plan.replaced,
        unchanged: plan.unchanged,
        removed: plan.removed,
        dryRun,
        written: !!written,
        backup: written?.backup ?? null,
      });
    else report(agent, file, { program, onPath }, plan, dryRun, written);
    return 0;
  },
};

const toolNames = (v: string) =>
  v
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

/** The agent's settings file: the user's (under HOME), or this folder's with --project. */
function settingsFile(agent: HookAgent, project: boolean): string {
  const folder = agent === 'gemini' ? '.gemini' : '.claude';
  return project ? resolve(folder, 'settings.json') : join(homedir(), folder, 'settings.json');
}

/**
 * The settings in `file` and its text (null when there is no file: `{}`; an empty file is `{}` too). JSON, with the
 * comments Gemini CLI allows in its settings (line and block comments); anything else is refused, naming the file
 * and where, and the file is not touched.
 */
function readSettings(file: string): { settings: unknown; text: string | null } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { settings: {}, text: null };
    throw new ConfigError(`${file}: cannot be read (${(e as Error).message})`);
  }
  if (!text.trim()) return { settings: {}, text };
  const errors: ParseError[] = [];
  const settings: unknown = parse(text, errors, { allowTrailingComma: false, disallowComments: false });
  if (errors.length === 0) return { settings, text };
  const first = errors[0]!;
  throw new ConfigError(
    `${file}: line ${lineColumn(text, first.offset)}: not valid JSON (${printParseErrorCode(first.error)}); it is left as it was: fix it, or add the hooks by hand (README "Claude Code and Gemini CLI hooks")`,
  );
}

/**
 * `oldText` with its `hooks` replaced by that of `settings` (taken out when `settings` has none), nothing else of it
 * touched. The result is read back: if it does not hold `settings` exactly, nothing is written.
 */
function editedHooks(file: string, oldText: string, settings: unknown): string {
  const indent = /^[{[][ \t]*\r?\n([ \t]+)\S/.exec(oldText)?.[1] ?? '  ';
  const formattingOptions = {
    insertSpaces: !indent.includes('\t'),
    tabSize: indent.includes('\t') ? 1 : indent.length,
    eol: oldText.includes('\r\n') ? '\r\n' : '\n',
  };
  const hooks = (settings as { hooks?: unknown }).hooks;
  const text = applyEdits(oldText, modify(oldText, ['hooks'], hooks, { formattingOptions }));
  const errors: ParseError[] = [];
  if (!isDeepStrictEqual(parse(text, errors, { allowTrailingComma: false }), settings) || errors.length)
    throw new ConfigError(
      `${file}: its "hooks" could not be rewritten in place; it is left as it was: add the hooks by hand (README "Claude Code and Gemini CLI hooks")`,
    );
  return text;
}

/** `L, column C` (both from 1) of a character offset in `text`. */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `${before.length}, column ${before[before.length - 1]!.length + 1}`;
}

/**
 * `settings` written to `file`: a temporary file beside it renamed over it, with the old file's mode, and the old
 * file kept as `FILE.bak`. A symbolic link (a dotfiles repository's) is followed: its target is written, the link
 * stays. In a file that was there, only its `hooks` is rewritten (the only key install and uninstall change), laid
 * out as the file is (its indent, its line ends): every other key, its comments and its layout stay as they were.
 */
function writeSettings(file: string, oldText: string | null, settings: unknown): { backup: string | null } {
  const target = existsSync(file) ? realpathSync(file) : file;
  mkdirSync(dirname(target), { recursive: true });
  const text = oldText?.trim() ? editedHooks(file, oldText, settings) : `${JSON.stringify(settings, null, 2)}\n`;
  let backup: string | null = null;
  const mode = oldText === null ? undefined : statSync(target).mode & 0o7777;
  if (oldText !== null) {
    backup = `${file}.bak`;
    copyFileSync(target, backup);
  }
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
  try {
    writeFileSync(temporary, text, { flag: 'wx', ...(mode === undefined ? {} : { mode }) });
    if (mode !== undefined) chmodSync(temporary, mode);
    renameSync(temporary, target);
  } catch (e) {
    if (existsSync(temporary)) unlinkSync(temporary);
    throw e;
  }
  return { backup };
}

/**
 * How a hook starts this Skillsmith: `skillsmith` when the first `skillsmith` on the PATH is this installation (a
 * global install or `npm link` of it), else node and this installation's CLI by absolute paths (a clone, no link).
 */
function hookProgram(): { program: string; onPath: boolean } {
  const cli = fileURLToPath(new URL('../main.js', import.meta.url));
  // Run from the TypeScript sources (a test) there is no main.js to resolve: the path as it is.
  const self = existsSync(cli) ? realpathSync(cli) : cli;
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'skillsmith');
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    // The shell runs the first one it finds: ours, or another installation's.
    if (realpathSync(candidate) === self) return { program: 'skillsmith', onPath: true };
    break;
  }
  return { program: `${shellWord(process.execPath)} ${shellWord(self)}`, onPath: false };
}

/**
 * The memory flags every hook command carries: --db (else SKILLSMITH_DB), --namespace, --config (else
 * SKILLSMITH_CONFIG), so the hooks use the memory this install names even where the agent runs without these
 * variables. A hook runs in the agent's working folder, so a relative path is made absolute here (`~/` stays: the CLI
 * takes it as the home folder). A PostgreSQL URL is written without its password (the hooks read it from PGPASSWORD or
 * ~/.pgpass), never into a settings file.
 */
function carriedFlags(flags: Flags): { text: string; notes: string[] } {
  const notes: string[] = [];
  const path = (p: string) => (p === '~' || p.startsWith('~/') ? p : resolve(p));
  const db = flags.db ?? (process.env.SKILLSMITH_DB || undefined);
  const config = flags.config ?? (process.env.SKILLSMITH_CONFIG || undefined);
  const words: string[] = [];
  if (db !== undefined) {
    let value = path(db);
    if (isPostgresUrl(db)) {
      value = repeatableLocation(db);
      if (value !== db.trim())
        notes.push(
          "the PostgreSQL password is not written into the hooks' --db: give it to them in PGPASSWORD or ~/.pgpass",
        );
    }
    words.push(` --db ${shellWord(value)}`);
  }
  if (flags.namespace !== undefined) words.push(` --namespace ${shellWord(flags.namespace)}`);
  if (config !== undefined) words.push(` --config ${shellWord(path(config))}`);
  return { text: words.join(''), notes };
}

/** What changed, for a person: each hook added, replaced, left or taken out, and what became of the file. */
function report(
  agent: HookAgent,
  file: string,
  program: { program: string; onPath: boolean } | null,
  plan: HookPlan,
  dryRun: boolean,
  written: { backup: string | null } | null,
): void {
  const line = (what: string, e: HookEntry) => `  ${what.padEnd(9)} ${e.event}: ${e.command} (timeout ${e.timeout})`;
  out(`${AGENT_NAMES[agent]} hooks in ${file}${dryRun ? ' (dry run)' : ''}`);
  if (program)
    out(
      program.onPath
        ? 'The hooks run `skillsmith`: the first one on the PATH is this installation.'
        : `The hooks run this installation by its absolute path, ${program.program} (\`skillsmith\` on the PATH is not this installation, or there is none).`,
    );
  const lines = [
    ...plan.added.map((e) => line(dryRun ? 'would add' : 'added', e)),
    ...plan.replaced.map(
      (e) => `${line(dryRun ? 'would replace' : 'replaced', e)}\n            was: ${e.previous.command}`,
    ),
    ...plan.unchanged.map((e) => line('unchanged', e)),
    ...plan.removed.map((e) => line(dryRun ? 'would remove' : 'removed', e)),
  ];
  if (lines.length) out(lines.join('\n'));
  else out("  none of Skillsmith's hooks are there");
  const changes = plan.added.length + plan.replaced.length + plan.removed.length;
  if (dryRun && changes === 0) out('Nothing would change: the file would be left as it was.');
  else if (dryRun) {
    const hooks = (plan.settings as { hooks?: unknown }).hooks;
    out(`Nothing written. The file's "hooks" would be:\n${JSON.stringify(hooks ?? {}, null, 2)}`);
  } else if (!written) out('Nothing to change: the file is left as it was.');
  else out(written.backup ? `Written; the previous file is kept as ${written.backup}.` : 'Written (a new file).');
  if (program && agent === 'gemini' && (plan.added.length || plan.replaced.length))
    out(
      'A Gemini CLI release in which hooks are still experimental runs them only once they are switched on in its settings.',
    );
}
