import { describe, expect, it } from 'vitest';
import { clip, formatContextPack, TRUNCATION_MARKER } from './context-pack.js';
import { breakNearTies } from '../pipeline/recall.js';

const body = [
  '# Refund An Order',
  '',
  '## Steps',
  '',
  '1. Call `find_user`.',
  '2. Call `refund`.',
  '',
  '## Done when',
  '',
  '`refund` succeeded.',
  '',
  '## Edge cases',
  '',
  '- If `refund` fails, stop.',
].join('\n');

describe('context pack', () => {
  it('renders When / Do / Done without YAML', () => {
    const text = formatContextPack(
      [{ id: 'x', name: 'refund-order', description: 'Refund a delivered order.', body, kind: 'playbook', eta: 0.5 }],
      1500,
    );
    expect(text).toContain('When: Refund a delivered order.');
    expect(text).toContain('1. Call `find_user`.');
    expect(text).toContain('Done: `refund` succeeded.');
    expect(text).not.toContain('---');
  });

  it('clips a long body with an explicit marker and never exceeds the budget', () => {
    const long = 'x'.repeat(5000);
    const out = clip(long, 1500);
    expect(out.length).toBeLessThanOrEqual(1500);
    expect(out.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(clip('short', 1500)).toBe('short');
  });

  it('breaks near-ties by utility and leaves clear winners alone', () => {
    const ranked = [
      { skill: { utility: 0 }, similarity: 0.9 },
      { skill: { utility: 0.8 }, similarity: 0.89 },
      { skill: { utility: 1 }, similarity: 0.6 },
    ];
    breakNearTies(ranked, 0.02);
    expect(ranked.map((r) => r.skill.utility)).toEqual([0.8, 0, 1]);
  });
});
