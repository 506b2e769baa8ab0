import type { SkillsmithConfig } from '../config/config.js';
import type { Embedder } from './embedder.js';
import { createGloveEmbedder } from './glove/glove-embedder.js';
import { LlamaCppEmbedder } from './llama-cpp-embedder.js';
import { OpenAiEmbedder } from './openai-embedder.js';
import { TransformersEmbedder } from './transformers-embedder.js';
import { CircuitBreaker, type CircuitBreakerOptions } from '../llm/circuit-breaker.js';
import { BackendConfigError } from '../errors/backend-config-error.js';
import { loadLlamaCpp, requireGgufPath } from '../llm/llama-cpp.js';
import { OpenAiClient } from '../llm/openai-client.js';
import type { ModuleImporter } from '../llm/optional-import.js';

export interface BackendDeps {
  /** Injected fetch for the HTTP back ends. */
  fetch?: typeof fetch;
  /** Injected module loader for the optional packages (tests). */
  importer?: ModuleImporter;
  /** Circuit breaker settings for HTTP back ends; null disables it. Default: 3 failures, 60 s cool-off. */
  breaker?: CircuitBreakerOptions | null;
  /**
   * Learn the dimension (and load local models) now, so that errors surface when the memory opens and `id`
   * is readable. Default true. With false, call `await embedder.ready()` before use when the model is not in
   * the built-in table.
   */
  probe?: boolean;
}

/** An embedder that may need `ready()` before its id and dimension are known. */
export type ReadyableEmbedder = Embedder & { ready?(): Promise<unknown>; endpoint?: string; calibrated?: boolean; thresholdSource?: string; close?(): Promise<void> };

/**
 * The embedder the configuration names (`embedder.provider`): glove (embedded default), openai, transformers
 * or llama-cpp. A missing setting or package is an error that says what to set or install; there is never a
 * silent fallback to another embedder.
 */
export async function createEmbedder(config: SkillsmithConfig, deps: BackendDeps = {}): Promise<ReadyableEmbedder> {
  const e = config.embedder;
  let embedder: ReadyableEmbedder;
  switch (e.provider) {
    case 'glove':
      return createGloveEmbedder();
    case 'openai': {
      if (!e.baseUrl) {
        throw new BackendConfigError(
          'embedder.baseUrl',
          'embedder.provider is "openai" but embedder.baseUrl is not set: set it to the OpenAI-compatible base URL (e.g. http://127.0.0.1:11434/v1 for Ollama), or set embedder.provider to "glove"',
        );
      }
      if (!e.model) {
        throw new BackendConfigError('embedder.model', 'embedder.provider is "openai" but embedder.model is not set: set it (e.g. "nomic-embed-text" with Ollama)');
      }
      const client = new OpenAiClient({
        baseUrl: e.baseUrl,
        apiKey: e.apiKey,
        timeoutMs: e.timeoutMs,
        fetch: deps.fetch,
        breaker: deps.breaker === null ? null : new CircuitBreaker(`embedder ${e.model}`, deps.breaker ?? {}),
      });
      embedder = new OpenAiEmbedder({ client, model: e.model, batchSize: e.batchSize });
      break;
    }
    case 'transformers':
      if (!e.model && !e.modelPath) {
        throw new BackendConfigError('embedder.model', 'embedder.provider is "transformers" but neither embedder.model (a model id) nor embedder.modelPath (a local model folder) is set');
      }
      embedder = new TransformersEmbedder({ model: e.model, modelPath: e.modelPath, batchSize: e.batchSize, importer: deps.importer });
      break;
    case 'llama-cpp':
      await loadLlamaCpp('provider llama-cpp', deps.importer); // fail now, with the install hint, if it is absent
      embedder = new LlamaCppEmbedder({ modelPath: requireGgufPath(e.modelPath, 'embedder.modelPath'), importer: deps.importer });
      break;
    default:
      throw new BackendConfigError('embedder.provider', `unknown embedder.provider "${String((e as { provider: unknown }).provider)}"`);
  }
  if (deps.probe !== false) await embedder.ready?.();
  return embedder;
}
