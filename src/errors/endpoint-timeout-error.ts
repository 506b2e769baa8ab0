import { SkillsmithError } from './skillsmith-error.js';

/** The endpoint did not answer (headers and body) within the configured timeout. */
export class EndpointTimeoutError extends SkillsmithError {
  static override readonly code = 'ENDPOINT_TIMEOUT';
  constructor(
    readonly url: string,
    readonly timeoutMs: number,
  ) {
    super(`${url} did not answer within ${timeoutMs} ms (timeout)`);
  }
}
