import { Hono } from 'hono';
import { z } from 'zod';
import type { EditResult } from '../../../app/catalog.js';
import type { Memory } from '../../../app/memory.js';
import type { Skill } from '../../../domain/types.js';
import { MAX_FEEDBACK_ID_CHARS } from '../../../domain/feedback-key.js';
import { exportSkillFiles } from '../export.js';
import { errorBody, forRequest, HttpError, readJson, readQuery } from '../request.js';
import { noSkillNamed, skillJson, skillSummaryJson } from '../../shapes.js';
import { createZip } from '../zip.js';

const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const list = (values: readonly [string, ...string[]]) =>
  z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(values)));

const SORTS = {
  name: (a: Skill, b: Skill) => a.name.localeCompare(b.name),
  eta: (a: Skill, b: Skill) => b.eta - a.eta,
  support: (a: Skill, b: Skill) => b.support - a.support,
  lastUsedAt: (a: Skill, b: Skill) => (b.lastUsedAt ?? '').localeCompare(a.lastUsedAt ?? ''),
  updatedAt: (a: Skill, b: Skill) => b.updatedAt.localeCompare(a.updatedAt),
} as const;

const listQuery = z.object({
  status: list(['probationary', 'active', 'retired']).optional(),
  corpus: z.enum(['internal', 'external']).optional(),
  enabled: flag.optional(),
  all: flag.optional(),
  q: z.string().max(200).optional(),
  sort: z.enum(Object.keys(SORTS) as [keyof typeof SORTS]).default('name'),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  offset: z.coerce.number().int().min(0).default(0),
  summary: flag.optional(),
});

const explainQuery = z.object({ sessions: z.coerce.number().int().min(0).optional() });
const version = z.string().regex(/^\d+\.\d+\.\d+$/, 'a version such as 1.2.0');
const diffQuery = z.object({ from: version.optional(), to: version.optional() });

const exportQuery = z.object({
  names: z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .optional(),
  external: flag.optional(),
});

const feedbackBody = z.strictObject({
  /** pass | fail | up | down | reward=<0..1> (the CLI's words). */
  signal: z.string().min(1).max(40),
  sessionId: z.string().min(1).max(500).optional(),
  /** An idempotency key (as the Idempotency-Key header): the same feedback sent again under it is not counted twice. */
  feedbackId: z.string().min(1).max(MAX_FEEDBACK_ID_CHARS).optional(),
});

const patchBody = z
  .object({
    enabled: z.boolean().optional(),
    /** The skill's new name (skills rename): its validity is the catalogue's to judge, with the reason. */
    name: z.string().min(1).max(200).optional(),
    /** Take a name another skill had before a person renamed it. */
    force: z.boolean().optional(),
  })
  .strict()
  .refine((b) => b.enabled !== undefined || b.name !== undefined, { message: 'give "enabled", "name" or both' });

/**
 * A feedback's idempotency key: the `Idempotency-Key` header, or the body's `feedbackId` (both: the same one).
 * Undefined when neither is given.
 */
function idempotencyKey(header: string | undefined, field: string | undefined): string | undefined {
  const fromHeader = header?.trim();
  if (fromHeader !== undefined && (!fromHeader || fromHeader.length > MAX_FEEDBACK_ID_CHARS))
    throw new HttpError(400, `the Idempotency-Key header must be 1 to ${MAX_FEEDBACK_ID_CHARS} characters`);
  if (fromHeader !== undefined && field !== undefined && fromHeader !== field)
    throw new HttpError(
      400,
      'the Idempotency-Key header and the body\'s "feedbackId" differ: give the key once, or the same in both',
    );
  return fromHeader ?? field;
}

/** The skill catalogue: list, read, enable/disable, rename, edit, promote, forget, explain, feedback and export. */
export function skillRoutes(memory: Memory): Hono {
  const app = new Hono();

  const find = async (name: string): Promise<Skill> => {
    const skill = await memory.skills.get(name);
    if (!skill) throw new HttpError(404, await noSkillNamed(memory, name));
    return skill;
  };

  app.get('/skills', async (c) => {
    const q = readQuery(c, listQuery);
    const needle = q.q?.toLowerCase();
    const matched = (await memory.skills.list({ corpus: q.corpus, includeSuperseded: q.all }))
      .filter((s) => !q.status || q.status.includes(s.status))
      .filter((s) => q.enabled === undefined || s.enabled === q.enabled)
      .filter((s) => !needle || s.name.includes(needle) || s.description.toLowerCase().includes(needle))
      .sort(SORTS[q.sort]);
    return c.json({
      total: matched.length,
      limit: q.limit,
      offset: q.offset,
      // summary=true: each skill's source-session count instead of the ids (a list view needs no ids).
      items: matched.slice(q.offset, q.offset + q.limit).map((s) => (q.summary ? skillSummaryJson(s) : skillJson(s))),
    });
  });

  app.get('/skills.zip', async (c) => {
    const q = readQuery(c, exportQuery);
    const { files, skipped } = await exportSkillFiles(memory, { names: q.names, includeExternal: q.external });
    // A name asked for that is no live skill's is said, not left out of the archive without a word.
    const found = new Set([...files.map((f) => f.name), ...skipped.map((s) => s.name)]);
    const unknown = (q.names ?? []).filter((n) => !found.has(n));
    if (unknown.length)
      throw new HttpError(
        404,
        unknown.length === 1
          ? await noSkillNamed(memory, unknown[0]!)
          : `no live skill named ${unknown.map((n) => `"${n}"`).join(', ')}${q.external ? '' : ' (imported skills need external=true)'}`,
      );
    const zip = createZip(files.map((f) => ({ path: `${f.name}/SKILL.md`, data: f.text })));
    c.header('Content-Disposition', 'attachment; filename="skills.zip"');
    if (skipped.length)
      c.header(
        'X-Skillsmith-Skipped',
        skipped
          .map((s) => s.name)
          .join(',')
          .replace(/[^\x20-\x7e]/g, '?'),
      );
    return c.body(new Uint8Array(zip), 200, { 'Content-Type': 'application/zip' });
  });

  app.get('/skills/:name', async (c) => {
    const name = c.req.param('name');
    const skill = await memory.skills.get(name);
    if (!skill) {
      // A renamed (or superseded) skill's old address says where it went, for a link or a redirect.
      const now = await memory.skills.nowKnownAs(name);
      return c.json({ ...errorBody(await noSkillNamed(memory, name), 404), ...(now ? { nowKnownAs: now } : {}) }, 404);
    }
    return c.json({ ...skillJson(skill), skillMd: skill.skillMd });
  });

  // Enable or disable, rename (a name later passes keep), or both: the rename first. A rename says whether it
  // changed the name (`changed`, as `skills rename --json` does): false when the skill had the name already, or a
  // retried rename finds it done, so a client that lost the first answer can tell.
  app.patch('/skills/:name', async (c) => {
    const { enabled, name, force } = await readJson(c, patchBody);
    let current = c.req.param('name');
    let skill: Skill | null = null;
    let changed: boolean | undefined;
    if (name !== undefined) {
      const renamed = await memory.skills.rename(current, name, { actor: 'http', force });
      if (!renamed) throw new HttpError(404, await noSkillNamed(memory, current));
      skill = renamed.skill;
      changed = renamed.changed;
      current = skill.name;
    }
    if (enabled !== undefined) skill = await memory.skills.setEnabled(current, enabled, { actor: 'http' });
    if (!skill) throw new HttpError(404, await noSkillNamed(memory, current));
    return c.json(changed === undefined ? skillJson(skill) : { ...skillJson(skill), changed });
  });

  // Forgetting: the row, versions, provenance, track record and vectors are deleted; an audit record remains.
  app.delete('/skills/:name', async (c) => {
    const gone = await memory.skills.forget(c.req.param('name'), { actor: 'http' });
    if (!gone) throw new HttpError(404, await noSkillNamed(memory, c.req.param('name')));
    return c.json({ forgotten: gone });
  });

  // An imported skill becomes recallable; the catalogue's errors say the rest (unknown: 404, already internal or
  // its name held by an internal skill: 409).
  app.post('/skills/:name/promote', async (c) => {
    const skill = await memory.skills.promote(c.req.param('name'), { actor: 'http' });
    return c.json(skillJson(skill));
  });

  app.get('/skills/:name/explain', async (c) => {
    const { sessions } = readQuery(c, explainQuery);
    const ex = await memory.skills.explain(c.req.param('name'), undefined, { sessions });
    if (!ex) throw new HttpError(404, await noSkillNamed(memory, c.req.param('name')));
    return c.json(ex);
  });

  app.get('/skills/:name/diff', async (c) => {
    const { from, to } = readQuery(c, diffQuery);
    const d = await memory.skills.diff(c.req.param('name'), { from, to });
    if (!d) throw new HttpError(404, await noSkillNamed(memory, c.req.param('name')));
    return c.json(d);
  });

  app.post('/skills/:name/feedback', async (c) => {
    const body = await readJson(c, feedbackBody);
    const feedbackId = idempotencyKey(c.req.header('idempotency-key'), body.feedbackId);
    const skill = await find(c.req.param('name'));
    const res = await memory.feedback(skill.id, body.signal, { sessionId: body.sessionId, feedbackId, actor: 'http' });
    // repeated: the same feedback under its key (or session) before; nothing was counted again.
    return c.json({ before: skillJson(res.before), after: skillJson(res.after), repeated: res.repeated });
  });

  app.get('/skills/:name/SKILL.md', async (c) => {
    const skill = await find(c.req.param('name'));
    const { files, skipped } = await exportSkillFiles(memory, { names: [skill.name], includeExternal: true });
    const file = files.find((f) => f.name === skill.name);
    if (!file)
      throw new HttpError(
        422,
        `${skill.name} cannot be exported: ${skipped.map((s) => s.reason).join('; ') || 'not a live skill'}`,
      );
    c.header('Content-Disposition', `attachment; filename="${file.name}.SKILL.md"`);
    return c.body(file.text, 200, { 'Content-Type': 'text/markdown; charset=utf-8' });
  });

  // A person's SKILL.md for a learned skill (skills edit): the text itself, as text/markdown. The answer is what
  // `skills edit --json` prints: the skill now, whether it changed (an empty text, or the one it has, changes
  // nothing), and what the person should know.
  app.put('/skills/:name/SKILL.md', async (c) => {
    const type = (c.req.header('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type && !type.startsWith('text/'))
      throw new HttpError(415, `the body is the SKILL.md text itself (Content-Type: text/markdown), not ${type}`);
    const name = c.req.param('name');
    const res = await forRequest('edit', memory.skills.edit(name, await c.req.text(), { actor: 'http' }));
    if (!res) throw new HttpError(404, await noSkillNamed(memory, name));
    return c.json(editJson(res));
  });

  // The skill handed back to the learner (skills edit --revert). No body.
  app.post('/skills/:name/revert', async (c) => {
    const name = c.req.param('name');
    const res = await memory.skills.revertEdit(name, { actor: 'http' });
    if (!res) throw new HttpError(404, await noSkillNamed(memory, name));
    return c.json(editJson(res));
  });

  return app;
}

/** An edit's answer: as `skills edit --json` prints it. */
function editJson(res: EditResult) {
  return {
    skill: skillJson(res.skill),
    changed: res.changed,
    ...(res.why ? { why: res.why } : {}),
    warnings: res.warnings,
    redacted: res.redacted,
  };
}
