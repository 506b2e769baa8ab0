import { describe, expect, it } from 'vitest';
import { goalsRecall, otherSituation, renamedSteps, renameSettled, requestsApart } from './tool-rename.js';
import type { Span, ToolCall } from './types.js';

const call = (tool: string, args: Record<string, unknown>, result: unknown, ok = true): ToolCall => ({
  position: 0,
  tool,
  args,
  result: typeof result === 'string' ? result : JSON.stringify(result),
  ok,
  error: ok ? null : 'failed',
  durationMs: null,
  at: null,
});

/** A session on day `day` that looks an order up and changes its address with `tool`. */
const run = (
  day: number,
  tool: string,
  opts: { args?: Record<string, unknown>; result?: unknown; ok?: boolean } = {},
) => ({
  startedAt: `2025-03-${String(day).padStart(2, '0')}T09:00:00Z`,
  calls: [
    call('get_order', { order_id: `W${day}` }, { id: `W${day}`, status: 'pending' }),
    call(
      tool,
      opts.args ?? { order_id: `W${day}`, address: '1 Elm St' },
      opts.result ?? { id: `W${day}`, address: '1 Elm St' },
      opts.ok ?? true,
    ),
  ],
});

describe('renamedSteps', () => {
  it('finds the step whose tool has another name, and only that', () => {
    expect(renamedSteps(['get_order', 'update_address'], ['get_order', 'set_address'])).toEqual([
      { from: 'update_address', to: 'set_address' },
    ]);
    expect(
      renamedSteps(['get_order', 'update_address', 'get_order'], ['fetch_order', 'update_address', 'fetch_order']),
    ).toEqual([{ from: 'get_order', to: 'fetch_order' }]);
  });

  it('is null for procedures that differ otherwise', () => {
    // The same procedure: nothing renamed.
    expect(renamedSteps(['get_order', 'update_address'], ['get_order', 'update_address'])).toBeNull();
    // A step more, another order, a swap, or nothing in common.
    expect(renamedSteps(['get_order', 'update_address'], ['get_order', 'set_address', 'notify'])).toBeNull();
    expect(renamedSteps(['get_order', 'update_address'], ['update_address', 'get_order'])).toBeNull();
    expect(renamedSteps(['get_order', 'set_address'], ['set_address', 'set_address'])).toBeNull();
    expect(renamedSteps(['a', 'b'], ['c', 'd'])).toBeNull();
    // One old tool called by two new names, or two old tools by one.
    expect(renamedSteps(['x', 'get', 'x'], ['y', 'get', 'z'])).toBeNull();
    expect(renamedSteps(['x', 'get', 'w'], ['y', 'get', 'y'])).toBeNull();
    // A command runner's step is told apart by its command: another command is no rename.
    expect(renamedSteps(['Read', 'Bash\u0000npm test'], ['Read', 'Bash\u0000pnpm test'])).toBeNull();
    expect(renamedSteps([], [])).toBeNull();
  });
});

describe('goalsRecall', () => {
  const v = (...xs: number[]) => new Float32Array(xs);
  it('holds when at least half of the requests reach one of the skill vectors', () => {
    const skill = [v(1, 0, 0), v(0, 1, 0)];
    expect(goalsRecall([v(0.9, 0.1, 0), v(0, 0, 1)], skill, 0.5)).toBe(true);
    expect(goalsRecall([v(0, 0, 1), v(0, 0.1, 0.9), v(0.8, 0, 0.2)], skill, 0.5)).toBe(false);
    expect(goalsRecall([], skill, 0.5)).toBe(false);
  });
});

describe('renameSettled', () => {
  const renamed = [{ from: 'update_address', to: 'set_address' }];

  it('holds when the new tool took over with the same arguments and answers', () => {
    const sessions = [
      run(1, 'update_address'),
      run(2, 'update_address'),
      run(5, 'set_address'),
      run(6, 'set_address'),
      run(7, 'set_address'),
    ];
    expect(renameSettled(renamed, sessions)).toEqual({ settled: true });
    // An agent not yet told of the rename, whose call of the old name failed, is no use of it.
    expect(renameSettled(renamed, [...sessions, run(8, 'update_address', { result: '410 Gone', ok: false })])).toEqual({
      settled: true,
    });
  });

  it('does not hold while the old tool still works after the new one appeared, and holds once the new one alone has', () => {
    const mixed = [run(1, 'update_address'), run(5, 'set_address'), run(6, 'update_address'), run(7, 'set_address')];
    expect(renameSettled(renamed, mixed)).toMatchObject({ settled: false, reason: expect.stringContaining('still') });
    // Both names worked over two sessions (days 5 and 6): the new one alone since, in at least three.
    const later = [...mixed, run(8, 'set_address'), run(9, 'set_address')];
    expect(renameSettled(renamed, later).settled).toBe(true);
    const longer = [...mixed, run(8, 'update_address'), run(9, 'set_address'), run(10, 'set_address')];
    // 5..8 both (4 sessions): three of the new alone are not yet enough.
    expect(renameSettled(renamed, [...longer, run(11, 'set_address')]).settled).toBe(false);
    expect(renameSettled(renamed, [...longer, run(11, 'set_address'), run(12, 'set_address')]).settled).toBe(true);
    // Both in one session, the one where the new name first worked.
    const both = run(5, 'set_address');
    both.calls.push(call('update_address', { order_id: 'W5', address: 'x' }, { id: 'W5', address: 'x' }));
    expect(renameSettled(renamed, [run(1, 'update_address'), both, run(6, 'set_address')]).settled).toBe(false);
  });

  it('does not hold before the new name has worked in enough sessions', () => {
    const two = [run(1, 'update_address'), run(5, 'set_address'), run(6, 'set_address')];
    expect(renameSettled(renamed, two)).toMatchObject({ settled: false, reason: expect.stringContaining('2 session') });
    expect(renameSettled(renamed, [...two, run(7, 'set_address')]).settled).toBe(true);
  });

  it('does not hold for a tool that takes other arguments or answers with other fields', () => {
    const args = [
      run(1, 'update_address'),
      ...[5, 6, 7].map((d) => run(d, 'set_address', { args: { order_id: `W${d}`, fields: { a: 1 } } })),
    ];
    expect(renameSettled(renamed, args)).toMatchObject({
      settled: false,
      reason: expect.stringContaining('arguments'),
    });
    const fields = [
      run(1, 'update_address'),
      ...[5, 6, 7].map((d) => run(d, 'set_address', { result: { id: `W${d}`, version: 2 } })),
    ];
    expect(renameSettled(renamed, fields)).toMatchObject({ settled: false, reason: expect.stringContaining('fields') });
    // Plain text answers on both sides say nothing of fields.
    const text = [
      run(1, 'update_address', { result: 'done' }),
      ...[5, 6, 7].map((d) => run(d, 'set_address', { result: 'ok' })),
    ];
    expect(renameSettled(renamed, text)).toEqual({ settled: true });
  });

  it('does not hold without a call of each that worked', () => {
    expect(renameSettled(renamed, [run(5, 'set_address')]).settled).toBe(false);
    expect(renameSettled(renamed, [run(1, 'update_address')]).settled).toBe(false);
  });

  it('orders sessions of one time by the order they were stored in', () => {
    const same = (seq: number, tool: string) => ({ ...run(1, tool), seq });
    const after = [same(2, 'set_address'), same(3, 'set_address'), same(4, 'set_address')];
    expect(renameSettled(renamed, [same(1, 'update_address'), ...after]).settled).toBe(true);
    expect(renameSettled(renamed, [same(5, 'update_address'), ...after]).settled).toBe(false);
  });
});

describe('otherSituation', () => {
  const renamed = [{ from: 'update_address', to: 'set_address' }];
  /** A successful span: the order looked up shows `status`, then the address is changed with `tool`. */
  const span = (i: number, tool: string, status: string): Span => ({
    sessionId: `s${i}`,
    start: 0,
    end: 2,
    calls: [
      call('get_order', { order_id: `W${i}` }, { id: `W${i}`, status, total: 10 + i }),
      call(tool, { order_id: `W${i}`, address: 'x' }, { id: `W${i}`, address: 'x' }),
    ],
  });
  const spans = (tool: string, status: (i: number) => string, from: number) =>
    [0, 1, 2, 3, 4].map((i) => span(from + i, tool, status(i)));

  it('finds what a shared lookup showed before one name and never before the other', () => {
    const when = otherSituation(renamed, [
      ...spans('update_address', () => 'delivered', 0),
      ...spans('set_address', () => 'pending', 10),
    ]);
    expect(when).toMatchObject({ tool: 'get_order', path: 'status' });
  });

  it('is null when both names were called in the same situations', () => {
    const mixed = (i: number) => (i % 2 ? 'pending' : 'processed');
    expect(
      otherSituation(renamed, [...spans('update_address', mixed, 0), ...spans('set_address', mixed, 10)]),
    ).toBeNull();
    // Nothing shared to compare: no lookup on one side.
    const bare = spans('set_address', mixed, 10).map((s) => ({ ...s, calls: s.calls.slice(1) }));
    expect(otherSituation(renamed, [...spans('update_address', mixed, 0), ...bare])).toBeNull();
  });
});

describe('requestsApart', () => {
  const renamed = [{ from: 'refund_order', to: 'cancel_order' }];
  const asked = (goal: string, tool: string) => ({ goal, calls: [call('get_order', {}, {}), call(tool, {}, {})] });

  it('finds a word most requests of one side say and few of the other', () => {
    const sessions = [
      ...[1, 2, 3].map((i) => asked(`Refund order #${i} to the original payment method`, 'refund_order')),
      ...[4, 5, 6].map((i) => asked(`Cancel my pending order #${i} please`, 'cancel_order')),
    ];
    expect(requestsApart(renamed, sessions)).toBe('cancel');
  });

  it('is null for one task asked in other words, or too few requests to tell', () => {
    const before = [
      'Change the shipping address of order W1 to 12 Oak Street',
      'Please update the delivery address on my order W2 to 4 Elm Road',
      'I moved: the order W3 should ship to 77 Pine Avenue',
      'Set the shipping address for order W4 to 9 Birch Lane',
    ];
    const after = [
      'My order W5 needs to go to 31 Cedar Court instead',
      'Can you fix where order W6 is delivered? New address 5 Maple Drive',
      'Update the address for delivery of order W7 to 18 Walnut Street',
      'Ship order W8 to 60 Spruce Way please, I changed homes',
    ];
    const sessions = [...before.map((g) => asked(g, 'refund_order')), ...after.map((g) => asked(g, 'cancel_order'))];
    expect(requestsApart(renamed, sessions)).toBeNull();
    expect(
      requestsApart(renamed, [asked('Refund order #1', 'refund_order'), asked('Cancel order #2', 'cancel_order')]),
    ).toBeNull();
  });
});
