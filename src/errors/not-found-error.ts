import { SkillsmithError } from './skillsmith-error.js';

/** No such session or skill (in this namespace). */
export class NotFoundError extends SkillsmithError {
  static override readonly code = 'NOT_FOUND';
}
