import { Hono } from 'hono';
import { z } from 'zod';
import type { Memory } from '../../../app/memory.js';
import { stableReport } from '../../shapes.js';
import { readJson } from '../request.js';

const ids = z.array(z.string().min(1).max(500)).max(500);

const compileBody = z
  .strictObject({
    sessions: ids.optional(),
    cue: z.string().min(1).max(4000).optional(),
    facts: ids.optional(),
    commit: z.boolean().default(false),
  })
  .refine((b) => b.sessions?.length || b.cue || b.facts?.length, { message: 'give sessions, a cue or facts' });

const synthesizeBody = z.object({ dryRun: z.boolean().default(false) }).strict();

const recallBody = z.strictObject({
  goal: z.string().min(1).max(8000),
  topK: z.number().int().min(1).max(20).optional(),
  sessionId: z.string().min(1).max(500).optional(),
  /** The tools the agent has: only skills whose steps call none other are served. */
  tools: z.array(z.string().min(1).max(500)).min(1).max(2000).optional(),
});

/** Synthesis, compile (a dry run unless commit) and recall: the ways skills go in and come out. */
export function learningRoutes(memory: Memory): Hono {
  const app = new Hono();

  app.post('/compile', async (c) => {
    const body = await readJson(c, compileBody);
    return c.json(await memory.skills.compile({ ...body, actor: 'http' }));
  });

  // A synthesis pass over the sessions recorded since the last one: what an agent that records here learns by,
  // when the server does not run passes by itself (synthesis.auto). One pass at a time: another is a 409.
  app.post('/synthesize', async (c) => {
    const body = await readJson(c, synthesizeBody, { optional: true });
    return c.json(stableReport(await memory.synthesize({ dryRun: body.dryRun })));
  });

  // Sessions that ran the same steps but were worded too far apart to group: POST /compile with a group's
  // sessions learns it as one skill.
  app.get('/look-alike', async (c) => c.json(await memory.synthesis.lookAlike()));

  // A POST: recall records which skills it served (their trials when the session ends) and touches last-used.
  app.post('/recall', async (c) => {
    const body = await readJson(c, recallBody);
    // A recall for a session is its trial when it ends: memory.recall holds it to a recorded session still running.
    const skills = await memory.recall(body.goal, { topK: body.topK, sessionId: body.sessionId, tools: body.tools });
    return c.json({ skills, context: memory.formatContext(skills), tools: memory.toolsFor(skills) });
  });

  return app;
}
