import { SkillsmithError } from './skillsmith-error.js';

/** The endpoint answered 2xx but not with the OpenAI-compatible shape (not JSON, no choices, bad vectors, ...). */
export class MalformedResponseError extends SkillsmithError {
  static override readonly code = 'MALFORMED_RESPONSE';
  constructor(
    readonly url: string,
    readonly detail: string,
  ) {
    super(`${url} sent a malformed response: ${detail}`);
  }
}
