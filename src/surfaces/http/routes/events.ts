import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { Memory } from '../../../memory.js';
import { readQuery } from '../request.js';

const listQuery = z.object({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

/** How often a stream looks at the events table without being woken (other processes write there too). */
const POLL_MS = 5000;

/**
 * Skill events: a page of stored events, and a server-sent event stream. The stream reads the events table
 * (the outbox, in id order) whenever this process emits an event or every few seconds, so it never sends an
 * event twice or out of order, and resumes after `Last-Event-ID` on reconnect.
 */
export function eventRoutes(memory: Memory): Hono {
  const app = new Hono();

  app.get('/events', async (c) => {
    const { after, limit } = readQuery(c, listQuery);
    return c.json(await memory.events({ afterId: after, limit }));
  });

  app.get('/events/stream', async (c) => {
    const resume = Number(c.req.header('last-event-id') ?? c.req.query('after'));
    let last = Number.isInteger(resume) && resume >= 0 ? resume : ((await memory.store?.lastEventId()) ?? 0);
    return streamSSE(c, async (stream) => {
      let pending = false;
      let wake: (() => void) | null = null;
      const off = memory.on('*', () => {
        pending = true;
        wake?.();
      });
      stream.onAbort(() => wake?.());
      try {
        await stream.writeSSE({ event: 'ready', data: JSON.stringify({ after: last }), retry: 3000 });
        while (!stream.aborted) {
          pending = false;
          const batch = await memory.events({ afterId: last, limit: 200 });
          for (const e of batch) {
            await stream.writeSSE({ id: String(e.id), event: e.type, data: JSON.stringify(e) });
            last = e.id;
          }
          if (batch.length === 200 || pending) continue;
          const woken = await new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(false), POLL_MS);
            wake = () => {
              clearTimeout(timer);
              resolve(true);
            };
          });
          wake = null;
          if (!woken && !stream.aborted) await stream.write(': keep-alive\n\n');
        }
      } finally {
        off();
      }
    });
  });

  return app;
}
