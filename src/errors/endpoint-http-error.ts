import { SkillsmithError } from './skillsmith-error.js';

/** The endpoint answered with a non-2xx status; `serverMessage` is what the server said (scrubbed of the API key). */
export class EndpointHttpError extends SkillsmithError {
  static override readonly code = 'ENDPOINT_HTTP_ERROR';
  constructor(
    readonly url: string,
    readonly status: number,
    readonly serverMessage: string,
  ) {
    super(`${url} returned HTTP ${status}${serverMessage ? `: ${serverMessage}` : ''}`);
  }
}
