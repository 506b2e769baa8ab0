import { SkillsmithError } from './skillsmith-error.js';

/** The session's state forbids it: already ended with another outcome, or a call position out of order. */
export class SessionStateError extends SkillsmithError {
  static override readonly code = 'SESSION_STATE';
}
