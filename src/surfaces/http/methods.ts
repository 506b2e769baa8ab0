import type { Handler, Hono, MiddlewareHandler } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import { errorBody } from './request.js';

/** The order `Allow` names methods in. */
const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * The routes of `app` mounted at `mount` (`/api`), read at the first request, when every one is registered: which
 * methods a path takes, by which route, and the words the routes' paths are made of.
 */
class Routes {
  private built: { router: TrieRouter<{ method: string; path: string }>; words: Set<string> } | null = null;

  constructor(
    private readonly app: Hono,
    private readonly mount: string,
  ) {}

  private get routes() {
    if (!this.built) {
      const router = new TrieRouter<{ method: string; path: string }>();
      const words = new Set(this.mount.split('/'));
      // Middleware and the catch-all are registered for every method (ALL): they say nothing of a path's methods.
      for (const r of this.app.routes) {
        if (r.method === 'ALL') continue;
        const path = this.mount + r.path;
        router.add('ALL', path, { method: r.method.toUpperCase(), path });
        for (const w of r.path.split('/')) if (!w.startsWith(':') && !w.includes('*')) words.add(w);
      }
      this.built = { router, words };
    }
    return this.built;
  }

  /** The routes that answer `path`, whatever their method. */
  match(path: string): { method: string; path: string }[] {
    return this.routes.router.match('ALL', path)[0].map(([m]) => m);
  }

  /**
   * `path` as an answer may repeat it: each segment that is no word of a route's path (a session id, a skill's
   * name: a client's value, maybe personal data, and an error body is logged by proxies) as `*`.
   */
  shape(path: string): string {
    const { words } = this.routes;
    return path
      .split('/')
      .map((w) => (words.has(w) ? w : '*'))
      .join('/');
  }
}

/**
 * A request for a path some route answers, with a method none of its routes takes (`DELETE /api/stats`, a GET of
 * a POST-only route): 405, with `Allow` naming the methods the path takes and the API's error body, which names the
 * route by its pattern (`/api/sessions/:id`), not by the values in the path. A path no route answers goes on (to
 * the 404). `mount` is where `app` is mounted (`/api`). HEAD is allowed wherever GET is (Hono answers it with the GET
 * route).
 */
export function methodNotAllowed(app: Hono, mount: string): MiddlewareHandler {
  const routes = new Routes(app, mount);
  return async (c, next) => {
    const matched = routes.match(c.req.path);
    const methods = new Set(matched.map((m) => m.method));
    if (methods.size === 0) return next();
    if (methods.has('GET')) methods.add('HEAD');
    if (methods.has(c.req.method)) return next();
    const allow = [...methods].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b)).join(', ');
    // The route of fewest values (a literal path before a pattern that also matches it).
    const values = (p: string) => p.split('/').filter((w) => w.startsWith(':')).length;
    const route = matched.map((m) => m.path).sort((a, b) => values(a) - values(b))[0]!;
    return c.json(errorBody(`${c.req.method} is not allowed on ${route}: it takes ${allow}`, 405), 405, {
      Allow: allow,
    });
  };
}

/**
 * The API's 404 for a path no route answers: `no route METHOD PATH`, the path with each of its values (a segment
 * that is no word of a route's path) as `*`.
 */
export function noRoute(app: Hono, mount: string): Handler {
  const routes = new Routes(app, mount);
  return (c) => c.json(errorBody(`no route ${c.req.method} ${routes.shape(c.req.path)}`, 404), 404);
}
