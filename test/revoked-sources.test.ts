// A coding agent's hook stores each task with the judge's outcome; a pass learns a skill from four "successful"
// release tasks. Then the user rejects three of them ("No, that's wrong": the task is reported failed). The next
// pass takes them out of the skill's sources and retires it, and later successful runs bring it back on probation.
// Real SQLite files and the tests' own PostgreSQL server, through the library and the built CLI.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Memory } from '../src/app/memory.js';
import { openMemory } from '../src/app/open-memory.js';
import { runBuiltCli } from './support/built-cli.js';
import { startPgServer, type PgServer } from './support/pg-server.js';

const RELEASE = [
  'bump the patch version and tag a release',
  'cut a patch release with a new tag',
  'release a new patch version and tag it',
  'make a patch release and push the tag',
];
const LATER = ['tag a new patch release', 'publish a patch release with its tag', 'do a patch release and push tags'];

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function release(memory: Memory, goal: string): Promise<string> {
  const run = await memory.startSession({ goal });
  await run.call({ tool: 'Bash', args: { command: 'npm version patch' }, result: 'v1.2.4', ok: true });
  await run.call({ tool: 'Bash', args: { command: 'git push --follow-tags' }, result: 'pushed', ok: true });
  await run.end('success', null, { source: 'judged' });
  return run.id;
}

async function skill(memory: Memory) {
  const [s] = await memory.skills.list();
  return s!;
}

/** The whole story on one memory; `cli` runs the built CLI against it. */
async function story(open: () => Promise<Memory>, cli: (...args: string[]) => { stdout: string }) {
  let memory = await open();
  const ids: string[] = [];
  try {
    for (const g of RELEASE) ids.push(await release(memory, g));
    await memory.synthesize();
    const learned = await skill(memory);
    expect(learned).toMatchObject({ name: 'bump-patch-tag', successCount: 4, attemptCount: 4, status: 'probationary' });
    expect((await memory.recall('ship a patch release with a tag')).map((r) => r.name)).toEqual(['bump-patch-tag']);

    // One rejected: it leaves the sources; three of four still make the skill.
    await memory.reportOutcome(ids[0]!, 'failure');
    const first = await memory.synthesize();
    expect(first.revised).toEqual([
      { id: learned.id, name: 'bump-patch-tag', version: '1.0.0', revoked: 1, status: 'probationary' },
    ]);
    let now = await skill(memory);
    expect(now).toMatchObject({ successCount: 3, attemptCount: 4, support: 3, status: 'probationary' });
    expect([...now.sourceSessions].sort()).toEqual(ids.slice(1).sort());
    expect(now.skillMd).toContain('Learned from 3 successful sessions');
    expect(now.skillMd).not.toContain(ids[0]!.slice(-12));

    // Two more rejected: one successful session is left, fewer than a skill needs. Retired, and said why.
    await memory.reportOutcome(ids[1]!, 'failure');
    await memory.reportOutcome(ids[2]!, 'failure');
    const second = await memory.synthesize();
    expect(second.revised?.[0]).toMatchObject({ revoked: 2, status: 'retired' });
    expect(second.revised?.[0]?.retired).toMatch(/^2 of the 3 session\(s\) it was learned from were reported failed/);
    now = await skill(memory);
    expect(now).toMatchObject({ successCount: 1, attemptCount: 4, status: 'retired' });
    expect(await memory.recall('ship a patch release with a tag')).toEqual([]);
    const ex = await memory.skills.explain('bump-patch-tag');
    expect(ex?.parents.revoked).toBe(3);
    expect(ex?.parents.sessions.map((s) => s.id)).toEqual([ids[3]]);
    expect(ex?.standing.reason).toMatch(
      /^retired on \d{4}-\d\d-\d\d: 2 of the 3 session\(s\) it was learned from were reported failed after it was learned: 1 successful session\(s\) remain, 2 needed; .*skills promote bump-patch-tag brings it back/,
    );
    // Each pass revised it first; the first one's group, three successes strong, then still reinforced it.
    expect(ex?.track.map((r) => [r.signal, r.status])).toEqual([
      ['created', 'probationary'],
      ['revised', 'probationary'],
      ['reinforced', 'probationary'],
      ['revised', 'retired'],
    ]);
    const events = await memory.events.list({ limit: 100 });
    expect(events.map((e) => e.type).filter((t) => t !== 'skill.created')).toEqual([
      'skill.revised',
      'skill.reinforced',
      'skill.revised',
      'skill.status_changed',
      'skill.retired',
    ]);
    // The CLI says it, in words and in the explain JSON.
    await memory.close();
    const text = cli('skills', 'explain', 'bump-patch-tag');
    expect(text.stdout).toContain('(3 session(s) it was learned from were reported failed afterwards');
    // Which ones, as the JSON and the dashboard name them.
    const listed = (JSON.parse(cli('skills', 'explain', 'bump-patch-tag', '--json').stdout) as Explained).parents
      .revokedSessions;
    expect([...listed].sort()).toEqual(ids.slice(0, 3).sort());
    expect(text.stdout).toContain(`reported failed afterwards: ${listed.join(', ')}; no longer its parents)`);
    expect(text.stdout).toContain('Not recalled: retired on');

    // A pass with nothing new changes nothing more.
    memory = await open();
    expect((await memory.synthesize()).revised).toBeUndefined();

    // Later, three good runs of the same task: its group is learned from again, and the skill is back on probation.
    for (const g of LATER) await release(memory, g);
    await memory.synthesize();
    now = await skill(memory);
    expect(now).toMatchObject({ status: 'probationary', successCount: 4, attemptCount: 7 });
    expect((await memory.recall('ship a patch release with a tag')).map((r) => r.name)).toEqual(['bump-patch-tag']);

    // One of them forgotten: the text names it by the reference the JSON gives, never by its id.
    await memory.sessions.forget(ids[0]!);
    await memory.close();
    const named = (JSON.parse(cli('skills', 'explain', 'bump-patch-tag', '--json').stdout) as Explained).parents
      .revokedSessions;
    expect(named).toHaveLength(3);
    expect(named).not.toContain(ids[0]);
    const after = cli('skills', 'explain', 'bump-patch-tag').stdout;
    expect(after).toContain(`reported failed afterwards: ${named.join(', ')}; no longer its parents)`);
    expect(after).not.toContain(ids[0]!);
  } finally {
    await memory.close().catch(() => {});
  }
}

type Explained = { parents: { revokedSessions: string[] } };

/**
 * In one pass: three of its four sources reported failed, and three new good runs of the same task. The revision
 * retires the skill (one source left), and its group, learned from again with the new runs, brings it back on
 * probation in the same pass, as a later pass would. Without new runs the same pass leaves it retired.
 */
async function samePass(open: () => Promise<Memory>) {
  const memory = await open();
  try {
    const ids: string[] = [];
    for (const g of RELEASE) ids.push(await release(memory, g));
    await memory.synthesize();
    const learned = await skill(memory);
    for (const id of ids.slice(0, 3)) await memory.reportOutcome(id, 'failure');
    for (const g of LATER) await release(memory, g);
    const pass = await memory.synthesize();
    expect(pass.revised).toMatchObject([{ id: learned.id, revoked: 3, status: 'retired' }]);
    expect(pass.reinforced.map((r) => r.id)).toEqual([learned.id]);
    const now = await skill(memory);
    expect(now).toMatchObject({ id: learned.id, status: 'probationary', successCount: 4, attemptCount: 7 });
    expect((await memory.recall('ship a patch release with a tag')).map((r) => r.name)).toEqual(['bump-patch-tag']);
    const ex = await memory.skills.explain('bump-patch-tag');
    expect(ex?.standing.recallable).toBe(true);
    expect(ex?.track.map((r) => [r.signal, r.status])).toEqual([
      ['created', 'probationary'],
      ['revised', 'retired'],
      ['reinforced', 'probationary'],
    ]);
    expect((await memory.events.list({ limit: 100 })).map((e) => e.type).filter((t) => t !== 'skill.created')).toEqual([
      'skill.revised',
      'skill.status_changed',
      'skill.retired',
      'skill.reinforced',
      'skill.status_changed',
    ]);
    // Explain names the sources taken out; the events only count them (events are not rewritten by a forget).
    const revoked = ids.slice(0, 3);
    expect([...(ex?.parents.revokedSessions ?? [])].sort()).toEqual([...revoked].sort());
    expect(JSON.stringify(await memory.events.list({ limit: 100 }))).not.toContain(revoked[0]);
    // One of them forgotten: explain and every audit record name it by its reference only.
    await memory.sessions.forget(revoked[0]!);
    const named = (await memory.skills.explain('bump-patch-tag'))?.parents.revokedSessions ?? [];
    expect(named).toHaveLength(3);
    expect(named.filter((id) => revoked.includes(id)).sort()).toEqual(revoked.slice(1).sort());
    expect(named.find((id) => !revoked.includes(id))).toMatch(/^ses-/);
    expect(JSON.stringify(await memory.parts.store!.audit(memory.namespace))).not.toContain(revoked[0]);
  } finally {
    await memory.close();
  }
}

describe('sources reported failed after a skill was learned', () => {
  it('on SQLite: leave its sources, retire it when too few remain, and new runs bring it back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-revoked-'));
    dirs.push(dir);
    const db = join(dir, 'memory.db');
    const config = { synthesis: { cooldownMs: 0 } };
    await story(
      () => openMemory({ db, config, logLevel: 'silent' }),
      (...args) => runBuiltCli(['--db', db, ...args], { cwd: dir }),
    );
  });

  it('on SQLite: retired by a pass whose new runs of its group bring it back in that same pass', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-revoked-'));
    dirs.push(dir);
    const db = join(dir, 'memory.db');
    await samePass(() => openMemory({ db, config: { synthesis: { cooldownMs: 0 } }, logLevel: 'silent' }));
  });

  it('a dry run says what it would revise and writes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-revoked-'));
    dirs.push(dir);
    const memory = await openMemory({
      db: join(dir, 'm.db'),
      config: { synthesis: { cooldownMs: 0 } },
      logLevel: 'silent',
    });
    try {
      const ids: string[] = [];
      for (const g of RELEASE) ids.push(await release(memory, g));
      await memory.synthesize();
      for (const id of ids.slice(0, 3)) await memory.reportOutcome(id, 'failure');
      const dry = await memory.synthesize({ dryRun: true });
      expect(dry.revised?.[0]).toMatchObject({ name: 'bump-patch-tag', revoked: 3, status: 'retired' });
      expect(await skill(memory)).toMatchObject({ successCount: 4, status: 'probationary' });
      expect((await skill(memory)).sourceSessions).toHaveLength(4);
    } finally {
      await memory.close();
    }
  });
});

describe('sources reported failed, on PostgreSQL', () => {
  let server: PgServer;
  beforeAll(async () => {
    server = await startPgServer();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('the same story as on SQLite', async () => {
    const url = await server.createDatabase('revoked');
    const config = { synthesis: { cooldownMs: 0 } };
    await story(
      () => openMemory({ db: url, config, logLevel: 'silent' }),
      (...args) => runBuiltCli(['--db', url, ...args], { cwd: tmpdir() }),
    );
  });

  it('retired and brought back in one pass, as on SQLite', async () => {
    const url = await server.createDatabase('revoked_same_pass');
    await samePass(() => openMemory({ db: url, config: { synthesis: { cooldownMs: 0 } }, logLevel: 'silent' }));
  });
});
