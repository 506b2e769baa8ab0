import { describe, expect, it } from 'vitest';
import { copyStanding } from './session-copies.js';
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
  const lookup = call(0, 'get_order', '{"status":"pending"}');
  const cancel = call(1, 'cancel_order', '{"status":"cancelled"}');
  const waiting = call(1, 'cancel_order', '');

  it('the same calls with the same results are the same copy', () => {
    expect(copyStanding({ goal, calls: [lookup, cancel] }, { goal, calls: [lookup, cancel] })).toBe('same');
  });

  it('more calls, or a result that had not come back, put a copy ahead; the reverse puts it behind', () => {
    expect(copyStanding({ goal, calls: [lookup] }, { goal, calls: [lookup, cancel] })).toBe('ahead');
    expect(copyStanding({ goal, calls: [lookup, waiting] }, { goal, calls: [lookup, cancel] })).toBe('ahead');
    const failed = { ...cancel, ok: false, result: '', error: 'order is not pending' };
    expect(copyStanding({ goal, calls: [lookup, waiting] }, { goal, calls: [lookup, failed] })).toBe('ahead');
    expect(copyStanding({ goal, calls: [lookup, cancel] }, { goal, calls: [lookup] })).toBe('behind');
    expect(copyStanding({ goal, calls: [lookup, cancel] }, { goal, calls: [lookup, waiting] })).toBe('behind');
  });

  it('another goal, other arguments, another result or calls that part ways make another task', () => {
    expect(copyStanding({ goal, calls: [lookup] }, { goal: 'Cancel order #W2', calls: [lookup, cancel] })).toBe(
      'other',
    );
    expect(copyStanding({ goal, calls: [lookup] }, { goal, calls: [{ ...lookup, args: { id: 9 } }, cancel] })).toBe(
      'other',
    );
    const shipped = { ...lookup, result: '{"status":"delivered"}' };
    expect(copyStanding({ goal, calls: [lookup, cancel] }, { goal, calls: [shipped, cancel] })).toBe('other');
    // Ahead at one call and behind at another: neither copy is the other further on.
    expect(
      copyStanding({ goal, calls: [call(0, 'a', ''), cancel] }, { goal, calls: [call(0, 'a', 'x'), waiting] }),
    ).toBe('other');
  });
});
