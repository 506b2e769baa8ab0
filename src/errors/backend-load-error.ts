import { SkillsmithError } from './skillsmith-error.js';

/** A local back end (node-llama-cpp, transformers.js) is installed but could not load its model. */
export class BackendLoadError extends SkillsmithError {
  static override readonly code = 'BACKEND_LOAD_FAILED';
  constructor(
    readonly backend: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${backend}: ${message}`, options);
  }
}
