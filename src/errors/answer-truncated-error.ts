import { SkillsmithError } from './skillsmith-error.js';

/**
 * The model answered, but stopped at the token limit it was given (OpenAI-compatible `finish_reason: "length"`,
 * which Ollama sends for its `done_reason: "length"`): the answer is cut off. The server is up and answering, so
 * this is no unavailability and no circuit-breaker failure; whoever asked names the setting that raises the limit.
 */
export class AnswerTruncatedError extends SkillsmithError {
  static override readonly code = 'ANSWER_TRUNCATED';
  constructor(
    /** The chat model, e.g. `openai:qwen2.5:7b-instruct`. */
    readonly model: string,
    /** Where it runs, safe to print. */
    readonly endpoint: string,
    /** The limit the request carried (`max_tokens`). */
    readonly maxTokens: number,
    /** What the server said (`length`). */
    readonly finishReason: string,
    /** The start of the cut answer, for the log (the model only ever saw redacted text). */
    readonly excerpt: string,
  ) {
    super(
      `${model} at ${endpoint} stopped at its token limit (max_tokens ${maxTokens}, finish_reason "${finishReason}"): the answer is cut off`,
    );
  }
}
