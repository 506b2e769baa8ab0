import { SkillsmithError } from './skillsmith-error.js';

/** A back end failed repeatedly; calls are refused without trying until the cool-off has passed. */
export class CircuitOpenError extends SkillsmithError {
  static override readonly code = 'CIRCUIT_OPEN';
  constructor(
    readonly backend: string,
    readonly failures: number,
    /** ISO time after which one trial call is allowed again. */
    readonly retryAt: string,
    options?: { cause?: unknown },
  ) {
    super(`${backend} failed ${failures} times in a row; not calling it again before ${retryAt}`, options);
  }
}
