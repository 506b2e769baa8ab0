// Forgetting through the library, on a SQLite file and on PostgreSQL: the raw data goes (no byte of it left in
// the database file or in any table), lineage stays honest, an audit record remains, and a forgotten skill is
// never recalled again.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { unpackExemplars } from '../src/domain/exemplars.js';
import { embedTexts } from '../src/pipeline/stages/embed.js';
import { stateKey } from '../src/store/state-key.js';
import type { Memory } from '../src/app/memory.js';
import {
  forgetSessions,
  recordRecallFor,
  SECRET_GOAL_WORD,
  SECRET_RESULT,
  tracesInFile,
} from './support/forget-fixture.js';
import { startPgServer, type PgServer } from './support/pg-server.js';

const GOAL = 'Could you cancel my pending order #W7777?';

/** Ingests the four sessions, learns, records a recall for the secret session (a row names it), then forgets it. */
async function learnThenForget(memory: Memory) {
  const sessions = forgetSessions();
  await memory.ingest(sessions);
  const report = await memory.synthesize();
  expect(report.created).toHaveLength(1);
  const skill = (await memory.skills.get(report.created[0].name))!;
  expect(skill.sourceSessions).toContain('fg-0');
  await recordRecallFor(memory, 'fg-0', GOAL, skill.name);
  await memory.feedback(skill.name, 'up', { sessionId: 'fg-0' });

  // The skill's recall exemplars are the embeddings of its sources' goals: fg-0's is one of them.
  const [goalVector] = await embedTexts(memory.parts.store!, memory.parts.embedder, [sessions[0]!.goal]);
  const exemplars = async () =>
    unpackExemplars(
      (await memory.parts.store!.getSkill('default', skill.id))!.exemplars,
      memory.parts.embedder.dimensions,
    ).map((e) => e.reduce((sum, x, i) => sum + x * goalVector![i]!, 0));
  expect(Math.max(...(await exemplars()))).toBeGreaterThan(0.999);

  const gone = await memory.sessions.forget('fg-0', { actor: 'privacy-request' });
  expect(gone).toEqual({ ref: expect.stringMatching(/^ses-[0-9a-f]{16}$/), calls: 3, skills: [skill.name] });
  expect(await memory.parts.store!.getSession('default', 'fg-0')).toBeNull();
  expect(await memory.sessions.forget('fg-0')).toBeNull();
  // Its goal's embedding left them; the other sources' stay.
  const left = await exemplars();
  expect(left.length).toBeGreaterThan(0);
  expect(Math.max(...left)).toBeLessThan(0.999);

  // The skill stays, recallable, and says one parent was forgotten; the others are still named.
  const ex = (await memory.skills.explain(skill.name))!;
  expect(ex.parents.forgotten).toBe(1);
  expect(ex.parents.sessions.map((s) => s.id).sort()).toEqual(['fg-1', 'fg-2', 'fg-3']);
  expect(ex.parents.missing).toEqual([]);
  expect((await memory.skills.get(skill.name))!.sourceSessions.sort()).toEqual(['fg-1', 'fg-2', 'fg-3']);
  expect((await memory.recall(GOAL)).map((s) => s.name)).toEqual([skill.name]);
  const audit = (await memory.parts.store!.audit('default')).find((a) => a.action === 'session.forget')!;
  expect(audit).toMatchObject({ actor: 'privacy-request', subjectKind: 'session', subjectId: gone!.ref });
  expect(JSON.stringify(audit)).not.toContain(SECRET_GOAL_WORD);

  // A new pass after forgetting does not bring the session back into the lineage.
  await memory.synthesize();
  expect((await memory.skills.explain(skill.name))!.parents.forgotten).toBe(1);

  // Forgetting the skill: gone from every read and from recall, with an audit record.
  expect(await memory.skills.forget(skill.name, { actor: 'user' })).toEqual({ id: skill.id, name: skill.name });
  expect(await memory.skills.get(skill.id)).toBeNull();
  expect(await memory.skills.explain(skill.name)).toBeNull();
  expect(await memory.recall(GOAL)).toEqual([]);
  expect(await memory.parts.store!.skillVersions(skill.id)).toEqual([]);
  expect(await memory.parts.store!.provenance(skill.id)).toEqual([]);
  expect((await memory.parts.store!.audit('default')).find((a) => a.action === 'skill.forget')).toMatchObject({
    subjectId: skill.id,
    detail: { name: skill.name },
  });
  expect(await memory.skills.forget(skill.name)).toBeNull();
  return skill;
}

/**
 * Two of the sessions a skill is learned from asked the very same thing: forgetting one leaves the exemplar of that
 * wording, which the other gave too, and a request worded so still finds the skill by it. No embedding is needed.
 */
async function forgetOneOfTwins(memory: Memory) {
  const sessions = forgetSessions('tw');
  sessions[1]!.goal = sessions[0]!.goal;
  const twinGoal = sessions[0]!.goal;
  await memory.ingest(sessions);
  const report = await memory.synthesize();
  expect(report.created).toHaveLength(1);
  const skill = (await memory.skills.get(report.created[0].name))!;
  expect(skill.sourceSessions).toEqual(expect.arrayContaining(['tw-0', 'tw-1']));
  const store = memory.parts.store!;
  const [twinVector] = await embedTexts(store, memory.parts.embedder, [twinGoal]);
  const nearest = async () =>
    Math.max(
      ...unpackExemplars((await store.getSkill('default', skill.id))!.exemplars, memory.parts.embedder.dimensions).map(
        (e) => e.reduce((sum, x, i) => sum + x * twinVector![i]!, 0),
      ),
    );
  expect(await nearest()).toBeGreaterThan(0.999);
  const before = (await memory.recall(twinGoal)).find((s) => s.name === skill.name)!;
  expect(before.similarity).toBeGreaterThan(0.99);

  expect(await memory.sessions.forget('tw-0', { actor: 'privacy-request' })).toMatchObject({ skills: [skill.name] });
  // tw-1 asked the same: the wording stays among the exemplars, and recall still meets the skill on it.
  expect(await nearest()).toBeGreaterThan(0.999);
  const after = (await memory.recall(twinGoal)).find((s) => s.name === skill.name);
  expect(after?.similarity).toBe(before.similarity);
  // Its exemplars say their sessions: a forget has no vector to compute for them.
  expect(await store.parentsOfUnsourcedExemplarsIn('default', ['tw-1', 'tw-2'])).toEqual(new Set());
  // Now that tw-1 goes too, no session of that wording is left: neither is the exemplar.
  await memory.sessions.forget('tw-1', { actor: 'privacy-request' });
  expect(await nearest()).toBeLessThan(0.999);
}

/**
 * Three sessions of one cluster; forgetting one leaves the cluster's centroids and the namespace's mean goal vector as
 * a memory that only ever held the other two has them (`twoOnly`: such a memory). Forgetting the other two empties
 * the cluster: the skill learned from it keeps it, with no vector of theirs.
 */
async function forgetOneOfThree(memory: Memory, twoOnly: Memory) {
  const sessions = forgetSessions('tr').slice(0, 3);
  await memory.ingest(sessions);
  await twoOnly.ingest(sessions.slice(1));
  expect((await memory.synthesize()).created).toHaveLength(1);
  await twoOnly.synthesize();
  const embedderId = memory.parts.embedder.id;
  const clustersOf = (m: Memory) => m.parts.store!.loadClusters('default', embedderId);
  const meanOf = async (m: Memory) =>
    JSON.parse((await m.parts.store!.getState('default', stateKey.goalMean(embedderId)))!) as {
      count: number;
      sum: number[];
    };
  const [before] = await clustersOf(memory);
  expect((await clustersOf(memory)).map((c) => c.size)).toEqual([3]);
  const [expected] = await clustersOf(twoOnly);
  expect((await clustersOf(twoOnly)).map((c) => c.size)).toEqual([2]);
  const near = (a: Float32Array | number[], b: Float32Array | number[], tolerance: number) =>
    Math.max(...Array.from(a, (x, i) => Math.abs(x - b[i]!))) <= tolerance;
  // The centroids of three differ from those of two: the comparison can fail.
  expect(near(before!.centroid, expected!.centroid, 1e-3)).toBe(false);
  expect(near(before!.goalCentroid, expected!.goalCentroid, 1e-3)).toBe(false);

  await memory.sessions.forget('tr-0');
  const [after] = await clustersOf(memory);
  expect(after!.size).toBe(2);
  expect(near(after!.centroid, expected!.centroid, 1e-5)).toBe(true);
  expect(near(after!.goalCentroid, expected!.goalCentroid, 1e-5)).toBe(true);
  const [mean, expectedMean] = [await meanOf(memory), await meanOf(twoOnly)];
  expect(mean.count).toBe(2);
  expect(near(mean.sum, expectedMean.sum, 1e-4)).toBe(true);

  // The last two go too: the skill keeps its cluster, which keeps nothing of them.
  await memory.sessions.forget('tr-1');
  await memory.sessions.forget('tr-2');
  const [emptied] = await clustersOf(memory);
  expect(emptied!.size).toBe(0);
  expect(emptied!.skillId).not.toBeNull();
  expect(emptied!.centroid.every((x) => x === 0) && emptied!.goalCentroid.every((x) => x === 0)).toBe(true);
  expect((await meanOf(memory)).count).toBe(0);
  expect((await meanOf(memory)).sum.every((x) => x === 0)).toBe(true);
}

describe('forgetting on SQLite', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'skillsmith-forget-'));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('leaves no byte of the forgotten session or skill in the database file, its log or the audit file', async () => {
    const db = join(tmp, 'm.db');
    const memory = await openMemory({ db, logLevel: 'silent' });
    let skillMd = '';
    try {
      // The strings are in the file before: the scan can see them.
      await memory.ingest(forgetSessions('probe'));
      for (const id of ['probe-0', 'probe-1', 'probe-2', 'probe-3']) await memory.sessions.forget(id);
      const skill = await learnThenForget(memory);
      skillMd = skill.skillMd;
      expect(tracesInFile(db, [SECRET_GOAL_WORD, SECRET_RESULT, skillMd, '"fg-0"'])).toEqual([]);
    } finally {
      await memory.close();
    }
    expect(tracesInFile(db, [SECRET_GOAL_WORD, SECRET_RESULT, skillMd])).toEqual([]);
    const auditFile = readFileSync(`${db}.audit.jsonl`, 'utf8');
    expect(auditFile).not.toContain(SECRET_GOAL_WORD);
    expect(auditFile).toContain('session.forget');
    // The trial's record went to the file naming fg-0 before the forget: the file's copy names its reference now,
    // as the table's does, and still holds every record once.
    expect(auditFile).not.toContain('fg-0');
    const records = auditFile
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; action: string; detail: { session?: string } });
    expect(records.find((r) => r.action === 'skill.feedback')?.detail.session).toMatch(/^ses-[0-9a-f]{16}$/);
    expect(records.map((r) => r.id)).toEqual(records.map((_, i) => i + 1));
  });

  it("forgetting one of two sessions that asked the same thing leaves the other's exemplar", async () => {
    const memory = await openMemory({ db: join(tmp, 'twins.db'), logLevel: 'silent' });
    try {
      await forgetOneOfTwins(memory);
    } finally {
      await memory.close();
    }
  });

  it('exemplars stored before they said their sessions are found by their vectors, as then', async () => {
    const memory = await openMemory({ db: join(tmp, 'unsourced.db'), logLevel: 'silent' });
    try {
      const sessions = forgetSessions('un');
      await memory.ingest(sessions);
      const [skill] = (await memory.synthesize()).created;
      const store = memory.parts.store!;
      // As schema version 12 left them: no sources.
      (store as any).db.prepare('UPDATE skills SET exemplar_sources = NULL').run();
      expect(await store.parentsOfUnsourcedExemplarsIn('default', ['un-0', 'un-9'])).toEqual(new Set(['un-0']));
      const [goalVector] = await embedTexts(store, memory.parts.embedder, [sessions[0]!.goal]);
      const nearest = async () =>
        Math.max(
          ...unpackExemplars(
            (await store.getSkill('default', skill!.id))!.exemplars,
            memory.parts.embedder.dimensions,
          ).map((e) => e.reduce((sum, x, i) => sum + x * goalVector![i]!, 0)),
        );
      expect(await nearest()).toBeGreaterThan(0.999);
      await memory.sessions.forget('un-0');
      expect(await nearest()).toBeLessThan(0.999);
    } finally {
      await memory.close();
    }
  });

  it('a cluster that keeps other sessions, and the mean goal vector, are as if the forgotten one had never been', async () => {
    const [memory, twoOnly] = await Promise.all(
      ['three.db', 'two.db'].map((f) => openMemory({ db: join(tmp, f), logLevel: 'silent' })),
    );
    try {
      await forgetOneOfThree(memory!, twoOnly!);
    } finally {
      await Promise.all([memory!.close(), twoOnly!.close()]);
    }
  });

  it('the scan finds the strings while they are stored (it can fail)', async () => {
    const db = join(tmp, 'probe.db');
    const memory = await openMemory({ db, logLevel: 'silent' });
    try {
      await memory.ingest(forgetSessions());
      memory.parts.store!.kind === 'sqlite' && (memory.parts.store as any).db.pragma('wal_checkpoint(TRUNCATE)');
      expect(tracesInFile(db, [SECRET_GOAL_WORD, SECRET_RESULT])).toEqual([SECRET_GOAL_WORD, SECRET_RESULT]);
    } finally {
      await memory.close();
    }
  });
});

describe('forgetting on PostgreSQL', () => {
  let server: PgServer;
  beforeAll(async () => {
    server = await startPgServer();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('leaves no trace of the forgotten session or skill in any table', async () => {
    const url = await server.createDatabase('forget');
    const memory = await openMemory({ db: url, logLevel: 'silent' });
    let skillMd = '';
    try {
      skillMd = (await learnThenForget(memory)).skillMd;
    } finally {
      await memory.close();
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const tables = (await client.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`)).rows.map(
        (r) => r.tablename as string,
      );
      expect(tables).toEqual(
        expect.arrayContaining(['sessions', 'tool_calls', 'skills', 'state', 'recalls', 'audit', 'events']),
      );
      const dump: string[] = [];
      for (const t of tables)
        dump.push(...(await client.query(`SELECT t::text AS row FROM "${t}" t`)).rows.map((r) => r.row as string));
      const text = dump.join('\n');
      // Rows of the other sessions are there (the dump sees data), the forgotten ones are not.
      expect(text).toContain('#W9002');
      expect(text).not.toContain(SECRET_GOAL_WORD);
      expect(text).not.toContain(SECRET_RESULT);
      expect(text).not.toContain(skillMd.replace(/\n/g, '\\n').slice(0, 200));
      expect(text).not.toContain('fg-0');
    } finally {
      await client.end();
    }
  });

  it("forgetting one of two sessions that asked the same thing leaves the other's exemplar", async () => {
    const memory = await openMemory({ db: await server.createDatabase('twins'), logLevel: 'silent' });
    try {
      await forgetOneOfTwins(memory);
    } finally {
      await memory.close();
    }
  });
  it('a cluster that keeps other sessions, and the mean goal vector, are as if the forgotten one had never been', async () => {
    const memory = await openMemory({ db: await server.createDatabase('three'), logLevel: 'silent' });
    const twoOnly = await openMemory({ db: await server.createDatabase('two'), logLevel: 'silent' });
    try {
      await forgetOneOfThree(memory, twoOnly);
    } finally {
      await Promise.all([memory.close(), twoOnly.close()]);
    }
  });
});
