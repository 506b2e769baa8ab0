import { describe, expect, it } from 'vitest';
import { buildConsensus } from './consensus.js';
import type { Span, ToolCall } from './types.js';

const call = (position: number, tool: string, args: Record<string, unknown> = {}, result = ''): ToolCall => ({
  position,
  tool,
  args,
  result,
  ok: true,
  error: null,
  durationMs: null,
  at: null,
});
const span = (id: string, calls: ToolCall[]): Span => ({ sessionId: id, start: 0, end: calls.length, calls });
const rules = { requiredSupport: 0.5, conditionalSupport: 0.25 };

describe('buildConsensus', () => {
  it('keeps the steps most sessions share as required and rarer ones as conditional', () => {
    const spans = [
      span('a', [call(0, 'find_user'), call(1, 'get_order'), call(2, 'refund')]),
      span('b', [call(0, 'find_user'), call(1, 'get_order'), call(2, 'refund')]),
      span('c', [call(0, 'find_user'), call(1, 'get_order'), call(2, 'check_policy'), call(3, 'refund')]),
      span('d', [call(0, 'find_user'), call(1, 'get_order'), call(2, 'refund')]),
    ];
    const { steps } = buildConsensus(spans, rules);
    expect(steps.map((s) => s.tool)).toEqual(['find_user', 'get_order', 'check_policy', 'refund']);
    expect(steps.find((s) => s.tool === 'check_policy')).toMatchObject({ conditional: true, support: 0.25 });
    expect(steps.filter((s) => !s.conditional).map((s) => s.tool)).toEqual(['find_user', 'get_order', 'refund']);
  });

  it('drops steps seen in fewer sessions than conditionalSupport', () => {
    const spans = ['a', 'b', 'c', 'd', 'e'].map((id, i) =>
      span(id, [call(0, 'lookup'), ...(i === 0 ? [call(1, 'rare_detour')] : []), call(2, 'act'), call(3, 'confirm')]),
    );
    expect(buildConsensus(spans, rules).steps.map((s) => s.tool)).toEqual(['lookup', 'act', 'confirm']);
  });

  it('treats a run of the same call as one repeated step', () => {
    const spans = ['a', 'b', 'c'].map((id) =>
      span(id, [call(0, 'find'), call(1, 'get_item'), call(2, 'get_item'), call(3, 'act')]),
    );
    const { steps } = buildConsensus(spans, rules);
    expect(steps.map((s) => s.tool)).toEqual(['find', 'get_item', 'act']);
    expect(steps[1].repeated).toBe(true);
  });

  it('marks arguments that vary as parameters and values taken from an earlier result as data flow', () => {
    const spans = ['u1', 'u2', 'u3'].map((user, i) =>
      span(user, [
        call(0, 'find_user', { email: `${user}@x.org` }, `{"user_id": "${user}_id"}`),
        call(1, 'get_orders', { user_id: `${user}_id`, limit: 5 }, '[]'),
        call(2, 'cancel', { order_id: `o${i}`, reason: 'no longer needed' }),
      ]),
    );
    const { steps } = buildConsensus(spans, rules);
    expect(steps[0].parameters).toEqual(['email']);
    expect(steps[1].dataFlow).toEqual([{ arg: 'user_id', fromTool: 'find_user' }]);
    expect(steps[1].parameters).not.toContain('limit');
    expect(steps[2].parameters).toEqual(['order_id']);
  });

  it('is deterministic and rejects an empty cluster', () => {
    const spans = ['a', 'b', 'c'].map((id) => span(id, [call(0, 'x'), call(1, 'y'), call(2, 'z')]));
    expect(buildConsensus(spans, rules)).toEqual(buildConsensus(spans, rules));
    expect(() => buildConsensus([], rules)).toThrow();
  });
});
