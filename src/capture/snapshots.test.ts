import { describe, expect, it } from 'vitest';
import { supersededSnapshots } from './snapshots.js';

describe('supersededSnapshots', () => {
  const a = [
    { role: 'user', content: 'a' },
    { role: 'assistant', content: 'x' },
    { role: 'user', content: 'b' },
  ];
  const b = [
    { role: 'user', content: 'other' },
    { role: 'assistant', content: 'y' },
  ];

  it('a list that a later one extends is superseded by it, along a chain and across interleaved conversations', () => {
    const lists = [a.slice(0, 1), b.slice(0, 1), a.slice(0, 2), b, a];
    expect([...supersededSnapshots(lists)].sort()).toEqual([
      [0, 2],
      [1, 3],
      [2, 4],
    ]);
  });

  it('equal lists, lists that only share a start, and records without a list supersede nothing', () => {
    const forked = [...a.slice(0, 2), { role: 'user', content: 'c' }];
    expect(supersededSnapshots([a, a, forked, null, []]).size).toBe(0);
  });

  it('a message equal as text but different as a value is a different message', () => {
    expect(supersededSnapshots([[{ n: 1 }], [{ n: '1' }, { n: 2 }]]).size).toBe(0);
  });
});
