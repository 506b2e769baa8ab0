import { SkillsmithError } from './skillsmith-error.js';

/** A synthesis pass is already running on the namespace (in this process or another one). */
export class PassLockedError extends SkillsmithError {
  static override readonly code = 'PASS_LOCKED';
}
