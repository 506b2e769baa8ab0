import { describe, expect, it } from 'vitest';
import { GoalMean } from './goal-mean.js';

describe('GoalMean.remove', () => {
  it('takes back a vector that was added: the sum and count without it, through a stored round trip', () => {
    const [a, b, c] = [
      [0.6, 0.8, 0],
      [0, 0.6, 0.8],
      [0.8, 0, 0.6],
    ].map((v) => Float32Array.from(v));
    const all = GoalMean.empty(3);
    const two = GoalMean.empty(3);
    for (const v of [a!, b!, c!]) all.add(v);
    for (const v of [a!, c!]) two.add(v);
    const stored = GoalMean.fromJSON(all.toJSON(), 3);
    stored.remove(b!);
    expect(stored.count).toBe(2);
    for (const [i, x] of stored.sum.entries()) expect(x).toBeCloseTo(two.sum[i]!, 5);
  });

  it('the mean of no vector is the zero sum, not the rounding left over; nothing to take from an empty mean', () => {
    const v = Float32Array.from([0.123456789, -0.987654321]);
    const mean = GoalMean.fromJSON(GoalMean.empty(2).toJSON(), 2);
    mean.add(v);
    const stored = GoalMean.fromJSON(mean.toJSON(), 2);
    stored.remove(v);
    expect([stored.count, Array.from(stored.sum)]).toEqual([0, [0, 0]]);
    stored.remove(v);
    expect([stored.count, Array.from(stored.sum)]).toEqual([0, [0, 0]]);
  });
});
