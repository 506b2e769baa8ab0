import { redactCapture } from '../domain/redact.js';
import type { Embedder, EmbedderThresholds } from './embedder.js';
import { EmbedderNotReadyError } from '../errors/embedder-not-ready-error.js';
import { EmbeddingDimensionError } from '../errors/embedding-dimension-error.js';
import { MalformedResponseError } from '../errors/malformed-response-error.js';
import { canonicalModelName, knownEmbeddingModel, thresholdsForModel } from '../model-clients/models.js';
import type { OpenAiClient } from '../model-clients/openai-client.js';

export interface OpenAiEmbedderOptions {
  client: OpenAiClient;
  /** e.g. `nomic-embed-text` (Ollama), `text-embedding-3-small` (OpenAI). */
  model: string;
  /** Texts per request (config `embedder.batchSize`). */
  batchSize: number;
  /** The vector length when known in advance; otherwise taken from the built-in table or the first answer. */
  dimensions?: number;
  /**
   * The vector length to ask for (config `embedder.dimensions`): sent as the request's `dimensions` field, which
   * text-embedding-3 and Matryoshka models honour by shortening their vectors. Every answer must have it.
   */
  requestDimensions?: number;
  /** Overrides of the per-model defaults (see model-clients/models.ts). */
  thresholds?: Partial<EmbedderThresholds>;
}

/**
 * Sentence embeddings from an OpenAI-compatible `/v1/embeddings` endpoint (Ollama with nomic-embed-text,
 * llama.cpp server, vLLM, LM Studio, OpenAI). Batches of `batchSize`, vectors L2-normalised, empty texts
 * answered with the zero vector without a request. Secrets and personal data are redacted from every text before
 * it is sent (`redactCapture`). The id is `openai:<model>@<dimensions>`, so vectors of
 * another model or size (`embedder.dimensions` changed) are never compared with these. The dimension comes from the built-in table of common
 * models, or from the first answer: call `await ready()` (createEmbedder does) before reading `id`.
 * Every later answer is checked against it (EmbeddingDimensionError).
 */
export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  readonly thresholds: EmbedderThresholds;
  /** Whether the thresholds were calibrated for this model (false: generic starting point). */
  readonly calibrated: boolean;
  readonly thresholdSource: string;
  private dims: number | undefined;
  readonly client: OpenAiClient;
  private readonly batchSize: number;
  private readonly requested: number | undefined;

  constructor(opts: OpenAiEmbedderOptions) {
    if (!opts.model) throw new TypeError('OpenAiEmbedder: model is required');
    this.client = opts.client;
    this.model = opts.model;
    this.batchSize = Math.max(1, Math.floor(opts.batchSize));
    if (
      opts.requestDimensions !== undefined &&
      !(Number.isInteger(opts.requestDimensions) && opts.requestDimensions > 0)
    )
      throw new TypeError(
        `OpenAiEmbedder: requestDimensions must be a positive integer, got ${opts.requestDimensions}`,
      );
    this.requested = opts.requestDimensions;
    this.dims = opts.requestDimensions ?? opts.dimensions ?? knownEmbeddingModel(opts.model)?.dimensions;
    const defaults = thresholdsForModel(opts.model, opts.requestDimensions);
    this.thresholds = Object.freeze({ ...defaults.thresholds, ...(opts.thresholds ?? {}) });
    this.calibrated = defaults.calibrated || !!opts.thresholds;
    this.thresholdSource = opts.thresholds ? 'configuration' : defaults.source;
  }

  get id(): string {
    return `openai:${canonicalModelName(this.model)}@${this.dimensions}`;
  }

  get dimensions(): number {
    if (this.dims === undefined) throw new EmbedderNotReadyError(`openai embedder ${this.model}`);
    return this.dims;
  }

  /** Whether the dimension is known (from the table, the options or an answer). */
  get isReady(): boolean {
    return this.dims !== undefined;
  }

  get endpoint(): string {
    return this.client.endpoint;
  }

  /** Learns the dimension with one tiny request when it is not known yet. */
  async ready(): Promise<this> {
    if (this.dims === undefined) await this.embed(['dimension probe']);
    return this;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = new Array(texts.length);
    const pending: number[] = [];
    texts.forEach((t, i) => {
      if (typeof t === 'string' && t.trim() !== '') pending.push(i);
    });
    for (let start = 0; start < pending.length; start += this.batchSize) {
      const batch = pending.slice(start, start + this.batchSize);
      // The text leaves the process (a model server, maybe a cloud one): its secrets and personal data do not.
      // Goals a library caller stored whole, and every recall query (a hook sends each prompt), pass through here.
      const input = batch.map((i) => redactCapture(texts[i]));
      const { vectors } = await this.client.embeddings({ model: this.model, input, dimensions: this.requested });
      vectors.forEach((v, k) => {
        this.checkDimensions(v.length);
        out[batch[k]] = l2normalize(v, this.client.endpoint);
      });
    }
    if (pending.length < texts.length) {
      const size = this.dimensions; // known by now unless every text was empty and no dimension is known
      for (let i = 0; i < texts.length; i++) out[i] ??= new Float32Array(size);
    }
    return out;
  }

  private checkDimensions(length: number) {
    if (this.dims === undefined) this.dims = length;
    else if (length !== this.dims)
      throw new EmbeddingDimensionError(
        `openai embedder ${this.model} at ${this.client.endpoint}`,
        this.dims,
        length,
        this.requested === undefined
          ? undefined
          : `embedder.dimensions asks for ${this.requested} (sent as "dimensions"), and the server or model did not shorten its vectors to that: use a model and server that honour it (OpenAI text-embedding-3, a Matryoshka model on a recent Ollama or vLLM), or remove embedder.dimensions`,
      );
  }
}

/** A unit-length Float32Array (the zero vector stays zero). Non-finite values are a malformed answer. */
export function l2normalize(values: ArrayLike<number>, source = 'embedder'): Float32Array {
  const out = new Float32Array(values.length);
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    const x = Number(values[i]);
    if (!Number.isFinite(x)) throw new MalformedResponseError(source, `embedding value ${i} is not a finite number`);
    out[i] = x;
    sum += x * x;
  }
  if (sum > 0) {
    const inv = 1 / Math.sqrt(sum);
    for (let i = 0; i < out.length; i++) out[i] *= inv;
  }
  return out;
}
