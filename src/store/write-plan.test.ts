import { describe, expect, it } from 'vitest';
import type { Skill } from '../domain/types.js';
import { skill } from './store.contract.js';
import type { FeedbackRecord, FeedbackRequest, SkillWrite } from './store.js';
import {
  accepted,
  auditDetailWithout,
  eventType,
  feedbackKeyStanding,
  isRejection,
  planFeedback,
  planForgetSession,
  planForgetSkill,
  planMoveRecalls,
  planReembed,
  planSetEnabled,
  planSkillWrite,
  trialStanding,
  WriteRejectedError,
  type SkillWritePlan,
} from './write-plan.js';

const AT = '2025-06-01T00:00:00.000Z';

function write(over: Partial<SkillWrite> = {}): SkillWrite {
  return { action: 'add', skill: skill(), parents: [], actor: 'synth', detail: {}, at: AT, ...over };
}

function feedback(compute: FeedbackRequest['compute'], over: Partial<FeedbackRequest> = {}): FeedbackRequest {
  return {
    namespace: 'default',
    idOrName: 'cancel-order',
    signal: 'trial.pass',
    value: null,
    sessionId: 's1',
    actor: 'outcome',
    at: AT,
    compute,
    ...over,
  };
}

describe('planSkillWrite', () => {
  it('an add: the row, its parents and version, one audit record and one event', () => {
    const s = skill();
    const plan = accepted(
      planSkillWrite(
        write({ skill: s, parents: [{ kind: 'episodic', id: 's1' }], detail: { cluster: 'c1' }, clusterId: 'c1' }),
        { superseded: null },
      ),
    );
    expect(plan).toEqual<SkillWritePlan>({
      skill: s,
      supersede: null,
      provenance: [{ skillId: 'sk_old', sourceKind: 'episodic', sourceId: 's1', version: '1.0.0', createdAt: AT }],
      dropProvenance: [],
      version: {
        skillId: 'sk_old',
        version: '1.0.0',
        skillMd: s.skillMd,
        toolSequence: s.toolSequence,
        reason: 'add',
        createdAt: AT,
      },
      files: null,
      linkCluster: {
        table: 'clusters',
        set: { skill_id: 'sk_old', dirty: false, last_pass_at: AT },
        where: { namespace: 'default', id: 'c1' },
      },
      audit: [
        {
          namespace: 'default',
          at: AT,
          actor: 'synth',
          action: 'skill.add',
          subjectKind: 'skill',
          subjectId: 'sk_old',
          detail: { cluster: 'c1', version: '1.0.0', parents: 1, supersedes: null },
        },
      ],
      events: [
        {
          namespace: 'default',
          at: AT,
          type: 'skill.created',
          skillId: 'sk_old',
          payload: { name: 'cancel-order', cluster: 'c1', version: '1.0.0', parents: 1, supersedes: null },
        },
      ],
      skillsChanged: true,
    });
  });

  it('a reinforce amends the row of the version it has (its text states the new counts); an import keeps its files', () => {
    const reinforced = accepted(planSkillWrite(write({ action: 'reinforce' }), { superseded: null }));
    expect(reinforced.version).toMatchObject({ skillId: 'sk_old', version: '1.0.0', reason: 'reinforce' });
    const files = [{ path: 'SKILL.md', bytes: Buffer.from('x') }];
    const plan = accepted(planSkillWrite(write({ action: 'import', files }), { superseded: null }));
    expect(plan.files).toEqual({
      skillId: 'sk_old',
      version: '1.0.0',
      files,
      clear: { table: 'skill_files', where: { skill_id: 'sk_old', version: '1.0.0' } },
    });
    expect(plan.version?.reason).toBe('import');
  });

  it('a supersede of a live row marks it and adds the skill.superseded event', () => {
    const plan = accepted(
      planSkillWrite(write({ action: 'supersede', skill: skill({ id: 'sk_new' }), supersedes: 'sk_old' }), {
        superseded: { supersededBy: null },
      }),
    );
    expect(plan.supersede).toEqual({
      table: 'skills',
      set: { superseded_by: 'sk_new', updated_at: AT },
      where: { namespace: 'default', id: 'sk_old' },
    });
    expect(plan.events.map((e) => [e.type, e.skillId, e.payload.supersedes ?? e.payload.by])).toEqual([
      ['skill.created', 'sk_new', 'sk_old'],
      ['skill.superseded', 'sk_old', 'sk_new'],
    ]);
  });

  it('refuses a supersede of a missing or already superseded row, with a typed rejection', () => {
    for (const superseded of [null, { supersededBy: 'sk_other' }]) {
      const out = planSkillWrite(write({ action: 'supersede', skill: skill({ id: 'sk_new' }), supersedes: 'sk_old' }), {
        superseded,
      });
      expect(isRejection(out)).toBe(true);
      expect(out).toEqual({
        rejected: true,
        code: 'supersede-target-not-live',
        message: 'cannot supersede sk_old: not a live skill in default',
      });
      expect(() => accepted(out)).toThrow(WriteRejectedError);
      expect(() => accepted(out)).toThrow('cannot supersede sk_old: not a live skill in default');
    }
  });

  it('a revise deletes the parents it drops; a retirement it causes is said as a status change and a retirement', () => {
    const plan = accepted(
      planSkillWrite(
        write({
          action: 'revise',
          skill: skill({ status: 'retired' }),
          before: { status: 'probationary' },
          dropParents: ['s1', 's2'],
          detail: { revoked: 2 },
        }),
        { superseded: null },
      ),
    );
    expect(plan.dropProvenance).toEqual(
      ['s1', 's2'].map((id) => ({
        table: 'provenance',
        where: { skill_id: 'sk_old', source_kind: 'episodic', source_id: id },
      })),
    );
    expect(plan.provenance).toEqual([]);
    expect(plan.audit.map((a) => [a.action, a.detail.revoked])).toEqual([['skill.revise', 2]]);
    expect(plan.events.map((e) => [e.type, e.payload.from ?? null, e.payload.to ?? null])).toEqual([
      ['skill.revised', null, null],
      ['skill.status_changed', 'probationary', 'retired'],
      ['skill.retired', null, null],
    ]);
    // A revise that leaves the status as it was says nothing of it.
    const kept = accepted(
      planSkillWrite(write({ action: 'revise', skill: skill(), before: skill(), dropParents: ['s1'] }), {
        superseded: null,
      }),
    );
    expect(kept.events.map((e) => e.type)).toEqual(['skill.revised']);
  });

  it('names the event of every action', () => {
    expect(
      (['add', 'supersede', 'update', 'reinforce', 'import', 'promote', 'revise'] as const).map(eventType),
    ).toEqual([
      'skill.created',
      'skill.created',
      'skill.updated',
      'skill.reinforced',
      'skill.imported',
      'skill.promoted',
      'skill.revised',
    ]);
  });
});

describe('planFeedback', () => {
  const before = skill({ eta: 0.5, status: 'probationary', utility: 0.2, trialsAttempted: 2, trialsPassed: 1 });
  const to = (next: Partial<Skill>) => (s: Skill) => ({
    status: s.status,
    eta: s.eta,
    utility: s.utility,
    trialsAttempted: s.trialsAttempted + 1,
    trialsPassed: s.trialsPassed,
    ...next,
  });

  it('writes the lifecycle, a feedback row and an audit record; no event when neither eta nor status moves', () => {
    const plan = planFeedback(feedback(to({})), before, { sessionAlreadyTried: false })!;
    expect(plan.update).toEqual({
      table: 'skills',
      set: { status: 'probationary', eta: 0.5, utility: 0.2, trials_attempted: 3, trials_passed: 1, updated_at: AT },
      where: { id: 'sk_old' },
    });
    expect(plan.after).toEqual({ ...before, trialsAttempted: 3, updatedAt: AT });
    expect(plan.feedback).toEqual({
      namespace: 'default',
      skillId: 'sk_old',
      signal: 'trial.pass',
      value: null,
      sessionId: 's1',
      at: AT,
      etaBefore: 0.5,
      etaAfter: 0.5,
      statusBefore: 'probationary',
      statusAfter: 'probationary',
      utilityBefore: 0.2,
      utilityAfter: 0.2,
      actor: 'outcome',
      feedbackKey: null,
    });
    expect(plan.audit).toEqual([
      {
        namespace: 'default',
        at: AT,
        actor: 'outcome',
        action: 'skill.feedback',
        subjectKind: 'skill',
        subjectId: 'sk_old',
        detail: {
          signal: 'trial.pass',
          value: null,
          session: 's1',
          eta: [0.5, 0.5],
          status: ['probationary', 'probationary'],
          utility: [0.2, 0.2],
        },
      },
    ]);
    expect(plan.events).toEqual([]);
  });

  it('an eta change, a status change and a retirement each emit their event, in that order', () => {
    expect(
      planFeedback(feedback(to({ eta: 0.6 })), before, { sessionAlreadyTried: false })!.events.map((e) => e.type),
    ).toEqual(['skill.eta_changed']);
    expect(
      planFeedback(feedback(to({ status: 'active' })), before, { sessionAlreadyTried: false })!.events.map(
        (e) => e.type,
      ),
    ).toEqual(['skill.status_changed']);
    const retired = planFeedback(feedback(to({ eta: 0.1, status: 'retired' })), before, {
      sessionAlreadyTried: false,
    })!;
    expect(retired.events.map((e) => [e.type, e.payload])).toEqual([
      ['skill.eta_changed', { name: 'cancel-order', from: 0.5, to: 0.1, signal: 'trial.pass' }],
      ['skill.status_changed', { name: 'cancel-order', from: 'probationary', to: 'retired' }],
      ['skill.retired', { name: 'cancel-order' }],
    ]);
  });

  it('once per session: a session that already tried the skill writes nothing; without the flag it counts again', () => {
    expect(planFeedback(feedback(to({}), { oncePerSession: true }), before, { sessionAlreadyTried: true })).toBeNull();
    expect(planFeedback(feedback(to({})), before, { sessionAlreadyTried: true })).not.toBeNull();
    // Without a session there is nothing to count once.
    expect(
      planFeedback(feedback(to({}), { oncePerSession: true, sessionId: null }), before, { sessionAlreadyTried: true }),
    ).not.toBeNull();
  });

  const judgedOnly = { actors: ['judge'], replay: () => [] };
  it("trialStanding: a session's judged trial is replaced by a report or a newer judgement; anything else counts once", () => {
    const judged = { id: 7, signal: 'trial.fail', actor: 'judge' };
    const once = (signal: string, actor: string, over: Partial<FeedbackRequest> = {}) =>
      feedback(to({}), { signal, actor, oncePerSession: true, replaces: judgedOnly, ...over });
    expect(trialStanding(once('trial.pass', 'outcome'), null)).toBe('new');
    expect(trialStanding(once('trial.pass', 'outcome'), judged)).toBe('replace');
    // The reported outcome the judge had guessed right: the trial becomes the report's.
    expect(trialStanding(once('trial.fail', 'outcome'), judged)).toBe('replace');
    expect(trialStanding(once('trial.pass', 'judge'), judged)).toBe('replace');
    expect(trialStanding(once('trial.fail', 'judge'), judged)).toBe('tried');
    // A reported trial (or one from before actors were kept) is final.
    for (const actor of ['outcome', 'cli', null])
      expect(trialStanding(once('trial.pass', 'outcome'), { ...judged, actor })).toBe('tried');
    expect(trialStanding(once('trial.pass', 'outcome', { replaces: undefined }), judged)).toBe('tried');
    expect(trialStanding(feedback(to({}), { replaces: judgedOnly }), judged)).toBe('new');
  });

  it('replacing a judged trial: the replay decides the lifecycle, the rows after it are restated, the new row follows them', () => {
    const row = (id: number, signal: string, actor: string): FeedbackRecord => ({
      id,
      skillId: 'sk_old',
      signal,
      value: null,
      sessionId: `s${id}`,
      at: AT,
      etaBefore: 0.5,
      etaAfter: 0.5,
      statusBefore: 'active',
      statusAfter: 'active',
      utilityBefore: 0.2,
      utilityAfter: 0.2,
      actor,
      replacedBy: null,
    });
    const history = [row(3, 'trial.pass', 'outcome'), row(4, 'trial.fail', 'judge'), row(9, 'trial.pass', 'outcome')];
    const state = (eta: number, status: Skill['status'] = 'active') => ({
      status,
      eta,
      utility: 0.3,
      trialsAttempted: 3,
      trialsPassed: 3,
    });
    const taken: number[] = [];
    const plan = planFeedback(
      feedback(
        () => {
          throw new Error('compute is not asked for when a trial is replaced');
        },
        {
          sessionId: 's4',
          oncePerSession: true,
          replaces: {
            actors: ['judge'],
            replay: (_s, h, at) => {
              taken.push(at, h.length);
              return [
                { before: state(0.6), after: state(0.7) },
                { before: state(0.7), after: state(0.8) },
              ];
            },
          },
        },
      ),
      before,
      { sessionAlreadyTried: false, replacing: { history, taken: 1 } },
    )!;
    expect(taken).toEqual([1, 3]);
    expect(plan.update.set).toMatchObject({ eta: 0.8, status: 'active', trials_attempted: 3, trials_passed: 3 });
    expect(plan.replaced).toEqual({
      id: 4,
      restated: [
        {
          id: 9,
          etaBefore: 0.6,
          etaAfter: 0.7,
          statusBefore: 'active',
          statusAfter: 'active',
          utilityBefore: 0.3,
          utilityAfter: 0.3,
        },
      ],
    });
    expect(plan.feedback).toMatchObject({ etaBefore: 0.7, etaAfter: 0.8, statusBefore: 'active', actor: 'outcome' });
    // The audit record and the events say the change the skill's row went through, and which trial gave way.
    expect(plan.audit[0].detail).toMatchObject({
      eta: [0.5, 0.8],
      status: ['probationary', 'active'],
      replaces: { signal: 'trial.fail', actor: 'judge', at: AT },
    });
    expect(plan.events.map((e) => e.type)).toEqual(['skill.eta_changed', 'skill.status_changed']);
  });
});

describe('the other plans', () => {
  it('enable and disable: the flag, one audit record, one event', () => {
    const plan = planSetEnabled(skill(), false, 'user', AT);
    expect(plan.update).toEqual({ table: 'skills', set: { enabled: false, updated_at: AT }, where: { id: 'sk_old' } });
    expect(plan.audit.map((a) => [a.action, a.detail])).toEqual([['skill.disable', { name: 'cancel-order' }]]);
    expect(plan.events.map((e) => [e.type, e.payload])).toEqual([['skill.disabled', { name: 'cancel-order' }]]);
    expect(planSetEnabled(skill(), true, 'user', AT).events[0].type).toBe('skill.enabled');
  });

  it('forgetting a skill: every row of it, its cluster unlinked; one audit record and one event with the same detail', () => {
    const plan = planForgetSkill(skill(), { actor: 'user', at: AT });
    expect(plan.changes.map((c) => [c.table, c.set ?? 'delete', c.where])).toEqual([
      ['skills', 'delete', { namespace: 'default', id: 'sk_old' }],
      ['skill_versions', 'delete', { skill_id: 'sk_old' }],
      ['provenance', 'delete', { skill_id: 'sk_old' }],
      ['feedback', 'delete', { skill_id: 'sk_old' }],
      ['recall_items', 'delete', { skill_id: 'sk_old' }],
      ['skill_files', 'delete', { skill_id: 'sk_old' }],
      ['clusters', { skill_id: null }, { namespace: 'default', skill_id: 'sk_old' }],
    ]);
    expect(plan.audit[0]).toMatchObject({
      action: 'skill.forget',
      subjectId: 'sk_old',
      detail: { name: 'cancel-order', version: '1.0.0', corpus: 'internal' },
    });
    expect(plan.events).toEqual([
      { namespace: 'default', at: AT, type: 'skill.forgotten', skillId: 'sk_old', payload: plan.audit[0].detail },
    ]);
  });

  it('forgetting a session: named by its reference only; one event per parent skill; skills change only with parents', () => {
    const plan = planForgetSession(
      'default',
      'ses-0123456789abcdef',
      { calls: 3, clusterId: 'c1', parents: [{ skillId: 'sk_a', name: 'a' }] },
      { actor: 'user', at: AT },
    );
    expect(plan.result).toEqual({ ref: 'ses-0123456789abcdef', calls: 3, skills: ['sk_a'], clusterId: 'c1' });
    expect(plan.audit).toEqual([
      {
        namespace: 'default',
        at: AT,
        actor: 'user',
        action: 'session.forget',
        subjectKind: 'session',
        subjectId: 'ses-0123456789abcdef',
        detail: { calls: 3, skills: ['sk_a'] },
      },
    ]);
    expect(plan.events.map((e) => [e.type, e.skillId, e.payload])).toEqual([
      ['skill.parent_forgotten', 'sk_a', { name: 'a' }],
    ]);
    expect(plan.skillsChanged).toBe(true);
    expect(
      planForgetSession('default', 'ses-x', { calls: 0, clusterId: null, parents: [] }, { actor: 'user', at: AT })
        .skillsChanged,
    ).toBe(false);
  });

  it('re-embedding: one audit record and one namespace event with the counts', () => {
    const plan = planReembed('default', { embedderId: 'e2', actor: 'doctor', at: AT }, { skills: 2, clusters: 1 });
    expect(plan.audit[0]).toMatchObject({
      action: 'skills.reembed',
      subjectKind: 'namespace',
      subjectId: 'default',
      detail: { embedderId: 'e2', skills: 2, clusters: 1 },
    });
    expect(plan.events).toEqual([
      {
        namespace: 'default',
        at: AT,
        type: 'skills.reembedded',
        skillId: null,
        payload: { embedderId: 'e2', skills: 2, clusters: 1 },
      },
    ]);
  });
});

describe('feedbackKeyStanding', () => {
  const sk = { id: 'sk_old', name: 'cancel-order' };
  const held = (over: Partial<Parameters<typeof feedbackKeyStanding>[2] & object> = {}) => ({
    skillId: 'sk_old',
    name: 'cancel-order',
    signal: 'user.positive',
    value: null,
    ...over,
  });

  it('is new without a feedback under the key, and a repeat of the same skill, signal and value', () => {
    expect(feedbackKeyStanding({ signal: 'user.positive', value: null }, sk, null)).toBe('new');
    expect(feedbackKeyStanding({ signal: 'user.positive', value: null }, sk, held())).toBe('repeated');
    expect(feedbackKeyStanding({ signal: 'reward', value: 0.25 }, sk, held({ signal: 'reward', value: 0.25 }))).toBe(
      'repeated',
    );
  });

  it('refuses another signal, value or skill under the key, naming what the key was given for', () => {
    const other = feedbackKeyStanding({ signal: 'user.negative', value: null }, sk, held());
    expect(other).toMatchObject({ rejected: true, code: 'feedback-key-reused' });
    expect(isRejection(other) && other.message).toMatch(
      /^this feedback id was given before, with user\.positive for cancel-order; /,
    );
    expect(
      feedbackKeyStanding({ signal: 'reward', value: 0.5 }, sk, held({ signal: 'reward', value: 0.25 })),
    ).toMatchObject({ message: expect.stringMatching(/with reward=0\.25 for cancel-order/) });
    expect(
      feedbackKeyStanding({ signal: 'user.positive', value: null }, sk, held({ skillId: 'sk_b', name: 'b' })),
    ).toMatchObject({ message: expect.stringMatching(/with user\.positive for b;/) });
    expect(() =>
      accepted(feedbackKeyStanding({ signal: 'user.positive', value: null }, sk, held({ skillId: 'sk_b' }))),
    ).toThrow(WriteRejectedError);
  });
});

describe('planMoveRecalls', () => {
  it('one recall.move audit record per recall moved, naming it and the sessions it went from and to', () => {
    const plan = planMoveRecalls(
      'default',
      [
        { recallId: 7, from: 'cc:S', to: 'cc:S#2' },
        { recallId: 9, from: 'cc:S', to: 'cc:S#3' },
      ],
      { actor: 'capture', at: AT },
    );
    expect(plan.audit).toEqual([
      {
        namespace: 'default',
        at: AT,
        actor: 'capture',
        action: 'recall.move',
        subjectKind: 'recall',
        subjectId: '7',
        detail: { recall: 7, from: 'cc:S', to: 'cc:S#2' },
      },
      {
        namespace: 'default',
        at: AT,
        actor: 'capture',
        action: 'recall.move',
        subjectKind: 'recall',
        subjectId: '9',
        detail: { recall: 9, from: 'cc:S', to: 'cc:S#3' },
      },
    ]);
    expect(plan.events).toEqual([]);
    expect(plan.skillsChanged).toBe(false);
  });
});

describe('auditDetailWithout', () => {
  const refs = new Map([
    ['s1', 'ses-1'],
    ['a"b', 'ses-2'],
  ]);
  it("names a forgotten session by its reference in a feedback's session and a move's from and to, only", () => {
    expect(auditDetailWithout('skill.feedback', '{"signal":"up","session":"s1","n":1}', refs)).toBe(
      '{"signal":"up","session":"ses-1","n":1}',
    );
    expect(auditDetailWithout('recall.move', '{"recall":3,"from":"a\\"b","to":"s1"}', refs)).toBe(
      '{"recall":3,"from":"ses-2","to":"ses-1"}',
    );
    // A rename's from is a skill's name; a session not forgotten stays.
    expect(auditDetailWithout('skill.rename', '{"from":"s1","to":"x"}', refs)).toBeNull();
    expect(auditDetailWithout('skill.feedback', '{"session":"s10"}', refs)).toBeNull();
  });
  it("names forgotten sessions by their references in a revise's list of the sources it took out", () => {
    expect(auditDetailWithout('skill.revise', '{"revoked":3,"revokedSessions":["s1","s2","a\\"b"]}', refs)).toBe(
      '{"revoked":3,"revokedSessions":["ses-1","s2","ses-2"]}',
    );
    expect(auditDetailWithout('skill.revise', '{"revoked":1,"revokedSessions":["s2"]}', refs)).toBeNull();
    // Another action's list of that name is no revise's.
    expect(auditDetailWithout('skill.update', '{"revokedSessions":["s1"]}', refs)).toBeNull();
  });
  it('replaces the ids a detail that is not a JSON object holds, as written or as JSON spells them', () => {
    expect(auditDetailWithout('skill.feedback', '{"session":"s1","eta":[0.5', refs)).toBe(
      '{"session":"ses-1","eta":[0.5',
    );
    expect(auditDetailWithout('note', 'moved from a\\"b by hand', refs)).toBe('moved from ses-2 by hand');
    expect(auditDetailWithout('note', 'nothing here', refs)).toBeNull();
  });
  it("replaces a forgotten id only where it stands whole, never inside another session's id or a word", () => {
    expect(auditDetailWithout('note', 'moved s1 to s10 (not s1x, s1-b, cc:s1 or s1.5) after s1. s1: done', refs)).toBe(
      'moved ses-1 to s10 (not s1x, s1-b, cc:s1 or s1.5) after ses-1. ses-1: done',
    );
    expect(auditDetailWithout('note', 's10 and s1x and as1 and s1_2', refs)).toBeNull();
    expect(auditDetailWithout('note', '[s1]', refs)).toBe('[ses-1]');
    // Several forgotten ids: the longer one whole, and a reference written is not read again.
    const both = new Map([
      ['s1', 'ses-1'],
      ['s1 b', 'ses-3'],
      ['ses', 'ses-4'],
    ]);
    expect(auditDetailWithout('note', 's1 b, s1, ses', both)).toBe('ses-3, ses-1, ses-4');
  });
  it('in a JSON detail, a field equal to a forgotten id is replaced, one that only contains it is not', () => {
    expect(auditDetailWithout('skill.feedback', '{"session":"s1x","note":"s1"}', refs)).toBeNull();
    expect(auditDetailWithout('recall.move', '{"from":"cc:s1","to":"s1 "}', refs)).toBeNull();
    expect(auditDetailWithout('skill.revise', '{"revokedSessions":["s10","s1-b"]}', refs)).toBeNull();
  });
});
