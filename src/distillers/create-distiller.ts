import type { SkillsmithConfig } from '../config/config.js';
import { redactText } from '../domain/redact.js';
import type { Distiller } from './distiller.js';
import { FallbackDistiller } from './fallback-distiller.js';
import { HeuristicDistiller } from './heuristic-distiller.js';
import { LlmDistiller } from './llm-distiller.js';
import { createChatModel, type BackendDeps } from '../backends/from-config.js';
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
  const model = await createChatModel(llm, deps);
  const distiller = new LlmDistiller({
    model,
    temperature: llm.temperature,
    maxTokens: llm.maxTokens,
    timeoutMs: llm.timeoutMs,
    redact,
    log: deps.log?.child('llm'),
  });
  // Only when the configuration asks for it (SPEC "Off-states and failures": never a silent swap).
  return llm.fallback === 'heuristic'
    ? new FallbackDistiller(distiller, heuristic(), deps.log?.child('distiller'))
    : distiller;
}
