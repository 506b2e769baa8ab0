// The Python client (clients/python, standard library only) against the real REST server: a Python agent
// records sessions, the server learns from them, recalls the skill and takes feedback.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import type { Memory } from '../src/app/memory.js';
import { serveApi, type RunningServer } from '../src/surfaces/http/server.js';
import { ROOT, SAMPLE } from './support/surfaces.js';
import { OTHER_CODING, scriptedSession, UPGRADES } from './support/coding-tasks.js';
import { forgetSessions } from './support/forget-fixture.js';

const PYTHON = process.env.PYTHON ?? 'python3';

/** Runs python without blocking this process's event loop (the server under test lives in it). */
function runPython(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.once('error', reject);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

let tmp: string;
let memory: Memory;
let server: RunningServer;

beforeAll(async () => {
  // Python is part of the test bed: no python3 is a failure, never a skip.
  const version = spawnSync(PYTHON, ['--version'], { encoding: 'utf8' });
  if (version.status !== 0) throw new Error(`${PYTHON} is needed for the Python client test (set PYTHON to its path)`);
  tmp = mkdtempSync(join(tmpdir(), 'skillsmith-py-'));
  memory = await openMemory({
    db: join(tmp, 'm.db'),
    logLevel: 'silent',
    config: { synthesis: { auto: { afterSessions: 4 } } },
  });
  server = await serveApi(memory, { port: 0, webRoot: null });
});

afterAll(async () => {
  await server?.close();
  await memory?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('Python client against the real server', () => {
  it('records sessions, the server learns a skill from them, recalls it and applies feedback', async () => {
    const run = await runPython([join(ROOT, 'test', 'fixtures', 'python-client-run.py'), server.url], {
      PYTHONPATH: join(ROOT, 'clients', 'python'),
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout);

    // Stored, with each call once (the retried position was a no-op) and the reported outcome.
    expect(out.sessions).toHaveLength(4);
    expect(out.retry).toMatchObject({ position: 1, recorded: false });
    const first = (await memory.parts.store!.getSession(memory.namespace, out.sessions[0]))!;
    expect(first.goal).toBe('Cancel my pending order #W1001 because I no longer need it');
    expect(first.calls.map((c) => c.tool)).toEqual([
      'find_user_id_by_email',
      'get_order_details',
      'cancel_pending_order',
    ]);
    expect(first.calls[1].result).toContain('python-result-0');
    expect(first.outcome).toBe('success');
    expect(first.agentId).toBe('py-agent');
    expect(out.end_again).toBe('success');
    expect(out.flip).toBe(409);
    // The server's code, to branch on: this session cannot take it (not a pass holding the memory, PASS_LOCKED).
    expect(out.flip_code).toBe('SESSION_STATE');
    expect(out.missing_status).toBe(404);
    expect(out.missing_code).toBe('NOT_FOUND');

    // Learned from the four sessions, recalled for a new goal, and the feedback moved its eta.
    expect(out.recall.skills.length).toBeGreaterThan(0);
    const skill = (await memory.skills.get(out.recall.skills[0].name))!;
    expect(skill.sourceSessions.sort()).toEqual([...out.sessions].sort());
    expect(skill.toolsRequired).toEqual(expect.arrayContaining(['get_order_details', 'cancel_pending_order']));
    expect(out.recall.context).toContain('cancel_pending_order');
    expect(out.explain_parents).toBe(4);
    expect(out.feedback.after).toBeGreaterThan(out.feedback.before);
    expect(out.feedback.repeated).toBe(false);
    // Sent again under its feedback_id: answered as a repeat, not counted; another signal under it is a 409.
    expect(out.feedback_again).toEqual({ repeated: true, eta: out.feedback.after });
    expect(out.feedback_other).toBe(409);
    expect(skill.eta).toBeCloseTo(out.feedback.after, 10);
    const history = await memory.parts.store!.feedbackHistory(skill.id);
    expect(history.filter((f) => f.signal === 'user.positive')).toHaveLength(1);
    expect(history.map((f) => f.signal)).not.toContain('user.negative');
  }, 180_000);

  it('ingests, reads stats and events (a page and the stream), renames, promotes and exports, each refusal a SkillsmithError', async () => {
    // A memory of its own: two imported skills, nothing learned yet.
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-py-rest-'));
    const own = await openMemory({ db: join(dir, 'm.db'), logLevel: 'silent', auditFile: null });
    const ownServer = await serveApi(own, { port: 0, webRoot: null });
    try {
      await own.skills.import(join(ROOT, 'test', 'fixtures', 'skills-import'));
      const run = await runPython(
        [join(ROOT, 'test', 'fixtures', 'python-client-rest.py'), ownServer.url, SAMPLE, dir],
        { PYTHONPATH: join(ROOT, 'clients', 'python') },
      );
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const out = JSON.parse(run.stdout);
      const records = readFileSync(SAMPLE, 'utf8')
        .split('\n')
        .filter((l) => l.trim()).length;

      // stats: what the memory holds, before and after.
      expect(out.stats_before.skills).toMatchObject({ live: 2, byCorpus: { internal: 0, external: 2 } });
      expect(out.stats_before.sessions.total).toBe(0);

      // ingest: a dry run of records stores nothing; a file is stored whole, named by its file name.
      expect(out.dry_run).toMatchObject({ dryRun: true, file: 'request' });
      expect(out.dry_run.sessions).toHaveLength(3);
      expect(out.sessions_after_dry_run).toBe(0);
      expect(out.ingest_file).toMatchObject({
        file: 'tau-sample.jsonl',
        format: 'jsonl',
        inserted: records,
        problems: [],
      });
      expect(out.ingest_again).toMatchObject({ file: 'two-again', inserted: 0, skipped: 2 });
      // A rejected record: 422 naming it, and the body says the valid one was stored.
      const [status, message, body] = out.ingest_rejected;
      expect(status).toBe(422);
      expect(message).toMatch(/^1 record rejected: mixed\.jsonl line 2: no known format matches this record/);
      expect(body).toMatchObject({ file: 'mixed.jsonl', inserted: 0, skipped: 1 });
      expect(body.problems).toHaveLength(1);
      expect(out.ingest_bad_format[0]).toBe(400);
      expect(out.ingest_bad_format[1]).toMatch(/^invalid query: format: /);
      expect(out.ingest_llm_judge[0]).toBe(400);
      expect(out.ingest_llm_judge[1]).toMatch(/^judge=llm: /);
      expect(out.ingest_missing_file).toEqual([0, expect.stringMatching(/^cannot read .*no-such\.jsonl: /), null]);
      expect(await own.sessions.count()).toBe(records);
      expect(out.synthesize.length).toBeGreaterThan(0);
      expect(out.stats_after.sessions.total).toBe(records);
      expect(out.stats_after.skills.live).toBe(2 + out.synthesize.length);

      // events: the page after the first id, in order; the stream from the same id sends the same events and ends
      // once nothing more comes for its timeout; limit stops it sooner.
      const stored = await own.events.list({ afterId: out.stats_before.lastEventId, limit: 500 });
      // (Read after the script: the rename and the promotion it made later come after the page it read.)
      expect(stored.map((e) => [e.id, e.type])).toEqual([
        ...out.events,
        [expect.any(Number), 'skill.renamed'],
        [expect.any(Number), 'skill.promoted'],
        [expect.any(Number), 'skill.edited'],
        [expect.any(Number), 'skill.reverted'],
      ]);
      expect(out.events.filter(([, type]: [number, string]) => type === 'skill.created')).toHaveLength(
        out.synthesize.length,
      );
      expect(out.streamed).toEqual(out.events);
      expect(out.stream_seconds).toBeGreaterThanOrEqual(1.5);
      expect(out.stream_seconds).toBeLessThan(10);
      expect(out.stream_limit).toEqual(out.events.slice(0, 2).map(([id]: [number]) => id));
      // A stream waiting for the next event gets the rename made meanwhile.
      expect(out.live).toEqual([['skill.renamed', expect.objectContaining({ to: 'py-renamed-skill' })]]);

      // rename: changed once, and a retry says it had landed; refusals with the server's status and message.
      expect(out.renamed).toEqual({ name: 'py-renamed-skill', changed: true, version: '1.1.0' });
      expect(out.renamed_again).toEqual({ name: 'py-renamed-skill', changed: false, version: '1.1.0' });
      // (Read after the script: its edit and hand-back below made 1.2.0 and 1.3.0.)
      expect((await own.skills.get('py-renamed-skill'))?.version).toBe('1.3.0');
      expect(out.rename_unknown).toEqual([
        404,
        'no skill named "no-such-skill"',
        { error: 'no skill named "no-such-skill"', code: 'NOT_FOUND' },
      ]);
      expect(out.rename_invalid[0]).toBe(400);
      expect(out.rename_invalid[1]).toMatch(/must be lowercase ASCII letters/);

      // promote: the imported skill is internal now; again, or an unknown name, refused.
      expect(out.promoted).toBe('internal');
      expect((await own.skills.get('triage-support-ticket'))?.corpus).toBe('internal');
      expect(out.promote_again[0]).toBe(409);
      expect(out.promote_unknown[0]).toBe(404);
      expect(out.promote_unknown[1]).toMatch(/no imported skill named never-imported/);

      // edit: a new version with the person's line, served as the SKILL.md; a text that renames it refused; revert
      // hands it back with the learned text.
      expect(out.edited).toEqual({ changed: true, version: '1.2.0' });
      expect(out.edited_text).toBe(true);
      expect(out.edit_renames[0]).toBe(400);
      expect(out.edit_renames[1]).toMatch(/skills rename/);
      expect(out.reverted).toEqual({ changed: true, text_back: true });

      // export: bytes of a zip of every live learned skill (the promoted one too), one by name written to a path,
      // the imported ones with external; an unknown name refused.
      expect(out.export_type).toEqual([true, true, []]);
      const learned = (await own.skills.list()).filter((s) => s.corpus === 'internal').map((s) => s.name);
      expect(out.export_names).toEqual(learned.map((n) => `${n}/SKILL.md`).sort());
      expect(out.export_names).toContain('py-renamed-skill/SKILL.md');
      expect(out.export_names).toContain('triage-support-ticket/SKILL.md');
      expect(out.export_written).toBe(true);
      expect(out.export_one).toEqual(['py-renamed-skill/SKILL.md']);
      expect(out.export_one_text).toMatch(/^---\nname: py-renamed-skill\n/);
      expect(out.export_external).toEqual([...out.export_names, 'null-check-auth-validator/SKILL.md'].sort());
      expect(out.export_unknown.slice(0, 2)).toEqual([404, 'no skill named "nope"']);
    } finally {
      await ownServer.close();
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('forgets sessions older than an age or a date (retention), a dry run first; what the server cannot read is a SkillsmithError', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-py-retention-'));
    const own = await openMemory({ db: join(dir, 'm.db'), logLevel: 'silent', auditFile: null });
    const ownServer = await serveApi(own, { port: 0, webRoot: null });
    try {
      const ago = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
      const [a, b, c, d] = forgetSessions('ret');
      await own.ingest([
        { ...a!, startedAt: ago(201), endedAt: ago(200) },
        { ...b!, startedAt: ago(121), endedAt: ago(120) },
        { ...c!, startedAt: ago(3), endedAt: ago(2) },
        { ...d!, startedAt: ago(200), endedAt: null, calls: d!.calls.map((x) => ({ ...x, at: ago(1 / 24) })) },
      ]);
      await own.synthesize();
      const taught = (await own.skills.list()).filter((s) => s.sourceSessions.includes('ret-0')).map((s) => s.name);
      expect(taught.length).toBeGreaterThan(0);
      const yesterday = ago(1);
      const run = await runPython(
        [join(ROOT, 'test', 'fixtures', 'python-client-retention.py'), ownServer.url, yesterday],
        {
          PYTHONPATH: join(ROOT, 'clients', 'python'),
        },
      );
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const out = JSON.parse(run.stdout);
      expect(out.neither).toEqual([400, expect.stringMatching(/^invalid body: give olderThan .* or before/)]);
      expect(out.both).toEqual([400, 'invalid body: give olderThan or before, not both']);
      expect(out.bad_age).toEqual([400, expect.stringMatching(/^invalid body: olderThan: "90" is no age/)]);
      expect(out.dry).toMatchObject({ dryRun: true, undated: [] });
      expect(out.dry.forgotten.map((f: { id: string }) => f.id)).toEqual(['ret-0', 'ret-1']);
      expect(out.after_dry).toEqual(['ret-0', 'ret-1', 'ret-2', 'ret-3']);
      expect(out.done.dryRun).toBe(false);
      expect(out.done.forgotten).toEqual([
        { id: 'ret-0', at: out.dry.forgotten[0].at, ref: expect.stringMatching(/^ses-/), calls: 3, skills: taught },
        expect.objectContaining({ id: 'ret-1', at: out.dry.forgotten[1].at, calls: 3 }),
      ]);
      expect(out.after).toEqual(['ret-2', 'ret-3']);
      // Still open, its last call an hour ago: kept by a cutoff a day ago.
      expect(out.by_date.forgotten.map((f: { id: string }) => f.id)).toEqual(['ret-2']);
      expect(out.by_date.before).toBe(yesterday);
      expect(out.left).toEqual(['ret-3']);
    } finally {
      await ownServer.close();
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('lists and reads sessions, learns look-alike sessions with compile, reads, diffs, downloads, disables and enables a skill, checks health, each refusal a SkillsmithError', async () => {
    // A memory of its own: coding sessions after one pass, where three upgrades wait alone, worded too far apart.
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-py-catalogue-'));
    const own = await openMemory({ db: join(dir, 'm.db'), logLevel: 'silent', auditFile: null });
    const ownServer = await serveApi(own, { port: 0, webRoot: null });
    const tokenServer = await serveApi(own, { port: 0, webRoot: null, token: 'py-token-0123456789abcdef' });
    try {
      await own.ingest([...UPGRADES, ...OTHER_CODING].map(scriptedSession));
      await own.synthesize();
      const run = await runPython(
        [join(ROOT, 'test', 'fixtures', 'python-client-catalogue.py'), ownServer.url, tokenServer.url, dir],
        { PYTHONPATH: join(ROOT, 'clients', 'python') },
      );
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const out = JSON.parse(run.stdout);
      const upgrades = UPGRADES.map((u) => u.id).sort();

      // health: the server and its memory answer, without the token a token server wants for every other route.
      expect(out.health).toEqual({ ok: true, name: 'skillsmith', version: expect.any(String), store: 'ok' });
      expect(out.health_no_token).toMatchObject({ ok: true, store: 'ok' });
      expect(out.token_refused).toEqual([401, expect.stringMatching(/bearer token/)]);
      expect(out.token_ok).toBe(1);
      expect(out.openapi_paths).toContain('/api/look-alike');

      // sessions: newest first, paged, with the total; the pages put together are the whole list (the store's, read
      // after the script, lacks the oldest: the script forgot it).
      const newest: string[] = out.sessions_all;
      expect([...newest].sort()).toEqual([...UPGRADES, ...OTHER_CODING].map((x) => x.id).sort());
      expect((await own.sessions.list({ limit: 200, offset: 0 })).map((x) => x.id)).toEqual(newest.slice(0, -1));
      expect(out.sessions_first).toEqual({
        page: true,
        total: newest.length,
        limit: 2,
        offset: 0,
        ids: newest.slice(0, 2),
      });
      expect(out.sessions_second).toEqual({ offset: 2, ids: newest.slice(2, 4) });
      expect(out.sessions_default_limit).toBe(50);
      const stored = (await own.sessions.get(own.sessions.key(newest[0])))!;
      expect(out.session).toEqual({ id: newest[0], goal: stored.goal, tools: stored.calls.map((c) => c.tool) });
      expect(out.session_unknown).toEqual([404, 'no session with this id']);
      expect(out.sessions_bad_limit).toEqual([400, expect.stringMatching(/^invalid query: limit: /)]);
      expect(out.sessions_too_many).toEqual([400, expect.stringMatching(/^invalid query: limit: .*200/)]);
      expect(out.sessions_bad_offset).toEqual([400, expect.stringMatching(/^invalid query: offset: /)]);

      // look-alike: the three upgrades wait as one group; compile previews, then learns them, and the group is gone.
      expect(out.look_alike).toEqual([
        { sessions: upgrades, goals: 3, steps: expect.arrayContaining([{ tool: 'Bash', command: 'npm install' }]) },
      ]);
      expect(out.compile_preview).toEqual({ dryRun: true, action: 'add' });
      expect(out.compiled).toMatchObject({ dryRun: false, action: 'add' });
      expect(out.look_alike_after).toBe(0);
      expect(out.compile_nothing).toEqual([400, expect.stringMatching(/give sessions, a cue or facts/)]);
      expect(out.compile_unknown_fact).toEqual([400]);

      // The skill list, one skill, and its old name after a rename (404 saying what it became).
      // (The store, read after the script, lacks the compiled skill: the script forgot it.)
      const names = (await own.skills.list()).map((x) => x.name);
      expect(out.skills_all).toEqual([...names, out.compiled.name].sort());
      expect(out.skills_page).toEqual({ page: true, total: names.length + 1, limit: 1, count: 1 });
      expect(out.skills_bad_sort).toEqual([400]);
      expect(out.skill).toEqual({ name: out.compiled.name, version: '1.0.0', enabled: true, corpus: 'internal' });
      expect(out.skill_has_md).toBe(true);
      expect(out.skill_old_name).toEqual([
        404,
        `no skill named "${out.compiled.name}": it was renamed py-upgrade-dependency`,
        expect.objectContaining({ nowKnownAs: { name: 'py-upgrade-dependency', how: 'renamed' } }),
      ]);

      // diff: one version has nothing to compare; after the rename, its lines; pinned versions; the refusals.
      expect(out.diff_single).toEqual({ from: null, to: '1.0.0', hunks: [] });
      expect(out.diff).toMatchObject({ name: 'py-upgrade-dependency', from: '1.0.0', to: '1.1.0' });
      expect(out.diff.lines).toEqual(
        expect.arrayContaining([
          { op: '-', text: `name: ${out.compiled.name}` },
          { op: '+', text: 'name: py-upgrade-dependency' },
          { op: '+', text: '  version: 1.1.0' },
        ]),
      );
      expect(out.diff_pinned).toEqual(['1.0.0', '1.0.0', []]);
      expect(out.diff_bad_version).toEqual([400, 'invalid query: from: a version such as 1.2.0']);
      expect(out.diff_no_such_version).toEqual([
        404,
        expect.stringMatching(/has no version 9\.9\.9 \(its versions: 1\.0\.0, 1\.1\.0\)/),
      ]);
      expect(out.diff_unknown).toEqual([404, 'no skill named "no-such-skill"']);

      // SKILL.md: the exported file, as text and written to a path; refusals.
      expect(out.skill_md).toMatch(/^---\nname: py-upgrade-dependency\n/);
      expect(out.skill_md).toContain('## Steps');
      expect(out.skill_md_written).toBe(true);
      expect(out.skill_md_unknown).toEqual([404, 'no skill named "no-such-skill"']);
      expect(out.skill_md_unwritable).toEqual([0, expect.stringMatching(/^cannot write .*x\.md: /), null]);

      // explain with a cap on the parent sessions shown.
      expect(out.explain).toEqual({ shown: 1, count: 3 });
      expect(out.explain_bad).toEqual([400]);
      expect(out.explain_unknown).toEqual([404]);

      // disable: recall no longer serves the skill; enable: it does again. Unknown names refused.
      expect(out.recall_before).toContain('py-upgrade-dependency');
      expect(out.disabled).toBe(false);
      expect(out.recall_disabled).not.toContain('py-upgrade-dependency');
      expect(out.listed_disabled).toEqual(['py-upgrade-dependency']);
      expect(out.disabled_again).toBe(false);
      expect(out.enabled).toBe(true);
      expect(out.recall_enabled).toContain('py-upgrade-dependency');
      expect(out.enable_unknown).toEqual([404, 'no skill named "no-such-skill"']);
      expect(out.disable_unknown).toEqual([404, 'no skill named "no-such-skill"']);

      // forget a skill and a session; again, refused.
      expect(out.forget_skill).toBe('py-upgrade-dependency');
      expect(await own.skills.get('py-upgrade-dependency')).toBeNull();
      expect(out.forget_skill_again).toEqual([404]);
      expect(out.forget_session).toEqual(['calls', 'ref', 'skills']);
      expect(out.forget_session_again).toEqual([404]);
      expect(out.sessions_after_forget).toBe(newest.length - 1);
      expect(await own.sessions.count()).toBe(newest.length - 1);
    } finally {
      await tokenServer.close();
      await ownServer.close();
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('covers every route of the OpenAPI document: each named in ROUTES, by a Client method that calls it', async () => {
    const doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.length).toBeGreaterThan(20);
    // ROUTES, and for each entry whether its method exists and its source sends that HTTP method to that path.
    const r = await runPython([join(ROOT, 'test', 'fixtures', 'python-client-routes.py')], {
      PYTHONPATH: join(ROOT, 'clients', 'python'),
    });
    expect(r.stderr).toBe('');
    const routes = JSON.parse(r.stdout) as [string, string, string, boolean, boolean][];
    for (const [method, path, name, callsPath, sendsMethod] of routes)
      expect([`${method} ${path}`, name, callsPath, sendsMethod]).toEqual([`${method} ${path}`, name, true, true]);
    const covered = new Set(routes.map(([method, path]) => `${method} ${path}`));
    // A route the document gains is a method the client needs (and a line in its README's table).
    expect(documented.filter((route) => !covered.has(route))).toEqual([]);
    // ROUTES names no route the server lacks (the document itself is served, but not among its paths).
    expect([...covered].filter((route) => !documented.includes(route))).toEqual(['GET /api/openapi.json']);
    // Every route is in the README's table, with its method.
    const readme = readFileSync(join(ROOT, 'clients', 'python', 'README.md'), 'utf8');
    for (const [method, path, name] of routes) expect(readme).toContain(`| \`${method} ${path}\` | \`${name}(`);
  }, 60_000);

  it('every failure of the transport is a SkillsmithError: a closed connection, a timeout, an answer that is not JSON', async () => {
    // A server that misbehaves in each way a proxy, a crashed process or another service on the port can.
    const odd = createServer((req, res) => {
      const path = req.url ?? '';
      if (path.startsWith('/close/')) return req.socket.destroy();
      if (path.startsWith('/hang/')) return;
      if (path.startsWith('/html/'))
        return res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>proxy</html>');
      if (path.startsWith('/object/'))
        return res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"items": "none"}');
      if (path.startsWith('/unhealthy/'))
        return res
          .writeHead(503, { 'Content-Type': 'application/json' })
          .end('{"ok": false, "name": "skillsmith", "version": "0", "store": "unreachable", "error": "db down"}');
      res.writeHead(500, { 'Content-Type': 'application/json' }).end('["not", "an", "object"]');
    });
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    const port = (odd.address() as AddressInfo).port;
    const script = [
      'import json, sys',
      'from skillsmith_client import Client, SkillsmithError',
      'out = {}',
      'for case in ["close", "hang", "html", "list"]:',
      `    c = Client("http://127.0.0.1:${port}/" + case, timeout=1)`,
      '    try:',
      '        c.recall("rotate the keys", tools=["list_keys"])',
      '        out[case] = "no error"',
      '    except SkillsmithError as e:',
      '        out[case] = [e.status, str(e)[:200]]',
      '    except Exception as e:',
      '        out[case] = "escaped: " + type(e).__name__',
      // The other calls, each its own way of reading the answer (bytes, a stream, a body sent as it is).
      'calls = {',
      '    "stats": lambda c: c.stats(),',
      '    "events": lambda c: c.events(after=3),',
      '    "stream": lambda c: list(c.stream_events(after=3, timeout=1)),',
      '    "ingest": lambda c: c.ingest("{}\\n", dry_run=True),',
      '    "rename": lambda c: c.rename_skill("a-skill", "b-skill"),',
      '    "promote": lambda c: c.promote_skill("a-skill"),',
      '    "export": lambda c: c.export_skills(["a-skill"]),',
      '    "health": lambda c: c.health(),',
      '    "openapi": lambda c: c.openapi(),',
      '    "sessions": lambda c: c.sessions(limit=5),',
      '    "session": lambda c: c.get_session("s-1"),',
      '    "skills": lambda c: c.skills(limit=5),',
      '    "diff": lambda c: c.diff("a-skill", from_version="1.0.0"),',
      '    "skill_md": lambda c: c.skill_md("a-skill"),',
      '    "look_alike": lambda c: c.look_alike(),',
      '    "enable": lambda c: c.enable_skill("a-skill"),',
      '    "disable": lambda c: c.disable_skill("a-skill"),',
      '}',
      'more = out["more"] = {}',
      'for case in ["close", "hang", "html", "list"]:',
      `    c = Client("http://127.0.0.1:${port}/" + case, timeout=1)`,
      '    for name, call in calls.items():',
      '        try:',
      '            call(c)',
      '            more[case + " " + name] = "no error"',
      '        except SkillsmithError as e:',
      '            more[case + " " + name] = [e.status, str(e)[:200]]',
      '        except Exception as e:',
      '            more[case + " " + name] = "escaped: " + type(e).__name__ + ": " + str(e)',
      // A JSON answer that is no page of items; a health answer saying the database is down.
      'for case, call in [("object", lambda c: c.sessions()), ("object", lambda c: c.skills()), ("unhealthy", lambda c: c.health()),',
      '                   ("object", lambda c: c.start_session("g")), ("object", lambda c: c.forget_session("s")), ("object", lambda c: c.forget_skill("k"))]:',
      `    c = Client("http://127.0.0.1:${port}/" + case, timeout=1)`,
      '    try:',
      '        call(c)',
      '        out.setdefault(case, []).append("no error")',
      '    except SkillsmithError as e:',
      '        out.setdefault(case, []).append([e.status, e.message, e.body])',
      'print(json.dumps(out))',
    ].join('\n');
    try {
      const r = await runPython(['-c', script], { PYTHONPATH: join(ROOT, 'clients', 'python') });
      expect(r.status, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as Record<string, [number, string] | string>;
      expect(out.close).toEqual([0, expect.stringMatching(/^no answer from .*RemoteDisconnected/)]);
      expect(out.hang).toEqual([0, expect.stringMatching(/^no answer from .*timed out/)]);
      expect(out.html).toEqual([200, expect.stringMatching(/is not JSON: '<html>proxy<\/html>'/)]);
      expect(out.list).toEqual([500, '500: ["not", "an", "object"]']);
      const more = out.more as unknown as Record<string, [number, string] | string>;
      const calls = ['stats', 'events', 'stream', 'ingest', 'rename', 'promote', 'export', 'health', 'openapi'];
      calls.push('sessions', 'session', 'skills', 'diff', 'skill_md', 'look_alike', 'enable', 'disable');
      const html: Record<string, RegExp> = {
        stream: /is not an event stream \(text\/html\)$/,
        export: /is not a zip archive: b'<html>proxy<\/html>'$/,
        skill_md: /is not a SKILL\.md \(text\/html\): b'<html>proxy<\/html>'$/,
      };
      expect(Object.keys(more)).toHaveLength(4 * calls.length);
      for (const call of calls) {
        expect(more[`close ${call}`], call).toEqual([0, expect.stringMatching(/^no answer from .*RemoteDisconnected/)]);
        expect(more[`hang ${call}`], call).toEqual([0, expect.stringMatching(/^no answer from .*timed out/)]);
        expect(more[`html ${call}`], call).toEqual([200, expect.stringMatching(html[call] ?? /is not JSON: '<html>/)]);
        expect(more[`list ${call}`], call).toEqual([500, '500: ["not", "an", "object"]']);
      }
      const notPage = [
        200,
        expect.stringMatching(/^the answer from .*\/object\/api\/(sessions|skills) is not a page of items: /),
        null,
      ];
      const noField = (path: string, key: string) => [
        200,
        `the answer from http://127.0.0.1:${port}/object${path} has no '${key}': {"items": "none"}`,
        null,
      ];
      expect(out.object).toEqual([
        notPage,
        notPage,
        noField('/api/sessions', 'id'),
        noField('/api/sessions/s', 'forgotten'),
        noField('/api/skills/k', 'forgotten'),
      ]);
      expect(out.unhealthy).toEqual([
        [503, 'db down', { ok: false, name: 'skillsmith', version: '0', store: 'unreachable', error: 'db down' }],
      ]);
    } finally {
      odd.closeAllConnections();
      await new Promise((resolve) => odd.close(resolve));
    }
  }, 60_000);

  it('installs with pip from its folder (no dependencies, no network)', () => {
    const hasPip = spawnSync(PYTHON, ['-m', 'pip', '--version'], { encoding: 'utf8' });
    if (hasPip.status !== 0)
      throw new Error(`${PYTHON} -m pip is needed to test the install (Debian: apt-get install python3-pip)`);
    const target = mkdtempSync(join(tmpdir(), 'skillsmith-pip-'));
    try {
      const pip = spawnSync(
        PYTHON,
        ['-m', 'pip', 'install', '--no-index', '--target', target, join(ROOT, 'clients', 'python')],
        { encoding: 'utf8', timeout: 120_000 },
      );
      expect(pip.status, pip.stderr + pip.stdout).toBe(0);
      const check = spawnSync(PYTHON, ['-c', 'import skillsmith_client, sys; print(skillsmith_client.__version__)'], {
        encoding: 'utf8',
        cwd: tmpdir(),
        env: { ...process.env, PYTHONPATH: target },
      });
      expect(check.stdout.trim()).toBe('0.1.0');
    } finally {
      rmSync(target, { recursive: true, force: true });
    }
  }, 180_000);
});
