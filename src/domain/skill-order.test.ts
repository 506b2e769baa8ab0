import { describe, expect, it } from 'vitest';
import { strongerFirst, strongerThenOlderFirst } from './skill-order.js';

const skill = (name: string, id: string, support = 3, createdAt = '2026-01-01T00:00:00.000Z') => ({
  name,
  id,
  support,
  createdAt,
});

describe('the order a pass visits skills in', () => {
  it('puts more support first, and breaks a tie by name whatever the random ids say', () => {
    const exchange = skill('exchange-delivered-order-items', 'sk_f');
    const returns = skill('return-delivered-order-items', 'sk_0');
    const strong = skill('cancel-pending-order', 'sk_9', 5);
    for (const ids of [
      ['sk_f', 'sk_0'],
      ['sk_0', 'sk_f'],
    ]) {
      const list = [{ ...returns, id: ids[0] }, { ...exchange, id: ids[1] }, strong];
      expect([...list].sort(strongerFirst).map((s) => s.name)).toEqual([
        'cancel-pending-order',
        'exchange-delivered-order-items',
        'return-delivered-order-items',
      ]);
      expect(
        [...list]
          .reverse()
          .sort(strongerThenOlderFirst)
          .map((s) => s.name),
      ).toEqual(['cancel-pending-order', 'exchange-delivered-order-items', 'return-delivered-order-items']);
    }
    // Between equally supported skills, the older one first, then the name.
    const older = skill('z-older', 'sk_1', 3, '2025-12-31T00:00:00.000Z');
    expect([exchange, older].sort(strongerThenOlderFirst).map((s) => s.name)).toEqual([
      'z-older',
      'exchange-delivered-order-items',
    ]);
  });
});
