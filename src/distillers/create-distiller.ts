import type { SkillsmithConfig } from '../config/config.js';
import { redactText } from '../domain/redact.js';
import type { Distiller } from './distiller.js';
import { FallbackDistiller } from './fallback-distiller.js';
import { HeuristicDistiller } from './heuristic-distiller.js';
import { LlmDistiller } from './llm-distiller.js';
import type { BackendDeps } from '../embedders/create-embedder.js';
import type { ChatModel } from '../llm/chat-model.js';
import { CircuitBreaker } from '../llm/circuit-breaker.js';
import { BackendConfigError } from '../errors/backend-config-error.js';
import { LlamaCppChatModel, loadLlamaCpp, requireGgufPath } from '../llm/llama-cpp.js';
import { OpenAiChatModel } from '../llm/openai-chat-model.js';
import { OpenAiClient } from '../llm/openai-client.js';
import type { Logger } from '../support/log.js';

export interface DistillerDeps extends Omit<BackendDeps, 'probe'> {
  log?: Logger;
  /** Redaction applied to prompts (default: the engine's redactText). */
  redact?: (text: string) => string;
}

/**
 * The distiller the configuration names (`distiller`): `heuristic` (embedded, deterministic) or `llm`
 * (`llm.provider` openai: an OpenAI-compatible server; llama-cpp: a local GGUF file through node-llama-cpp).
 * Missing settings or packages are errors that say what to set or install; never a silent fallback.
 * No network call is made here: the pass calls `preflight()` before it writes anything.
 */
export async function createDistiller(config: SkillsmithConfig, deps: DistillerDeps = {}): Promise<Distiller> {
  const redact = deps.redact ?? redactText;
  const heuristic = () =>
    new HeuristicDistiller({
      requiredSupport: config.synthesis.consensusSupport,
      conditionalSupport: config.synthesis.conditionalSupport,
      thinkTools: config.synthesis.thinkTools,
      redact,
    });
  if (config.distiller === 'heuristic') return heuristic();
  const llm = config.llm;
  let model: ChatModel;
  if (llm.provider === 'openai') {
    if (!llm.baseUrl) {
      throw new BackendConfigError(
        'llm.baseUrl',
        'distiller is "llm" but llm.baseUrl is not set: set it to the OpenAI-compatible base URL (e.g. http://127.0.0.1:11434/v1 for Ollama, http://127.0.0.1:8080/v1 for llama.cpp server), or set "distiller": "heuristic"',
      );
    }
    if (!llm.model) throw new BackendConfigError('llm.model', 'distiller is "llm" but llm.model is not set: set it to a chat model the server serves (e.g. "qwen2.5:7b-instruct")');
    const client = new OpenAiClient({
      baseUrl: llm.baseUrl,
      apiKey: llm.apiKey,
      timeoutMs: llm.timeoutMs,
      fetch: deps.fetch,
      breaker: deps.breaker === null ? null : new CircuitBreaker(`llm ${llm.model}`, deps.breaker ?? {}),
    });
    model = new OpenAiChatModel(client, llm.model);
  } else if (llm.provider === 'llama-cpp') {
    await loadLlamaCpp('provider llama-cpp', deps.importer); // fail now, with the install hint, if it is absent
    const modelPath = requireGgufPath(llm.modelPath, 'llm.modelPath');
    model = new LlamaCppChatModel({ modelPath, timeoutMs: llm.timeoutMs, importer: deps.importer });
  } else {
    throw new BackendConfigError('llm.provider', `unknown llm.provider "${String((llm as { provider: unknown }).provider)}"`);
  }
  const distiller = new LlmDistiller({
    model,
    temperature: llm.temperature,
    maxTokens: llm.maxTokens,
    timeoutMs: llm.timeoutMs,
    redact,
    log: deps.log?.child('llm'),
  });
  // Only when the configuration asks for it (SPEC "Off-states and failures": never a silent swap).
  return llm.fallback === 'heuristic' ? new FallbackDistiller(distiller, heuristic(), deps.log?.child('distiller')) : distiller;
}
