import type { ChatMessage } from '../model-clients/openai-client.js';

export type { ChatMessage } from '../model-clients/openai-client.js';

export interface ChatOptions {
  temperature: number;
  maxTokens: number;
}

/** A chat back end for the LLM distiller: an OpenAI-compatible server or a local GGUF model. */
export interface ChatModel {
  /** Provider and model, e.g. `openai:qwen2.5:7b-instruct` or `llama-cpp:qwen2.5-7b-instruct-q4_k_m`. */
  readonly id: string;
  /** Where it runs, safe to print: the base URL without credentials, or the GGUF path. */
  readonly endpoint: string;
  /**
   * One completion; the answer's text. Throws the client's typed errors, and AnswerTruncatedError when the back
   * end says the answer stopped at `maxTokens` (the OpenAI-compatible one does; node-llama-cpp's `prompt()` does
   * not tell).
   */
  complete(messages: ChatMessage[], opts: ChatOptions): Promise<string>;
  /** Cheap availability check (reachable, authorised, model loadable); throws the client's typed errors. */
  check(): Promise<void>;
  close?(): Promise<void>;
}
