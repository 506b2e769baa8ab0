import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type SkillsmithConfigInput } from '../src/config/config.js';
import { runDoctor, type DoctorReport, type MemoryState } from '../src/doctor/doctor.js';
import type { Skill } from '../src/domain/types.js';
import { GLOVE_EMBEDDER_ID } from '../src/embedders/glove/glove-embedder.js';
import { doctorCommand } from '../src/surfaces/cli/commands/doctor.js';
import { openMemory } from '../src/app/open-memory.js';
import { deadPort, startFakeOpenAiServer, type FakeOpenAiServer } from './fixtures/fake-openai-server.js';

const KEY = 'sk-doctor-8hG5fD3sA1qW9eR7tY5u';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) } };
}

function configFile(config: SkillsmithConfigInput): string {
  const dir = mkdtempSync(join(tmpdir(), 'skillsmith-doctor-'));
  const path = join(dir, 'skillsmith.config.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
}

const find = (r: DoctorReport, backend: string, check: string) =>
  r.checks.filter((c) => c.backend === backend && c.check === check);

describe('skillsmith doctor', () => {
  let server: FakeOpenAiServer;
  const noDb = { db: join(tmpdir(), 'skillsmith-doctor-no-such.db') };
  beforeAll(async () => {
    server = await startFakeOpenAiServer({
      models: ['test-chat', 'test-embed', 'nomic-embed-text:latest'],
      dims: 16,
      strictModels: true,
    });
  });
  afterAll(() => server.stop());

  const live = (extra: SkillsmithConfigInput = {}): SkillsmithConfigInput => ({
    distiller: 'llm',
    llm: { baseUrl: server.baseUrl, model: 'test-chat', apiKey: KEY },
    embedder: { provider: 'openai', baseUrl: server.baseUrl, model: 'test-embed', apiKey: KEY },
    ...extra,
  });

  it('reports the embedded back ends as ready on the default config', async () => {
    const r = await runDoctor(loadConfig({}));
    expect(r.ok).toBe(true);
    expect(find(r, 'embedder', 'round-trip')[0].status).toBe('ok');
    expect(find(r, 'embedder', 'round-trip')[0].message).toMatch(/glove-sif-lex@4 is ready: 356 dimensions/);
    expect(find(r, 'llm', 'distiller')[0]).toMatchObject({ status: 'ok' });
    const t = io();
    expect(await doctorCommand([], noDb, t.io)).toBe(0);
    expect(t.out.join('\n')).toMatch(/Everything needed is ready/);
  });

  it('reports ok against the live server: reachable, models present, embedding dimension, one embedding and a 1-token chat', async () => {
    const before = server.requests.length;
    const r = await runDoctor(loadConfig(live()));
    expect(r.checks.filter((c) => c.status === 'fail')).toEqual([]);
    expect(r.ok).toBe(true);
    for (const backend of ['embedder', 'llm']) {
      expect(find(r, backend, 'reachable')[0].status).toBe('ok');
      expect(find(r, backend, 'model')[0].status).toBe('ok');
      expect(find(r, backend, 'round-trip')[0].status).toBe('ok');
    }
    expect(find(r, 'embedder', 'dimension')[0].message).toMatch(/^16 dimensions/);
    expect(r.embedder).toMatchObject({
      provider: 'openai',
      model: 'test-embed',
      id: 'openai:test-embed@16',
      dimensions: 16,
      apiKey: 'set',
    });
    // uncalibrated thresholds are a warning, not a failure
    expect(find(r, 'embedder', 'thresholds')[0].status).toBe('warn');
    const sent = server.requests.slice(before);
    const chat = sent.filter((q) => q.route === 'chat');
    expect(chat).toHaveLength(1);
    expect(chat[0].json.max_tokens).toBe(1);
    expect(sent.filter((q) => q.route === 'embeddings').length).toBeGreaterThanOrEqual(1);
    expect(sent.every((q) => q.headers.authorization === `Bearer ${KEY}`)).toBe(true);

    const t = io();
    expect(await doctorCommand([], { ...noDb, config: configFile(live()), json: true }, t.io)).toBe(0);
    const json = JSON.parse(t.out.join(''));
    expect(json.ok).toBe(true);
    expect(t.out.join('')).not.toContain(KEY);
  });

  it('uses the calibrated GAIA thresholds for nomic-embed-text, and flags a wrong dimension', async () => {
    // The fake server answers 16-d vectors where nomic-embed-text gives 768: it serves another model.
    const r = await runDoctor(
      loadConfig(live({ embedder: { provider: 'openai', baseUrl: server.baseUrl, model: 'nomic-embed-text' } })),
    );
    expect(r.ok).toBe(false);
    const dim = find(r, 'embedder', 'dimension')[0];
    expect(dim.status).toBe('fail');
    expect(dim.message).toMatch(/should give 768-dimensional vectors but gave 16/);
  });

  it('checks embedder.dimensions: the length asked for, and a server that ignored it', async () => {
    const shortened = live({
      embedder: { provider: 'openai', baseUrl: server.baseUrl, model: 'test-embed', apiKey: KEY, dimensions: 5 },
    });
    const ok = await runDoctor(loadConfig(shortened));
    expect(find(ok, 'embedder', 'dimension')[0]).toMatchObject({
      status: 'ok',
      message: '5 dimensions (as embedder.dimensions asks)',
    });
    expect(ok.embedder).toMatchObject({ id: 'openai:test-embed@5', dimensions: 5 });
    // A server that answers at the model's own length whatever was asked.
    server.script('embeddings', { kind: 'embeddings', dims: 16 });
    const ignored = await runDoctor(loadConfig(shortened));
    expect(ignored.ok).toBe(false);
    expect(find(ignored, 'embedder', 'dimension')[0]).toMatchObject({
      status: 'fail',
      message:
        'embedder.dimensions asks for 5-dimensional vectors but test-embed gave 16: the server or the model ignored the request\'s "dimensions" field',
    });
    expect(find(ignored, 'embedder', 'dimension')[0].fix).toMatch(/or remove embedder\.dimensions$/);
  });

  it("warns that nomic-embed-text's calibrated thresholds do not hold at a length embedder.dimensions shortens it to", async () => {
    const r = await runDoctor(
      loadConfig(
        live({
          embedder: {
            provider: 'openai',
            baseUrl: server.baseUrl,
            model: 'nomic-embed-text',
            apiKey: KEY,
            dimensions: 5,
          },
        }),
      ),
    );
    expect(find(r, 'embedder', 'dimension')[0]).toMatchObject({ status: 'ok' });
    expect(find(r, 'embedder', 'thresholds')[0]).toMatchObject({
      status: 'warn',
      message:
        'cluster 0.8, recall 0.7, duplicate 0.9: generic defaults, not calibrated for this model (the built-in values are for 768-d vectors, and embedder.dimensions asks 5)',
    });
  });

  it('is broken (exit 1) when the server is down, and says what to fix', async () => {
    const port = await deadPort();
    const url = `http://127.0.0.1:${port}/v1`;
    const cfg = {
      distiller: 'llm' as const,
      llm: { baseUrl: url, model: 'test-chat', apiKey: KEY },
      embedder: { provider: 'openai' as const, baseUrl: url, model: 'test-embed' },
    };
    const r = await runDoctor(loadConfig(cfg));
    expect(r.ok).toBe(false);
    const reach = find(r, 'llm', 'reachable')[0];
    expect(reach.status).toBe('fail');
    expect(reach.message).toMatch(/ECONNREFUSED/);
    expect(reach.fix).toMatch(/llm\.baseUrl/);
    expect(find(r, 'embedder', 'reachable')[0].fix).toMatch(/embedder\.baseUrl/);
    expect(find(r, 'llm', 'round-trip')[0].status).toBe('skip');

    const t = io();
    expect(await doctorCommand([], { ...noDb, config: configFile(cfg) }, t.io)).toBe(1);
    const text = t.out.join('\n');
    expect(text).toMatch(/FAIL {2}reachable/);
    expect(text).toMatch(/fix: start the server/);
    expect(text).toMatch(/problems?: fix the lines marked FAIL/);
    expect(text).not.toContain(KEY);
    expect(find(r, 'llm', 'fallback')).toEqual([]);

    // With llm.fallback the model is still reported broken, and the doctor says what passes will do meanwhile.
    const withFallback = await runDoctor(loadConfig({ ...cfg, llm: { ...cfg.llm, fallback: 'heuristic' } }));
    expect(withFallback.ok).toBe(false);
    expect(find(withFallback, 'llm', 'fallback')[0]).toMatchObject({
      status: 'warn',
      message: expect.stringMatching(/passes distil with the heuristic distiller/),
    });
  });

  it('checks the LLM outcome judge when capture.judge.mode is "llm": its server down is a problem, not "ready"', async () => {
    const port = await deadPort();
    const down = {
      capture: { judge: { mode: 'llm' as const, baseUrl: `http://127.0.0.1:${port}/v1`, model: 'judge' } },
    };
    const r = await runDoctor(loadConfig(down));
    expect(r.ok).toBe(false);
    expect(find(r, 'judge', 'reachable')[0]).toMatchObject({
      status: 'fail',
      fix: expect.stringMatching(/capture\.judge\.baseUrl/),
    });
    const t = io();
    expect(await doctorCommand([], { ...noDb, config: configFile(down) }, t.io)).toBe(1);
    expect(t.out.join('\n')).toMatch(/outcome judge: llm \(capture\.judge\)\n {2}FAIL {2}reachable/);
    // On the live server: answered.
    const up = await runDoctor(
      loadConfig({ capture: { judge: { mode: 'llm', baseUrl: server.baseUrl, model: 'test-chat' } } }),
    );
    expect(find(up, 'judge', 'round-trip')[0].status).toBe('ok');
    expect(up.ok).toBe(true);
    // The rule judge needs no model: no judge check.
    expect((await runDoctor(loadConfig({}))).checks.filter((c) => c.backend === 'judge')).toEqual([]);
  });

  it('is broken when the model is missing, naming the available ones', async () => {
    const r = await runDoctor(loadConfig(live({ llm: { baseUrl: server.baseUrl, model: 'llama9:70b' } })));
    expect(r.ok).toBe(false);
    const model = find(r, 'llm', 'model')[0];
    expect(model.status).toBe('fail');
    expect(model.message).toMatch(
      /llama9:70b is not served \(available: test-chat, test-embed, nomic-embed-text:latest\)/,
    );
    expect(model.fix).toMatch(/ollama pull llama9:70b/);
    expect(find(r, 'llm', 'round-trip')[0].message).toMatch(/404/);
  });

  it('tolerates Ollama tags: "nomic-embed-text" is served as "nomic-embed-text:latest"', async () => {
    const r = await runDoctor(
      loadConfig(live({ embedder: { provider: 'openai', baseUrl: server.baseUrl, model: 'nomic-embed-text' } })),
    );
    expect(find(r, 'embedder', 'model')[0].status).toBe('ok');
  });

  it('flags a bad URL that is not an OpenAI-compatible API', async () => {
    const r = await runDoctor(
      loadConfig(live({ llm: { baseUrl: server.baseUrl.replace(/\/v1$/, ''), model: 'test-chat' } })),
    );
    expect(r.ok).toBe(false);
    const reach = find(r, 'llm', 'reachable')[0];
    expect(reach.status).toBe('warn');
    expect(reach.fix).toMatch(/\/v1/);
    expect(find(r, 'llm', 'round-trip')[0].status).toBe('fail');
  });

  it('names missing settings and missing optional packages', async () => {
    const r = await runDoctor(loadConfig({ distiller: 'llm', embedder: { provider: 'openai' } }));
    expect(find(r, 'embedder', 'config')[0]).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/embedder\.baseUrl is not set/),
    });
    expect(find(r, 'llm', 'config')[0]).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/llm\.baseUrl is not set/),
    });

    // As on a machine without the optional package (the real one is checked in test/llama-cpp.test.ts).
    const absent = async (name: string) =>
      Promise.reject(Object.assign(new Error(`Cannot find package '${name}'`), { code: 'ERR_MODULE_NOT_FOUND' }));
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-doctor-gguf-'));
    writeFileSync(join(dir, 'm.gguf'), 'GGUF');
    const l = await runDoctor(
      loadConfig({ distiller: 'llm', llm: { provider: 'llama-cpp', modelPath: join(dir, 'm.gguf') } }),
      { importer: absent },
    );
    expect(l.ok).toBe(false);
    expect(find(l, 'llm', 'package')[0].message).toMatch(/install node-llama-cpp@3\.21\.1 to use provider llama-cpp/);
  });

  it('fails when stored skill vectors come from another embedder, pointing at skillsmith reembed', async () => {
    const skill = {
      id: 'sk_1',
      name: 'x',
      embedderId: 'glove-sif-lex@1',
      embedding: new Float32Array(356),
    } as unknown as Skill;
    const store = { listSkills: async () => [skill] };
    const r = await runDoctor(loadConfig(live()), { store, namespace: 'default' });
    const stored = find(r, 'store', 'stored-vectors')[0];
    expect(stored.status).toBe('fail');
    expect(stored.message).toMatch(
      /1 of 1 skills in namespace "default" were embedded with glove-sif-lex@1, not openai:test-embed@16/,
    );
    expect(stored.fix).toMatch(/skillsmith reembed/);
    expect(r.ok).toBe(false);
    // The built-in embedder's own earlier version: a warning, since the next pass re-embeds them on its own.
    const upgraded = find(
      await runDoctor(loadConfig({}), { store, namespace: 'default' }),
      'store',
      'stored-vectors',
    )[0];
    expect(upgraded.status).toBe('warn');
    expect(upgraded.message).toMatch(/an earlier version of glove-sif-lex@4/);
    expect(upgraded.fix).toMatch(/skillsmith synthesize/);
    skill.embedderId = GLOVE_EMBEDDER_ID;
    const same = await runDoctor(loadConfig({}), { store, namespace: 'default' });
    expect(find(same, 'store', 'stored-vectors')[0].status).toBe('ok');
  });

  it('says where the memory is, its schema, and whether this account may write it or create it', async () => {
    const at = (memory: MemoryState) =>
      runDoctor(loadConfig({}), { memory }).then((r) => ({ r, check: find(r, 'store', 'memory')[0] }));
    const fine = await at({ location: '/m.db', kind: 'sqlite', schemaVersion: 9, readOnly: false });
    expect(fine.check).toMatchObject({
      status: 'ok',
      message: 'sqlite memory at /m.db: schema version 9, readable and writable',
    });
    const readOnly = await at({
      location: 'postgres://reader@h/m',
      kind: 'postgres',
      schemaVersion: 9,
      readOnly: true,
    });
    expect(readOnly.check.status).toBe('warn');
    expect(readOnly.check.message).toMatch(/is open read-only: recall, listing and export work/);
    expect(readOnly.check.fix).toMatch(/grant the user INSERT, UPDATE and DELETE/);
    expect(readOnly.r.ok).toBe(true);
    const fresh = await at({ location: '/new.db', kind: 'sqlite', missing: true, canCreate: true });
    expect(fresh.check).toMatchObject({
      status: 'ok',
      message: expect.stringMatching(/^no memory at \/new\.db yet: the first command that stores/),
    });
    const locked = await at({
      location: 'postgres://app@h/m',
      kind: 'postgres',
      missing: true,
      canCreate: false,
      why: 'no CREATE on schema public',
    });
    expect(locked.check.status).toBe('fail');
    expect(locked.check.message).toBe(
      'no memory at postgres://app@h/m yet, and this account may not create one there (no CREATE on schema public)',
    );
    expect(locked.r.ok).toBe(false);
    // Through the command, on a real file: a memory a pass wrote is named with its schema.
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-doctor-mem-'));
    const db = join(dir, 'm.db');
    const memory = await openMemory({ db, logLevel: 'silent', auditFile: null });
    await memory.close();
    const t = io();
    expect(await doctorCommand([], { db }, t.io)).toBe(0);
    expect(t.out.join('')).toMatch(
      new RegExp(
        `ok\\s+memory\\s+sqlite memory at ${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: schema version \\d+, readable and writable`,
      ),
    );
  });

  it('exits 2 on an invalid configuration or arguments', async () => {
    const t = io();
    expect(
      await doctorCommand([], { ...noDb, config: configFile({ embedder: { provider: 'word2vec' } } as never) }, t.io),
    ).toBe(2);
    expect(t.err.join('')).toMatch(/embedder\.provider/);
    expect(await doctorCommand(['extra'], noDb, io().io)).toBe(2);
  });
});
