import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Memory } from '../../memory.js';
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

export interface ServeOptions extends Pick<AppOptions, 'maxBodyBytes' | 'webRoot'> {
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
  const app = createApp(memory, { token: opts.token, loopbackOnly: isLoopback(host), maxBodyBytes: opts.maxBodyBytes, webRoot: opts.webRoot });
  return listen(app, { host, port: opts.port ?? DEFAULT_PORT });
}

/** Serves a Hono app on host:port and resolves once it listens. */
export function listen(app: Hono, opts: { host: string; port: number }): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: opts.host, port: opts.port }, (info: AddressInfo) => {
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
    }) as Server;
    server.once('error', reject);
  });
}
