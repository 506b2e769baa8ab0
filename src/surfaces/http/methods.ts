import type { Hono, MiddlewareHandler } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';

/** The order `Allow` names methods in. */
const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * A request for a path some route answers, with a method none of its routes takes (`DELETE /api/stats`, a GET of
 * a POST-only route): 405, with `Allow` naming the methods the path takes and the API's error body. A path no route
 * answers goes on (to the 404). `mount` is where `app` is mounted (`/api`); its routes are read at the first
 * request, when every one is registered. HEAD is allowed wherever GET is (Hono answers it with the GET route).
 */
export function methodNotAllowed(app: Hono, mount: string): MiddlewareHandler {
  let router: TrieRouter<string> | null = null;
  return async (c, next) => {
    if (!router) {
      router = new TrieRouter<string>();
      // Middleware and the catch-all are registered for every method (ALL): they say nothing of a path's methods.
      for (const r of app.routes) if (r.method !== 'ALL') router.add('ALL', mount + r.path, r.method.toUpperCase());
    }
    const methods = new Set(router.match('ALL', c.req.path)[0].map(([m]) => m));
    if (methods.size === 0) return next();
    if (methods.has('GET')) methods.add('HEAD');
    if (methods.has(c.req.method)) return next();
    const allow = [...methods].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b)).join(', ');
    return c.json({ error: `${c.req.method} is not allowed on ${c.req.path}: it takes ${allow}` }, 405, {
      Allow: allow,
    });
  };
}
