import { SkillsmithError } from './skillsmith-error.js';

/**
 * Input that cannot be used: a record no capture format reads, a skill folder over its limits, an argument
 * out of range. The message says where (file, record path or argument) and what is wrong.
 */
export class InputError extends SkillsmithError {
  static override readonly code = 'INPUT_INVALID';
}
