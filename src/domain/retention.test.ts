import { describe, expect, it } from 'vitest';
import { expiredSessions, parseAge, parseDate, retentionCutoff, sessionTimeOf } from './retention.js';

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

  it('dates a session still open by its latest activity: its last call, else its start', () => {
    const got = expiredSessions(
      [
        // Started long ago, still recording calls: kept.
        { id: 'running', startedAt: '2026-01-01T00:00:00Z', endedAt: null, lastCallAt: '2026-09-02T08:00:00Z' },
        // Started long ago, its last call long ago too: its end never arrived.
        { id: 'abandoned', startedAt: '2026-01-01T00:00:00Z', endedAt: null, lastCallAt: '2026-02-01T00:00:00Z' },
        // No call has a time: its start.
        { id: 'quiet', startedAt: '2026-03-01T00:00:00Z', endedAt: null, lastCallAt: null },
        // A start that reads as no date, a call that does.
        { id: 'free-form start', startedAt: 'last tuesday', endedAt: null, lastCallAt: '2026-04-01T00:00:00Z' },
        // A call time that reads as no date: its start.
        { id: 'odd call time', startedAt: '2026-05-01T00:00:00Z', endedAt: null, lastCallAt: 'step 3' },
        // An ended session is dated by its end, whatever its calls say.
        {
          id: 'ended',
          startedAt: '2026-01-01T00:00:00Z',
          endedAt: '2026-06-01T00:00:00Z',
          lastCallAt: '2026-12-01T00:00:00Z',
        },
        { id: 'nothing', startedAt: 'soon', endedAt: null, lastCallAt: 'later' },
      ],
      before,
    );
    expect(got).toEqual({
      expired: [
        { id: 'abandoned', at: '2026-02-01T00:00:00.000Z' },
        { id: 'quiet', at: '2026-03-01T00:00:00.000Z' },
        { id: 'free-form start', at: '2026-04-01T00:00:00.000Z' },
        { id: 'odd call time', at: '2026-05-01T00:00:00.000Z' },
        { id: 'ended', at: '2026-06-01T00:00:00.000Z' },
      ],
      undated: ['nothing'],
    });
  });

  it("takes a session's latest call by the instant its time names, as the store reads it (sessionTimeOf)", () => {
    const open = (id: string, ats: (string | null)[]) => ({
      id,
      startedAt: '2026-09-01T07:00:00Z',
      endedAt: null,
      calls: ats.map((at) => ({ at })),
    });
    const last = (s: ReturnType<typeof open>) => sessionTimeOf(s).lastCallAt;
    // 10:00+02:00 is 08:00Z: the call at 09:30Z is the latest, though as text it reads as the earlier.
    expect(last(open('offsets', ['2026-09-01T09:30:00Z', '2026-09-01T10:00:00+02:00', null]))).toBe(
      '2026-09-01T09:30:00Z',
    );
    expect(last(open('undated', ['yesterday, late', '2026-09-01T08:00:00Z']))).toBe('2026-09-01T08:00:00Z');
    expect(last(open('no-dates', ['around noon', 'before lunch']))).toBe('before lunch');
    expect(last(open('none', [null]))).toBeNull();
    // An ended session is dated by its end: its calls are not read.
    expect(sessionTimeOf({ ...open('ended', ['2026-09-01T09:30:00Z']), endedAt: '2026-09-01T09:40:00Z' })).toEqual({
      id: 'ended',
      startedAt: '2026-09-01T07:00:00Z',
      endedAt: '2026-09-01T09:40:00Z',
      lastCallAt: null,
    });
    // Judged at a cutoff of 09:00Z it is still active.
    const s = open('offsets', ['2026-09-01T09:30:00Z', '2026-09-01T10:00:00+02:00']);
    expect(expiredSessions([sessionTimeOf(s)], new Date('2026-09-01T09:00:00Z')).expired).toEqual([]);
  });

  it('reads ages in hours, days and weeks, and says why anything else is none', () => {
    expect(parseAge('90d')).toBe(90 * 86_400_000);
    expect(parseAge(' 12W ')).toBe(12 * 7 * 86_400_000);
    expect(parseAge('36h')).toBe(36 * 3_600_000);
    expect(parseAge('90')).toMatch(/no age: write a number of hours, days or weeks/);
    expect(parseAge('3m')).toMatch(/no age/);
    expect(parseAge('0d')).toMatch(/at least 1d/);
  });

  it('reads a date or an ISO time, and names the field that holds anything else', () => {
    expect(parseDate(' 2026-09-01 ')).toEqual(new Date('2026-09-01T00:00:00Z'));
    expect(parseDate('2026-09-01T12:30:00+02:00')).toEqual(new Date('2026-09-01T10:30:00Z'));
    expect(parseDate('next week')).toBe('"next week" is no date: write 2026-09-01 or an ISO time');
    const names = { olderThan: 'olderThan', before: 'before' };
    const now = Date.parse('2026-09-01T00:00:00Z');
    expect(retentionCutoff({ olderThan: '2d' }, now, names)).toEqual(new Date('2026-08-30T00:00:00Z'));
    expect(retentionCutoff({ before: '2026-01-01' }, now, names)).toEqual(new Date('2026-01-01T00:00:00Z'));
    expect(retentionCutoff({}, now, names)).toBeNull();
    expect(retentionCutoff({ olderThan: '2d', before: '2026-01-01' }, now, names)).toBe(
      'give olderThan or before, not both',
    );
    expect(retentionCutoff({ olderThan: '2' }, now, names)).toMatch(/^olderThan: "2" is no age/);
    expect(retentionCutoff({ before: 'soon' }, now, names)).toMatch(/^before: "soon" is no date/);
  });
});
