import type { ChatModel, ChatOptions } from './chat-model.js';
import { EndpointHttpError } from './errors/endpoint-http-error.js';
import type { ChatMessage, OpenAiClient } from './openai-client.js';

/** Chat completions on an OpenAI-compatible server. */
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
    const res = await this.client.chat({ model: this.model, messages, temperature: opts.temperature, maxTokens: opts.maxTokens });
    return res.text;
  }

  /**
   * `GET /models`: proves the server is up and accepts the key. A server without a model list (404/405) is
   * not an error here: the first chat call will tell.
   */
  async check(): Promise<void> {
    try {
      await this.client.listModels();
    } catch (e) {
      if (EndpointHttpError.isInstance(e) && (e.status === 404 || e.status === 405)) return;
      throw e;
    }
  }
}
