import { workingFolder } from './hook-rules.js';
import { resolve } from 'node:path';
import { describeDbLocation, isPostgresUrl, resolveDbLocation } from '../../config/default-db.js';
import { recallConfig } from '../../config/recall-config.js';
import { configFilePath, readConfigFile } from '../../config/sources.js';
import type { LogLevel } from '../../support/log.js';
import { hookOutput, parseCommandLine, readStdin, recallArgs, type Flags } from './options.js';
import { askDaemon, daemonEnabled, socketPath, startDaemon } from './recall-client.js';

/** The flags a recall may carry and still take the short path; any other flag goes through the full CLI. */
const LEAN_FLAGS = new Set(['db', 'namespace', 'config', 'json', 'top-k', 'tools', 'log-level', 'hook', 'session']);

/**
 * The arguments of a `skillsmith recall` the short path can answer (see `leanRecall`), or null for any other
 * command line (another command, --help, another flag, a parse error): the full CLI then runs it.
 * SKILLSMITH_LEAN_RECALL=0 always takes the full CLI.
 */
export function leanRecallArgs(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): { args: string[]; flags: Flags } | null {
  if (env.SKILLSMITH_LEAN_RECALL === '0') return null;
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch {
    return null;
  }
  const [name, ...args] = parsed.positionals;
  if (name !== 'recall' || Object.keys(parsed.values).some((flag) => !LEAN_FLAGS.has(flag))) return null;
  return { args, flags: parsed.values };
}

/**
 * `skillsmith recall` on the short path: what the full CLI prints and exits with for the same command line,
 * loading only what a recall needs (no command table, configuration schema, migrations, synthesis or
 * surfaces). Null, before writing anything, whenever the full CLI must answer: a goal or --top-k it rejects, a
 * configuration the plain check cannot vouch for (`recallConfig`), a memory that must be created, migrated or
 * is not a SQLite file (`openRecallOnly`). Errors after that are said as the full CLI says them.
 */
export async function leanRecall(args: string[], flags: Flags): Promise<number | null> {
  const request = recallArgs(args, flags, readStdin);
  if (typeof request === 'string') return null;
  // A hook with nothing to ask (an empty prompt) adds nothing, without opening the memory.
  if (!request.goal) return 0;
  let input: Record<string, unknown>;
  try {
    const path = configFilePath(flags.config, process.env, workingFolder(flags.hook));
    input = path ? readConfigFile(path) : {};
  } catch {
    return null;
  }
  if (flags.namespace) input = { ...input, namespace: flags.namespace };
  const config = recallConfig(input);
  if (!config) return null;
  const location = resolveDbLocation(flags.db, process.env, workingFolder(flags.hook));
  const logLevel = (flags['log-level'] as LogLevel | undefined) ?? 'warn';
  // Said as the full CLI says it: the memory is named first (a hook says nothing of it).
  const announce = async () => {
    const line = flags.hook ? null : describeDbLocation(location);
    if (line) (await import('./output.js')).writeErr(`${line}\n`);
  };
  let start: (() => Promise<void>) | null = null;
  if (!config.disabled && location.path !== ':memory:' && !isPostgresUrl(location.path) && daemonEnabled()) {
    const socket = socketPath(location.path);
    const { answer, missing } = await askDaemon(socket, {
      db: resolve(location.path),
      config,
      logLevel,
      goal: request.goal,
      topK: request.topK,
      tools: request.tools,
      json: !!flags.json,
      hook: !!flags.hook,
      ...(request.session ? { session: request.session } : {}),
    });
    if (answer && !('fallback' in answer)) {
      await announce();
      process.stderr.write(answer.stderr);
      process.stdout.write(hookOutput(answer.stdout, request.hookEvent));
      return answer.code;
    }
    if (missing) start = () => startDaemon(socket, location.path);
  }
  const [{ openRecallOnly }, { answerRecall }, { exitCode }] = await Promise.all([
    import('../../app/recall-only.js'),
    import('./commands/recall.js'),
    import('./output.js'),
  ]);
  const memory = await openRecallOnly({ db: location.path, config, logLevel }).catch(() => null);
  if (!memory) return null;
  await announce();
  try {
    const { goal, topK, tools, session } = request;
    const text = await answerRecall(memory, { goal, topK, tools, json: !!flags.json, hook: !!flags.hook, session });
    process.stdout.write(hookOutput(text, request.hookEvent));
    return 0;
  } catch (e) {
    return exitCode(e, flags.json);
  } finally {
    await memory.close();
    // Started once this recall is answered: the next one finds it.
    await start?.();
  }
}
