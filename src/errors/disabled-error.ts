import { SkillsmithError } from './skillsmith-error.js';

/** The memory is switched off (`disabled: true` or `SKILLSMITH_DISABLED`), so the operation cannot run. */
export class DisabledError extends SkillsmithError {
  static override readonly code = 'DISABLED';
}
