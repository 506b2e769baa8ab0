import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { loadConfig } from '../src/config/config.js';
import { createDistiller } from '../src/distillers/create-distiller.js';
import { createEmbedder } from '../src/backends/from-config.js';
import { GLOVE_EMBEDDER_ID } from '../src/embedders/glove/glove-embedder.js';
import { OpenAiEmbedder } from '../src/embedders/openai-embedder.js';
import { BackendConfigError } from '../src/errors/backend-config-error.js';
import { BackendLoadError } from '../src/errors/backend-load-error.js';
import { ConfigError } from '../src/errors/config-error.js';
import { EmbedderNotReadyError } from '../src/errors/embedder-not-ready-error.js';
import { EmbeddingDimensionError } from '../src/errors/embedding-dimension-error.js';
import { EndpointUnreachableError } from '../src/errors/endpoint-unreachable-error.js';
import { MissingOptionalDependencyError } from '../src/errors/missing-optional-dependency-error.js';
import { GENERIC_MODEL_THRESHOLDS, NOMIC_THRESHOLDS } from '../src/model-clients/models.js';
import { OpenAiClient } from '../src/model-clients/openai-client.js';
import { createLogger } from '../src/support/log.js';
import { deadPort, pseudoVector, startFakeOpenAiServer, type FakeOpenAiServer } from './fixtures/fake-openai-server.js';
import { ROOT } from './support/surfaces.js';

async function caught(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

const norm = (v: Float32Array) => Math.hypot(...v);

describe('OpenAiEmbedder against a real OpenAI-protocol server', () => {
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await startFakeOpenAiServer({ dims: 12 });
  });
  afterAll(() => server.stop());

  const embedderFor = (model: string, batchSize = 64) =>
    new OpenAiEmbedder({
      client: new OpenAiClient({ baseUrl: server.baseUrl, timeoutMs: 3000, breaker: null }),
      model,
      batchSize,
    });

  it('returns unit-length Float32Arrays in input order', async () => {
    const e = await embedderFor('my-embedder').ready();
    const texts = ['return my order', 'cancel the booking', 'update my address'];
    const vectors = await e.embed(texts);
    expect(vectors).toHaveLength(3);
    for (const [i, v] of vectors.entries()) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(12);
      expect(norm(v)).toBeCloseTo(1, 5);
      // the direction of the server's (unnormalised) vector
      const raw = pseudoVector(texts[i], 12);
      const rawNorm = Math.hypot(...raw);
      expect(v[0]).toBeCloseTo(raw[0] / rawNorm, 5);
    }
  });

  it('detects the dimension from the first answer and puts it in the id', async () => {
    const e = embedderFor('my-embedder');
    expect(() => e.id).toThrow(EmbedderNotReadyError);
    const before = server.requestsTo('embeddings').length;
    await e.ready();
    expect(server.requestsTo('embeddings').length).toBe(before + 1);
    expect(e.dimensions).toBe(12);
    expect(e.id).toBe('openai:my-embedder@12');
  });

  it('respects embedder.batchSize', async () => {
    const e = await embedderFor('my-embedder', 3).ready();
    const before = server.requestsTo('embeddings').length;
    const texts = Array.from({ length: 7 }, (_, i) => `text number ${i}`);
    const vectors = await e.embed(texts);
    const calls = server.requestsTo('embeddings').slice(before);
    expect(calls.map((c) => c.json.input.length)).toEqual([3, 3, 1]);
    expect(calls.flatMap((c) => c.json.input)).toEqual(texts);
    expect(calls.every((c) => c.json.model === 'my-embedder')).toBe(true);
    expect(vectors).toHaveLength(7);
  });

  it('answers empty texts with the zero vector, without sending them', async () => {
    const e = await embedderFor('my-embedder').ready();
    const before = server.requestsTo('embeddings').length;
    const vectors = await e.embed(['', 'real text', '   ']);
    expect([...vectors[0]].every((x) => x === 0)).toBe(true);
    expect([...vectors[2]].every((x) => x === 0)).toBe(true);
    expect(norm(vectors[1])).toBeCloseTo(1, 5);
    expect(
      server
        .requestsTo('embeddings')
        .slice(before)
        .map((c) => c.json.input),
    ).toEqual([['real text']]);
  });

  it('sends no secret or personal data to the server: a goal stored whole by a library caller, a hook prompt', async () => {
    const e = await embedderFor('my-embedder').ready();
    const before = server.requestsTo('embeddings').length;
    await e.embed([
      'log in with password=correcthorsebatterystaple and token ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ',
      'refund order #W1001 for mia.li3818@example.com, passphrase Hunter!!Secret',
    ]);
    expect(
      server
        .requestsTo('embeddings')
        .slice(before)
        .map((c) => c.json.input),
    ).toEqual([
      [
        'log in with password=[REDACTED:password] and token [REDACTED:token]',
        'refund order #W1001 for [REDACTED:email], passphrase [REDACTED:password]',
      ],
    ]);
  });

  it('knows common models: nomic-embed-text is 768-d with GAIA thresholds, others get the generic defaults', async () => {
    const nomic = embedderFor('nomic-embed-text:latest');
    expect(nomic.dimensions).toBe(768);
    expect(nomic.id).toBe('openai:nomic-embed-text@768');
    expect(nomic.thresholds).toEqual(NOMIC_THRESHOLDS);
    expect(nomic.thresholds.cluster).toBe(0.82);
    expect(nomic.thresholds.recall).toBe(0.82);
    expect(nomic.calibrated).toBe(true);
    const other = embedderFor('my-embedder');
    expect(other.thresholds).toEqual(GENERIC_MODEL_THRESHOLDS);
    expect(other.calibrated).toBe(false);
  });

  it('raises EmbeddingDimensionError when the server answers with another dimension', async () => {
    const nomic = embedderFor('nomic-embed-text'); // 768 expected; the fake server gives 12
    const e = await caught(nomic.embed(['hello']));
    expect(EmbeddingDimensionError.isInstance(e)).toBe(true);
    expect(e.expected).toBe(768);
    expect(e.got).toBe(12);
  });

  it('raises the client error when the server is down (embedder failure is raised)', async () => {
    const port = await deadPort();
    const e = new OpenAiEmbedder({
      client: new OpenAiClient({ baseUrl: `http://127.0.0.1:${port}/v1`, timeoutMs: 1000, breaker: null }),
      model: 'm',
      batchSize: 8,
    });
    expect(EndpointUnreachableError.isInstance(await caught(e.embed(['x'])))).toBe(true);
  });

  it('createEmbedder builds it from the configuration and learns the dimension', async () => {
    const e = await createEmbedder(
      loadConfig({ embedder: { provider: 'openai', baseUrl: server.baseUrl, model: 'my-embedder', batchSize: 2 } }),
    );
    expect(e.id).toBe('openai:my-embedder@12');
    expect(e.dimensions).toBe(12);
  });

  it('a recall, then the nearest skill for the same request (what "nothing matched" says), ask the server once', async () => {
    const memory = await openMemory({
      db: join(mkdtempSync(join(tmpdir(), 'skillsmith-embed-once-')), 'm.db'),
      logLevel: 'silent',
      config: { embedder: { provider: 'openai', baseUrl: server.baseUrl, model: 'my-embedder' } },
    });
    try {
      await memory.skills.import(join(ROOT, 'test', 'fixtures', 'skills-import'));
      await memory.skills.promote('triage-support-ticket');
      const before = server.requestsTo('embeddings').length;
      await memory.recall('Paint the garden fence blue before the weekend');
      expect(await memory.nearest('Paint the garden fence blue before the weekend')).toMatchObject({
        name: 'triage-support-ticket',
      });
      expect(server.requestsTo('embeddings').length).toBe(before + 1);
      // Another request is embedded afresh.
      await memory.recall('Reset the router in the office');
      expect(server.requestsTo('embeddings').length).toBe(before + 2);
    } finally {
      await memory.close();
    }
  });
});

describe('embedder.dimensions: shorter vectors asked of an OpenAI-compatible server', () => {
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await startFakeOpenAiServer({ dims: 12 });
  });
  afterAll(() => server.stop());

  const settings = (extra: { dimensions?: number; model?: string } = {}) =>
    loadConfig({
      embedder: { provider: 'openai', baseUrl: server.baseUrl, model: 'text-embedding-3-small', ...extra },
    });

  it('is sent as the request\'s "dimensions", and the id says the length, without a probe request', async () => {
    const before = server.requestsTo('embeddings').length;
    const e = await createEmbedder(settings({ dimensions: 5 }));
    // The length is known from the setting: no request before the first embedding.
    expect(server.requestsTo('embeddings').length).toBe(before);
    expect([e.id, e.dimensions]).toEqual(['openai:text-embedding-3-small@5', 5]);
    const vectors = await e.embed(['rotate the api keys', 'book a table for two']);
    expect(vectors.map((v) => v.length)).toEqual([5, 5]);
    for (const v of vectors) expect(norm(v)).toBeCloseTo(1, 5);
    const [req] = server.requestsTo('embeddings').slice(before);
    expect(req.json).toMatchObject({ model: 'text-embedding-3-small', dimensions: 5 });
    // Unset, no field is sent, and the model's own length (from the built-in table) is the id's.
    const native = await createEmbedder(settings({ model: 'my-embedder' }));
    await native.embed(['rotate the api keys']);
    expect('dimensions' in server.requestsTo('embeddings').at(-1)!.json).toBe(false);
    expect(native.id).toBe('openai:my-embedder@12');
  });

  it('vectors of another length (a server that ignores the field) are refused, naming the setting', async () => {
    const e = await createEmbedder(settings({ dimensions: 5 }));
    server.script('embeddings', { kind: 'embeddings', dims: 12 });
    const error = await caught(e.embed(['rotate the api keys']));
    expect(EmbeddingDimensionError.isInstance(error)).toBe(true);
    expect([error.expected, error.got]).toEqual([5, 12]);
    expect(error.message).toMatch(
      /embedder\.dimensions asks for 5 \(sent as "dimensions"\).*remove embedder\.dimensions/,
    );
  });

  it("is refused for the local providers, which embed at their model's own length, and must be a positive integer", () => {
    for (const provider of ['glove', 'transformers', 'llama-cpp'] as const) {
      const error = (() => {
        try {
          loadConfig({ embedder: { provider, dimensions: 256 } });
        } catch (e) {
          return e as Error;
        }
        return null;
      })();
      expect(ConfigError.isInstance(error), provider).toBe(true);
      expect(error!.message).toContain(
        `embedder.dimensions: applies to embedder.provider "openai" only (the dimensions field of an OpenAI-compatible embeddings request); provider "${provider}" embeds at its model's own length`,
      );
    }
    for (const bad of [0, -8, 2.5]) expect(() => settings({ dimensions: bad })).toThrow(/embedder\.dimensions/);
  });

  it("a model's calibrated thresholds are not used at another length: nomic-embed-text asked for 256-d vectors is uncalibrated", async () => {
    const full = await createEmbedder(settings({ model: 'nomic-embed-text', dimensions: 768 }));
    expect(full.thresholds).toEqual(NOMIC_THRESHOLDS);
    expect((full as { calibrated?: boolean }).calibrated).toBe(true);
    const short = await createEmbedder(settings({ model: 'nomic-embed-text', dimensions: 256 }));
    expect(short.thresholds).toEqual(GENERIC_MODEL_THRESHOLDS);
    expect((short as { calibrated?: boolean }).calibrated).toBe(false);
    expect((short as { thresholdSource?: string }).thresholdSource).toMatch(
      /are for 768-d vectors, and embedder\.dimensions asks 256/,
    );
  });

  it('SKILLSMITH_EMBEDDER_DIMENSIONS sets embedder.dimensions', async () => {
    const config = loadConfig(
      { embedder: { provider: 'openai', baseUrl: server.baseUrl, model: 'text-embedding-3-small' } },
      { SKILLSMITH_EMBEDDER_DIMENSIONS: '6' } as NodeJS.ProcessEnv,
    );
    expect(config.embedder.dimensions).toBe(6);
    expect((await createEmbedder(config)).id).toBe('openai:text-embedding-3-small@6');
    expect(() => loadConfig({}, { SKILLSMITH_EMBEDDER_DIMENSIONS: '256' } as NodeJS.ProcessEnv)).toThrow(
      /embedder\.dimensions: applies to embedder\.provider "openai" only.*SKILLSMITH_EMBEDDER_DIMENSIONS/,
    );
  });

  it('a memory embedded at one length serves none of its skills at another, and says so', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'skillsmith-embed-dims-')), 'm.db');
    const config = (dimensions?: number) => ({
      embedder: { provider: 'openai' as const, baseUrl: server.baseUrl, model: 'text-embedding-3-small', dimensions },
    });
    const first = await openMemory({ db, logLevel: 'silent', config: config(8) });
    await first.skills.import(join(ROOT, 'test', 'fixtures', 'skills-import'));
    await first.skills.promote('triage-support-ticket');
    expect((await first.skills.list()).map((s) => s.embedderId)).toContain('openai:text-embedding-3-small@8');
    await first.close();
    const lines: string[] = [];
    const shorter = await openMemory({
      db,
      config: config(6),
      logger: createLogger('warn', 'skillsmith', (l) => void lines.push(l)),
    });
    try {
      expect(await shorter.recall('Triage the support ticket about a login failure', { record: false })).toEqual([]);
      expect(lines.join('\n')).toMatch(
        /embedded by another model than openai:text-embedding-3-small@6 \(openai:text-embedding-3-small@8\)/,
      );
    } finally {
      await shorter.close();
    }
  });
});

describe('createEmbedder / createDistiller choose by configuration and never fall back', () => {
  it('defaults to the embedded GloVe embedder', async () => {
    const e = await createEmbedder(loadConfig({}));
    expect(e.id).toBe(GLOVE_EMBEDDER_ID);
  });

  it('names the missing key for openai', async () => {
    const e = await caught(createEmbedder(loadConfig({ embedder: { provider: 'openai' } })));
    expect(BackendConfigError.isInstance(e)).toBe(true);
    expect(e.key).toBe('embedder.baseUrl');
    const m = await caught(
      createEmbedder(loadConfig({ embedder: { provider: 'openai', baseUrl: 'http://127.0.0.1:1/v1' } })),
    );
    expect(m.key).toBe('embedder.model');
  });

  it('raises, rather than falling back, when the configured server is down', async () => {
    const port = await deadPort();
    const e = await caught(
      createEmbedder(
        loadConfig({
          embedder: { provider: 'openai', baseUrl: `http://127.0.0.1:${port}/v1`, model: 'unknown-model' },
        }),
      ),
    );
    expect(EndpointUnreachableError.isInstance(e)).toBe(true);
  });
});

describe('optional packages (node-llama-cpp, transformers.js) are loaded on demand', () => {
  // The real packages are exercised in test/llama-cpp.test.ts and test/transformers-embedder.test.ts; here
  // the importer says they are not installed, as on a machine without them.
  const absent = async (name: string) =>
    Promise.reject(
      Object.assign(new Error(`Cannot find package '${name}' imported from ${import.meta.url}`), {
        code: 'ERR_MODULE_NOT_FOUND',
      }),
    );
  const dir = mkdtempSync(join(tmpdir(), 'skillsmith-gguf-'));
  const gguf = join(dir, 'tiny-embed.gguf');
  writeFileSync(gguf, 'GGUF');

  it('llama-cpp embedder: "install node-llama-cpp@3.21.1 to use provider llama-cpp" when absent', async () => {
    const e = await caught(
      createEmbedder(loadConfig({ embedder: { provider: 'llama-cpp', modelPath: gguf } }), { importer: absent }),
    );
    expect(MissingOptionalDependencyError.isInstance(e)).toBe(true);
    expect(e.message).toMatch(/^install node-llama-cpp@3\.21\.1 to use provider llama-cpp/);
    expect(e.message).toContain('npm install node-llama-cpp@3.21.1');
  });

  it('llama-cpp distiller: the same actionable error when absent', async () => {
    const e = await caught(
      createDistiller(loadConfig({ distiller: 'llm', llm: { provider: 'llama-cpp', modelPath: gguf } }), {
        importer: absent,
      }),
    );
    expect(MissingOptionalDependencyError.isInstance(e)).toBe(true);
    expect(e.message).toMatch(/install node-llama-cpp@3\.21\.1 to use provider llama-cpp/);
  });

  it('transformers embedder: names the package and the .npmrc settings when absent', async () => {
    const e = await caught(
      createEmbedder(loadConfig({ embedder: { provider: 'transformers', modelPath: dir } }), { importer: absent }),
    );
    expect(MissingOptionalDependencyError.isInstance(e)).toBe(true);
    expect(e.message).toMatch(/install @huggingface\/transformers@3 to use embedder provider transformers/);
    expect(e.message).toMatch(/onnxruntime-node-install=skip/);
  });

  it('a package that is installed but broken is a load error, not "install it"', async () => {
    const broken = async () =>
      Promise.reject(
        Object.assign(
          new Error(
            "Cannot find module '/x/node_modules/node-llama-cpp/dist/bindings.node' imported from /x/node_modules/node-llama-cpp/dist/index.js",
          ),
          { code: 'ERR_MODULE_NOT_FOUND' },
        ),
      );
    const e = await caught(
      createEmbedder(loadConfig({ embedder: { provider: 'llama-cpp', modelPath: gguf } }), { importer: broken }),
    );
    expect(BackendLoadError.isInstance(e)).toBe(true);
    expect(e.message).toMatch(/node-llama-cpp: installed but failed to load/);
  });

  it('llama-cpp needs a GGUF path that exists', async () => {
    // With the package present (this importer says so; the real one is optional and may be absent here), the
    // missing file is the error.
    const present = async () => ({});
    const e = await caught(
      createEmbedder(loadConfig({ embedder: { provider: 'llama-cpp', modelPath: join(dir, 'missing.gguf') } }), {
        importer: present,
      }),
    );
    expect(BackendConfigError.isInstance(e)).toBe(true);
    expect(e.message).toMatch(/no GGUF file at/);
  });
});
