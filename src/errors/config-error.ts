import { SkillsmithError } from './skillsmith-error.js';

/** A configuration that cannot be used; the message names the key, variable or file to fix. */
export class ConfigError extends SkillsmithError {
  static override readonly code = 'CONFIG_INVALID';
}
