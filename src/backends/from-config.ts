import type { SkillsmithConfig } from '../config/config.js';
import type { Embedder } from '../embedders/embedder.js';
import { createGloveEmbedder } from '../embedders/glove/glove-embedder.js';
import { LlamaCppEmbedder } from '../embedders/llama-cpp-embedder.js';
import { OpenAiEmbedder } from '../embedders/openai-embedder.js';
import { TransformersEmbedder } from '../embedders/transformers-embedder.js';
import type { ChatModel } from '../llm/chat-model.js';
import { CircuitBreaker, type CircuitBreakerOptions } from '../model-clients/circuit-breaker.js';
import { BackendConfigError } from '../errors/backend-config-error.js';
import { LlamaCppChatModel } from '../llm/llama-cpp-chat-model.js';
import { loadLlamaCpp, requireGgufPath } from '../model-clients/llama-cpp.js';
import { OpenAiChatModel } from '../llm/openai-chat-model.js';
import { OpenAiClient } from '../model-clients/openai-client.js';
import type { ModuleImporter } from '../model-clients/optional-import.js';

/**
 * The one place model back ends are picked and built from configuration: the chat model of the LLM distiller,
 * of the outcome judge and of the doctor's checks, and the embedder. The chat models (llm/) and embedders
 * (embedders/) it builds share their clients from model-clients/ and never import this module. A missing setting or package is a
 * BackendConfigError (exit code 2) that says what to set or install; there is never a silent fallback.
 */

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
export type ReadyableEmbedder = Embedder & {
  ready?(): Promise<unknown>;
  endpoint?: string;
  calibrated?: boolean;
  thresholdSource?: string;
  close?(): Promise<void>;
};

/** An OpenAI-compatible client; its circuit breaker is named `label` (none when `deps.breaker` is null). */
function openAiClient(
  s: { baseUrl: string; apiKey?: string; timeoutMs: number },
  label: string,
  deps: Pick<BackendDeps, 'fetch' | 'breaker'>,
): OpenAiClient {
  return new OpenAiClient({
    baseUrl: s.baseUrl,
    apiKey: s.apiKey,
    timeoutMs: s.timeoutMs,
    fetch: deps.fetch,
    breaker: deps.breaker === null ? null : new CircuitBreaker(label, deps.breaker ?? {}),
  });
}

/** The `llm` settings a chat model is built from; `timeoutMs` unset leaves a local completion unbounded. */
export type ChatModelSettings = Pick<
  SkillsmithConfig['llm'],
  'provider' | 'baseUrl' | 'model' | 'apiKey' | 'modelPath'
> & { timeoutMs?: number };

/**
 * The distiller's chat model (the `llm` section): `openai`, an OpenAI-compatible server, or `llama-cpp`, a
 * local GGUF file through node-llama-cpp (checked installed and present now). No network call is made here.
 */
export async function createChatModel(llm: ChatModelSettings, deps: BackendDeps = {}): Promise<ChatModel> {
  if (llm.provider === 'openai') {
    if (!llm.baseUrl) {
      throw new BackendConfigError(
        'llm.baseUrl',
        'distiller is "llm" but llm.baseUrl is not set: set it to the OpenAI-compatible base URL (e.g. http://127.0.0.1:11434/v1 for Ollama, http://127.0.0.1:8080/v1 for llama.cpp server), or set "distiller": "heuristic"',
      );
    }
    if (!llm.model)
      throw new BackendConfigError(
        'llm.model',
        'distiller is "llm" but llm.model is not set: set it to a chat model the server serves (e.g. "qwen2.5:7b-instruct")',
      );
    return new OpenAiChatModel(
      openAiClient({ baseUrl: llm.baseUrl, apiKey: llm.apiKey, timeoutMs: llm.timeoutMs! }, `llm ${llm.model}`, deps),
      llm.model,
    );
  }
  if (llm.provider === 'llama-cpp') {
    await loadLlamaCpp('provider llama-cpp', deps.importer); // fail now, with the install hint, if it is absent
    const modelPath = requireGgufPath(llm.modelPath, 'llm.modelPath');
    return new LlamaCppChatModel({ modelPath, timeoutMs: llm.timeoutMs, importer: deps.importer });
  }
  throw new BackendConfigError(
    'llm.provider',
    `unknown llm.provider "${String((llm as { provider: unknown }).provider)}"`,
  );
}

/** The judge's own model settings (`capture.judge`), each falling back on the `llm` section's. */
export interface JudgeModelSettings {
  baseUrl?: string;
  model?: string;
  apiKey?: string;
  timeoutMs?: number;
}

/** The `llm` section as the judge reads it (any subset of SkillsmithConfig['llm']). */
export interface LlmSection {
  provider?: string;
  baseUrl?: string;
  model?: string;
  apiKey?: string;
  modelPath?: string;
  timeoutMs?: number;
}

/**
 * The outcome judge's chat model: `capture.judge.baseUrl`/`model`, else the `llm` section's (an
 * OpenAI-compatible server, or with `llm.provider` llama-cpp the local GGUF file, loaded on first use).
 */
export function createJudgeModel(
  judge: JudgeModelSettings,
  llm: LlmSection,
  deps: Pick<BackendDeps, 'fetch'> = {},
): ChatModel {
  if (!judge.baseUrl && llm.provider === 'llama-cpp') {
    if (!llm.modelPath)
      throw new BackendConfigError(
        'llm.modelPath',
        'capture.judge.mode is "llm" and llm.provider is "llama-cpp" but llm.modelPath is not set: set it to a local GGUF file, or use "rule"',
      );
    return new LlamaCppChatModel({ modelPath: llm.modelPath, timeoutMs: judge.timeoutMs ?? llm.timeoutMs });
  }
  const baseUrl = judge.baseUrl ?? llm.baseUrl;
  const name = judge.model ?? llm.model;
  if (!baseUrl || !name) {
    throw new BackendConfigError(
      baseUrl ? 'capture.judge.model' : 'capture.judge.baseUrl',
      'capture.judge.mode is "llm" but no model is configured: set capture.judge.baseUrl and capture.judge.model (or llm.baseUrl and llm.model), or use "rule"',
    );
  }
  const client = openAiClient(
    {
      baseUrl,
      apiKey: judge.apiKey ?? keyForServer(baseUrl, llm),
      timeoutMs: judge.timeoutMs ?? llm.timeoutMs ?? 30_000,
    },
    `judge ${name}`,
    { fetch: deps.fetch },
  );
  return new OpenAiChatModel(client, name);
}

/**
 * `llm.apiKey` for a judge without a key of its own, only when the judge talks to the same server (scheme, host
 * and port) as `llm.baseUrl`: a key is sent to the server it was given for, never to another one (a local judge
 * beside a hosted distiller got the hosted key).
 */
function keyForServer(baseUrl: string, llm: Pick<LlmSection, 'baseUrl' | 'apiKey'>): string | undefined {
  if (!llm.apiKey || !llm.baseUrl) return undefined;
  const origin = (url: string) => {
    try {
      return new URL(url).origin;
    } catch {
      return null;
    }
  };
  const here = origin(baseUrl);
  return here !== null && here === origin(llm.baseUrl) ? llm.apiKey : undefined;
}

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
        throw new BackendConfigError(
          'embedder.model',
          'embedder.provider is "openai" but embedder.model is not set: set it (e.g. "nomic-embed-text" with Ollama)',
        );
      }
      const client = openAiClient(
        { baseUrl: e.baseUrl, apiKey: e.apiKey, timeoutMs: e.timeoutMs },
        `embedder ${e.model}`,
        deps,
      );
      embedder = new OpenAiEmbedder({
        client,
        model: e.model,
        batchSize: e.batchSize,
        ...(e.dimensions !== undefined ? { requestDimensions: e.dimensions } : {}),
      });
      break;
    }
    case 'transformers':
      if (!e.model && !e.modelPath) {
        throw new BackendConfigError(
          'embedder.model',
          'embedder.provider is "transformers" but neither embedder.model (a model id) nor embedder.modelPath (a local model folder) is set',
        );
      }
      embedder = new TransformersEmbedder({
        model: e.model,
        modelPath: e.modelPath,
        batchSize: e.batchSize,
        importer: deps.importer,
      });
      break;
    case 'llama-cpp':
      await loadLlamaCpp('provider llama-cpp', deps.importer); // fail now, with the install hint, if it is absent
      embedder = new LlamaCppEmbedder({
        modelPath: requireGgufPath(e.modelPath, 'embedder.modelPath'),
        importer: deps.importer,
      });
      break;
    default:
      throw new BackendConfigError(
        'embedder.provider',
        `unknown embedder.provider "${String((e as { provider: unknown }).provider)}"`,
      );
  }
  if (deps.probe !== false) await embedder.ready?.();
  return embedder;
}
