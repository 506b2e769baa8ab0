import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJudge } from '../src/capture/judge.js';
import { loadConfig } from '../src/config/config.js';
import { validateSkillMd } from '../src/domain/skill-md/index.js';
import { runDoctor } from '../src/doctor/doctor.js';
import { createEmbedder } from '../src/backends/from-config.js';
import type { LlamaCppEmbedder } from '../src/embedders/llama-cpp-embedder.js';
import { LlmUnavailableError } from '../src/distillers/llm-distiller.js';
import { BackendLoadError } from '../src/errors/backend-load-error.js';
import { EndpointTimeoutError } from '../src/errors/endpoint-timeout-error.js';
import { LlamaCppChatModel } from '../src/llm/llama-cpp-chat-model.js';
import { openMemory } from '../src/app/open-memory.js';
import { tempDbPath } from './support/tau.js';
import { GOOD_DRAFT, PLANTED_SECRET, returnSessions } from './fixtures/llm-cluster.js';
import { runtimeInstalled } from './support/model-runtimes.js';
import { writeTinyGguf } from './support/tiny-gguf.js';

/**
 * node-llama-cpp for real: the llama.cpp runtime from its prebuilt binary, loading GGUF files that this
 * suite writes itself (test/support/tiny-gguf.ts: scripted weights, so the answers are known). It checks the
 * plumbing (loading, chat, embeddings, the pass, doctor), not the prose.
 */
const installed = await runtimeInstalled('node-llama-cpp', 'test/llama-cpp.test.ts');

describe.skipIf(!installed)('node-llama-cpp with a generated GGUF model', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skillsmith-llama-cpp-'));
  const skip = writeTinyGguf(join(dir, 'tiny-skip.gguf'), { answer: 'SKIP' });
  const draft = writeTinyGguf(join(dir, 'tiny-drafter.gguf'), { answer: GOOD_DRAFT });
  const db = () => tempDbPath('skillsmith-llama-cpp-');
  /** A memory whose distiller is the local model, holding five successful return sessions. */
  const withLocalDistiller = async (llm: { modelPath: string; timeoutMs?: number; maxTokens?: number }) => {
    const memory = await openMemory({
      db: db(),
      config: { distiller: 'llm', llm: { provider: 'llama-cpp', ...llm }, synthesis: { cooldownMs: 0 } },
    });
    await memory.ingest(returnSessions(5));
    return memory;
  };

  describe('chat', () => {
    let model: LlamaCppChatModel;
    beforeAll(() => {
      model = new LlamaCppChatModel({ modelPath: skip.path });
    });
    afterAll(() => model.close());

    it('loads the file and answers through a chat session', async () => {
      await model.check();
      expect(model.id).toBe('llama-cpp:tiny-skip');
      const answer = await model.complete(
        [
          { role: 'system', content: 'You write skills.' },
          { role: 'user', content: 'Evidence: {"tool": "get_order_details"}' },
        ],
        { temperature: 0.1, maxTokens: 32 },
      );
      expect(answer).toBe('SKIP');
    });

    it('answers each call from a fresh context (a second call is not a continuation)', async () => {
      const again = await model.complete([{ role: 'user', content: 'again' }], { temperature: 0.1, maxTokens: 32 });
      expect(again).toBe('SKIP');
    });
  });

  describe('the synthesis pass with distiller llm, provider llama-cpp', () => {
    it('a drafted skill is verified and stored, learned by the local model', async () => {
      const memory = await withLocalDistiller({ modelPath: draft.path });
      try {
        const report = await memory.synthesize();
        expect(report.created.map((c) => c.name)).toEqual(['return-delivered-order-items']);
        const [skill] = await memory.skills.list();
        expect(validateSkillMd(skill.skillMd, { dirName: skill.name }).errors).toEqual([]);
        expect(skill.skillMd).toMatch(/learned-by: llm@2:llama-cpp:tiny-drafter/);
        expect(skill.toolSequence).toEqual([
          'find_user_id_by_email',
          'get_order_details',
          'return_delivered_order_items',
        ]);
        expect(skill.skillMd).not.toContain(PLANTED_SECRET);
      } finally {
        await memory.close();
      }
    });

    it('SKIP from the model writes nothing and the report says why', async () => {
      const memory = await withLocalDistiller({ modelPath: skip.path });
      try {
        const report = await memory.synthesize();
        expect(report.created).toEqual([]);
        expect(report.skipped.map((s) => s.reason)).toContain('distiller returned SKIP');
        expect(await memory.skills.list()).toEqual([]);
      } finally {
        await memory.close();
      }
    });

    it('a file that is not a model: the pass fails loudly and writes nothing', async () => {
      const broken = join(dir, 'broken.gguf');
      writeFileSync(broken, 'GGUF but not really'); // node-llama-cpp's own reader would spin on this one
      const memory = await withLocalDistiller({ modelPath: broken });
      try {
        const error = await memory.synthesize().then(
          () => null,
          (e: unknown) => e as Error,
        );
        expect(error?.message).toMatch(/broken\.gguf/);
        expect(await memory.skills.list()).toEqual([]);
      } finally {
        await memory.close();
      }
    });
  });

  describe('a model that never stops', () => {
    const endless = writeTinyGguf(join(dir, 'tiny-endless.gguf'), { answer: 'word', endless: true });

    it('a completion running past its timeout is stopped and reported as a timeout', async () => {
      const model = new LlamaCppChatModel({ modelPath: endless.path, timeoutMs: 100 });
      try {
        await model.check();
        const error = await model
          .complete([{ role: 'user', content: 'go on' }], { temperature: 0.1, maxTokens: 100_000 })
          .then(
            () => null,
            (e: unknown) => e as Error,
          );
        expect(EndpointTimeoutError.isInstance(error)).toBe(true);
        expect(error!.message).toBe(`${endless.path} did not answer within 100 ms (timeout)`);
      } finally {
        await model.close();
      }
    });

    it('in a pass, llm.timeoutMs stops it: the pass is skipped with what to change, nothing written', async () => {
      const memory = await withLocalDistiller({ modelPath: endless.path, timeoutMs: 100, maxTokens: 100_000 });
      try {
        const error = await memory.synthesize().then(
          () => null,
          (e: unknown) => e as Error,
        );
        expect(LlmUnavailableError.isInstance(error)).toBe(true);
        expect(error!.message).toMatch(/llm\.timeoutMs \(100 ms\): raise it/);
        expect(await memory.skills.list()).toEqual([]);
      } finally {
        await memory.close();
      }
    });
  });

  describe('the outcome judge on a local model (llm.provider llama-cpp)', () => {
    const input = {
      goal: 'Return the headphones from order #W1001',
      calls: [
        {
          tool: 'return_delivered_order_items',
          args: { order_id: '#W1001' },
          result: '{"status": "return requested"}',
          ok: true,
          error: null,
        },
      ],
      finalAnswer: 'Your return is requested.',
    };

    it('gives the model verdict, also to judgements asked at once', async () => {
      const verdict = writeTinyGguf(join(dir, 'tiny-judge.gguf'), { answer: 'SUCCESS\nThe return was requested.' });
      const judge = createJudge({ mode: 'llm' }, { provider: 'llama-cpp', modelPath: verdict.path });
      try {
        const results = await Promise.all([judge.judge(input), judge.judge(input), judge.judge(input)]);
        for (const r of results)
          expect(r).toEqual({
            outcome: 'success',
            judge: 'llm:llama-cpp:tiny-judge',
            reason: 'The return was requested.',
          });
      } finally {
        await judge.close?.();
      }
    });

    it('without llm.modelPath it says what to set', () => {
      expect(() => createJudge({ mode: 'llm' }, { provider: 'llama-cpp' })).toThrow(/llm\.modelPath is not set/);
    });
  });

  describe('embeddings', () => {
    let embedder: LlamaCppEmbedder;
    beforeAll(async () => {
      embedder = (await createEmbedder(
        loadConfig({ embedder: { provider: 'llama-cpp', modelPath: skip.path } }),
      )) as LlamaCppEmbedder;
    });
    afterAll(() => embedder.close());

    it('learns the dimension from the model and ids vectors by file and dimension', () => {
      expect(embedder.dimensions).toBe(skip.dimensions);
      expect(embedder.id).toBe(`llama-cpp:tiny-skip@${skip.dimensions}`);
    });

    it('returns unit vectors, the same for the same text, different for different texts', async () => {
      const [a, b, a2, empty] = await embedder.embed([
        'return my headphones',
        'upgrade my data plan',
        'return my headphones',
        '',
      ]);
      expect(norm(a)).toBeCloseTo(1, 5);
      expect(norm(b)).toBeCloseTo(1, 5);
      expect([...a2]).toEqual([...a]);
      expect(cosine(a, b)).toBeLessThan(0.9999);
      expect([...empty].every((x) => x === 0)).toBe(true);
    });

    it('a pass with this embedder stores its id with every skill, and recall uses it', async () => {
      const memory = await openMemory({
        db: db(),
        config: { embedder: { provider: 'llama-cpp', modelPath: skip.path }, synthesis: { cooldownMs: 0 } },
      });
      try {
        await memory.ingest(returnSessions(5));
        const report = await memory.synthesize();
        expect(report.created).toHaveLength(1);
        const [skill] = await memory.skills.list();
        expect(skill.embedderId).toBe(embedder.id);
        expect(skill.embedding?.length).toBe(skip.dimensions);
        const recalled = await memory.recall('Please return the delivered keyboard from order #W1003');
        expect(recalled.map((s) => s.name)).toContain(skill.name);
      } finally {
        await memory.close();
      }
    });
  });

  describe('skillsmith doctor', () => {
    it('reports a configured GGUF chat model and embedder as ready, with the dimension', async () => {
      const report = await runDoctor(
        loadConfig({
          distiller: 'llm',
          llm: { provider: 'llama-cpp', modelPath: draft.path },
          embedder: { provider: 'llama-cpp', modelPath: skip.path },
        }),
      );
      expect(report.checks.filter((c) => c.status === 'fail')).toEqual([]);
      expect(report.ok).toBe(true);
      expect(JSON.stringify(report.checks.filter((c) => c.backend === 'embedder'))).toContain(`${skip.dimensions}`);
    });

    it('names a GGUF file that does not load and exits non-zero', async () => {
      const broken = join(dir, 'not-a-model.gguf');
      writeFileSync(broken, 'GGUF');
      const report = await runDoctor(loadConfig({ embedder: { provider: 'llama-cpp', modelPath: broken } }));
      expect(report.ok).toBe(false);
      const failed = report.checks.filter((c) => c.status === 'fail');
      expect(failed.map((c) => c.message).join('\n')).toMatch(/not-a-model\.gguf/);
    });
  });

  it('the load error is a BackendLoadError that names the step', async () => {
    const broken = join(dir, 'garbage.gguf');
    writeFileSync(broken, Buffer.alloc(64, 7));
    const model = new LlamaCppChatModel({ modelPath: broken });
    const error = await model.check().then(
      () => null,
      (e: unknown) => e,
    );
    expect(BackendLoadError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/cannot load .*garbage\.gguf/);
  });
});

const norm = (v: Float32Array) => Math.hypot(...v);
function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot / (norm(a) * norm(b));
}

describe('LlamaCppChatModel, with a stand-in runtime that records overlap', () => {
  it('runs one completion at a time: concurrent callers queue', async () => {
    const path = writeTinyGguf(join(mkdtempSync(join(tmpdir(), 'skillsmith-llama-queue-')), 'queue.gguf'), {
      answer: 'unused',
    }).path;
    let active = 0;
    let most = 0;
    const module = {
      getLlama: async () => ({
        loadModel: async () => ({
          createContext: async () => ({ getSequence: () => 'sequence', dispose: async () => {} }),
          createEmbeddingContext: async () => {
            throw new Error('not used here');
          },
        }),
      }),
      LlamaChatSession: class {
        async prompt(text: string) {
          active++;
          most = Math.max(most, active);
          await new Promise((resolve) => setTimeout(resolve, 20));
          active--;
          return `answer to ${text}`;
        }
      },
    };
    const model = new LlamaCppChatModel({ modelPath: path, importer: async () => module });
    const answers = await Promise.all(
      ['a', 'b', 'c'].map((q) => model.complete([{ role: 'user', content: q }], { temperature: 0, maxTokens: 8 })),
    );
    expect(answers).toEqual(['answer to a', 'answer to b', 'answer to c']);
    expect(most).toBe(1);
  });
});
