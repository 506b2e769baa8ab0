import { createHash } from 'node:crypto';

/**
 * Deterministic tune/test split of labelled traces for evaluation only (never used by the engine).
 * Sessions of the same task (all trials of one task) land on the same side, so nothing tuned on a task
 * is reported on a trial of that same task.
 */
export function splitOf(record: { session_id: string; meta?: Record<string, unknown> | null }): 'tune' | 'test' {
  const meta = record.meta ?? {};
  const key = `${String(meta.task_id ?? meta.group ?? record.session_id)}|${String(meta.domain ?? '')}`;
  const h = createHash('sha1').update(key).digest();
  return h[0] % 2 === 0 ? 'tune' : 'test';
}
