import { SkillsmithError } from './skillsmith-error.js';

/**
 * A write to a memory opened for reading only (this account may not write its file or folder: a read-only mount,
 * another user's file). Recall, listing and export work on such a memory; learning, ingest and edits do not.
 */
export class ReadOnlyMemoryError extends SkillsmithError {
  static override readonly code = 'READ_ONLY_MEMORY';
}
