import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { readTau, TAU_DEV, tempDbPath, toSession } from './support/tau.js';

const root = new URL('..', import.meta.url).pathname;

beforeAll(() => {
  if (!existsSync(`${root}dist/index.js`))
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
});

describe('crash safety', () => {
  it('a process killed in the middle of a pass leaves the database consistent, and the next pass completes', async () => {
    const sessions = readTau(TAU_DEV).map((r) => toSession(r));
    const db = tempDbPath();
    const setup = await openMemory({ db });
    await setup.ingest(sessions);
    await setup.close();

    const child = spawnSync(process.execPath, [`${root}test/fixtures/crash-during-pass.mjs`, db, '3'], {
      encoding: 'utf8',
    });
    expect(child.signal).toBe('SIGKILL');
    expect(child.stdout).not.toContain('pass finished');

    const raw = new Database(db);
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    // Every skill row that exists is whole: provenance, a version row, an audit record and an event.
    const partial = raw
      .prepare(
        `SELECT s.id FROM skills s WHERE
           NOT EXISTS (SELECT 1 FROM provenance p WHERE p.skill_id = s.id) OR
           NOT EXISTS (SELECT 1 FROM skill_versions v WHERE v.skill_id = s.id) OR
           NOT EXISTS (SELECT 1 FROM audit a WHERE a.subject_id = s.id) OR
           NOT EXISTS (SELECT 1 FROM events e WHERE e.skill_id = s.id)`,
      )
      .all();
    expect(partial).toEqual([]);
    const written = (raw.prepare('SELECT COUNT(*) AS n FROM skills').get() as { n: number }).n;
    raw.close();

    const resumed = await openMemory({ db });
    const report = await resumed.synthesize();
    const after = await resumed.skills.list();
    expect(after.length).toBeGreaterThan(written);

    // The interrupted history ends where an uninterrupted one does.
    const clean = await openMemory({ db: tempDbPath() });
    await clean.ingest(sessions);
    await clean.synthesize();
    expect(after.map((s) => s.name).sort()).toEqual((await clean.skills.list()).map((s) => s.name).sort());
    expect(report.created.length + written).toBe(after.length);
  });
});
