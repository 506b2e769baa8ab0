import { SkillsmithError } from './skillsmith-error.js';

/**
 * A back end's own files or service cannot be used (e.g. the GloVe word table is missing or damaged, a recall
 * index graph file no longer matches what was loaded).
 */
export class BackendUnavailableError extends SkillsmithError {
  static override readonly code = 'BACKEND_UNAVAILABLE';
}
