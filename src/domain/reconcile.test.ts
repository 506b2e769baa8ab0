import { describe, expect, it } from 'vitest';
import {
  bumpVersion,
  defaultReconcileRules,
  oneSkill,
  reconcile,
  sameProcedureVersion,
  sameSkill,
  shareDistinctiveTool,
} from './reconcile.js';
import { TermStats } from './term-stats.js';
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

  it('takes tools every kind of task calls as no evidence of the same task: then the requests must be duplicates', () => {
    // A coding agent's namespace: Read and Edit in every session, Grep in a third of them.
    const stats = new TermStats();
    for (let i = 0; i < 9; i++) stats.addDocument(i < 3 ? ['Grep', 'Read', 'Edit'] : ['Read', 'Edit']);
    expect(stats.share('Edit')).toBe(1);
    expect(stats.share('Grep')).toBeCloseTo(1 / 3);
    expect(stats.share('Write')).toBe(0);
    const rules = {
      ...defaultReconcileRules,
      toolWeight: (t: string) => stats.weight(t),
      toolShare: (t: string) => stats.share(t),
      duplicate: 0.85,
    };
    const fix = ['Read', 'Edit'];
    const rename = ['Grep', 'Read', 'Edit', 'Edit'];
    // The tools alone say these are one procedure.
    expect(sameSkill(fix, rename, rules)).toBe(true);
    expect(shareDistinctiveTool(fix, rename, rules)).toBe(false);
    // Requests as alike as a recall match are not enough; duplicates are.
    expect(oneSkill(fix, rename, 0.7, rules)).toBe(false);
    expect(oneSkill(fix, rename, 0.9, rules)).toBe(true);
    // A rarer tool in common is evidence again (two runs of a rename, one grepping twice).
    expect(oneSkill(rename, ['Grep', 'Grep', 'Read', 'Edit'], 0.7, rules)).toBe(true);
    // Without shares (a caller that has none), every tool counts, as before.
    expect(oneSkill(fix, rename, 0.7, { ...defaultReconcileRules })).toBe(true);
  });

  it('reinforces a neighbour alike only in common tools when, and only when, the requests are duplicates', () => {
    const share: Record<string, number> = { Read: 0.9, Edit: 0.95 };
    const rules = { ...defaultReconcileRules, toolShare: (t: string) => share[t] ?? 0.1, duplicate: 0.85 };
    const neighbour = skill({ id: 'n', toolSequence: ['Read', 'Edit'], body: '', clusterId: 'other' });
    const candidate = { toolSequence: ['Read', 'Edit'], successes: 3, followers: 3 };
    expect(reconcile(candidate, null, [{ skill: neighbour, similarity: 0.6 }], rules).action).toBe('add');
    expect(reconcile(candidate, null, [{ skill: neighbour, similarity: 0.9 }], rules).action).toBe('reinforce');
    // A task-specific action in common (a tool under half the sessions call) still reinforces at recall similarity.
    const cancel = skill({
      id: 'c',
      toolSequence: ['get_order_details', 'cancel_pending_order'],
      body: '',
      clusterId: 'other',
    });
    const cancelRules = { ...rules, toolShare: (t: string) => (t === 'get_order_details' ? 1 : 0.2) };
    const again = { toolSequence: ['get_order_details', 'cancel_pending_order'], successes: 3, followers: 3 };
    expect(reconcile(again, null, [{ skill: cancel, similarity: 0.6 }], cancelRules).action).toBe('reinforce');
  });
});
