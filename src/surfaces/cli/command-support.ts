import { workingFolder } from './hook-rules.js';
import { escapeControl } from '../../domain/untrusted-text.js';
import { ConfigError, loadConfig, type SkillsmithConfig } from '../../config/config.js';
import { configFilePath, readConfigFile } from '../../config/sources.js';
import { isPostgresLocation, storeExists } from '../../app/backends.js';
import type { Memory } from '../../app/memory.js';
import type { LogLevel } from '../../support/log.js';
import { describeDbLocation, repeatableLocation, resolveDbLocation, shownLocation } from '../../config/default-db.js';
import { NotFoundError } from '../../errors/not-found-error.js';
import { UsageError } from '../../errors/usage-error.js';
import { errorCodeOf } from '../shapes.js';
import { errorLine, shellWord } from './output.js';

/** The flags the doctor and reembed commands read (a subset of the CLI's global flags). */
export interface CommandFlags {
  config?: string;
  db?: string;
  namespace?: string;
  json?: boolean;
  'dry-run'?: boolean;
  'log-level'?: string;
}

/** Where command output goes (injectable for tests). */
export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

export const processIo: CommandIo = {
  // Terminal output never carries raw control bytes from bad input.
  stdout: (t) => process.stdout.write(escapeControl(t.endsWith('\n') ? t : `${t}\n`)),
  stderr: (t) => process.stderr.write(escapeControl(t.endsWith('\n') ? t : `${t}\n`)),
};

/**
 * The validated configuration of a command: the file (`--config FILE`, else SKILLSMITH_CONFIG, else
 * ./skillsmith.config.json), under the SKILLSMITH_* variables, with `--namespace` applied.
 */
export function configFromFlags(
  flags: CommandFlags,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string | null = process.cwd(),
): SkillsmithConfig {
  const path = configFilePath(flags.config, env, cwd);
  let input = path ? readConfigFile(path) : {};
  if (flags.namespace) input = { ...input, namespace: flags.namespace };
  return loadConfig(input, env, path ?? undefined);
}

/**
 * The memory the CLI would use (SQLite path or postgres:// URL): --db, else SKILLSMITH_DB, else ./skillsmith.db
 * when it exists, else the per-user data directory (see `resolveDbLocation`).
 */
export function dbPathFromFlags(flags: CommandFlags, env: NodeJS.ProcessEnv = process.env): string {
  return resolveDbLocation(flags.db, env).path;
}

/**
 * The memory flags the person gave (--db, --namespace, --config), as a command line that a printed follow-up
 * command repeats, each value quoted for a POSIX shell when it needs to be (" --db './my memory.db'"); "" for none.
 * A PostgreSQL URL is repeated without its password (the driver reads PGPASSWORD or ~/.pgpass).
 */
export function memoryFlagsText(flags: Pick<CommandFlags, 'db' | 'namespace' | 'config'>): string {
  return (['db', 'namespace', 'config'] as const)
    .filter((k) => typeof flags[k] === 'string')
    .map((k) => ` --${k} ${shellWord(k === 'db' ? repeatableLocation(flags[k]!) : flags[k]!)}`)
    .join('');
}

/** Resolves the memory for a surface and names it on stderr when the person did not choose it with --db. */
export function announcedDbPath(
  flag: string | undefined,
  write: (line: string) => void = (l) => process.stderr.write(`${escapeControl(l)}\n`),
): string {
  const loc = resolveDbLocation(flag);
  const line = describeDbLocation(loc);
  if (line) write(line);
  return loc.path;
}

/** A SQLite file that exists, or a PostgreSQL database that holds a memory (see `storeExists`). */
export function dbExists(path: string): Promise<boolean> {
  return storeExists(path);
}

/**
 * The memory the global flags describe (--db, named on stderr unless chosen; --namespace, --config,
 * --log-level): what every command that works on one memory opens. On a SQLite path with no file yet, `ifMissing`
 * `empty` says so and gives an empty memory in RAM instead of a new file, and `fail` throws a NotFoundError naming
 * the path; otherwise the file is created. `quiet` (a hook) says neither that nor which memory it opened.
 */
export async function memoryFromFlags(
  flags: {
    db?: unknown;
    namespace?: unknown;
    config?: unknown;
    'log-level'?: unknown;
  },
  opts: { ifMissing?: 'empty' | 'fail' | null; quiet?: boolean; hook?: boolean } = {},
): Promise<Memory> {
  // The memory is named first, then the configuration is read (a bad one fails after saying which memory); a hook
  // (`quiet`) says nothing unless something goes wrong, and reads nothing of the folder it runs in (workingFolder).
  const flag = typeof flags.db === 'string' ? flags.db : undefined;
  const cwd = workingFolder(opts.hook);
  const db = opts.quiet ? resolveDbLocation(flag, process.env, cwd).path : announcedDbPath(flag);
  const namespace = typeof flags.namespace === 'string' ? flags.namespace : undefined;
  const config = configFromFlags(
    { config: typeof flags.config === 'string' ? flags.config : undefined, namespace },
    process.env,
    cwd,
  );
  const missing = !!opts.ifMissing && !(await dbExists(db));
  // A PostgreSQL database without Skillsmith's tables is left as it is, as a SQLite path is left without a file.
  const created = isPostgresLocation(db) ? 'no table was created' : 'no file was created';
  if (missing && opts.ifMissing === 'fail')
    throw new NotFoundError(
      `no memory at ${shownLocation(db)} (nothing was ingested or learned there), so nothing stored to change; ${created}`,
    );
  if (missing && !opts.quiet)
    process.stderr.write(
      `${escapeControl(`skillsmith: no memory at ${shownLocation(db)} yet (nothing was ingested or learned there): answered as an empty memory, and ${created}`)}\n`,
    );
  // Loaded on use: doctor and reembed read this module and never open a memory.
  const { openMemory } = await import('../../app/open-memory.js');
  const memory = await openMemory({
    db: missing ? ':memory:' : db,
    namespace,
    config,
    logLevel: (flags['log-level'] as LogLevel | undefined) ?? 'warn',
  });
  // A hook says nothing of it.
  if (!opts.quiet) await sayUpgraded(memory.parts.store, db);
  return memory;
}

/**
 * A memory an earlier release wrote was brought up to this one's schema as it opened: said once on stderr, by the
 * process that did it.
 */
export async function sayUpgraded(
  store: Pick<NonNullable<Memory['parts']['store']>, 'upgradedFrom' | 'schemaVersion'> | null | undefined,
  location: string,
  write: (line: string) => void = (l) => process.stderr.write(`${escapeControl(l)}\n`),
): Promise<void> {
  const from = store?.upgradedFrom;
  if (!from) return;
  write(
    `skillsmith: upgraded the memory at ${shownLocation(location)} from schema version ${from} to ${await store.schemaVersion()} (once; everything it held is kept; an older skillsmith can no longer write to it)`,
  );
}

/**
 * The common start of a command that takes no positional arguments: the configuration from the flags, or the
 * exit code 2 after saying what is wrong (stray arguments, an invalid configuration; with --json as one line of JSON).
 */
export function startCommand(name: string, args: string[], flags: CommandFlags, io: CommandIo): SkillsmithConfig | 2 {
  if (args.length > 0) {
    const hint = 'Run "skillsmith --help" for usage.';
    io.stderr(
      errorLine(`${name} takes no arguments (got "${args.join(' ')}")`, UsageError.code, { json: flags.json, hint }),
    );
    return 2;
  }
  try {
    return configFromFlags(flags);
  } catch (e) {
    if (e instanceof ConfigError) {
      io.stderr(errorLine(e.message, errorCodeOf(e), { json: flags.json }));
      return 2;
    }
    throw e;
  }
}
