/*
 * The errors the application layer throws for a refused operation. Re-exported from `src/memory.ts` (the
 * public entry); kept as they were.
 */

export class DisabledError extends Error {
  override readonly name = 'DisabledError';
}

export class PassLockedError extends Error {
  override readonly name = 'PassLockedError';
}

/** No such session or skill (in this namespace). */
export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
}

/** The session's state forbids it: already ended with another outcome, or a call position out of order. */
export class SessionStateError extends Error {
  override readonly name = 'SessionStateError';
}
