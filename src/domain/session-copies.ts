import type { Session, ToolCall } from './types.js';

/**
 * How a copy of a task read from a log stands to the session stored under its id:
 * - `same`: the same calls with the same results (the log read again);
 * - `ahead`: the same task further on: more calls, a call that had no result yet now has one, or, with the same
 *   calls, the task has ended where the stored copy had not (`endedAt`: the agent's answer came after the last call)
 *   or the user has since said an answer was wrong (`labels.user_rejected_answer`) (a conversation logged after
 *   each model call, or sent while the agent was still working);
 * - `behind`: an earlier copy of the stored one (sent late);
 * - `other`: another task (another goal, or calls that part ways).
 */
export type CopyStanding = 'same' | 'ahead' | 'behind' | 'other';

type Copy = Pick<Session, 'goal' | 'calls' | 'endedAt'> & Partial<Pick<Session, 'labels'>>;

/**
 * Where `copy` stands to `stored` (see CopyStanding). Calls are matched by position, tool and arguments; where they
 * are the same, a copy that has ended (`endedAt` set) is ahead of one that had not.
 */
export function copyStanding(stored: Copy, copy: Copy): CopyStanding {
  if (stored.goal !== copy.goal) return 'other';
  let ahead = copy.calls.length > stored.calls.length;
  let behind = copy.calls.length < stored.calls.length;
  const n = Math.min(stored.calls.length, copy.calls.length);
  for (let i = 0; i < n; i++) {
    const a = stored.calls[i];
    const b = copy.calls[i];
    if (a.tool !== b.tool || JSON.stringify(a.args) !== JSON.stringify(b.args)) return 'other';
    if (sameRun(a, b)) continue;
    // A call logged before its result came back has none; a later copy has it.
    if (awaitingResult(a)) ahead = true;
    else if (awaitingResult(b)) behind = true;
    else return 'other';
  }
  if (ahead && behind) return 'other';
  if (!ahead && !behind && (stored.endedAt == null) !== (copy.endedAt == null))
    return copy.endedAt == null ? 'behind' : 'ahead';
  // With the same calls, the user's word that an answer was wrong (labels.user_rejected_answer) came after it.
  if (!ahead && !behind && rejected(copy) !== rejected(stored)) return rejected(copy) ? 'ahead' : 'behind';
  return ahead ? 'ahead' : behind ? 'behind' : 'same';
}

const rejected = (c: Copy) => typeof c.labels?.user_rejected_answer === 'string';

function sameRun(a: ToolCall, b: ToolCall): boolean {
  return a.ok === b.ok && a.result === b.result && (a.error ?? null) === (b.error ?? null);
}

/** A call as a log records it before its result: no result, no error. */
function awaitingResult(c: ToolCall): boolean {
  return c.ok && !c.result && !c.error;
}

/**
 * Whether `copy` is `stored` with the calls it missed filled in: the same goal, more calls, and every stored call
 * (tool and arguments) among them in order. A task read from a log with a line that could not be read lacks a call
 * in the middle; the log read again whole holds it.
 */
export function fillsGaps(stored: Copy, copy: Copy): boolean {
  if (stored.goal !== copy.goal || copy.calls.length <= stored.calls.length) return false;
  let i = 0;
  for (const c of copy.calls) {
    const want = stored.calls[i];
    if (want && want.tool === c.tool && JSON.stringify(want.args) === JSON.stringify(c.args)) i++;
  }
  return i === stored.calls.length;
}
