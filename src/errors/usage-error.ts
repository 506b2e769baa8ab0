import { SkillsmithError } from './skillsmith-error.js';

/** A command line the CLI cannot run: an unknown command, a missing argument or a bad flag value. */
export class UsageError extends SkillsmithError {
  static override readonly code = 'USAGE';
}
