import { describe, expect, it } from 'vitest';
import { bumpVersion, defaultReconcileRules, reconcile, sameProcedureVersion, sameSkill } from './reconcile.js';
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

  it('bumps SemVer: minor for an update, major for a superseding skill, patch for the same text', () => {
    expect(bumpVersion('1.0.0', 'minor')).toBe('1.1.0');
    expect(bumpVersion('1.4.2', 'major')).toBe('2.0.0');
    expect(bumpVersion('1.4.2', 'minor')).toBe('1.5.0');
    expect(bumpVersion('1.4.2', 'patch')).toBe('1.4.3');
    expect(bumpVersion('1.4.0', 'patch')).toBe('1.4.1');
    expect(sameProcedureVersion(bumpVersion('1.4.0', 'patch'))).toBe(true);
    for (const v of ['1.0.0', bumpVersion('1.0.1', 'minor'), bumpVersion('1.0.1', 'major'), 'x'])
      expect(sameProcedureVersion(v), v).toBe(false);
  });

  it('treats a procedure that ends with a hand-off to a person as the same skill as its action, not an escalation', () => {
    // IDF-like weights as a pass gives them: the email lookup and the transfer are rare, so plain weighted
    // overlap of the two procedures is 0.35, below the bar.
    const weight: Record<string, number> = {
      find_user_id_by_name_zip: 0.94,
      find_user_id_by_email: 2.2,
      get_user_details: 0.85,
      get_order_details: 0.85,
      return_delivered_order_items: 1.34,
      cancel_pending_order: 1.6,
      transfer_to_human_agents: 2.46,
    };
    const rules = { ...defaultReconcileRules, toolWeight: (t: string) => weight[t] ?? 1 };
    const returnByName = [
      'find_user_id_by_name_zip',
      'get_user_details',
      'get_order_details',
      'return_delivered_order_items',
    ];
    const returnByEmailThenTransfer = [
      'find_user_id_by_email',
      'get_user_details',
      'get_order_details',
      'return_delivered_order_items',
      'transfer_to_human_agents',
    ];
    expect(sameSkill(returnByName, returnByEmailThenTransfer, rules)).toBe(true);
    // Escalations (lookups, then a hand-off) are still one skill with each other, and not with a return.
    const escalateByName = [
      'find_user_id_by_name_zip',
      'get_user_details',
      'get_order_details',
      'transfer_to_human_agents',
    ];
    const escalateByEmail = [
      'find_user_id_by_email',
      'get_user_details',
      'get_order_details',
      'transfer_to_human_agents',
    ];
    expect(sameSkill(escalateByName, escalateByEmail, rules)).toBe(true);
    expect(sameSkill(returnByName, escalateByEmail, rules)).toBe(false);
    // Another action after the same lookups is another skill, hand-off or not.
    const cancelThenTransfer = [
      'find_user_id_by_email',
      'get_user_details',
      'get_order_details',
      'cancel_pending_order',
      'transfer_to_human_agents',
    ];
    expect(sameSkill(returnByEmailThenTransfer, cancelThenTransfer, rules)).toBe(false);
  });
});
