import { SkillsmithError } from './skillsmith-error.js';

/** A configured back end lacks a setting it needs (e.g. `llm.baseUrl` for provider openai). */
export class BackendConfigError extends SkillsmithError {
  static override readonly code = 'BACKEND_CONFIG';
  constructor(
    /** The configuration key to set, e.g. `embedder.model`. */
    readonly key: string,
    message: string,
  ) {
    super(message);
  }
}
