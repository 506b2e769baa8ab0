import { describe, expect, it } from 'vitest';
import { expiredSessions, parseAge } from './retention.js';

describe('which sessions are older than a cutoff', () => {
  const before = new Date('2026-09-01T00:00:00Z');
  it('dates a session by its end, else its start, keeps the undatable, and lists the old oldest first', () => {
    const got = expiredSessions(
      [
        { id: 'ended-late', startedAt: '2026-08-01T10:00:00Z', endedAt: '2026-09-02T00:00:00Z' },
        { id: 'old', startedAt: '2026-08-20T10:00:00+02:00', endedAt: null },
        { id: 'older', startedAt: '2026-01-01T00:00:00Z', endedAt: '2026-01-01T01:00:00Z' },
        { id: 'free-form', startedAt: 'last tuesday', endedAt: null },
        { id: 'recent', startedAt: '2026-09-03T00:00:00Z', endedAt: null },
        { id: 'at-cutoff', startedAt: '2026-09-01T00:00:00Z', endedAt: null },
      ],
      before,
    );
    expect(got).toEqual({
      expired: [
        { id: 'older', at: '2026-01-01T01:00:00.000Z' },
        { id: 'old', at: '2026-08-20T08:00:00.000Z' },
      ],
      undated: ['free-form'],
    });
    expect(expiredSessions([], before)).toEqual({ expired: [], undated: [] });
  });

  it('reads ages in hours, days and weeks, and says why anything else is none', () => {
    expect(parseAge('90d')).toBe(90 * 86_400_000);
    expect(parseAge(' 12W ')).toBe(12 * 7 * 86_400_000);
    expect(parseAge('36h')).toBe(36 * 3_600_000);
    expect(parseAge('90')).toMatch(/no age: write a number of hours, days or weeks/);
    expect(parseAge('3m')).toMatch(/no age/);
    expect(parseAge('0d')).toMatch(/at least 1d/);
  });
});
