import type { ChatModel, ChatOptions } from './chat-model.js';
import { AnswerTruncatedError } from '../errors/answer-truncated-error.js';
import type { ChatMessage, OpenAiClient } from '../model-clients/openai-client.js';

/**
 * What servers say when a completion stopped at `max_tokens`: `length` (OpenAI, vLLM, llama.cpp server, LM Studio,
 * and Ollama's `/v1`, which passes its `done_reason` on), `max_tokens` (a few proxies).
 */
const CUT_AT_LIMIT = new Set(['length', 'max_tokens']);

/**
 * Chat completions on an OpenAI-compatible server. An answer that stopped at the token limit is an
 * AnswerTruncatedError, thrown after the request succeeded: the server answered, so its circuit breaker counts a
 * success, and the caller never reads a cut answer as a whole one.
 */
export class OpenAiChatModel implements ChatModel {
  readonly id: string;
  readonly endpoint: string;

  constructor(
    readonly client: OpenAiClient,
    readonly model: string,
  ) {
    this.id = `openai:${model}`;
    this.endpoint = client.endpoint;
  }

  async complete(messages: ChatMessage[], opts: ChatOptions): Promise<string> {
    const res = await this.client.chat({
      model: this.model,
      messages,
      temperature: opts.temperature,
      maxTokens: opts.maxTokens,
    });
    if (res.finishReason !== null && CUT_AT_LIMIT.has(res.finishReason))
      throw new AnswerTruncatedError(
        this.id,
        this.endpoint,
        opts.maxTokens,
        res.finishReason,
        res.text.replace(/\s+/g, ' ').trim().slice(0, 200),
      );
    return res.text;
  }

  /**
   * A one-token chat completion with the configured model: proves the server is up, accepts the key, serves
   * the model and can answer, before a pass writes anything. Its one-token answer is cut at the limit by design.
   */
  async check(): Promise<void> {
    await this.client.chat({
      model: this.model,
      messages: [{ role: 'user', content: 'Reply with the single word OK.' }],
      temperature: 0,
      maxTokens: 1,
    });
  }
}
