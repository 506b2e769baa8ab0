import { SkillsmithError } from './skillsmith-error.js';

/**
 * The model answered, but not with a usable draft (not the intermediate form, a name clash, an oversized
 * body, ...). SPEC: that cluster is skipped with this reason and the rest of the pass goes on.
 */
export class MalformedDraftError extends SkillsmithError {
  static override readonly code = 'MALFORMED_DRAFT';
  constructor(
    readonly clusterId: string,
    readonly reason: string,
    /** The start of the model's output, for the log (the model only ever saw redacted evidence). */
    readonly excerpt: string,
  ) {
    super(`LLM draft for cluster ${clusterId} rejected: ${reason}`);
  }
}
