import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { Memory } from '../../../app/memory.js';
import { forRequest, HttpError, readJson, readQuery } from '../request.js';
import { BackendConfigError } from '../../../errors/backend-config-error.js';
import { SESSION_PAGE, sessionJson, sessionSummary } from '../../shapes.js';
import { INGEST_FORMATS, type IngestFormat } from '../../../capture/types.js';

/**
 * A session id no stored session has: said without the id, which may be personal data a client put in the URL
 * (an email), and an error body is logged by proxies and clients; the client knows which one it asked for.
 */
const NO_SUCH_SESSION = 'no session with this id';
import { retentionCutoff } from '../../../domain/retention.js';

const page = z.object({
  limit: z.coerce.number().int().min(1).max(SESSION_PAGE.max).default(SESSION_PAGE.size),
  offset: z.coerce.number().int().min(0).default(0),
});

const outcome = z.enum(['success', 'failure', 'unknown']);
const startBody = z.strictObject({
  goal: z.string().min(1),
  cue: z.string().min(1).optional(),
  id: z.string().min(1).max(500).optional(),
  agentId: z.string().min(1).max(500).optional(),
  source: z.string().min(1).max(500).optional(),
});
const callBody = z
  .strictObject({
    position: z.number().int().min(0).optional(),
    tool: z.string().min(1).max(200),
    args: z.record(z.string(), z.unknown()).optional(),
    result: z.unknown().optional(),
    ok: z.boolean().optional(),
    error: z.string().nullable().optional(),
    durationMs: z.number().min(0).nullable().optional(),
  })
  // A call said to work and to have failed: stored as sent, its trial and the steps learned from it would read
  // `ok` and drop the error, or the other way round.
  .refine((b) => !(b.ok === true && b.error), {
    path: ['ok'],
    message: 'true, but "error" is set: a call that failed has ok false (or no ok: an error makes it false)',
  });
const endBody = z.strictObject({ outcome, reward: z.number().min(0).max(1).nullable().optional() });
/** Retention, as `sessions forget --older-than AGE | --before DATE [--dry-run]`: one of the two, and a dry run or not. */
const forgetOlderBody = z.strictObject({
  olderThan: z.string().optional(),
  before: z.string().optional(),
  dryRun: z.boolean().optional(),
});
const ingestQuery = z.object({
  format: z.enum(INGEST_FORMATS as [IngestFormat, ...IngestFormat[]]).default('auto'),
  judge: z.enum(['rule', 'llm', 'off']).optional(),
  dryRun: z.enum(['true', 'false']).default('false'),
  name: z.string().min(1).max(200).default('request'),
});

/**
 * Stored sessions, newest first, and one session with each of its tool calls; and the write path for agents
 * in any language: start a session, record its calls by position, end it (or report the outcome later),
 * forget it; and retention, forgetting every session older than an age or a date.
 */
export function sessionRoutes(memory: Memory): Hono {
  const app = new Hono();
  const sessions = () => {
    if (memory.disabled) throw new HttpError(503, 'memory is disabled: no sessions are stored');
    return memory;
  };

  app.get('/sessions', async (c) => {
    const { limit, offset } = readQuery(c, page);
    const [total, items] = await Promise.all([
      sessions().sessions.count(),
      sessions().sessions.list({ limit, offset }),
    ]);
    return c.json({ total, limit, offset, items: items.map(sessionSummary) });
  });

  app.get('/sessions/:id', async (c) => {
    const session = await sessions().sessions.get(memory.sessions.key(c.req.param('id')));
    if (!session) throw new HttpError(404, NO_SUCH_SESSION);
    return c.json(sessionJson(session, await sessions().sessions.recalled(session.id)));
  });

  // A log as an application keeps it (a saved chat, a run history, a transcript), in any format `ingest` reads:
  // the raw body, named `name` in problems. 200 with the ingest result; with problems, 422 and the same body
  // (every valid record is stored). `dryRun=true` stores nothing and says what would be stored.
  app.post('/ingest', async (c) => {
    const q = readQuery(c, ingestQuery);
    const text = await c.req.text();
    if (!text.trim()) throw new HttpError(400, 'the request body is empty: send the log itself (JSON or JSONL)');
    if (q.dryRun === 'true') {
      const preview = await sessions().previewText(text, { name: q.name, format: q.format });
      return c.json(preview, preview.problems.length ? 422 : 200);
    }
    const r = await sessions()
      .ingestText(text, { name: q.name, format: q.format, judge: q.judge })
      .catch((e: unknown) => {
        // A judge the request asks for and this server cannot run (`judge=llm` with no model): the request's mistake.
        if (q.judge && BackendConfigError.isInstance(e)) throw new HttpError(400, `judge=${q.judge}: ${e.message}`);
        throw e;
      });
    return c.json(r, r.problems.length ? 422 : 200);
  });

  app.post('/sessions', async (c) => {
    const body = await readJson(c, startBody);
    const recorder = await forRequest('startSession', memory.startSession({ ...body, source: body.source ?? 'http' }));
    const session = await sessions().sessions.get(recorder.id);
    return c.json(sessionSummary(session!), 201);
  });

  app.post('/sessions/:id/calls', async (c) => {
    const body = await readJson(c, callBody);
    const res = await forRequest('call', memory.sessions.recordCall(c.req.param('id'), body));
    return c.json(res, res.recorded ? 201 : 200);
  });

  // Ending and a later outcome report are one operation: the same outcome again is a no-op, another is a 409.
  const end = async (c: Context) => {
    const body = await readJson(c, endBody);
    const { credited } = await memory.reportOutcome(c.req.param('id')!, body.outcome, { reward: body.reward });
    const session = await sessions().sessions.get(memory.sessions.key(c.req.param('id')!));
    return c.json({ ...sessionSummary(session!), credited });
  };
  app.post('/sessions/:id/end', end);
  app.post('/sessions/:id/outcome', end);

  // Retention: every session that ended (or, still open, was last active) before a cutoff, answered as
  // `sessions forget --older-than AGE --json` prints it. An operator's action: the MCP server has no such tool.
  app.post('/sessions/forget', async (c) => {
    const body = await readJson(c, forgetOlderBody);
    const before = retentionCutoff(body, Date.now(), { olderThan: 'olderThan', before: 'before' });
    if (before === null)
      throw new HttpError(
        400,
        'invalid body: give olderThan (an age: 36h, 90d, 12w) or before (a date: 2026-09-01, or an ISO time)',
      );
    if (typeof before === 'string') throw new HttpError(400, `invalid body: ${before}`);
    return c.json(await sessions().sessions.forgetBefore(before, { actor: 'http', dryRun: body.dryRun ?? false }));
  });

  app.delete('/sessions/:id', async (c) => {
    const gone = await memory.sessions.forget(c.req.param('id'), { actor: 'http' });
    if (!gone) throw new HttpError(404, NO_SUCH_SESSION);
    return c.json({ forgotten: gone });
  });

  return app;
}
