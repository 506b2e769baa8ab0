import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import { createDistiller } from '../src/distillers/create-distiller.js';
import { createEmbedder } from '../src/embedders/create-embedder.js';
import { GLOVE_EMBEDDER_ID } from '../src/embedders/glove/glove-embedder.js';
import { LlamaCppEmbedder } from '../src/embedders/llama-cpp-embedder.js';
import { OpenAiEmbedder } from '../src/embedders/openai-embedder.js';
import { TransformersEmbedder } from '../src/embedders/transformers-embedder.js';
import { BackendConfigError } from '../src/llm/errors/backend-config-error.js';
import { EmbedderNotReadyError } from '../src/llm/errors/embedder-not-ready-error.js';
import { EmbeddingDimensionError } from '../src/llm/errors/embedding-dimension-error.js';
import { EndpointUnreachableError } from '../src/llm/errors/endpoint-unreachable-error.js';
import { MissingOptionalDependencyError } from '../src/llm/errors/missing-optional-dependency-error.js';
import { LlamaCppChatModel } from '../src/llm/llama-cpp.js';
import { GENERIC_MODEL_THRESHOLDS, NOMIC_THRESHOLDS } from '../src/llm/models.js';
import { OpenAiClient } from '../src/llm/openai-client.js';
import { deadPort, pseudoVector, startFakeOpenAiServer, type FakeOpenAiServer } from './fixtures/fake-openai-server.js';

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
    new OpenAiEmbedder({ client: new OpenAiClient({ baseUrl: server.baseUrl, timeoutMs: 3000, breaker: null }), model, batchSize });

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
    expect(server.requestsTo('embeddings').slice(before).map((c) => c.json.input)).toEqual([['real text']]);
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
    const e = new OpenAiEmbedder({ client: new OpenAiClient({ baseUrl: `http://127.0.0.1:${port}/v1`, timeoutMs: 1000, breaker: null }), model: 'm', batchSize: 8 });
    expect(EndpointUnreachableError.isInstance(await caught(e.embed(['x'])))).toBe(true);
  });

  it('createEmbedder builds it from the configuration and learns the dimension', async () => {
    const e = await createEmbedder(loadConfig({ embedder: { provider: 'openai', baseUrl: server.baseUrl, model: 'my-embedder', batchSize: 2 } }));
    expect(e.id).toBe('openai:my-embedder@12');
    expect(e.dimensions).toBe(12);
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
    const m = await caught(createEmbedder(loadConfig({ embedder: { provider: 'openai', baseUrl: 'http://127.0.0.1:1/v1' } })));
    expect(m.key).toBe('embedder.model');
  });

  it('raises, rather than falling back, when the configured server is down', async () => {
    const port = await deadPort();
    const e = await caught(createEmbedder(loadConfig({ embedder: { provider: 'openai', baseUrl: `http://127.0.0.1:${port}/v1`, model: 'unknown-model' } })));
    expect(EndpointUnreachableError.isInstance(e)).toBe(true);
  });
});

describe('optional packages (node-llama-cpp, transformers.js) are loaded on demand', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skillsmith-gguf-'));
  const gguf = join(dir, 'tiny-embed.gguf');
  writeFileSync(gguf, 'GGUF');

  it('llama-cpp embedder: "install node-llama-cpp@3.21.1 to use provider llama-cpp" when absent', async () => {
    const e = await caught(createEmbedder(loadConfig({ embedder: { provider: 'llama-cpp', modelPath: gguf } })));
    expect(MissingOptionalDependencyError.isInstance(e)).toBe(true);
    expect(e.message).toMatch(/^install node-llama-cpp@3\.21\.1 to use provider llama-cpp/);
    expect(e.message).toContain('npm install node-llama-cpp@3.21.1');
  });

  it('llama-cpp distiller: the same actionable error when absent', async () => {
    const e = await caught(createDistiller(loadConfig({ distiller: 'llm', llm: { provider: 'llama-cpp', modelPath: gguf } })));
    expect(MissingOptionalDependencyError.isInstance(e)).toBe(true);
    expect(e.message).toMatch(/install node-llama-cpp@3\.21\.1 to use provider llama-cpp/);
  });

  it('transformers embedder: names the package and the .npmrc settings when absent', async () => {
    const e = await caught(createEmbedder(loadConfig({ embedder: { provider: 'transformers', modelPath: dir } })));
    expect(MissingOptionalDependencyError.isInstance(e)).toBe(true);
    expect(e.message).toMatch(/install @huggingface\/transformers@3 to use embedder provider transformers/);
    expect(e.message).toMatch(/onnxruntime-node-install=skip/);
  });

  it('llama-cpp needs a GGUF path that exists', async () => {
    const fakeModule = { getLlama: async () => ({}), LlamaChatSession: class {} };
    const e = await caught(createEmbedder(loadConfig({ embedder: { provider: 'llama-cpp', modelPath: join(dir, 'missing.gguf') } }), { importer: async () => fakeModule }));
    expect(BackendConfigError.isInstance(e)).toBe(true);
    expect(e.message).toMatch(/no GGUF file at/);
  });

  // The plumbing, with a stand-in for the package (the real one is not installed here).
  const stand_in = () => {
    const calls: string[] = [];
    const module = {
      getLlama: async () => ({
        loadModel: async ({ modelPath }: { modelPath: string }) => {
          calls.push(`load ${modelPath}`);
          return {
            createEmbeddingContext: async () => ({ getEmbeddingFor: async (t: string) => ({ vector: pseudoVector(t, 6) }), dispose: async () => void calls.push('dispose ctx') }),
            createContext: async () => ({ getSequence: () => 'seq', dispose: async () => void calls.push('dispose chat ctx') }),
            dispose: async () => void calls.push('dispose model'),
          };
        },
      }),
      LlamaChatSession: class {
        constructor(readonly o: { contextSequence: unknown; systemPrompt?: string }) {
          calls.push(`session ${String(o.contextSequence)} system=${o.systemPrompt ?? ''}`);
        }
        async prompt(text: string, opts: { temperature?: number; maxTokens?: number }) {
          calls.push(`prompt t=${opts.temperature} max=${opts.maxTokens} ${text}`);
          return 'SKIP';
        }
      },
    };
    return { module, calls, importer: async (name: string) => (name === 'node-llama-cpp' ? module : Promise.reject(Object.assign(new Error(`Cannot find package '${name}'`), { code: 'ERR_MODULE_NOT_FOUND' }))) };
  };

  it('LlamaCppEmbedder loads the GGUF once, normalises vectors and ids them by file and dimension', async () => {
    const { calls, importer } = stand_in();
    const e = (await createEmbedder(loadConfig({ embedder: { provider: 'llama-cpp', modelPath: gguf } }), { importer })) as LlamaCppEmbedder;
    expect(e.id).toBe('llama-cpp:tiny-embed@6');
    const v = await e.embed(['a', '', 'b']);
    expect(norm(v[0])).toBeCloseTo(1, 5);
    expect([...v[1]].every((x) => x === 0)).toBe(true);
    expect(calls.filter((c) => c.startsWith('load'))).toHaveLength(1);
    await e.close();
    expect(calls).toContain('dispose model');
  });

  it('LlamaCppChatModel runs one prompt per call in a fresh context', async () => {
    const { calls, importer } = stand_in();
    const m = new LlamaCppChatModel({ modelPath: gguf, importer });
    expect(m.id).toBe('llama-cpp:tiny-embed');
    const out = await m.complete([{ role: 'system', content: 'SYS' }, { role: 'user', content: 'USER' }], { temperature: 0.1, maxTokens: 50 });
    expect(out).toBe('SKIP');
    expect(calls).toContain('session seq system=SYS');
    expect(calls).toContain('prompt t=0.1 max=50 USER');
    expect(calls).toContain('dispose chat ctx');
  });

  it('TransformersEmbedder uses mean pooling and a local folder with remote loading disabled', async () => {
    const env = { allowRemoteModels: true, allowLocalModels: false, localModelPath: '' };
    let asked: { model: string; options: unknown } | undefined;
    const module = {
      env,
      pipeline: async (_task: string, model: string) =>
        Object.assign(
          async (texts: string[], options: unknown) => {
            asked = { model, options };
            return { dims: [texts.length, 4], data: Float32Array.from(texts.flatMap((t) => pseudoVector(t, 4))) };
          },
          { dispose: async () => {} },
        ),
    };
    const e = new TransformersEmbedder({ modelPath: dir, batchSize: 2, importer: async (n) => (n === '@huggingface/transformers' ? module : Promise.reject(new Error('no'))) });
    await e.ready();
    expect(env.allowRemoteModels).toBe(false);
    expect(env.allowLocalModels).toBe(true);
    expect(e.dimensions).toBe(4);
    const v = await e.embed(['x', 'y', 'z']);
    expect(v.map((x) => x.length)).toEqual([4, 4, 4]);
    expect(norm(v[2])).toBeCloseTo(1, 5);
    expect(asked!.options).toEqual({ pooling: 'mean', normalize: true });
    expect(e.id.startsWith('transformers:skillsmith-gguf-')).toBe(true);
  });
});
