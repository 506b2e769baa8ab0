// The llama-cpp chat model: a local GGUF file loaded through the shared loader in model-clients/llama-cpp.ts.
import { basename } from 'node:path';
import { EndpointTimeoutError } from '../errors/endpoint-timeout-error.js';
import { loadLlamaModel, type LlamaCppModule, type LlamaModelLike } from '../model-clients/llama-cpp.js';
import type { ModuleImporter } from '../model-clients/optional-import.js';
import type { ChatMessage, ChatModel, ChatOptions } from './chat-model.js';

export interface LlamaCppChatOptions {
  modelPath: string;
  /** Longest a completion (prompt evaluation and generation) may take; `llm.timeoutMs`. None when unset. */
  timeoutMs?: number;
  importer?: ModuleImporter;
}

/**
 * Chat with a local GGUF model. The model is loaded on first use and kept until `close()`. Completions run
 * one at a time (each in a fresh context): concurrent callers, such as the outcome judge, queue.
 */
export class LlamaCppChatModel implements ChatModel {
  readonly id: string;
  readonly endpoint: string;
  private loaded: Promise<{ module: LlamaCppModule; model: LlamaModelLike }> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: LlamaCppChatOptions) {
    this.id = `llama-cpp:${basename(opts.modelPath).replace(/\.gguf$/i, '')}`;
    this.endpoint = opts.modelPath;
  }

  private load() {
    this.loaded ??= loadLlamaModel({
      modelPath: this.opts.modelPath,
      importer: this.opts.importer,
      usedBy: 'provider llama-cpp',
    }).catch((e) => {
      this.loaded = null;
      throw e;
    });
    return this.loaded;
  }

  async check(): Promise<void> {
    await this.load();
  }

  complete(messages: ChatMessage[], opts: ChatOptions): Promise<string> {
    const run = this.queue.then(() => this.completeNow(messages, opts));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async completeNow(messages: ChatMessage[], opts: ChatOptions): Promise<string> {
    const { module, model } = await this.load();
    const system = messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n\n');
    const user = messages
      .filter((m) => m.role !== 'system')
      .map((m) => m.content)
      .join('\n\n');
    // A fresh context per call: distillations are independent and must not see each other.
    const context = await model.createContext();
    try {
      const session = new module.LlamaChatSession({
        contextSequence: context.getSequence(),
        systemPrompt: system || undefined,
      });
      const timeoutMs = this.opts.timeoutMs;
      const signal = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
      try {
        return await session.prompt(user, { temperature: opts.temperature, maxTokens: opts.maxTokens, signal });
      } catch (e) {
        if (signal?.aborted) throw new EndpointTimeoutError(this.endpoint, timeoutMs!);
        throw e;
      } finally {
        session.dispose?.();
      }
    } finally {
      await context.dispose?.();
    }
  }

  async close(): Promise<void> {
    const loaded = this.loaded;
    this.loaded = null;
    if (loaded) await (await loaded.catch(() => null))?.model.dispose?.();
  }
}
