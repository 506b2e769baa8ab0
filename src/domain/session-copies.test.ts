import { describe, expect, it } from 'vitest';
import { copyStanding, fillsGaps } from './session-copies.js';
import type { ToolCall } from './types.js';

const call = (position: number, tool: string, result: string, over: Partial<ToolCall> = {}): ToolCall => ({
  position,
  tool,
  args: { id: position },
  result,
  ok: true,
  error: null,
  durationMs: null,
  at: null,
  ...over,
});

describe('copyStanding', () => {
  const goal = 'Cancel order #W1';
  const endedAt = '2026-12-05T10:00:00.000Z';
  const lookup = call(0, 'get_order', '{"status":"pending"}');
  const cancel = call(1, 'cancel_order', '{"status":"cancelled"}');
  const waiting = call(1, 'cancel_order', '');

  it('the same calls with the same results are the same copy', () => {
    expect(copyStanding({ goal, endedAt, calls: [lookup, cancel] }, { goal, endedAt, calls: [lookup, cancel] })).toBe(
      'same',
    );
  });

  it('more calls, or a result that had not come back, put a copy ahead; the reverse puts it behind', () => {
    expect(copyStanding({ goal, endedAt, calls: [lookup] }, { goal, endedAt, calls: [lookup, cancel] })).toBe('ahead');
    expect(copyStanding({ goal, endedAt, calls: [lookup, waiting] }, { goal, endedAt, calls: [lookup, cancel] })).toBe(
      'ahead',
    );
    const failed = { ...cancel, ok: false, result: '', error: 'order is not pending' };
    expect(copyStanding({ goal, endedAt, calls: [lookup, waiting] }, { goal, endedAt, calls: [lookup, failed] })).toBe(
      'ahead',
    );
    expect(copyStanding({ goal, endedAt, calls: [lookup, cancel] }, { goal, endedAt, calls: [lookup] })).toBe('behind');
    expect(copyStanding({ goal, endedAt, calls: [lookup, cancel] }, { goal, endedAt, calls: [lookup, waiting] })).toBe(
      'behind',
    );
  });

  it('with the same calls, a copy in which the task has ended is ahead of one in which it had not', () => {
    const calls = [lookup, cancel];
    expect(copyStanding({ goal, endedAt: null, calls }, { goal, endedAt, calls })).toBe('ahead');
    expect(copyStanding({ goal, endedAt, calls }, { goal, endedAt: null, calls })).toBe('behind');
    expect(copyStanding({ goal, endedAt: null, calls }, { goal, endedAt: null, calls })).toBe('same');
    // More calls are further on, whether or not the longer copy had ended when it was logged.
    expect(copyStanding({ goal, endedAt, calls: [lookup] }, { goal, endedAt: null, calls })).toBe('ahead');
  });

  it('with the same calls, a copy in which the user has since said the answer was wrong is ahead', () => {
    const said = { user_rejected_answer: "No, that's wrong", user_rejected_after_calls: 2 };
    const before = { goal, endedAt, calls: [lookup, cancel], labels: { format: 'claude-code' } };
    const after = { goal, endedAt, calls: [lookup, cancel], labels: { format: 'claude-code', ...said } };
    expect(copyStanding(before, after)).toBe('ahead');
    expect(copyStanding(after, before)).toBe('behind');
    expect(copyStanding(after, after)).toBe('same');
  });

  it('another goal, other arguments, another result or calls that part ways make another task', () => {
    expect(
      copyStanding({ goal, endedAt, calls: [lookup] }, { goal: 'Cancel order #W2', endedAt, calls: [lookup, cancel] }),
    ).toBe('other');
    expect(
      copyStanding(
        { goal, endedAt, calls: [lookup] },
        { goal, endedAt, calls: [{ ...lookup, args: { id: 9 } }, cancel] },
      ),
    ).toBe('other');
    const shipped = { ...lookup, result: '{"status":"delivered"}' };
    expect(copyStanding({ goal, endedAt, calls: [lookup, cancel] }, { goal, endedAt, calls: [shipped, cancel] })).toBe(
      'other',
    );
    // Ahead at one call and behind at another: neither copy is the other further on.
    expect(
      copyStanding(
        { goal, endedAt, calls: [call(0, 'a', ''), cancel] },
        { goal, endedAt, calls: [call(0, 'a', 'x'), waiting] },
      ),
    ).toBe('other');
  });
});

describe('fillsGaps', () => {
  const goal = 'Fix the failing test';
  const run = call(0, 'Bash', 'FAIL');
  const read = call(1, 'Read', 'lines');
  const edit = call(2, 'Edit', 'updated');
  const again = call(3, 'Bash', 'ok');
  const whole = { goal, endedAt: null, calls: [run, read, edit, again] };

  it('a copy that holds every stored call in order, and the ones it missed, fills its gaps', () => {
    expect(fillsGaps({ goal, endedAt: null, calls: [run, edit, again] }, whole)).toBe(true);
    expect(fillsGaps({ goal, endedAt: null, calls: [run] }, whole)).toBe(true);
  });

  it('another goal, the calls in another order, a call the copy lacks, or no more calls do not', () => {
    expect(fillsGaps({ goal: 'Another task', endedAt: null, calls: [run, edit] }, whole)).toBe(false);
    expect(fillsGaps({ goal, endedAt: null, calls: [edit, run] }, whole)).toBe(false);
    expect(fillsGaps({ goal, endedAt: null, calls: [run, call(5, 'Write', 'x')] }, whole)).toBe(false);
    expect(fillsGaps(whole, whole)).toBe(false);
  });
});
