import { createHmac } from 'node:crypto';
import { redactCapture } from './redact.js';

/**
 * An identifier (session id, agent id, source) as it may be stored: unchanged when it holds nothing
 * sensitive, else `<prefix>_<keyed hash>` of the whole value. Deterministic for a given salt, so the same id
 * always maps to the same key (a later call, `outcome`, a re-ingest still find the session), and idempotent
 * (a protected id maps to itself). Control bytes make an id unusable too: they are hashed the same way.
 */
export function protectId(policy: { salt: string }, value: string, prefix: string): string;
export function protectId(policy: { salt: string }, value: string | null | undefined, prefix: string): string | null;
export function protectId(policy: { salt: string }, value: string | null | undefined, prefix: string): string | null {
  if (value == null) return null;
  // eslint-disable-next-line no-control-regex
  // biome-ignore lint/suspicious/noControlCharactersInRegex: this pattern exists to find control characters
  if (!/[\u0000-\u001f\u007f-\u009f]/.test(value) && redactCapture(value) === value) return value;
  return `${prefix}_${createHmac('sha256', policy.salt || 'skillsmith')
    .update(`id\u0000${value}`)
    .digest('hex')
    .slice(0, 20)}`;
}
