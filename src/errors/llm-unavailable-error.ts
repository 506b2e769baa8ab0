import { SkillsmithError } from './skillsmith-error.js';

/**
 * The LLM back end is down, timing out, refusing or erroring. SPEC "Off-states and failures": the whole
 * synthesis pass is skipped with this (actionable) error; no other model is tried. `cause` holds the
 * client error (EndpointUnreachableError, EndpointTimeoutError, EndpointHttpError, ...).
 */
export class LlmUnavailableError extends SkillsmithError {
  static override readonly code = 'LLM_UNAVAILABLE';
  /** What failed and what to do about it, without what happens to the pass (that depends on llm.fallback). */
  readonly problem: string;
  constructor(
    message: string,
    /** The code of the underlying failure (ENDPOINT_UNREACHABLE, ENDPOINT_TIMEOUT, ...). */
    readonly reason: string,
    options?: { cause?: unknown; problem?: string },
  ) {
    super(message, options);
    this.problem = options?.problem ?? message;
  }
}
