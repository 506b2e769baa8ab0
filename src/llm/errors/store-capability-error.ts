import { SkillsmithError } from '../skillsmith-error.js';

/** The store back end lacks a method an operation needs (e.g. `replaceEmbeddings` for re-embedding). */
export class StoreCapabilityError extends SkillsmithError {
  static override readonly code = 'STORE_CAPABILITY';
  constructor(
    readonly method: string,
    readonly store: string,
  ) {
    super(`the ${store} store does not implement ${method}(); upgrade Skillsmith or use a store that does`);
  }
}
