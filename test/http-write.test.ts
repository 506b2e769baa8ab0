// The REST write path over real HTTP: start a session, record calls by position, end it, report an outcome
// later, forget a session and a skill; CSRF on every write; described in the OpenAPI document.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import type { Memory } from '../src/app/memory.js';
import { serveApi, type RunningServer } from '../src/surfaces/http/server.js';
import {
  forgetSessions,
  recordRecallFor,
  SECRET_GOAL_WORD,
  SECRET_RESULT,
  tracesInFile,
} from './support/forget-fixture.js';
import { runBuiltCli } from './support/built-cli.js';

let tmp: string;
let db: string;
let memory: Memory;
let server: RunningServer;

async function api(method: string, path: string, body?: unknown, opts: { csrf?: boolean } = {}) {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && opts.csrf !== false) headers['X-Skillsmith-CSRF'] = '1';
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, data: (await res.json()) as any };
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'skillsmith-http-write-'));
  db = join(tmp, 'm.db');
  memory = await openMemory({ db, logLevel: 'silent' });
  server = await serveApi(memory, { port: 0, webRoot: null });
});
afterAll(async () => {
  await server?.close();
  await memory?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('REST write API', () => {
  it('records a session call by call, idempotent by position, and ends it once', async () => {
    const started = await api('POST', '/api/sessions', {
      goal: 'Cancel my pending order #W1',
      id: 'rest-1',
      agentId: 'py',
    });
    expect(started.status).toBe(201);
    expect(started.data).toMatchObject({
      id: 'rest-1',
      goal: 'Cancel my pending order #W1',
      outcome: 'unknown',
      agentId: 'py',
      source: 'http',
      callCount: 0,
      endedAt: null,
    });

    expect(
      await api('POST', '/api/sessions/rest-1/calls', {
        position: 0,
        tool: 'get_order_details',
        args: { order_id: '#W1' },
        result: { status: 'pending' },
      }),
    ).toEqual({
      status: 201,
      data: { sessionId: 'rest-1', position: 0, recorded: true },
    });
    // The same call at the same position again (a retried request) changes nothing.
    expect(
      await api('POST', '/api/sessions/rest-1/calls', {
        position: 0,
        tool: 'get_order_details',
        args: { order_id: '#W1' },
      }),
    ).toEqual({
      status: 200,
      data: { sessionId: 'rest-1', position: 0, recorded: false },
    });
    // Another call at a position already recorded is a client's mistake, said rather than dropped.
    const clash = await api('POST', '/api/sessions/rest-1/calls', { position: 0, tool: 'other_tool' });
    expect(clash.status).toBe(409);
    // The code tells this 409 from a pass that holds the memory (PASS_LOCKED: the same request again later).
    expect(clash.data.code).toBe('SESSION_STATE');
    expect(clash.data.error).toBe(
      'position 0 of session rest-1 already holds a call of another tool than other_tool: each position is recorded once (the next one is 1)',
    );
    // Without a position the call goes last; a position past the next one is refused.
    expect(
      (await api('POST', '/api/sessions/rest-1/calls', { tool: 'cancel_pending_order', error: 'timeout' })).data,
    ).toMatchObject({ position: 1, recorded: true });
    const gap = await api('POST', '/api/sessions/rest-1/calls', { position: 5, tool: 'x' });
    expect(gap.status).toBe(409);
    expect(gap.data.error).toMatch(/next position is 2/);

    const stored = (await api('GET', '/api/sessions/rest-1')).data;
    expect(stored.calls.map((c: { tool: string; ok: boolean }) => [c.tool, c.ok])).toEqual([
      ['get_order_details', true],
      ['cancel_pending_order', false],
    ]);

    const ended = await api('POST', '/api/sessions/rest-1/end', { outcome: 'success', reward: 1 });
    expect(ended.status).toBe(200);
    expect(ended.data).toMatchObject({ id: 'rest-1', outcome: 'success', reward: 1, callCount: 2, credited: [] });
    expect((await api('POST', '/api/sessions/rest-1/end', { outcome: 'success' })).status).toBe(200);
    const flip = await api('POST', '/api/sessions/rest-1/outcome', { outcome: 'failure' });
    expect(flip.status).toBe(409);
    expect(flip.data.error).toMatch(/already ended as success/);
    expect(flip.data.code).toBe('SESSION_STATE');
    expect((await api('POST', '/api/sessions/rest-1/calls', { position: 2, tool: 'late' })).status).toBe(409);
    // A retried call for a position recorded before the end is still a no-op, not an error.
    expect(
      (await api('POST', '/api/sessions/rest-1/calls', { position: 1, tool: 'cancel_pending_order' })).status,
    ).toBe(200);
    expect((await api('POST', '/api/sessions', { goal: 'again', id: 'rest-1' })).status).toBe(409);
  });

  it('keeps every call of requests sent at once: each without a position goes after the last, a clash at one position is said', async () => {
    expect((await api('POST', '/api/sessions', { goal: 'Run the checks in parallel', id: 'rest-par' })).status).toBe(
      201,
    );
    // An agent that runs tools in parallel posts their calls together: each read the same last position.
    const tools = Array.from({ length: 8 }, (_, i) => `check_${i}`);
    const answers = await Promise.all(
      tools.map((tool) => api('POST', '/api/sessions/rest-par/calls', { tool, args: {}, result: 'ok' })),
    );
    expect(answers.map((a) => a.status)).toEqual(tools.map(() => 201));
    expect(answers.every((a) => a.data.recorded === true)).toBe(true);
    expect(new Set(answers.map((a) => a.data.position)).size).toBe(8);
    const stored = (await api('GET', '/api/sessions/rest-par')).data.calls;
    expect(stored.map((c: { tool: string }) => c.tool).sort()).toEqual([...tools].sort());
    expect(stored.map((c: { position: number }) => c.position)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // Two different calls sent for one position at once: one is stored, the other is refused, none is lost unsaid.
    const clash = await Promise.all(
      ['left_tool', 'right_tool'].map((tool) => api('POST', '/api/sessions/rest-par/calls', { position: 8, tool })),
    );
    expect(clash.map((a) => a.status).sort()).toEqual([201, 409]);
    const kept = clash.find((a) => a.status === 201)!;
    expect(kept.data).toMatchObject({ position: 8, recorded: true });
    expect(clash.find((a) => a.status === 409)!.data.error).toMatch(/position 8 of session rest-par already holds/);
    const last = (await api('GET', '/api/sessions/rest-par')).data.calls.at(-1);
    expect(last.position).toBe(8);
  });

  it('reports an outcome later: a session ended unknown takes the real one, and recalled skills get a trial', async () => {
    await api('POST', '/api/sessions', { goal: 'Something', id: 'rest-2' });
    expect((await api('POST', '/api/sessions/rest-2/end', { outcome: 'unknown' })).data.outcome).toBe('unknown');
    expect((await api('POST', '/api/sessions/rest-2/outcome', { outcome: 'failure' })).data).toMatchObject({
      outcome: 'failure',
      credited: [],
    });
    expect((await api('POST', '/api/sessions/rest-2/outcome', { outcome: 'failure' })).status).toBe(200);
  });

  it('a session started and never ended shows no outcome source (nobody gave one), over REST and in sessions list', async () => {
    await api('POST', '/api/sessions', { goal: 'Refund the blender from order #W9', id: 'rest-open' });
    await api('POST', '/api/sessions/rest-open/calls', {
      tool: 'get_order_details',
      args: { order_id: '#W9' },
      result: { status: 'delivered' },
    });
    const open = { outcome: 'unknown', outcomeSource: null, endedAt: null, callCount: 1 };
    expect((await api('GET', '/api/sessions/rest-open')).data).toMatchObject(open);
    const page = (await api('GET', '/api/sessions?limit=200')).data.items as { id: string }[];
    expect(page.find((s) => s.id === 'rest-open')).toMatchObject(open);
    // The built CLI reads the same memory: --json says the same, and the text says the session is open.
    const listed = runBuiltCli(['sessions', 'list', '--json', '--db', db], { cwd: tmp });
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout).items as { id: string }[]).find((s) => s.id === 'rest-open')).toMatchObject(open);
    expect(runBuiltCli(['sessions', 'list', '--db', db], { cwd: tmp }).stdout).toMatch(
      /^ {2}rest-open \[unknown \(open\), 1 call\] Refund the blender/m,
    );
    expect(runBuiltCli(['sessions', 'show', 'rest-open', '--db', db], { cwd: tmp }).stdout).toMatch(
      /^outcome: unknown \(open\), source http, started /m,
    );
    // Ended, even as unknown, the outcome is a report: of whoever ended it.
    expect((await api('POST', '/api/sessions/rest-open/end', { outcome: 'unknown' })).data).toMatchObject({
      outcome: 'unknown',
      outcomeSource: 'reported',
    });
    expect((await api('POST', '/api/sessions/rest-open/outcome', { outcome: 'success' })).data).toMatchObject({
      outcome: 'success',
      outcomeSource: 'reported',
    });
    expect((await api('DELETE', '/api/sessions/rest-open')).status).toBe(200);
  });

  it('answers bad input with a clear 4xx and requires the CSRF header on every write', async () => {
    expect((await api('POST', '/api/sessions', { goal: 'x' }, { csrf: false })).status).toBe(403);
    expect((await api('POST', '/api/sessions/rest-1/calls', { tool: 'x' }, { csrf: false })).status).toBe(403);
    expect((await api('POST', '/api/sessions/rest-1/end', { outcome: 'success' }, { csrf: false })).status).toBe(403);
    expect((await api('DELETE', '/api/sessions/rest-1', undefined, { csrf: false })).status).toBe(403);
    expect((await api('DELETE', '/api/skills/anything', undefined, { csrf: false })).status).toBe(403);
    const noGoal = await api('POST', '/api/sessions', { id: 'x' });
    expect(noGoal.status).toBe(400);
    expect(noGoal.data.error).toMatch(/goal/);
    expect((await api('POST', '/api/sessions', { goal: '   ' })).status).toBe(400);
    // Half an emoji (a string cut by a truncation) in the goal: the session opens, and opens again on a retry.
    for (let attempt = 0; attempt < 2; attempt++) {
      const cut = await api('POST', '/api/sessions', { goal: 'Summarise the thread \ud83d', id: 'rest-cut' });
      expect(cut.status, cut.data.error).toBe(201);
      expect(cut.data.goal).toBe('Summarise the thread \ufffd');
    }
    // An id no URL can hold: the session could never be read back or forgotten over HTTP.
    for (const id of ['.', '..']) {
      const dots = await api('POST', '/api/sessions', { goal: 'Tidy the logs', id });
      expect(dots.status).toBe(400);
      expect(dots.data.error).toBe(`id "${id}" cannot name a session (no URL can address it)`);
    }
    const noTool = await api('POST', '/api/sessions/rest-2/calls', { args: {} });
    expect(noTool.status).toBe(400);
    expect(noTool.data.error).toMatch(/tool/);
    expect((await api('POST', '/api/sessions/rest-2/end', { outcome: 'maybe' })).status).toBe(400);
    expect((await api('POST', '/api/sessions/nope/calls', { tool: 'x' })).status).toBe(404);
    expect((await api('POST', '/api/sessions/nope/end', { outcome: 'success' })).status).toBe(404);
    expect((await api('DELETE', '/api/sessions/nope')).status).toBe(404);
    expect((await api('DELETE', '/api/skills/nope')).status).toBe(404);
    // Nested too deep: refused with the reason, nothing stored in part.
    await api('POST', '/api/sessions', { goal: 'Open one', id: 'rest-3' });
    expect((await api('POST', '/api/sessions', { goal: 'Open one', id: 'rest-3' })).status).toBe(201);
    const otherGoal = await api('POST', '/api/sessions', { goal: 'Open another', id: 'rest-3' });
    expect(otherGoal.status).toBe(409);
    // Another client may be the one reusing the id: the goal it holds is not quoted.
    expect(otherGoal.data.error).toMatch(/^session rest-3 is already recording another goal \(not repeated here/);
    expect(otherGoal.data.error).not.toContain('Open one');
    const deep = await api('POST', '/api/sessions/rest-3/calls', {
      tool: 'x',
      args: JSON.parse(`${'{"a":'.repeat(70)}1${'}'.repeat(70)}`),
    });
    expect(deep.status).toBe(400);
    expect(deep.data.error).toMatch(/^args is nested more than \d+ levels deep/);
    // A tool name no tool-calling API gives (it would reach a procedure's steps as markup): refused, and said why.
    const markup = await api('POST', '/api/sessions/rest-3/calls', { tool: 'get_weather<img src=x>', args: {} });
    expect(markup.status).toBe(400);
    expect(markup.data.error).toMatch(/^"get_weather<img src=x>" is not a tool name: .*has "<", a space, "=", ">"$/);
    expect((await api('GET', '/api/sessions/rest-3')).data.calls).toEqual([]);
  });

  it('says what is wrong with the request, not the name of the library function that refused it', async () => {
    // Limits low enough to reach over HTTP: a goal over capture.maxRecordBytes, a call past maxCallsPerSession.
    const small = await openMemory({
      db: join(tmp, 'small.db'),
      logLevel: 'silent',
      config: { capture: { maxRecordBytes: 1024, maxCallsPerSession: 1 } },
    });
    const smallServer = await serveApi(small, { port: 0, webRoot: null });
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${smallServer.url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
        body: JSON.stringify(body),
      });
      return { status: res.status, error: ((await res.json()) as { error?: string }).error };
    };
    try {
      expect(await post('/api/sessions', { goal: '   ' })).toEqual({
        status: 400,
        error: 'goal must be a non-empty string',
      });
      expect(await post('/api/sessions', { goal: 'x'.repeat(2000) })).toEqual({
        status: 400,
        error: 'goal is 2000 characters, over the 1024 limit',
      });
      expect((await post('/api/sessions', { goal: 'Tidy the logs', id: 'small-1' })).status).toBe(201);
      expect(await post('/api/sessions/small-1/calls', { tool: 'bad tool' })).toEqual({
        status: 400,
        error: expect.stringMatching(/^"bad tool" is not a tool name: /),
      });
      expect((await post('/api/sessions/small-1/calls', { tool: 'list_logs' })).status).toBe(201);
      expect(await post('/api/sessions/small-1/calls', { tool: 'delete_logs' })).toEqual({
        status: 400,
        error: 'session small-1 already has 1 calls, the limit per session (capture.maxCallsPerSession)',
      });
      // The library itself still names the call that refused: its callers call it by that name.
      await expect(small.startSession({ goal: '   ' })).rejects.toThrow(
        'startSession: goal must be a non-empty string',
      );
    } finally {
      await smallServer.close();
      await small.close();
    }
  });

  it('a field a route does not take is a 400 naming it and the one meant, and nothing is stored', async () => {
    // Dropped without a word, a misspelt field did nothing the client asked for: the reward, the session id of a
    // recall (no trial), the agent's id.
    const start = await api('POST', '/api/sessions', { goal: 'Rotate the logs', id: 'rest-typo', agent_id: 'a1' });
    expect(start.status).toBe(400);
    expect(start.data.error).toBe(
      'invalid body: unknown field "agent_id" (did you mean "agentId"?); it takes goal, cue, id, agentId, source',
    );
    expect((await api('GET', '/api/sessions/rest-typo')).status).toBe(404);
    expect((await api('POST', '/api/sessions', { goal: 'Rotate the logs', id: 'rest-typo' })).status).toBe(201);
    const call = await api('POST', '/api/sessions/rest-typo/calls', { tool: 'list_logs', arguments: { dir: '/var' } });
    expect(call.status).toBe(400);
    expect(call.data.error).toMatch(/^invalid body: unknown field "arguments"; it takes position, tool, args, /);
    // A call said to have worked and to have failed is refused rather than stored one way or the other.
    const both = await api('POST', '/api/sessions/rest-typo/calls', { tool: 'list_logs', ok: true, error: 'timeout' });
    expect(both.status).toBe(400);
    expect(both.data.error).toBe(
      'invalid body: ok: true, but "error" is set: a call that failed has ok false (or no ok: an error makes it false)',
    );
    expect((await api('GET', '/api/sessions/rest-typo')).data.calls).toEqual([]);
    expect(
      (await api('POST', '/api/sessions/rest-typo/calls', { tool: 'list_logs', ok: true, error: null })).status,
    ).toBe(201);
    const end = await api('POST', '/api/sessions/rest-typo/end', { outcome: 'success', rewrd: 0.9 });
    expect(end.status).toBe(400);
    expect(end.data.error).toBe(
      'invalid body: unknown field "rewrd" (did you mean "reward"?); it takes outcome, reward',
    );
    expect((await api('GET', '/api/sessions/rest-typo')).data.outcome).toBe('unknown');
    const recall = await api('POST', '/api/recall', {
      goal: 'Rotate the logs',
      top_k: 3,
      session: 'rest-typo',
      metadata: {},
    });
    expect(recall.status).toBe(400);
    expect(recall.data.error).toBe(
      'invalid body: unknown fields "top_k" (did you mean "topK"?), "session" (did you mean "sessionId"?), "metadata"; it takes goal, topK, sessionId, tools',
    );
    const feedback = await api('POST', '/api/skills/anything/feedback', { signal: 'up', session_id: 'rest-typo' });
    expect(feedback.status).toBe(400);
    expect(feedback.data.error).toMatch(/^invalid body: unknown field "session_id" \(did you mean "sessionId"\?\)/);
    const compile = await api('POST', '/api/compile', { session: ['rest-typo'] });
    expect(compile.status).toBe(400);
    expect(compile.data.error).toMatch(/^invalid body: unknown field "session" \(did you mean "sessions"\?\)/);
    // The OpenAPI document says so: no request body takes fields it does not name.
    const doc = (await api('GET', '/api/openapi.json')).data as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: any }> } }>>;
      components: { schemas: Record<string, any> };
    };
    for (const [path, methods] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(methods)) {
        const json = op.requestBody?.content['application/json']?.schema;
        if (!json) continue;
        const schema = json.$ref ? doc.components.schemas[json.$ref.split('/').pop()] : json;
        // A log posted to ingest is the log itself, in whatever shape its application keeps it.
        if (path === '/api/ingest') continue;
        expect(schema.additionalProperties, `${method} ${path}`).toBe(false);
      }
  });

  it('forgets a learned-from session and the skill over HTTP, leaving no byte of them in the database file', async () => {
    for (const s of forgetSessions()) {
      expect((await api('POST', '/api/sessions', { goal: s.goal, id: s.id })).status).toBe(201);
      for (const c of s.calls)
        expect(
          (
            await api('POST', `/api/sessions/${s.id}/calls`, {
              position: c.position,
              tool: c.tool,
              args: c.args,
              result: c.result,
            })
          ).status,
        ).toBe(201);
      expect((await api('POST', `/api/sessions/${s.id}/end`, { outcome: 'success' })).status).toBe(200);
    }
    const report = await memory.synthesize();
    const name = report.created[0].name;
    const parents = (await api('GET', `/api/skills/${name}`)).data.sourceSessions as string[];
    expect(parents).toContain('fg-0');
    // A recall recorded for the session while it ran (written to the store as the recall index writes it: the
    // session has ended, and a recall now would be refused), which forgetting it deletes too.
    await recordRecallFor(memory, 'fg-0', 'Cancel my pending order #W4242', name);

    const gone = await api('DELETE', '/api/sessions/fg-0');
    expect(gone).toEqual({
      status: 200,
      data: { forgotten: { ref: expect.stringMatching(/^ses-/), calls: 3, skills: [name] } },
    });
    expect((await api('GET', '/api/sessions/fg-0')).status).toBe(404);
    const ex = (await api('GET', `/api/skills/${name}/explain`)).data;
    expect(ex.parents.forgotten).toBe(1);
    expect(ex.parents.sessions.map((p: { id: string }) => p.id).sort()).toEqual(
      parents.filter((id) => id !== 'fg-0').sort(),
    );
    expect(tracesInFile(db, [SECRET_GOAL_WORD, SECRET_RESULT])).toEqual([]);

    const skill = (await api('GET', `/api/skills/${name}`)).data;
    expect((await api('DELETE', `/api/skills/${name}`)).data).toEqual({ forgotten: { id: skill.id, name } });
    expect((await api('GET', `/api/skills/${name}`)).status).toBe(404);
    expect((await api('POST', '/api/recall', { goal: 'Cancel my pending order #W4242' })).data.skills).toEqual([]);
    expect(tracesInFile(db, [skill.skillMd])).toEqual([]);
  });

  it('retention: POST /api/sessions/forget answers as sessions forget --older-than --json, a dry run first; bad bodies refused', async () => {
    // A memory of its own: two sessions that ended long ago (the first holds the secret), one two days ago, one
    // still open whose agent called a tool an hour ago, one still open whose last call was a hundred days ago.
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-http-retention-'));
    const file = join(dir, 'm.db');
    const own = await openMemory({ db: file, logLevel: 'silent' });
    const ownServer = await serveApi(own, { port: 0, webRoot: null });
    const call = async (body: unknown, opts: { csrf?: boolean } = {}) => {
      const res = await fetch(`${ownServer.url}/api/sessions/forget`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(opts.csrf === false ? {} : { 'X-Skillsmith-CSRF': '1' }) },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: res.status, data: (await res.json()) as any };
    };
    try {
      const ago = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
      const [a, b, c, d] = forgetSessions('rf');
      const stale = { ...forgetSessions('rs')[1]!, id: 'rf-stale' };
      await own.ingest([
        { ...a!, startedAt: ago(201), endedAt: ago(200) },
        { ...b!, startedAt: ago(121), endedAt: ago(120) },
        { ...c!, startedAt: ago(3), endedAt: ago(2) },
        { ...d!, startedAt: ago(200), endedAt: null, calls: d!.calls.map((x) => ({ ...x, at: ago(1 / 24) })) },
        { ...stale, startedAt: ago(150), endedAt: null, calls: stale.calls.map((x) => ({ ...x, at: ago(100) })) },
      ]);
      await own.synthesize();
      const skills = await own.skills.list();
      const taught = (id: string) => skills.filter((s) => s.sourceSessions.includes(id)).map((s) => s.name);
      const ids = async () => (await own.sessions.list()).map((s) => s.id).sort();
      const all = await ids();

      // Refused, each saying why, and nothing forgotten.
      for (const [body, why] of [
        [{}, /^invalid body: give olderThan \(an age: 36h, 90d, 12w\) or before \(a date/],
        [{ olderThan: '90d', before: '2026-01-01' }, /^invalid body: give olderThan or before, not both$/],
        [{ olderThan: '90' }, /^invalid body: olderThan: "90" is no age: write a number of hours, days or weeks/],
        [{ before: 'next week' }, /^invalid body: before: "next week" is no date/],
        [{ olderThan: 90 }, /^invalid body: olderThan: /],
        [{ olderThan: '90d', dryrun: true }, /unknown field "dryrun" \(did you mean "dryRun"\?\)/],
        ['not json', /must be JSON/],
      ] as const) {
        const r = await call(body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.data.error).toMatch(why);
      }
      expect((await call({ olderThan: '90d' }, { csrf: false })).status).toBe(403);
      expect(await ids()).toEqual(all);

      // A dry run lists them (oldest first, the open one by its last call) and forgets nothing: as the CLI says it.
      const dry = await call({ olderThan: '90d', dryRun: true });
      expect(dry.status).toBe(200);
      expect(dry.data).toMatchObject({ dryRun: true, undated: [] });
      expect(dry.data.forgotten).toEqual([
        { id: 'rf-0', at: expect.any(String), ref: null, calls: null, skills: [] },
        { id: 'rf-1', at: expect.any(String), ref: null, calls: null, skills: [] },
        { id: 'rf-stale', at: expect.any(String), ref: null, calls: null, skills: [] },
      ]);
      expect(Date.parse(dry.data.forgotten[2].at)).toBeGreaterThan(Date.now() - 101 * 86_400_000);
      expect(await ids()).toEqual(all);
      const cli = runBuiltCli(['sessions', 'forget', '--older-than', '90d', '--dry-run', '--json', '--db', file], {
        cwd: dir,
      });
      expect(cli.code, cli.stderr).toBe(0);
      const { before: _cliBefore, ...cliRest } = JSON.parse(cli.stdout);
      const { before: _before, ...httpRest } = dry.data;
      expect(httpRest).toEqual(cliRest);

      // Forgotten, each as DELETE /api/sessions/{id} forgets one; the running session and the recent one kept.
      const done = await call({ olderThan: '90d' });
      expect(done.status).toBe(200);
      expect(done.data.dryRun).toBe(false);
      expect(Date.parse(done.data.before)).toBeLessThan(Date.now() - 89 * 86_400_000);
      expect(done.data.forgotten).toEqual(
        ['rf-0', 'rf-1', 'rf-stale'].map((id) => ({
          id,
          at: expect.any(String),
          ref: expect.stringMatching(/^ses-[0-9a-f]{16}$/),
          calls: 3,
          skills: taught(id),
        })),
      );
      expect(taught('rf-0').length).toBeGreaterThan(0);
      expect(await ids()).toEqual(['rf-2', 'rf-3']);
      expect(tracesInFile(file, [SECRET_GOAL_WORD, SECRET_RESULT])).toEqual([]);
      // A date: the one that ended two days ago goes; the running one, last active an hour ago, stays.
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      const later = await call({ before: new Date(Date.now() - 86_400_000).toISOString() });
      expect(later.data.forgotten.map((f: { id: string }) => f.id)).toEqual(['rf-2']);
      expect((await call({ before: tomorrow, dryRun: true })).data.forgotten.map((f: { id: string }) => f.id)).toEqual([
        'rf-3',
      ]);
    } finally {
      await ownServer.close();
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('describes the write and forget routes in the OpenAPI document', async () => {
    const doc = (await api('GET', '/api/openapi.json')).data;
    expect(Object.keys(doc.paths['/api/sessions'])).toEqual(expect.arrayContaining(['get', 'post']));
    for (const [path, method] of [
      ['/api/sessions', 'post'],
      ['/api/sessions/{id}/calls', 'post'],
      ['/api/sessions/{id}/end', 'post'],
      ['/api/sessions/{id}/outcome', 'post'],
      ['/api/sessions/{id}', 'delete'],
      ['/api/sessions/forget', 'post'],
      ['/api/skills/{name}', 'delete'],
      ['/api/skills/{name}/promote', 'post'],
      ['/api/ingest', 'post'],
    ]) {
      const op = doc.paths[path][method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.parameters.map((p: { name: string }) => p.name)).toContain('X-Skillsmith-CSRF');
    }
    expect(doc.paths['/api/sessions/{id}/calls'].post.requestBody.content['application/json'].schema.required).toEqual([
      'tool',
    ]);
    expect(doc.components.schemas.RecordedCall.required).toEqual(['sessionId', 'position', 'recorded']);
    const retention = doc.paths['/api/sessions/forget'].post;
    expect(Object.keys(retention.requestBody.content['application/json'].schema.properties)).toEqual([
      'olderThan',
      'before',
      'dryRun',
    ]);
    expect(retention.responses[200].content['application/json'].schema.$ref).toBe('#/components/schemas/Retention');
    expect(doc.components.schemas.Retention.required).toEqual(['before', 'dryRun', 'forgotten', 'undated']);
  });
});

/** A raw log body over real HTTP, as an application that keeps its agents' logs sends it. */
async function send(path: string, text: string, opts: { csrf?: boolean; type?: string } = {}) {
  const headers: Record<string, string> = { 'Content-Type': opts.type ?? 'application/json' };
  if (opts.csrf !== false) headers['X-Skillsmith-CSRF'] = '1';
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers, body: text });
  return { status: res.status, data: (await res.json()) as any };
}
const capture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', 'capture', name), 'utf8');

describe('REST ingest of the logs applications keep', () => {
  it('a saved AI SDK chat posted as it is: stored as one session per task, with its calls, and listed', async () => {
    const r = await send('/api/ingest?name=chat.json', capture('ai-sdk-ui-messages.json'));
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({
      file: 'chat.json',
      format: 'ai-sdk',
      detected: true,
      inserted: 3,
      skipped: 0,
      problems: [],
    });
    const stored = await api('GET', '/api/sessions/chat_7f3k2q9d%232');
    expect(stored.status).toBe(200);
    expect(stored.data.calls.map((c: { tool: string }) => c.tool)).toEqual([
      'updateAccountEmail',
      'crm.logInteraction',
    ]);
    // Capture privacy applies as on every other path in: the address the user typed is redacted.
    expect(JSON.stringify(stored.data)).not.toContain('mia.li3818@example.com');
    // Sent again, nothing is stored twice.
    expect((await send('/api/ingest', capture('ai-sdk-ui-messages.json'))).data).toMatchObject({
      inserted: 0,
      skipped: 3,
    });
  });

  it('dryRun=true says what would be stored and stores nothing; JSONL and a given format read too', async () => {
    const before = (await api('GET', '/api/sessions')).data.total;
    const r = await send('/api/ingest?dryRun=true', capture('pydantic-ai-messages.json'));
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ dryRun: true, format: 'pydantic-ai', calls: 4 });
    expect(r.data.sessions.map((s: { tools: string[] }) => s.tools)).toEqual([
      ['run_sql', 'run_sql'],
      ['make_chart', 'send_email'],
    ]);
    expect((await api('GET', '/api/sessions')).data.total).toBe(before);
    const lines = await send('/api/ingest?format=ai-sdk', capture('ai-sdk-v4-messages.jsonl'), {
      type: 'application/x-ndjson',
    });
    expect(lines.status).toBe(200);
    expect(lines.data).toMatchObject({ format: 'ai-sdk', detected: false, inserted: 2 });
    // The preview reads the memory: a log stored already says so, session by session.
    const stored = await send('/api/ingest?format=ai-sdk&dryRun=true', capture('ai-sdk-v4-messages.jsonl'), {
      type: 'application/x-ndjson',
    });
    expect(stored.data.sessions.map((s: { stored: string }) => s.stored)).toEqual(['present', 'present']);
    expect(r.data.sessions.map((s: { stored: string }) => s.stored)).toEqual(['new', 'new']);
  });

  it('a history without an id, posted after each run as it grows, stores each run once', async () => {
    const history = JSON.parse(capture('pydantic-ai-messages.json')) as unknown[];
    const before = (await api('GET', '/api/sessions')).data.total;
    const first = await send('/api/ingest', JSON.stringify(history.slice(0, 6)));
    expect(first.data).toMatchObject({ format: 'pydantic-ai', inserted: 1, skipped: 0 });
    const grown = await send('/api/ingest', JSON.stringify(history));
    expect(grown.data).toMatchObject({ format: 'pydantic-ai', inserted: 1, skipped: 1 });
    expect((await api('GET', '/api/sessions')).data.total).toBe(before + 2);
  });

  it('a LangGraph thread posted after each turn: a first turn with only a question back stores nothing and says why', async () => {
    const thread = JSON.parse(capture('langgraph-thread-state.json'));
    const messages = thread.values.messages as unknown[];
    const post = (upTo: number) =>
      send('/api/ingest', JSON.stringify({ thread_id: 'th-rest-1', messages: messages.slice(0, upTo) }));
    // The system prompt and the request: the agent has not acted yet.
    const first = await post(2);
    expect(first.status).toBe(200);
    expect(first.data).toMatchObject({ format: 'langchain-messages', inserted: 0, problems: [] });
    expect(first.data.notes.map((n: { reason: string }) => n.reason)).toEqual([
      expect.stringMatching(/^1 request\(s\) without a tool call \(answered without one, or not acted on yet\)/),
    ]);
    const done = await post(11);
    expect(done.data).toMatchObject({ inserted: 1, problems: [] });
    expect((await api('GET', '/api/sessions/th-rest-1')).data.calls).toHaveLength(4);
  });

  it('a thread posted while its agent was still working, then whole: the stored session grows, and the answer says so', async () => {
    const thread = JSON.parse(capture('langgraph-thread-state.json'));
    const messages = thread.values.messages as unknown[];
    const post = (upTo: number) =>
      send('/api/ingest', JSON.stringify({ thread_id: 'th-rest-2', messages: messages.slice(0, upTo) }));
    // Two lookups in (the second timed out), no answer yet.
    const working = await post(6);
    expect(working.data).toMatchObject({ inserted: 1, skipped: 0, problems: [] });
    expect(working.data.grown).toBeUndefined();
    expect((await api('GET', '/api/sessions/th-rest-2')).data.calls).toHaveLength(2);
    const done = await post(11);
    expect(done.status).toBe(200);
    expect(done.data).toMatchObject({ inserted: 0, grown: 1, skipped: 0, problems: [] });
    const stored = (await api('GET', '/api/sessions/th-rest-2')).data;
    expect(stored.calls.map((c: { tool: string }) => c.tool)).toEqual([
      'get_order_status',
      'track_shipment',
      'track_shipment',
      'create_reshipment',
    ]);
    // The early copy arriving late changes nothing.
    expect((await post(6)).data).toMatchObject({ inserted: 0, skipped: 1, problems: [] });
    expect((await api('GET', '/api/sessions/th-rest-2')).data.calls).toHaveLength(4);
  });

  it('a log with a bad record is a 422 naming it, and every valid record is stored', async () => {
    const messages = JSON.parse(capture('ai-sdk-model-messages.json')) as { content: unknown }[];
    delete (messages[4].content as Record<string, unknown>[])[1].toolName;
    const r = await send('/api/ingest?name=broken.json', JSON.stringify(messages));
    expect(r.status).toBe(422);
    expect(r.data.inserted).toBe(1);
    expect(r.data.problems).toEqual([
      { file: 'broken.json', line: 1, path: '[4].content[1]', reason: '[4].content[1].toolName: missing' },
    ]);
  });

  it('takes a log larger than the 1 MiB every other request is held to (a transcript is megabytes)', async () => {
    const messages = JSON.parse(capture('ai-sdk-model-messages.json')) as { content: Record<string, unknown>[] }[];
    // A query result of 1.5 MB (the stored result is capped, as on every path in).
    messages[3].content[0].output = { type: 'text', value: 'x'.repeat(1_500_000) };
    const big = JSON.stringify({ id: 'big-chat', messages });
    expect(Buffer.byteLength(big)).toBeGreaterThan(1024 * 1024);
    const r = await send('/api/ingest', big);
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ format: 'ai-sdk', inserted: 1 });
    const stored = await api('GET', '/api/sessions/big-chat');
    expect(stored.data.calls[0].result.length).toBeLessThan(100_000);
    // Any other route still refuses such a body.
    const res = await fetch(`${server.url}/api/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
      body: JSON.stringify({ goal: 'x'.repeat(1_500_000) }),
    });
    expect(res.status).toBe(413);
  });

  it('no CSRF header, an empty body or an unknown format is refused, and nothing is stored', async () => {
    const before = (await api('GET', '/api/sessions')).data.total;
    expect((await send('/api/ingest', capture('autogen-task-result.json'), { csrf: false })).status).toBe(403);
    const empty = await send('/api/ingest', '  ');
    expect(empty.status).toBe(400);
    expect(empty.data.error).toMatch(/the request body is empty/);
    const bad = await send('/api/ingest?format=yaml', capture('autogen-task-result.json'));
    expect(bad.status).toBe(400);
    expect(bad.data.error).toMatch(/^invalid query: format/);
    // A judge this server has no model for is the request's mistake, said as such (it was a 500).
    const judge = await send('/api/ingest?judge=llm', capture('autogen-task-result.json'));
    expect(judge.status).toBe(400);
    expect(judge.data.error).toMatch(/^judge=llm: capture\.judge\.mode is "llm" but no model is configured/);
    expect((await api('GET', '/api/sessions')).data.total).toBe(before);
  });
});
