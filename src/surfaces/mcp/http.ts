import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono } from 'hono';
import type { Memory } from '../../memory.js';
import { bearerToken, checkBind, isLoopback, loopbackHostOnly } from '../http/security.js';
import { DEFAULT_HOST, listen, type RunningServer } from '../http/server.js';
import { VERSION } from '../http/version.js';
import { LiveSessions } from './live-sessions.js';
import { createMcpServer } from './server.js';

export const DEFAULT_MCP_PORT = 7701;
const MAX_BODY_BYTES = 1024 * 1024;

export interface McpHttpOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  token?: string | null;
  requireToken?: boolean;
}

/**
 * MCP over streamable HTTP at /mcp: one transport and server per MCP session (the `Mcp-Session-Id` header),
 * behind the same trust boundary as the REST API (loopback by default, a bearer token for anything else).
 */
export async function serveMcpHttp(memory: Memory, opts: McpHttpOptions = {}): Promise<RunningServer> {
  const host = opts.host ?? DEFAULT_HOST;
  checkBind({ host, token: opts.token, requireToken: opts.requireToken });
  const live = new LiveSessions(memory);
  const transports = new Map<string, WebStandardStreamableHTTPServerTransport>();

  const app = new Hono();
  if (isLoopback(host)) app.use('*', loopbackHostOnly());
  app.get('/health', (c) => c.json({ ok: true, name: 'skillsmith-mcp', version: VERSION }));
  if (opts.token) app.use('/mcp', bearerToken(opts.token));
  app.all('/mcp', async (c) => {
    const id = c.req.header('mcp-session-id');
    let transport = id ? transports.get(id) : undefined;
    if (id && !transport) return c.json({ jsonrpc: '2.0', error: { code: -32001, message: `unknown MCP session ${id}: initialize again` }, id: null }, 404);
    if (!transport) {
      // A request without a session must be an initialize; the transport answers anything else with an error.
      const fresh = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void transports.set(sid, fresh),
        onsessionclosed: (sid) => void transports.delete(sid),
        maxRequestBodySize: MAX_BODY_BYTES,
      });
      fresh.onclose = () => fresh.sessionId && transports.delete(fresh.sessionId);
      await createMcpServer(memory, live).connect(fresh);
      transport = fresh;
    }
    return transport.handleRequest(c.req.raw);
  });
  app.all('*', (c) => c.json({ error: 'the MCP endpoint is /mcp' }, 404));

  const server = await listen(app, { host, port: opts.port ?? DEFAULT_MCP_PORT });
  return {
    ...server,
    url: `${server.url}/mcp`,
    close: async () => {
      await Promise.all([...transports.values()].map((t) => t.close()));
      await server.close();
    },
  };
}
