import { SkillsmithError } from './skillsmith-error.js';

/** A REST request refused with the HTTP status it carries (a bad body or query, a missing resource). */
export class HttpError extends SkillsmithError {
  static override readonly code = 'HTTP_REQUEST';
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 503,
    message: string,
  ) {
    super(message);
  }
}
