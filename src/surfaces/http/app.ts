import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Memory } from '../../app/memory.js';
import { methodNotAllowed, noRoute } from './methods.js';
import { openApiDocument } from './openapi.js';
import { errorAnswer, errorBody } from './request.js';
import { eventRoutes } from './routes/events.js';
import { learningRoutes } from './routes/learning.js';
import { sessionRoutes } from './routes/sessions.js';
import { skillRoutes } from './routes/skills.js';
import { statusRoutes } from './routes/status.js';
import { bearerToken, csrfHeader, loopbackHostOnly } from './security.js';
import { dashboardRoutes, DEFAULT_WEB_ROOT } from './static.js';
import { VERSION } from '../version.js';
import { redactCapture } from '../../domain/redact.js';

export interface AppOptions {
  /** Bearer token every /api route but /api/health requires (none: no token checked). */
  token?: string | null;
  /** Refuse requests whose Host header is not a loopback name (set when bound to loopback). */
  loopbackOnly?: boolean;
  /** Largest request body, in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Largest log `POST /api/ingest` takes, in bytes (default 64 MiB: a long agent transcript is megabytes). */
  maxLogBytes?: number;
  /** Server-sent event streams open at once (default 32); one more is refused with 503. */
  maxEventStreams?: number;
  /** Folder of the built dashboard (default dist/surfaces/web); null serves no dashboard. */
  webRoot?: string | null;
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_MAX_LOG_BYTES = 64 * 1024 * 1024;

/** Routes that answer without the token: they hold no data. */
const PUBLIC = new Set(['/api/health', '/api/openapi.json']);

/** The page may load and call only this origin: no CDN, no third party, nothing inline. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The REST API under /api and the dashboard at /, over one memory. */
export function createApp(memory: Memory, opts: AppOptions = {}): Hono {
  const app = new Hono();
  const log = memory.parts.log.child('http');
  const maxSize = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  app.use('*', async (c, next) => {
    await next();
    c.header('Content-Security-Policy', CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
  });
  if (opts.loopbackOnly) app.use('*', loopbackHostOnly());

  const api = new Hono();
  if (opts.token) {
    const auth = bearerToken(opts.token);
    api.use('*', (c, next) => (PUBLIC.has(c.req.path) ? next() : auth(c, next)));
  }
  // Before the CSRF check: a method the path does not take changes nothing, and is said as such.
  api.use('*', methodNotAllowed(api, '/api'));
  api.use('*', csrfHeader());
  const limit = (bytes: number) =>
    bodyLimit({
      maxSize: bytes,
      // The rest of the body is never read: the connection cannot be reused.
      onError: (c) => c.json(errorBody(`request body larger than ${bytes} bytes`, 413), 413, { Connection: 'close' }),
    });
  const bodies = limit(maxSize);
  // A log sent whole (a transcript, a saved chat) is larger than any other request.
  const logs = limit(opts.maxLogBytes ?? DEFAULT_MAX_LOG_BYTES);
  api.use('*', (c, next) => (c.req.path === '/api/ingest' ? logs(c, next) : bodies(c, next)));
  // Routes after the middleware: Hono runs handlers in registration order.
  api.route('/', statusRoutes(memory, VERSION));
  api.get('/openapi.json', (c) => c.json(openApiDocument(VERSION)));
  api.route('/', skillRoutes(memory));
  api.route('/', sessionRoutes(memory));
  api.route('/', learningRoutes(memory));
  api.route('/', eventRoutes(memory, { maxStreams: opts.maxEventStreams }));
  // The path's values are not repeated (a session id in it may be an email): said as `*`.
  api.all('*', noRoute(api, '/api'));

  app.route('/api', api);
  if (opts.webRoot !== null) app.route('/', dashboardRoutes(opts.webRoot ?? DEFAULT_WEB_ROOT));

  app.onError((e, c) => {
    const { status, code, message, retryAfterS } = errorAnswer(e);
    if (retryAfterS !== undefined) c.header('Retry-After', String(retryAfterS));
    // An unreachable database is said in one line (its stack says nothing more); other failures with their stack.
    // The path and the error are a client's words (a session id may be an email): redacted as capture redacts what it
    // stores (credentials said in words too), so no more of a session id is logged than protectId lets the store keep.
    const path = loggedPath(c.req.path);
    if (status === 503) log.warn('request failed', { method: c.req.method, path, error: redactCapture(message) });
    else if (status >= 500)
      log.error('request failed', {
        method: c.req.method,
        path,
        error: redactCapture(String((e as Error).stack ?? e)),
      });
    return c.json({ error: message, code }, status as 400);
  });
  return app;
}

/** A request's path as a log line may carry it: percent-decoded (an encoded `@` hides an email), then redacted. */
function loggedPath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A malformed escape: redacted as sent.
  }
  return redactCapture(decoded);
}
