import { SkillsmithError } from './skillsmith-error.js';

/** An optional package a configured back end needs is not installed. */
export class MissingOptionalDependencyError extends SkillsmithError {
  static override readonly code = 'MISSING_OPTIONAL_DEPENDENCY';
  constructor(
    readonly packageName: string,
    /** The version to install, e.g. `node-llama-cpp@3.21.1`. */
    readonly install: string,
    /** What needs it, e.g. `provider llama-cpp`. */
    readonly usedBy: string,
    options?: { cause?: unknown; hint?: string },
  ) {
    super(
      `install ${install} to use ${usedBy} (npm install ${install}); it is an optional dependency and is not installed` +
        (options?.hint ? `. ${options.hint}` : ''),
      options,
    );
  }
}
