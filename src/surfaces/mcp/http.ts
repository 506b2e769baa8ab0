import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono } from 'hono';
import type { Memory } from '../../app/memory.js';
import { bearerToken, checkBind, isLoopback, loopbackHostOnly, originAllowed } from '../http/security.js';
import { DEFAULT_HOST, listen, type RunningServer } from '../http/server.js';
import { VERSION } from '../version.js';
import { LiveSessions } from './live-sessions.js';
import { createMcpServer } from './server.js';

export const DEFAULT_MCP_PORT = 7701;

export interface McpHttpOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  token?: string | null;
  requireToken?: boolean;
  /** Open MCP sessions at most; an initialize beyond it is refused (503) until one closes or expires. */
  maxSessions?: number;
  /** A session without a request for this long is closed and forgotten. */
  sessionIdleMs?: number;
  /** Origins besides loopback ones that may call /mcp (a request with any other Origin header is refused). */
  allowedOrigins?: string[];
}

export const DEFAULT_MAX_MCP_SESSIONS = 100;
export const DEFAULT_MCP_SESSION_IDLE_MS = 10 * 60_000;

/**
 * MCP over streamable HTTP at /mcp: one transport and server per MCP session (the `Mcp-Session-Id` header),
 * behind the same trust boundary as the REST API (loopback by default, a bearer token for anything else).
 */
export async function serveMcpHttp(
  memory: Memory,
  opts: McpHttpOptions = {},
): Promise<RunningServer & { openSessions(): number }> {
  const host = opts.host ?? DEFAULT_HOST;
  checkBind({ host, token: opts.token, requireToken: opts.requireToken });
  const live = new LiveSessions(memory);
  const transports = new Map<string, WebStandardStreamableHTTPServerTransport>();
  // Bounded (issue #14): every session holds a server and a transport; without a cap and an idle expiry a
  // client that only ever initializes grows the process without end.
  const maxSessions = opts.maxSessions ?? DEFAULT_MAX_MCP_SESSIONS;
  const idleMs = opts.sessionIdleMs ?? DEFAULT_MCP_SESSION_IDLE_MS;
  const lastSeen = new Map<string, number>();
  const forget = (sid: string) => {
    transports.delete(sid);
    lastSeen.delete(sid);
  };
  const sweep = () => {
    const cutoff = Date.now() - idleMs;
    for (const [sid, at] of lastSeen) {
      if (at >= cutoff) continue;
      const t = transports.get(sid);
      forget(sid);
      void t?.close().catch(() => undefined);
    }
  };
  const sweeper = setInterval(sweep, Math.max(50, Math.min(idleMs / 2, 30_000)));
  sweeper.unref();

  const app = new Hono();
  if (isLoopback(host)) app.use('*', loopbackHostOnly());
  app.get('/health', (c) => c.json({ ok: true, name: 'skillsmith-mcp', version: VERSION }));
  // DNS rebinding and browser pages (MCP transport spec): a foreign Origin is refused before anything else.
  app.use('/mcp', originAllowed(opts.allowedOrigins));
  if (opts.token) app.use('/mcp', bearerToken(opts.token));
  app.all('/mcp', async (c) => {
    const id = c.req.header('mcp-session-id');
    let transport = id ? transports.get(id) : undefined;
    if (id && !transport)
      return c.json(
        { jsonrpc: '2.0', error: { code: -32001, message: `unknown MCP session ${id}: initialize again` }, id: null },
        404,
      );
    if (id) lastSeen.set(id, Date.now());
    if (!transport) {
      if (transports.size >= maxSessions) sweep();
      if (transports.size >= maxSessions) {
        return c.json(
          {
            jsonrpc: '2.0',
            error: {
              code: -32000,
              message: `too many open MCP sessions (${maxSessions}): close one (DELETE /mcp) or retry later`,
            },
            id: null,
          },
          503,
        );
      }
      // A request without a session must be an initialize; the transport answers anything else with an error.
      const fresh = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          transports.set(sid, fresh);
          lastSeen.set(sid, Date.now());
        },
        onsessionclosed: (sid) => forget(sid),
        // As over stdio: a recorded call may be as large as capture allows, with room for the message around it.
        maxRequestBodySize: memory.config.capture.maxRecordBytes + 1024 * 1024,
      });
      fresh.onclose = () => fresh.sessionId && forget(fresh.sessionId);
      await createMcpServer(memory, live).connect(fresh);
      transport = fresh;
    }
    return transport.handleRequest(c.req.raw);
  });
  app.all('*', (c) => c.json({ error: 'the MCP endpoint is /mcp' }, 404));

  const server = await listen(app, { host, port: opts.port ?? DEFAULT_MCP_PORT });
  return {
    ...server,
    openSessions: () => transports.size,
    url: `${server.url}/mcp`,
    close: async () => {
      clearInterval(sweeper);
      await Promise.all([...transports.values()].map((t) => t.close()));
      await server.close();
    },
  };
}
