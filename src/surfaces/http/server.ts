import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Memory } from '../../app/memory.js';
import { createApp, type AppOptions } from './app.js';
import { checkBind, isLoopback } from './security.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 7700;

export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:7700 */
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface ServeOptions extends Pick<AppOptions, 'maxBodyBytes' | 'maxLogBytes' | 'webRoot' | 'maxEventStreams'> {
  /** Time a client has to send a whole request, in ms (default 30 s). */
  requestTimeoutMs?: number;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  token?: string | null;
  /** Require the token even on loopback. */
  requireToken?: boolean;
}

/**
 * Starts the REST API and the dashboard: on 127.0.0.1 by default; any other address needs a token
 * (UnsafeBindError, before anything listens).
 */
export async function serveApi(memory: Memory, opts: ServeOptions = {}): Promise<RunningServer> {
  const host = opts.host ?? DEFAULT_HOST;
  checkBind({ host, token: opts.token, requireToken: opts.requireToken });
  const app = createApp(memory, {
    token: opts.token,
    loopbackOnly: isLoopback(host),
    maxBodyBytes: opts.maxBodyBytes,
    maxLogBytes: opts.maxLogBytes,
    webRoot: opts.webRoot,
    maxEventStreams: opts.maxEventStreams,
  });
  return listen(app, { host, port: opts.port ?? DEFAULT_PORT, requestTimeoutMs: opts.requestTimeoutMs });
}

/**
 * How long a client may take to send a whole request (headers and body), and its headers alone. Node's
 * defaults (300 s, checked every 30 s) let a slow body hold a connection for minutes.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const HEADERS_TIMEOUT_MS = 15_000;

/** Serves a Hono app on host:port and resolves once it listens. */
export function listen(
  app: Hono,
  opts: { host: string; port: number; requestTimeoutMs?: number },
): Promise<RunningServer> {
  const requestTimeout = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const serverOptions = {
      requestTimeout,
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeout),
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(requestTimeout / 4))),
    };
    const server = serve(
      { fetch: app.fetch, hostname: opts.host, port: opts.port, serverOptions },
      (info: AddressInfo) => {
        const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
        resolve({
          url: `http://${host}:${info.port}`,
          port: info.port,
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done());
              // Event streams never end on their own.
              server.closeAllConnections();
            }),
        });
      },
    ) as Server;
    server.once('error', reject);
  });
}
