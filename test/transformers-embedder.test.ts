import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import { runDoctor, type DoctorReport } from '../src/doctor/doctor.js';
import { createEmbedder, type ReadyableEmbedder } from '../src/backends/from-config.js';
import { loadGloveTable } from '../src/embedders/glove/glove-table.js';
import {
  loadTransformers,
  TransformersEmbedder,
  type TransformersModule,
} from '../src/embedders/transformers-embedder.js';
import { BackendConfigError, BackendLoadError } from '../src/errors/index.js';
import { openMemory } from '../src/app/open-memory.js';
import { readTau, TAU_DEV, toSession } from './support/tau.js';
import { writeGloveOnnxModel } from './support/glove-onnx-model.js';
import { runtimeInstalled } from './support/model-runtimes.js';

/**
 * The transformers embedder against the real transformers.js and onnxruntime-node, no stand-ins. The model is
 * generated here (test/support/glove-onnx-model.ts): the project's GloVe vectors exported to ONNX as a
 * one-Gather "encoder" with a WordPiece tokenizer, so nothing is downloaded. transformers.js mean-pools and
 * normalises its output, which makes a text's vector the normalised mean of its words' GloVe vectors.
 */
const PACKAGE = '@huggingface/transformers';
const installed = await runtimeInstalled(PACKAGE, 'test/transformers-embedder.test.ts');

const WORDS = 20_000;
const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
const norm = (v: ArrayLike<number>) => Math.sqrt(cosine(v, v));
const find = (r: DoctorReport, backend: string, check: string) =>
  r.checks.filter((c) => c.backend === backend && c.check === check);

/** What the generated model computes, from the GloVe table directly: BERT pre-tokenisation, whole words only. */
function gloveMean(text: string, words = WORDS): Float32Array {
  const table = loadGloveTable();
  const sum = new Float64Array(table.dims);
  const punctuation = '\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E';
  for (const token of text.toLowerCase().match(new RegExp(`[^\\s${punctuation}]+|[${punctuation}]`, 'gu')) ?? []) {
    const row = table.rowOf(token);
    if (row < 0 || row >= words) continue; // [UNK]: a zero vector
    for (let d = 0; d < table.dims; d++) sum[d] += table.scales[row] * table.row(row)[d];
  }
  const n = norm(sum);
  return Float32Array.from(sum, (x) => x / n);
}

describe.skipIf(!installed)(
  `TransformersEmbedder with real transformers.js on a local ONNX model${installed ? '' : ` (skipped: ${PACKAGE} is not installed)`}`,
  () => {
    let dir: string;
    let folder: string;
    let transformers: TransformersModule;
    let embedder: TransformersEmbedder;
    const opened: { close?(): Promise<void> }[] = [];

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'skillsmith-transformers-'));
      const model = writeGloveOnnxModel(dir, { words: WORDS });
      expect(model).toMatchObject({ dimensions: 100, words: WORDS });
      folder = model.folder;
      transformers = await loadTransformers();
      embedder = new TransformersEmbedder({ modelPath: folder, batchSize: 8 });
      opened.push(embedder);
      await embedder.ready();
    });
    afterEach(() => {
      vi.restoreAllMocks();
    });
    afterAll(async () => {
      for (const e of opened) await e.close?.();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('loads the local folder with downloads disabled and learns the dimension', () => {
      expect(embedder.dimensions).toBe(100);
      expect(embedder.id).toBe(`transformers:${basename(folder)}@100`);
      expect(embedder.id).toBe('transformers:glove-onnx@100');
      expect(embedder.endpoint).toBe(folder);
      // Not a model it knows: generic, uncalibrated thresholds.
      expect(embedder.calibrated).toBe(false);
    });

    it('gives unit vectors, the same on every call, and a zero vector for an empty text', async () => {
      const texts = ['Cancel my pending order please', 'Where is my package?', '', '   '];
      const first = await embedder.embed(texts);
      const again = await embedder.embed(texts);
      expect(first.map((v) => v.length)).toEqual([100, 100, 100, 100]);
      expect(norm(first[0])).toBeCloseTo(1, 5);
      expect(norm(first[1])).toBeCloseTo(1, 5);
      expect([...first[2], ...first[3]].every((x) => x === 0)).toBe(true);
      expect(again).toEqual(first);
      expect(cosine(first[0], first[1])).toBeLessThan(0.999);
    });

    it('embeds a batch larger than batchSize exactly as one text at a time (padding does not leak in)', async () => {
      const goals = readTau(TAU_DEV)
        .slice(0, 19)
        .map((r) => r.goal);
      goals.splice(5, 0, 'refund'); // a one-word text padded to the longest goal of its batch
      const batched = await embedder.embed(goals);
      for (let i = 0; i < goals.length; i++) {
        const [alone] = await embedder.embed([goals[i]]);
        for (let d = 0; d < 100; d++) expect(batched[i][d]).toBeCloseTo(alone[d], 6);
      }
    });

    it('is a real sentence embedder: its vector is the normalised mean of the GloVe vectors of the words', async () => {
      const [refund, returned, plan] = await embedder.embed([
        'I want to return my order and get a refund',
        'refund for the returned purchase',
        'upgrade my mobile data plan',
      ]);
      expect(cosine(refund, returned)).toBeGreaterThan(cosine(refund, plan));
      for (const [text, vector] of [
        ['I want to return my order and get a refund', refund],
        ['upgrade my mobile data plan', plan],
        [
          'Exchange the BLUE t-shirt (size M) for a red one, thanks!',
          (await embedder.embed(['Exchange the BLUE t-shirt (size M) for a red one, thanks!']))[0],
        ],
      ] as const) {
        expect(cosine(vector, gloveMean(text))).toBeGreaterThan(0.99999);
      }
    });

    it('gives a zero vector, not NaN, for a text with no known word (the model gives a zero mean there)', async () => {
      // This model gives [UNK] a zero row; transformers.js's own normalize would divide 0 by 0.
      const [v] = await embedder.embed(['qwxzv blorfle']);
      expect(v).toHaveLength(100);
      expect([...v].every((x) => x === 0)).toBe(true);
    });

    it('loads a folder whose name is not a valid Hub repo id (spaces, "--")', async () => {
      const other = mkdtempSync(join(dir, 'odd-'));
      const odd = writeGloveOnnxModel(other, { words: 10_000, name: 'My GloVe--model (copy)' });
      const e = new TransformersEmbedder({ modelPath: odd.folder, batchSize: 4 });
      opened.push(e);
      await e.ready();
      expect(e.id).toBe('transformers:my glove--model (copy)@100');
      // Its own (smaller) vocabulary: "refund" is GloVe row 15,939, outside the first 10,000 words.
      const [v] = await e.embed(['refund for the returned purchase']);
      expect(cosine(v, gloveMean('refund for the returned purchase', 10_000))).toBeGreaterThan(0.99999);
      expect(cosine(v, gloveMean('refund for the returned purchase'))).toBeLessThan(0.999);
    });

    it('close() releases the model; the next call loads it again', async () => {
      const e = new TransformersEmbedder({ modelPath: folder, batchSize: 8 });
      opened.push(e);
      const [before] = await e.embed(['change the shipping address']);
      await e.close();
      await e.close(); // twice is harmless
      const [after] = await e.embed(['change the shipping address']);
      expect(after).toEqual(before);
    });

    it('a local folder loads with downloads off, and the process-wide transformers.js settings are put back', async () => {
      transformers.env.allowRemoteModels = true; // as in a fresh process
      const fetchSpy = vi.spyOn(globalThis, 'fetch').mockRejectedValue(new Error('network used'));
      const e = new TransformersEmbedder({ modelPath: folder, batchSize: 4 });
      opened.push(e);
      await e.ready();
      expect(e.dimensions).toBe(100);
      // A folder missing a file is an error naming it, not a download of the file from the hub.
      const partial = join(dir, 'partial');
      cpSync(folder, partial, { recursive: true });
      rmSync(join(partial, 'tokenizer.json'));
      const error = await new TransformersEmbedder({ modelPath: partial, batchSize: 4 }).ready().then(
        () => null,
        (err: unknown) => err as Error,
      );
      expect(BackendLoadError.isInstance(error)).toBe(true);
      expect(error!.message).toMatch(/downloads are off/);
      expect(error!.message).toMatch(/tokenizer\.json/);
      expect(fetchSpy).not.toHaveBeenCalled();
      // A later hub-id embedder in this process may still download.
      expect(transformers.env.allowRemoteModels).toBe(true);
      transformers.env.allowRemoteModels = false;
    });

    it('with offline: true a hub id fails at once with BackendLoadError, without any network request', async () => {
      transformers.env.allowRemoteModels = true; // as in a fresh process: the offline flag alone must stop downloads
      const fetchSpy = vi.spyOn(globalThis, 'fetch').mockRejectedValue(new Error('network used'));
      try {
        const e = new TransformersEmbedder({ model: 'nobody/not-a-model', batchSize: 1, offline: true });
        const error = await e.ready().then(
          () => null,
          (err: unknown) => err,
        );
        expect(BackendLoadError.isInstance(error)).toBe(true);
        expect((error as Error).message).toMatch(/cannot load model nobody\/not-a-model/);
        expect((error as Error).message).toMatch(/allowRemoteModels=false/);
        expect(fetchSpy).not.toHaveBeenCalled();
        expect(transformers.env.allowRemoteModels).toBe(true); // put back for whoever loads next
      } finally {
        transformers.env.allowRemoteModels = false;
      }
    });

    it('a missing folder is a BackendConfigError naming embedder.modelPath', async () => {
      const missing = join(dir, 'no-such-model');
      const error = await new TransformersEmbedder({ modelPath: missing, batchSize: 1 }).ready().then(
        () => null,
        (err: unknown) => err,
      );
      expect(BackendConfigError.isInstance(error)).toBe(true);
      expect((error as BackendConfigError).key).toBe('embedder.modelPath');
      expect((error as Error).message).toContain(missing);
    });

    it('end to end from the configuration: createEmbedder and the doctor', async () => {
      const config = loadConfig({ embedder: { provider: 'transformers', modelPath: folder } });
      const e: ReadyableEmbedder = await createEmbedder(config);
      opened.push(e);
      expect(e.id).toBe('transformers:glove-onnx@100');
      expect(e.dimensions).toBe(100);
      expect(norm((await e.embed(['cancel my order']))[0])).toBeCloseTo(1, 5);

      const r = await runDoctor(config);
      expect(r.checks.filter((c) => c.status === 'fail')).toEqual([]);
      expect(r.ok).toBe(true);
      expect(find(r, 'embedder', 'package')[0].status).toBe('ok');
      expect(find(r, 'embedder', 'config')[0]).toMatchObject({
        status: 'ok',
        message: `embedder.modelPath ${folder} exists`,
      });
      expect(find(r, 'embedder', 'round-trip')[0]).toMatchObject({
        status: 'ok',
        details: { id: 'transformers:glove-onnx@100', dimensions: 100 },
      });
      expect(find(r, 'embedder', 'dimension')[0]).toMatchObject({ status: 'ok', message: '100 dimensions' });
      // Uncalibrated model: a warning that says so, not a failure.
      expect(find(r, 'embedder', 'thresholds')[0]).toMatchObject({ status: 'warn' });
      expect(r.embedder).toMatchObject({
        provider: 'transformers',
        endpoint: folder,
        id: 'transformers:glove-onnx@100',
        dimensions: 100,
      });
    });

    it('a learning pass on real retail traces stores skills under the transformers embedder id, and recall serves them', async () => {
      const records = readTau(TAU_DEV).filter((r) => r.meta.family.startsWith('retail:'));
      expect(records.length).toBeGreaterThan(40);
      // Mean word vectors put every tau goal at cosine 0.95-0.99 of every other, so the generic defaults
      // (cluster 0.8, sameGoalThreshold 0.92) merge all 60 sessions into one cluster: the goal text cannot
      // separate tasks here, the tool sequences must. Values found on this slice; not a calibration.
      const memory = await openMemory({
        db: join(dir, 'memory.db'), // removed with the model folder
        logLevel: 'silent',
        auditFile: null,
        config: {
          embedder: { provider: 'transformers', modelPath: folder },
          thresholds: { cluster: 0.85, recall: 0.85, duplicate: 0.99 },
          synthesis: { cooldownMs: 0, sameGoalThreshold: 1 },
        },
      });
      try {
        expect(memory.parts.embedder.id).toBe('transformers:glove-onnx@100');
        await memory.ingest(records.map((r) => toSession(r)));
        const report = await memory.synthesize();
        expect(report.stats.newSessions).toBe(records.length);
        expect(report.created.length).toBeGreaterThanOrEqual(2);

        const skills = await memory.skills.list();
        expect(skills.length).toBeGreaterThanOrEqual(2);
        for (const s of skills) {
          expect(s.embedderId).toBe('transformers:glove-onnx@100');
          expect(s.embedding).toHaveLength(100);
          expect(norm(s.embedding!)).toBeCloseTo(1, 4);
        }
        // The tasks were told apart: one skill per kind of change, each built around its own write tool.
        const returns = skills.find((s) => s.toolsRequired.includes('return_delivered_order_items'));
        const exchanges = skills.find((s) => s.toolsRequired.includes('exchange_delivered_order_items'));
        expect(returns).toBeDefined();
        expect(exchanges).toBeDefined();
        expect(returns!.id).not.toBe(exchanges!.id);

        // Recall of a goal the return skill was learned from serves it.
        const byId = new Map(records.map((r) => [r.session_id, r]));
        const goal = byId.get(returns!.sourceSessions[0])!.goal;
        const hits = await memory.recall(goal, { record: false });
        expect(hits.length).toBeGreaterThan(0);
        expect(hits.map((h) => h.id)).toContain(returns!.id);

        // The doctor agrees that the stored vectors come from the configured embedder.
        const r = await runDoctor(loadConfig({ embedder: { provider: 'transformers', modelPath: folder } }), {
          store: memory.parts.store!,
          namespace: 'default',
        });
        expect(find(r, 'store', 'stored-vectors')[0]).toMatchObject({ status: 'ok' });
        expect(find(r, 'store', 'stored-vectors')[0].message).toContain('transformers:glove-onnx@100');
      } finally {
        await memory.close();
      }
    });
  },
);
