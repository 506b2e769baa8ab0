import { SkillsmithError } from './skillsmith-error.js';

/** `skillsmith migrate` cannot copy the memory: the target is not empty, a schema differs, or a side fails. */
export class TransferError extends SkillsmithError {
  static override readonly code = 'TRANSFER_FAILED';
}
