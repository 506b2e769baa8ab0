import { ConfigError } from '../../../config/config.js';
import type { Memory } from '../../../app/memory.js';
import { DEFAULT_MCP_PORT, serveMcpHttp } from '../../mcp/http.js';
import { LiveSessions } from '../../mcp/live-sessions.js';
import { createMcpServer } from '../../mcp/server.js';
import { BoundedStdioTransport } from '../../mcp/stdio-transport.js';
import { escapeControl } from '../../../domain/untrusted-text.js';
import { memoryFromFlags } from '../command-support.js';
import { failure, serverFlags, untilStopped } from './serve.js';
import { type Command, MEMORY_FLAGS } from '../command.js';

/**
 * `skillsmith mcp`: an MCP server on stdin/stdout (stdout carries only the protocol; logs go to stderr).
 * `skillsmith mcp --http [--host H] [--port N] [--token T] [--require-token]`: the same over streamable HTTP at /mcp.
 * Runs until the client closes stdin (stdio) or Ctrl-C.
 */
export async function mcpCommand(
  args: string[],
  flags: Record<string, unknown>,
  stop?: Promise<void>,
): Promise<number> {
  if (args.length) return failure(new ConfigError(`mcp takes no arguments (got "${args.join(' ')}")`));
  let memory: Memory | null = null;
  try {
    if (flags.http) {
      const server = serverFlags(flags, DEFAULT_MCP_PORT);
      memory = await memoryFromFlags(flags);
      const running = await serveMcpHttp(memory, server);
      process.stdout.write(`Skillsmith MCP server (streamable HTTP): ${running.url}\nPress Ctrl-C to stop.\n`);
      await (stop ?? untilStopped());
      await running.close();
      return 0;
    }
    memory = await memoryFromFlags(flags);
    const server = createMcpServer(memory, new LiveSessions(memory));
    const closed = new Promise<void>((resolve) => {
      process.stdin.once('end', resolve);
      process.stdin.once('close', resolve);
    });
    // Bounded: a message may carry one record of capture.maxRecordBytes plus its envelope.
    const transport = new BoundedStdioTransport(memory.config.capture.maxRecordBytes + 1024 * 1024);
    transport.onerror = (e) => process.stderr.write(`skillsmith mcp: ${escapeControl(e.message).slice(0, 500)}\n`);
    await server.connect(transport);
    await Promise.race([closed, stop ?? untilStopped()]);
    await server.close();
    return 0;
  } catch (e) {
    return failure(e);
  } finally {
    await memory?.close();
  }
}

/** `skillsmith mcp`: opens its own memory and runs until the client or Ctrl-C stops it. */
export const command: Command = {
  name: 'mcp',
  flags: [...MEMORY_FLAGS, 'http', 'host', 'port', 'token', 'require-token'],
  help: `  mcp [--http [--host H] [--port N] [--token T] [--require-token]]
                              MCP server over stdio for the client that starts it; --http: over streamable
                              HTTP at /mcp instead (127.0.0.1:7701 by default; --host, --port, --token and
                              --require-token as for serve)`,
  opens: 'self',
  // Listening flags without --http would be dropped without a word: the server would speak stdio.
  usage: (_args, flags) =>
    !flags.http && (['host', 'port', 'token', 'require-token'] as const).some((f) => flags[f] !== undefined)
      ? '--host, --port, --token and --require-token go with --http (over stdio nothing listens)'
      : null,
  run: (args, { flags }) => mcpCommand(args, flags),
};
