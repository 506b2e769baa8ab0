import { SkillsmithError } from './skillsmith-error.js';

/** A server asked to listen beyond loopback without a bearer token, or with one too short (the trust boundary). */
export class UnsafeBindError extends SkillsmithError {
  static override readonly code = 'UNSAFE_BIND';
}
