import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { errorBody } from './request.js';

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};

/** Only plain names under the root (`views/skills.js`): no dots but the extension, so nothing climbs out. */
const SAFE_PATH = /^(?:[a-z0-9_-]+\/)*[a-z0-9_-]+\.(html|js|css|svg)$/i;

/** Where the build puts the dashboard: dist/surfaces/web, beside dist/surfaces/http. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../web/', import.meta.url));

/** The dashboard's files, read from disk on each request (they are few and small). */
export function dashboardRoutes(root: string): Hono {
  const app = new Hono();
  app.get('/*', (c) => {
    const rel = c.req.path === '/' ? 'index.html' : c.req.path.slice(1);
    const m = SAFE_PATH.exec(rel);
    const file = m ? join(root, rel) : null;
    if (!file || !existsSync(file)) {
      return rel === 'index.html'
        ? c.text('The dashboard is not built: run `npm run build`. The API is under /api.', 404)
        : c.text('not found', 404);
    }
    c.header('Cache-Control', 'no-cache');
    return c.body(readFileSync(file), 200, { 'Content-Type': TYPES[m![1].toLowerCase()] });
  });
  // The dashboard's pages are read, never written to (a POST / got Hono's plain-text 404): said as the API says it,
  // without the path (a page's path holds a skill's name or a session's id).
  app.all('/*', (c) =>
    c.json(errorBody(`${c.req.method} is not allowed on the dashboard's pages: they take GET, HEAD`, 405), 405, {
      Allow: 'GET, HEAD',
    }),
  );
  return app;
}
