import { createHash } from 'node:crypto';

/** The longest idempotency key a feedback takes (REST `Idempotency-Key` / `feedbackId`, MCP `feedback_id`, `--id`). */
export const MAX_FEEDBACK_ID_CHARS = 200;

/** Why a feedback's idempotency key cannot be taken, or null when it can. */
export function feedbackIdProblem(id: unknown): string | null {
  if (typeof id !== 'string' || !id.trim()) return 'must be a non-empty string';
  if (id.length > MAX_FEEDBACK_ID_CHARS) return `is ${id.length} characters, over the ${MAX_FEEDBACK_ID_CHARS} limit`;
  return null;
}

/**
 * The stored form of a feedback's idempotency key: its SHA-256 in hex. A key is whatever a client put in it (a
 * request id, a ticket number, an email): the memory keeps only what tells two keys apart.
 */
export function feedbackKeyOf(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}
