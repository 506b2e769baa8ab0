import { describe, expect, it } from 'vitest';
import { emptyIdFilter, idFilterSchema, mayHold, withIds } from './id-filter.js';

describe('id filter', () => {
  it('holds every id put in, in one go or over many, and few others', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `call_${i.toString(36)}`);
    let f = emptyIdFilter();
    for (let i = 0; i < ids.length; i += 37) f = withIds(f, ids.slice(i, i + 37));
    expect(f.count).toBe(5000);
    expect(ids.every((id) => mayHold(f, id))).toBe(true);
    const once = withIds(emptyIdFilter(), ids);
    expect(once).toEqual(f);
    let others = 0;
    for (let i = 0; i < 10_000; i++) if (mayHold(f, `other_${i}`)) others++;
    // 7 parts of under 0.01% each.
    expect(others / 10_000).toBeLessThan(0.001);
    // About 3.3 to 6.7 bytes an id, kept as JSON.
    expect(JSON.stringify(f).length).toBeLessThan(5000 * 6);
  });

  it('a filter made with other parameters (the first version: 8 probes, no field for them) is not read', () => {
    expect(idFilterSchema.safeParse({ count: 3, parts: ['AAAA'] }).success).toBe(false);
    expect(idFilterSchema.safeParse({ count: 3, parts: ['AAAA'], probes: 8 }).success).toBe(false);
    expect(idFilterSchema.safeParse(withIds(emptyIdFilter(), ['a'])).success).toBe(true);
  });

  it('an empty filter holds nothing; a short one is short', () => {
    expect(mayHold(emptyIdFilter(), 'a')).toBe(false);
    const f = withIds(emptyIdFilter(), ['a', 'b', 'c']);
    expect(mayHold(f, 'b')).toBe(true);
    expect(JSON.stringify(f).length).toBeLessThan(300);
  });
});
