import { SkillsmithError } from './skillsmith-error.js';

/** A compile request that cannot be compiled: no sessions, cue or facts, or ones that do not exist. */
export class CompileError extends SkillsmithError {
  static override readonly code = 'COMPILE_INVALID';
}
