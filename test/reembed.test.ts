import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reembed } from '../src/pipeline/reembed.js';
import Database from 'better-sqlite3';
import { createGloveEmbedder, GLOVE_EMBEDDER_ID } from '../src/embedders/glove/glove-embedder.js';
import { OpenAiEmbedder } from '../src/embedders/openai-embedder.js';
import { OpenAiClient } from '../src/model-clients/openai-client.js';
import { EmbedderMismatchError } from '../src/errors/embedder-mismatch-error.js';
import { openMemory } from '../src/app/open-memory.js';
import type { Memory } from '../src/app/memory.js';
import { createLogger } from '../src/support/log.js';
import { openSqliteStore, type SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { reembedCommand } from '../src/surfaces/cli/commands/reembed.js';
import { SAMPLE, tempDbPath } from './support/tau.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fixtures/fake-openai-server.js';

const IMPORT_DIR = new URL('./fixtures/skills-import/', import.meta.url).pathname;

describe('reembed: switching embedders re-embeds instead of comparing vectors across models', () => {
  let server: FakeOpenAiServer;
  let dbPath: string;
  let memory: Memory;
  let store: SqliteStore;
  let embedder: OpenAiEmbedder;
  let sessionCount: number;

  beforeAll(async () => {
    server = await startFakeOpenAiServer({ models: ['test-embed'], dims: 16 });
    dbPath = tempDbPath('skillsmith-reembed-');
    memory = await openMemory({ db: dbPath, config: { synthesis: { cooldownMs: 0 } } });
    await memory.ingestFile(SAMPLE);
    await memory.synthesize();
    await memory.skills.import(IMPORT_DIR);
    store = memory.parts.store as SqliteStore;
    sessionCount = await store.countSessions('default');
    embedder = await new OpenAiEmbedder({
      client: new OpenAiClient({ baseUrl: server.baseUrl, timeoutMs: 5000, breaker: null }),
      model: 'test-embed',
      batchSize: 32,
    }).ready();
  });
  afterAll(async () => {
    await memory.close();
    await server.stop();
  });

  it('before reembed, a pass with the new embedder refuses, says to run reembed, and writes nothing', async () => {
    const lines: string[] = [];
    const switched = await openMemory({
      db: store,
      embedder,
      config: { synthesis: { cooldownMs: 0 } },
      logger: createLogger('warn', 'skillsmith', (l) => void lines.push(l)),
    });
    // Recall serves none of the other model's skills, and says why once.
    expect(await switched.recall('I want to return the headphones I received', { record: false })).toEqual([]);
    expect(await switched.recall('cancel my pending order', { record: false })).toEqual([]);
    const said = lines.filter((l) => l.includes('embedded by another model than openai:test-embed@16'));
    expect(said).toHaveLength(1);
    // Which model embedded them, and the configuration first: re-embedding would replace that model's vectors.
    expect(said[0]).toMatch(/\(glove-sif-lex@\d+\) and are not served: give the configuration they were embedded with/);
    const before = await store.listSkills('default', { includeSuperseded: true });
    const error = await switched.synthesize().then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(EmbedderMismatchError.isInstance(error)).toBe(true);
    const learned = before.filter((s) => s.corpus === 'internal' && !s.supersededBy).length;
    expect(error!.message).toBe(
      `${learned} of ${learned} skills in namespace "default" were embedded with ${GLOVE_EMBEDDER_ID}, not the configured openai:test-embed@16: ` +
        'run "skillsmith reembed" to re-embed them with openai:test-embed@16 (or switch the embedder back). The synthesis pass was not run.',
    );
    expect(await store.listSkills('default', { includeSuperseded: true })).toEqual(before);
    expect(await store.loadClusters('default', embedder.id)).toEqual([]);
    expect(await store.getState('default', `watermark:${embedder.id}`)).toBeNull();
  });

  it('dry run: counts the skills per previous embedder and writes nothing', async () => {
    const target = store;
    const before = await store.listSkills('default', { includeSuperseded: true });
    const requests = server.requests.length;
    const r = await reembed(target, embedder, 'default', { dryRun: true });
    expect(r.dryRun).toBe(true);
    expect(r.skills).toBe(before.length);
    expect(r.from[GLOVE_EMBEDDER_ID]).toBe(before.length);
    expect(server.requests.length).toBe(requests);
    expect(
      (await store.listSkills('default', { includeSuperseded: true })).every((s) => s.embedderId === GLOVE_EMBEDDER_ID),
    ).toBe(true);
  });

  it('re-embeds every skill (learned and imported) and clears the cluster state', async () => {
    const target = store;
    const before = await store.listSkills('default', { includeSuperseded: true });
    expect(before.some((s) => s.corpus === 'internal')).toBe(true);
    expect(before.some((s) => s.corpus === 'external')).toBe(true);
    expect((await store.loadClusters('default', GLOVE_EMBEDDER_ID)).length).toBeGreaterThan(0);

    const r = await reembed(target, embedder, 'default', { now: () => new Date('2026-03-01T00:00:00Z') });
    expect(r).toMatchObject({
      embedderId: 'openai:test-embed@16',
      dimensions: 16,
      skills: before.length,
      dryRun: false,
    });
    expect(r.clustersCleared).toBeGreaterThan(0);

    const after = await store.listSkills('default', { includeSuperseded: true });
    for (const s of after) {
      expect(s.embedderId).toBe('openai:test-embed@16');
      expect(s.embedding!.length).toBe(16);
      expect(Math.hypot(...s.embedding!)).toBeCloseTo(1, 4);
    }
    // learned skills: their source sessions' goals were embedded with the new model
    const sent = server.requestsTo('embeddings').flatMap((q) => q.json.input as string[]);
    const internal = after.find((s) => s.corpus === 'internal')!;
    expect(sent.some((t) => /Return|return|exchange|cancel/i.test(t))).toBe(true);
    expect(sent).toContain(after.find((s) => s.corpus === 'external')!.description);
    expect(internal.sourceSessions.length).toBeGreaterThan(0);

    expect(await store.loadClusters('default', GLOVE_EMBEDDER_ID)).toEqual([]);
    expect(await store.getState('default', `watermark:${GLOVE_EMBEDDER_ID}`)).toBeNull();
    expect(await store.getState('default', 'tool-stats')).toBeNull();
    const audit = await store.audit('default', { limit: 5 });
    expect(audit.some((a) => a.action === 'skills.reembed')).toBe(true);
  });

  it('the next pass re-clusters every session with the new embedder', async () => {
    const next = await openMemory({ db: store, embedder, config: { synthesis: { cooldownMs: 0 } } });
    const report = await next.synthesize({ dryRun: true });
    expect(report.stats.newSessions).toBe(sessionCount);
    // recall now serves the re-embedded skills with the new embedder (no cross-model comparison)
    const skills = await next.skills.list();
    expect(skills.every((s) => s.embedderId === embedder.id)).toBe(true);
  });

  it('reembedCommand prints what it did and exits 0; --json gives the report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-reembed-cmd-'));
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({ embedder: { provider: 'openai', baseUrl: server.baseUrl, model: 'test-embed' } }),
    );
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) };
    const target = store;
    expect(await reembedCommand([], { config, db: dbPath }, io, { store: target })).toBe(0);
    expect(out.join('\n')).toMatch(
      /Re-embedded \d+ skills in namespace "default" with openai:test-embed@16 \(16 dimensions\)/,
    );
    out.length = 0;
    expect(await reembedCommand([], { config, db: dbPath, json: true, 'dry-run': true }, io, { store: target })).toBe(
      0,
    );
    expect(JSON.parse(out.join(''))).toMatchObject({ dryRun: true, embedderId: 'openai:test-embed@16' });

    expect(await reembedCommand([], { config, db: join(dir, 'missing.db') }, io)).toBe(1);
    expect(err.join('\n')).toMatch(/no memory at/);
  });

  it('reembedCommand fails with exit 1 and writes nothing when the embedder is down', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-reembed-down-'));
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({ embedder: { provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'unknown-embedder' } }),
    );
    const db = tempDbPath('skillsmith-reembed-down-');
    openSqliteStore(db).close();
    const err: string[] = [];
    expect(await reembedCommand([], { config, db }, { stdout: () => {}, stderr: (t) => void err.push(t) })).toBe(1);
    expect(err.join('\n')).toMatch(/reembed failed \[ENDPOINT_UNREACHABLE\].*\n?Nothing was written/s);
  });
});

describe("a new version of the built-in embedder: the pass re-embeds the earlier version's skills on its own", () => {
  const EARLIER = 'glove-sif-lex@3';
  let dbPath: string;
  let names: string[];

  /**
   * A memory learned from the sample whose stored vectors are then marked as `embedderId`'s, as a memory written
   * by another embedder (or an earlier version of this one) is. Returns its path and its skills' names.
   */
  async function learnedAs(embedderId: string): Promise<{ path: string; names: string[] }> {
    const path = tempDbPath('skillsmith-reembed-upgrade-');
    const memory = await openMemory({ db: path, config: { synthesis: { cooldownMs: 0 } }, logLevel: 'silent' });
    await memory.ingestFile(SAMPLE);
    await memory.synthesize();
    const learned = (await memory.skills.list()).map((s) => s.name).sort();
    await memory.close();
    const db = new Database(path);
    db.prepare('UPDATE skills SET embedder_id = ? WHERE embedding IS NOT NULL').run(embedderId);
    db.close();
    return { path, names: learned };
  }

  beforeAll(async () => {
    ({ path: dbPath, names } = await learnedAs(EARLIER));
  });

  it('the built-in embedder names the version it supersedes', () => {
    expect(GLOVE_EMBEDDER_ID).not.toBe(EARLIER);
    expect(createGloveEmbedder().supersedes).toEqual(['glove-sif-lex@1', 'glove-sif-lex@2', EARLIER]);
  });

  it('until a pass, recall serves none of them and says a pass re-embeds them; a dry-run pass neither refuses nor re-embeds', async () => {
    const lines: string[] = [];
    const memory = await openMemory({
      db: dbPath,
      config: { synthesis: { cooldownMs: 0 } },
      logger: createLogger('warn', 'skillsmith', (l) => void lines.push(l)),
    });
    try {
      expect(await memory.recall('I need to exchange a laptop I received', { record: false })).toEqual([]);
      expect(lines.filter((l) => l.includes(`an earlier version of ${GLOVE_EMBEDDER_ID}`))).toHaveLength(1);
      await memory.synthesize({ dryRun: true });
      const ids = new Set((await memory.skills.list()).map((s) => s.embedderId));
      expect([...ids]).toEqual([EARLIER]);
    } finally {
      await memory.close();
    }
  });

  it('a pass re-embeds them, learns nothing twice, and recall serves them again', async () => {
    const memory = await openMemory({ db: dbPath, config: { synthesis: { cooldownMs: 0 } }, logLevel: 'silent' });
    try {
      await memory.synthesize();
      const skills = await memory.skills.list();
      expect(new Set(skills.map((s) => s.embedderId))).toEqual(new Set([GLOVE_EMBEDDER_ID]));
      expect(skills.map((s) => s.name).sort()).toEqual(names);
      const served = await memory.recall(
        'I need to exchange a laptop I received for one with an i7 processor, 8GB RAM, and a 1TB SSD.',
        { record: false },
      );
      expect(served[0]?.name).toBe('exchange-delivered-order-items');
      // Exemplars are made again too (reembed chooses them as a pass does), not dropped.
      expect(skills.filter((s) => s.exemplars && s.exemplars.length > 0).length).toBeGreaterThan(0);
    } finally {
      await memory.close();
    }
  });

  it('vectors of any other model still stop the pass', async () => {
    const { path } = await learnedAs('openai:other@16');
    const memory = await openMemory({ db: path, config: { synthesis: { cooldownMs: 0 } }, logLevel: 'silent' });
    try {
      await expect(memory.synthesize()).rejects.toBeInstanceOf(EmbedderMismatchError);
    } finally {
      await memory.close();
    }
  });
});
