import { basename } from 'node:path';
import type { Embedder, EmbedderThresholds } from './embedder.js';
import { l2normalize } from './openai-embedder.js';
import { EmbedderNotReadyError } from '../errors/embedder-not-ready-error.js';
import { EmbeddingDimensionError } from '../errors/embedding-dimension-error.js';
import { loadLlamaModel, type LlamaEmbeddingContextLike, type LlamaModelLike } from '../model-clients/llama-cpp.js';
import { canonicalModelName, knownEmbeddingModel, thresholdsForModel } from '../model-clients/models.js';
import type { ModuleImporter } from '../model-clients/optional-import.js';

export interface LlamaCppEmbedderOptions {
  /** Path of a local GGUF embedding model (e.g. nomic-embed-text-v1.5.Q8_0.gguf). */
  modelPath: string;
  thresholds?: Partial<EmbedderThresholds>;
  importer?: ModuleImporter;
}

/**
 * Sentence embeddings from a local GGUF model through node-llama-cpp (3.21.1, an optional dependency loaded
 * on demand; without it: "install node-llama-cpp@3.21.1 to use provider llama-cpp"). Vectors are
 * L2-normalised; id `llama-cpp:<file name>@<dimensions>`. `await ready()` loads the model and learns the
 * dimension (createEmbedder does).
 */
export class LlamaCppEmbedder implements Embedder {
  readonly thresholds: EmbedderThresholds;
  readonly calibrated: boolean;
  readonly thresholdSource: string;
  readonly modelName: string;
  private dims: number | undefined;
  private loaded: Promise<{ model: LlamaModelLike; context: LlamaEmbeddingContextLike }> | null = null;

  constructor(private readonly opts: LlamaCppEmbedderOptions) {
    this.modelName = basename(opts.modelPath).replace(/\.gguf$/i, '');
    this.dims = knownEmbeddingModel(this.modelName)?.dimensions;
    const defaults = thresholdsForModel(this.modelName);
    this.thresholds = Object.freeze({ ...defaults.thresholds, ...(opts.thresholds ?? {}) });
    this.calibrated = defaults.calibrated || !!opts.thresholds;
    this.thresholdSource = opts.thresholds ? 'configuration' : defaults.source;
  }

  get id(): string {
    return `llama-cpp:${canonicalModelName(this.modelName)}@${this.dimensions}`;
  }

  get dimensions(): number {
    if (this.dims === undefined) throw new EmbedderNotReadyError(`llama-cpp embedder ${this.modelName}`);
    return this.dims;
  }

  get endpoint(): string {
    return this.opts.modelPath;
  }

  async ready(): Promise<this> {
    await this.load();
    if (this.dims === undefined) await this.embed(['dimension probe']);
    return this;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = new Array(texts.length);
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i];
      if (typeof text !== 'string' || text.trim() === '') continue;
      const { context } = await this.load();
      const { vector } = await context.getEmbeddingFor(text);
      if (this.dims === undefined) this.dims = vector.length;
      else if (vector.length !== this.dims)
        throw new EmbeddingDimensionError(`llama-cpp embedder ${this.modelName}`, this.dims, vector.length);
      out[i] = l2normalize(vector, `llama-cpp embedder ${this.modelName}`);
    }
    for (let i = 0; i < texts.length; i++) out[i] ??= new Float32Array(this.dimensions);
    return out;
  }

  async close(): Promise<void> {
    const loaded = this.loaded;
    this.loaded = null;
    const l = loaded ? await loaded.catch(() => null) : null;
    await l?.context.dispose?.();
    await l?.model.dispose?.();
  }

  private load() {
    this.loaded ??= (async () => {
      const { model } = await loadLlamaModel({
        modelPath: this.opts.modelPath,
        importer: this.opts.importer,
        usedBy: 'provider llama-cpp',
      });
      return { model, context: await model.createEmbeddingContext() };
    })().catch((e) => {
      this.loaded = null;
      throw e;
    });
    return this.loaded;
  }
}
