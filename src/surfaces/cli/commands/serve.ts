import { ConfigError } from '../../../config/config.js';
import type { Memory } from '../../../app/memory.js';
import { memoryFromFlags } from '../command-support.js';
import { checkBind } from '../../http/security.js';
import { exitCodeOf } from '../../../errors/error-codes.js';
import { DEFAULT_HOST, DEFAULT_PORT, serveApi } from '../../http/server.js';
import { type Command, MEMORY_FLAGS } from '../command.js';

/** The flags of the long-running surfaces (`serve`, `mcp --http`). */
export interface ServerFlags {
  host: string;
  port: number;
  token: string | null;
  requireToken: boolean;
}

/** host, port, token (--token, else SKILLSMITH_TOKEN) and --require-token; throws ConfigError on a bad value. */
export function serverFlags(
  flags: Record<string, unknown>,
  defaultPort: number,
  env: NodeJS.ProcessEnv = process.env,
): ServerFlags {
  const port = flags.port === undefined ? defaultPort : Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`--port must be an integer in 0..65535 (0: any free port), not "${String(flags.port)}"`);
  const host = typeof flags.host === 'string' && flags.host.trim() ? flags.host.trim() : DEFAULT_HOST;
  const token = (typeof flags.token === 'string' && flags.token) || env.SKILLSMITH_TOKEN || null;
  const server = { host, port, token, requireToken: !!flags['require-token'] };
  checkBind(server);
  return server;
}

/** Resolves on Ctrl-C or SIGTERM. */
export function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** Exit code 2 for a usage or trust-boundary mistake, 1 for anything else; the message on stderr. */
export function failure(e: unknown): number {
  process.stderr.write(`skillsmith: ${(e as Error)?.message ?? e}\n`);
  return exitCodeOf(e);
}

/**
 * `skillsmith serve [--host H] [--port N] [--token T | SKILLSMITH_TOKEN] [--require-token]`: the REST API under
 * /api and the dashboard at /, until Ctrl-C. Binds 127.0.0.1:7700 by default; refuses any other address
 * without a token.
 */
export async function serveCommand(
  args: string[],
  flags: Record<string, unknown>,
  stop?: Promise<void>,
): Promise<number> {
  if (args.length) return failure(new ConfigError(`serve takes no arguments (got "${args.join(' ')}")`));
  let memory: Memory | null = null;
  try {
    const server = serverFlags(flags, DEFAULT_PORT);
    memory = await memoryFromFlags(flags);
    const running = await serveApi(memory, server);
    // Listening on every address: a browser on this machine reaches it at loopback (0.0.0.0 is no address to visit).
    const any = /^(?:0\.0\.0\.0|::|\[::\])$/.test(server.host);
    const url = any ? running.url.replace(/\/\/(?:0\.0\.0\.0|\[::\])/, '//127.0.0.1') : running.url;
    process.stdout.write(
      `${any ? `Listening on every address of this machine (${server.host}).\n` : ''}` +
        `Skillsmith dashboard: ${url}/\nAPI: ${url}/api (OpenAPI at ${url}/api/openapi.json)` +
        `${server.token ? '; requests need Authorization: Bearer <token>' : ''}\nPress Ctrl-C to stop.\n`,
    );
    await (stop ?? untilStopped());
    await running.close();
    return 0;
  } catch (e) {
    return failure(e);
  } finally {
    await memory?.close();
  }
}

/** `skillsmith serve`: opens its own memory and runs until stopped. */
export const command: Command = {
  name: 'serve',
  flags: [...MEMORY_FLAGS, 'host', 'port', 'token', 'require-token'],
  help: `  serve [--host H] [--port N] [--token T] [--require-token]
                              REST API under /api and the dashboard at / (127.0.0.1:7700 by default);
                              --host: the address to listen on (another than loopback needs a token);
                              --port: 0 for any free one; --token: every request but /api/health and
                              /api/openapi.json needs Authorization: Bearer T (16 characters or more; else
                              SKILLSMITH_TOKEN); --require-token: refuse to start without one, even on
                              loopback`,
  opens: 'self',
  run: (args, { flags }) => serveCommand(args, flags),
};
