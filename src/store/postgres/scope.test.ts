import { describe, expect, it } from 'vitest';
import { memoryScope } from './scope.js';

describe('the names a memory meets its other processes by', () => {
  it('in public, the names every earlier version used: a fleet upgraded one host at a time still meets', () => {
    expect(memoryScope('public')).toEqual({ channel: 'skillsmith_changes', lockPrefix: 'skillsmith:lock:' });
  });

  it("in another schema, names of that schema's own: a plain identifier of at most 63 bytes for any schema name", () => {
    const a = memoryScope('team_a');
    const b = memoryScope('Team A "quoted" ünïcode'.repeat(3));
    expect(a.channel).not.toBe(b.channel);
    expect(a.lockPrefix).toBe('skillsmith:team_a:lock:');
    for (const { channel } of [a, b]) {
      expect(channel).toMatch(/^skillsmith_changes_[0-9a-f]{16}$/);
      expect(Buffer.byteLength(channel)).toBeLessThanOrEqual(63);
    }
    expect(memoryScope('team_a')).toEqual(a);
  });
});
