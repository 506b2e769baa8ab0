import { describe, expect, it } from 'vitest';
import { retiredForEvidence, reviseSources } from './revoked-sources.js';

const rules = { minOccurrences: 2, minSuccessRate: 0.5 };
const skill = (over = {}) => ({
  sourceSessions: ['a', 'b', 'c', 'd'],
  successCount: 4,
  attemptCount: 5,
  support: 4,
  status: 'probationary' as const,
  ...over,
});

describe('reviseSources', () => {
  it('is null when no source was reported failed', () => {
    expect(reviseSources(skill(), new Set(['x']), rules)).toBeNull();
  });

  it('takes a failed source out of the sources and the successes; it stays a follower', () => {
    expect(reviseSources(skill(), new Set(['b', 'x']), rules)).toEqual({
      sourceSessions: ['a', 'c', 'd'],
      successCount: 3,
      attemptCount: 5,
      support: 3,
      status: 'probationary',
      revoked: ['b'],
      retiredBecause: null,
    });
  });

  it('retires a skill left with fewer successful sessions than a new one needs, and says why', () => {
    const r = reviseSources(skill(), new Set(['a', 'b', 'c']), rules)!;
    expect(r).toMatchObject({ sourceSessions: ['d'], successCount: 1, attemptCount: 5, status: 'retired' });
    expect(r.retiredBecause).toBe(
      '3 of the 4 session(s) it was learned from were reported failed after it was learned: 1 successful session(s) remain, 2 needed; its success rate is now 1/5, below the floor 0.5',
    );
  });

  it('retires one whose success rate falls below the floor though enough sources remain', () => {
    const r = reviseSources(skill({ attemptCount: 6 }), new Set(['a', 'b']), rules)!;
    expect(r).toMatchObject({ successCount: 2, attemptCount: 6, status: 'retired' });
    expect(r.retiredBecause).toMatch(
      /2 of the 4 .* were reported failed .*: its success rate is now 2\/6, below the floor 0.5$/,
    );
  });

  it('keeps the status of a skill a person edited, or one already retired, and revises its counts', () => {
    expect(reviseSources(skill(), new Set(['a', 'b', 'c']), rules, { keepStatus: true })).toMatchObject({
      successCount: 1,
      status: 'probationary',
      retiredBecause: null,
    });
    expect(reviseSources(skill({ status: 'retired' }), new Set(['a', 'b', 'c']), rules)).toMatchObject({
      status: 'retired',
      retiredBecause: null,
    });
  });
});

describe('retiredForEvidence', () => {
  const revise = { action: 'skill.revise', detail: { retired: '3 of the 4 ...' } };
  const trialRetired = { action: 'skill.feedback', detail: { status: ['active', 'retired'] } };
  const trial = { action: 'skill.feedback', detail: { status: ['retired', 'retired'] } };
  it('is true when the latest retirement was a revise, whatever came after that did not retire it', () => {
    expect(retiredForEvidence([trial, revise, trialRetired])).toBe(true);
    expect(retiredForEvidence([{ action: 'skill.revise', detail: { revoked: 1 } }, revise])).toBe(true);
  });
  it('is false when its trials retired it last, or it was promoted since, or nothing says', () => {
    expect(retiredForEvidence([trialRetired, revise])).toBe(false);
    expect(retiredForEvidence([{ action: 'skill.promote', detail: {} }, revise])).toBe(false);
    expect(retiredForEvidence([])).toBe(false);
  });
});
