import type { ChatModel, ChatOptions } from './chat-model.js';
import type { ChatMessage, OpenAiClient } from '../model-clients/openai-client.js';

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
    const res = await this.client.chat({
      model: this.model,
      messages,
      temperature: opts.temperature,
      maxTokens: opts.maxTokens,
    });
    return res.text;
  }

  /**
   * A one-token chat completion with the configured model: proves the server is up, accepts the key, serves
   * the model and can answer, before a pass writes anything.
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
