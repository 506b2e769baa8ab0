import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { Memory } from '../../../app/memory.js';
import { errorBody, readQuery } from '../request.js';

const listQuery = z.object({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export const DEFAULT_MAX_EVENT_STREAMS = 32;

/** How often a stream looks at the events table without being woken (other processes write there too). */
const POLL_MS = 5000;

/**
 * Skill events: a page of stored events, and a server-sent event stream. The stream reads the events table
 * (the outbox, in id order) whenever this process emits an event or every few seconds, so it never sends an
 * event twice or out of order, and resumes after `Last-Event-ID` on reconnect. Ids increase in commit order (both
 * stores hand them out under the write's lock) but need not be consecutive: ids are shared by every namespace, and
 * PostgreSQL's sequence skips the ids of a write that rolled back. `ready` carries the id the stream starts after, so
 * a client that loses the connection before any event comes resumes from there, not from the newest event then.
 */
export function eventRoutes(memory: Memory, opts: { maxStreams?: number } = {}): Hono {
  const app = new Hono();
  // Bounded: every stream holds a connection and a file handle for as long as the client likes.
  const maxStreams = opts.maxStreams ?? DEFAULT_MAX_EVENT_STREAMS;
  let open = 0;

  app.get('/events', async (c) => {
    const { after, limit } = readQuery(c, listQuery);
    return c.json(await memory.events.list({ afterId: after, limit }));
  });

  app.get('/events/stream', async (c) => {
    if (open >= maxStreams)
      return c.json(errorBody(`too many open event streams (${maxStreams}); close one or retry later`, 503), 503, {
        'Retry-After': '5',
      });
    const given = c.req.header('last-event-id') ?? c.req.query('after');
    const resume = given?.trim() ? Number(given) : Number.NaN;
    const newest = await memory.events.lastId();
    // An id past the newest event (one another memory gave, before a restore or a move) resumes from the newest:
    // waiting for ids to catch up would drop every event until they did.
    let last = Number.isInteger(resume) && resume >= 0 ? Math.min(resume, newest) : newest;
    if (open >= maxStreams)
      return c.json(errorBody(`too many open event streams (${maxStreams}); close one or retry later`, 503), 503, {
        'Retry-After': '5',
      });
    open++;
    let counted = true;
    const release = () => {
      if (counted) open--;
      counted = false;
    };
    return streamSSE(c, async (stream) => {
      stream.onAbort(release);
      let pending = false;
      let wake: (() => void) | null = null;
      const off = memory.on('*', () => {
        pending = true;
        wake?.();
      });
      stream.onAbort(() => wake?.());
      try {
        await stream.writeSSE({ id: String(last), event: 'ready', data: JSON.stringify({ after: last }), retry: 3000 });
        while (!stream.aborted) {
          pending = false;
          const batch = await memory.events.list({ afterId: last, limit: 200 });
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
        release();
      }
    });
  });

  return app;
}
