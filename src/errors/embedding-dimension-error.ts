import { SkillsmithError } from './skillsmith-error.js';

/** An embedder returned vectors of another length than it declared (or than earlier vectors had). */
export class EmbeddingDimensionError extends SkillsmithError {
  static override readonly code = 'EMBEDDING_DIMENSION';
  constructor(
    readonly embedder: string,
    readonly expected: number,
    readonly got: number,
    /** What to do about it, when the cause is known (a `dimensions` setting the server ignored). */
    readonly hint?: string,
  ) {
    super(`${embedder} returned ${got}-dimensional vectors where ${expected} were expected${hint ? `: ${hint}` : ''}`);
  }
}
