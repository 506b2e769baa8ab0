import { SkillsmithError } from './skillsmith-error.js';

/** The endpoint answered with a non-2xx status; `serverMessage` is what the server said (scrubbed of the API key). */
export class EndpointHttpError extends SkillsmithError {
  static override readonly code = 'ENDPOINT_HTTP_ERROR';
  constructor(
    readonly url: string,
    readonly status: number,
    readonly serverMessage: string,
    /** The server's `Retry-After` header, when it sent one (a 429 or 503 says when to try again). */
    readonly retryAfter: string | null = null,
  ) {
    super(`${url} returned HTTP ${status}${serverMessage ? `: ${serverMessage}` : ''}`);
  }
}
