import { SkillsmithError } from './skillsmith-error.js';

/** The endpoint could not be reached at all: connection refused, DNS failure, network down, TLS failure. */
export class EndpointUnreachableError extends SkillsmithError {
  static override readonly code = 'ENDPOINT_UNREACHABLE';
  constructor(
    /** The URL that was called, without credentials. */
    readonly url: string,
    /** The system error code when known (ECONNREFUSED, ENOTFOUND, ...). */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${url} is unreachable (${reason})`, options);
  }
}
