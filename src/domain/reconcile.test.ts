import { describe, expect, it } from 'vitest';
import { bumpVersion, reconcile } from './reconcile.js';
import type { Skill } from './types.js';

const skill = (over: Partial<Skill>): Skill =>
  ({
    id: 'old',
    name: 'refund-order',
    toolSequence: ['find', 'get', 'refund'],
    successCount: 4,
    attemptCount: 5,
    version: '1.0.0',
    ...over,
  }) as Skill;

describe('reconcile', () => {
  it('adds when nothing similar exists, never matching by name alone', () => {
    expect(reconcile({ toolSequence: ['a', 'b', 'c'], successes: 3, followers: 3 }, null, [])).toEqual({
      action: 'add',
    });
    const sameNameOtherProcedure = skill({ toolSequence: ['x', 'y', 'z'] });
    expect(
      reconcile({ toolSequence: ['a', 'b', 'c'], successes: 3, followers: 3 }, null, [
        { skill: sameNameOtherProcedure, similarity: 0.9 },
      ]).action,
    ).toBe('add');
  });

  it('reinforces the same procedure, updates a changed one, supersedes when the track record dominates', () => {
    const own = skill({});
    expect(reconcile({ toolSequence: ['find', 'get', 'refund'], successes: 5, followers: 6 }, own, []).action).toBe(
      'reinforce',
    );
    expect(
      reconcile({ toolSequence: ['find', 'get', 'check', 'refund'], successes: 4, followers: 6 }, own, []).action,
    ).toBe('update');
    expect(reconcile({ toolSequence: ['find', 'check', 'refund'], successes: 9, followers: 9 }, own, []).action).toBe(
      'supersede',
    );
  });

  it('treats a near-duplicate neighbour as the same skill', () => {
    const d = reconcile({ toolSequence: ['find', 'get', 'refund'], successes: 3, followers: 3 }, null, [
      { skill: skill({}), similarity: 0.95 },
    ]);
    expect(d).toMatchObject({ action: 'reinforce', target: { id: 'old' } });
  });

  it('bumps SemVer: minor for an update, major for a superseding skill', () => {
    expect(bumpVersion('1.0.0', 'minor')).toBe('1.1.0');
    expect(bumpVersion('1.4.2', 'major')).toBe('2.0.0');
  });
});
