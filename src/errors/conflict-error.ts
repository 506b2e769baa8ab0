import { SkillsmithError } from './skillsmith-error.js';

/**
 * The memory's current state refuses the change: a skill to supersede that is no longer live, a name an
 * internal skill already holds. Nothing was written; read the current state and decide again.
 */
export class ConflictError extends SkillsmithError {
  static override readonly code = 'CONFLICT';
}
