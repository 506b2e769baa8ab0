import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { UnsafeBindError } from '../../errors/unsafe-bind-error.js';
import { errorBody } from './request.js';

/** The header every state-changing request must carry: a page on another origin cannot set it without CORS. */
export const CSRF_HEADER = 'X-Skillsmith-CSRF';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** True for names and addresses that only this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = host.trim().toLowerCase();
  return LOOPBACK_NAMES.has(h) || /^127(\.\d{1,3}){3}$/.test(h) || h.endsWith('.localhost');
}

export { UnsafeBindError };

/**
 * The trust boundary (SPEC "Trust boundary"): loopback by default; any other address needs a bearer token.
 * Throws before anything listens.
 */
export function checkBind(opts: { host: string; token?: string | null; requireToken?: boolean }): void {
  if (opts.token != null && opts.token.length < 16) {
    throw new UnsafeBindError('the token must be at least 16 characters (e.g. `openssl rand -hex 24`)');
  }
  if (!opts.token && !isLoopback(opts.host)) {
    throw new UnsafeBindError(
      `refusing to listen on ${opts.host} without a token: pass --token or set SKILLSMITH_TOKEN, or bind to 127.0.0.1`,
    );
  }
  if (!opts.token && opts.requireToken) {
    throw new UnsafeBindError('--require-token needs a token: pass --token or set SKILLSMITH_TOKEN');
  }
}

/**
 * On a loopback server, a request naming another host in its Host header comes from a page that rebound its DNS
 * name to 127.0.0.1: refuse it, so that page cannot read the memory.
 */
export function loopbackHostOnly(): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host') ?? '';
    const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
    if (!isLoopback(name))
      return c.json(errorBody(`host "${host}" is not allowed: this server answers on localhost only`, 403), 403);
    await next();
  };
}

/** Requires `Authorization: Bearer <token>`; compared in constant time. */
export function bearerToken(token: string): MiddlewareHandler {
  const expected = digest(token);
  return async (c, next) => {
    const m = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '');
    if (!m || !timingSafeEqual(digest(m[1].trim()), expected)) {
      c.header('WWW-Authenticate', 'Bearer realm="skillsmith"');
      return c.json(errorBody('missing or wrong bearer token (Authorization: Bearer <token>)', 401), 401);
    }
    await next();
  };
}

/** Requires the CSRF header on every method that can change state. */
export function csrfHeader(): MiddlewareHandler {
  return async (c, next) => {
    if (!['GET', 'HEAD', 'OPTIONS'].includes(c.req.method) && c.req.header(CSRF_HEADER) !== '1') {
      return c.json(errorBody(`state-changing requests need the header ${CSRF_HEADER}: 1`, 403), 403);
    }
    await next();
  };
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/**
 * Refuses a request whose Origin header names a site other than this machine (a page in a browser calling a
 * local server, or a rebound DNS name) unless it is listed in `allowed`. No Origin (a native client) passes.
 */
export function originAllowed(allowed: readonly string[] = []): MiddlewareHandler {
  const extra = new Set(allowed.map((o) => o.trim().toLowerCase().replace(/\/$/, '')));
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (origin !== undefined && !isLoopbackOrigin(origin) && !extra.has(origin.trim().toLowerCase())) {
      return c.json(
        {
          jsonrpc: '2.0',
          error: { code: -32000, message: `origin "${origin}" is not allowed: this server answers local clients only` },
          id: null,
        },
        403,
      );
    }
    await next();
  };
}

/** http(s)://<loopback name>[:port], e.g. http://localhost:5173. */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    const u = new URL(origin);
    return (u.protocol === 'http:' || u.protocol === 'https:') && isLoopback(u.hostname);
  } catch {
    return false;
  }
}
