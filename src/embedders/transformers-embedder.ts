import { existsSync, statSync } from 'node:fs';
import { basename, dirname, resolve, sep } from 'node:path';
import type { Embedder, EmbedderThresholds } from './embedder.js';
import { l2normalize } from './openai-embedder.js';
import { BackendConfigError } from '../errors/backend-config-error.js';
import { BackendLoadError } from '../errors/backend-load-error.js';
import { EmbedderNotReadyError } from '../errors/embedder-not-ready-error.js';
import { EmbeddingDimensionError } from '../errors/embedding-dimension-error.js';
import { MissingOptionalDependencyError } from '../errors/missing-optional-dependency-error.js';
import { canonicalModelName, knownEmbeddingModel, thresholdsForModel } from '../model-clients/models.js';
import { importOptional, OPTIONAL_PACKAGES, type ModuleImporter } from '../model-clients/optional-import.js';

/** The part of transformers.js (v3 `@huggingface/transformers`, or v2 `@xenova/transformers`) used here. */
export interface TransformersModule {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean; localModelPath: string; version?: string };
  pipeline(task: 'feature-extraction', model: string, options?: Record<string, unknown>): Promise<FeatureExtractor>;
}
type FeatureExtractor = ((texts: string[], options: { pooling: 'mean'; normalize: boolean }) => Promise<Tensor>) & {
  dispose?(): Promise<void>;
};
interface Tensor {
  dims: number[];
  data: ArrayLike<number>;
}

export interface TransformersEmbedderOptions {
  /** A hub model id (e.g. `Xenova/all-MiniLM-L6-v2`), fetched by transformers.js unless remote loading is off. */
  model?: string;
  /** A local model folder (config.json, tokenizer files, onnx/model.onnx): remote loading is then disabled. */
  modelPath?: string;
  batchSize: number;
  thresholds?: Partial<EmbedderThresholds>;
  /** Forbid downloads even for a hub id (also when HF_HUB_OFFLINE=1). */
  offline?: boolean;
  importer?: ModuleImporter;
}

/**
 * Sentence embeddings in process with transformers.js (an optional dependency loaded on demand): mean
 * pooling, L2-normalised. On machines like these set `onnxruntime-node-install=skip` and
 * `onnxruntime-node-install-cuda=skip` in `.npmrc` before installing it (SPEC "Back ends").
 * Id `transformers:<model>@<dimensions>`; `await ready()` loads the model and learns the dimension.
 */
export class TransformersEmbedder implements Embedder {
  readonly thresholds: EmbedderThresholds;
  readonly calibrated: boolean;
  readonly thresholdSource: string;
  readonly modelName: string;
  private dims: number | undefined;
  private extractor: Promise<FeatureExtractor> | null = null;

  constructor(private readonly opts: TransformersEmbedderOptions) {
    if (!opts.model && !opts.modelPath)
      throw new BackendConfigError(
        'embedder.model',
        'provider transformers needs embedder.model (a model id) or embedder.modelPath (a local model folder)',
      );
    this.modelName = opts.modelPath ? basename(resolve(opts.modelPath)) : opts.model!;
    this.dims = knownEmbeddingModel(this.modelName)?.dimensions;
    const defaults = thresholdsForModel(this.modelName);
    this.thresholds = Object.freeze({ ...defaults.thresholds, ...(opts.thresholds ?? {}) });
    this.calibrated = defaults.calibrated || !!opts.thresholds;
    this.thresholdSource = opts.thresholds ? 'configuration' : defaults.source;
  }

  get id(): string {
    return `transformers:${canonicalModelName(this.modelName)}@${this.dimensions}`;
  }

  get dimensions(): number {
    if (this.dims === undefined) throw new EmbedderNotReadyError(`transformers embedder ${this.modelName}`);
    return this.dims;
  }

  get endpoint(): string {
    return this.opts.modelPath ? resolve(this.opts.modelPath) : this.opts.model!;
  }

  /** Loads the package and the model and learns the dimension. */
  async ready(): Promise<this> {
    await this.load();
    if (this.dims === undefined) await this.embed(['dimension probe']);
    return this;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = new Array(texts.length);
    const pending = texts.map((t, i) => (typeof t === 'string' && t.trim() !== '' ? i : -1)).filter((i) => i >= 0);
    if (pending.length) {
      const extractor = await this.load();
      const size = Math.max(1, Math.floor(this.opts.batchSize));
      for (let start = 0; start < pending.length; start += size) {
        const batch = pending.slice(start, start + size);
        // Normalised here, not by transformers.js: its normalize divides 0 by 0 when a text's mean is zero.
        const tensor = await extractor(
          batch.map((i) => texts[i]),
          { pooling: 'mean', normalize: false },
        );
        const [rows, width] =
          tensor.dims.length === 2 ? tensor.dims : [batch.length, tensor.data.length / batch.length];
        if (rows !== batch.length || !Number.isInteger(width))
          throw new BackendLoadError(
            'transformers.js',
            `unexpected output shape [${tensor.dims.join(', ')}] for ${batch.length} texts`,
          );
        if (this.dims === undefined) this.dims = width;
        else if (width !== this.dims)
          throw new EmbeddingDimensionError(`transformers embedder ${this.modelName}`, this.dims, width);
        batch.forEach((index, k) => {
          out[index] = l2normalize(
            Array.prototype.slice.call(tensor.data, k * width, (k + 1) * width) as number[],
            `transformers embedder ${this.modelName}`,
          );
        });
      }
    }
    if (pending.length < texts.length)
      for (let i = 0; i < texts.length; i++) out[i] ??= new Float32Array(this.dimensions);
    return out;
  }

  async close(): Promise<void> {
    const e = this.extractor;
    this.extractor = null;
    if (e) await (await e.catch(() => null))?.dispose?.();
  }

  private load(): Promise<FeatureExtractor> {
    this.extractor ??= this.open().catch((e) => {
      this.extractor = null;
      throw e;
    });
    return this.extractor;
  }

  private async open(): Promise<FeatureExtractor> {
    const mod = await loadTransformers(this.opts.importer);
    const { env } = mod;
    // transformers.js settings are process-wide: set them for this load only, then put them back, so that
    // this embedder's choices (a local folder, no downloads) do not leak into another one's.
    const saved = {
      allowLocalModels: env.allowLocalModels,
      allowRemoteModels: env.allowRemoteModels,
      localModelPath: env.localModelPath,
    };
    let model: string;
    if (this.opts.modelPath) {
      const folder = resolve(this.opts.modelPath);
      if (!existsSync(folder) || !statSync(folder).isDirectory())
        throw new BackendConfigError('embedder.modelPath', `embedder.modelPath: no model folder at ${folder}`);
      env.allowLocalModels = true;
      env.allowRemoteModels = false;
      // v2 always looks under localModelPath. v3 does only for names that are valid Hub repo ids: any other
      // name ("my model", "a--b") is read relative to the working directory, and a valid one is first looked
      // up in its download cache under that bare name. An absolute path is read as is by v3.
      if (env.version?.startsWith('2.')) {
        env.localModelPath = dirname(folder) + sep;
        model = basename(folder);
      } else model = folder;
    } else {
      model = this.opts.model!;
      if (this.opts.offline || process.env.HF_HUB_OFFLINE === '1') env.allowRemoteModels = false;
    }
    try {
      return await mod.pipeline('feature-extraction', model);
    } catch (e) {
      const hint = env.allowRemoteModels ? '' : ' (downloads are off: a local folder, offline, or HF_HUB_OFFLINE=1)';
      throw new BackendLoadError(
        'transformers.js',
        `cannot load model ${this.endpoint}${hint}: ${(e as Error)?.message ?? e}`,
        { cause: e },
      );
    } finally {
      Object.assign(env, saved);
    }
  }
}

/** `@huggingface/transformers` (v3), else `@xenova/transformers` (v2), else an actionable error. */
export async function loadTransformers(importer?: ModuleImporter): Promise<TransformersModule> {
  try {
    return await importOptional<TransformersModule>(
      OPTIONAL_PACKAGES.transformers,
      'embedder provider transformers',
      importer,
    );
  } catch (e) {
    if (!MissingOptionalDependencyError.isInstance(e)) throw e;
    try {
      return await importOptional<TransformersModule>(
        { name: '@xenova/transformers', install: '@xenova/transformers@2' },
        'embedder provider transformers',
        importer,
      );
    } catch (e2) {
      if (MissingOptionalDependencyError.isInstance(e2)) throw e; // report the current package name
      throw e2;
    }
  }
}
