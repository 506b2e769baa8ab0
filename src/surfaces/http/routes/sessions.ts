import { Hono } from 'hono';
import { z } from 'zod';
import type { Memory } from '../../../memory.js';
import { HttpError, readQuery } from '../request.js';
import { sessionJson, sessionSummary } from '../../shapes.js';

const page = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

/** Stored sessions, newest first, and one session with each of its tool calls. */
export function sessionRoutes(memory: Memory): Hono {
  const app = new Hono();
  const store = () => {
    if (!memory.store) throw new HttpError(503, 'memory is disabled: no sessions are stored');
    return memory.store;
  };

  app.get('/sessions', async (c) => {
    const { limit, offset } = readQuery(c, page);
    const [total, sessions] = await Promise.all([store().countSessions(memory.namespace), store().listSessions(memory.namespace, { limit, offset })]);
    return c.json({ total, limit, offset, items: sessions.map(sessionSummary) });
  });

  app.get('/sessions/:id', async (c) => {
    const session = await store().getSession(memory.namespace, memory.sessionKey(c.req.param('id')));
    if (!session) throw new HttpError(404, `no session "${c.req.param('id')}"`);
    return c.json(sessionJson(session));
  });

  return app;
}
