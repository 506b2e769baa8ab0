import { describe, expect, it } from 'vitest';
import { applySignal, type LifecycleRules, type LifecycleState, type Signal } from './lifecycle.js';
import { replaceTrial, type PastSignal } from './replace-trial.js';

const rules: LifecycleRules = {
  candidateTrials: 3,
  minEtaForRetrieval: 0.5,
  retireEta: 0.25,
  etaDelta: 0.1,
  utilityAlpha: 0.2,
  trialWindow: 20,
};
const pass: Signal = { kind: 'trial.pass' };
const fail: Signal = { kind: 'trial.fail' };
const promote: Signal = { kind: 'user.promote' };
const PRIOR = 0.8;
const START: LifecycleState = {
  status: 'probationary',
  eta: PRIOR,
  utility: 0,
  trialsAttempted: 0,
  trialsPassed: 0,
  prior: PRIOR,
};

/**
 * A skill's track record as the store keeps it, signal by signal: each signal is applied to the state the last one
 * left, given the latest `trialWindow` trials since the skill last came back from retirement (the return itself
 * excluded), and leaves a row saying what it found and left.
 */
function track(signals: readonly Signal[], r: LifecycleRules = rules) {
  const rows: PastSignal[] = [];
  let state = START;
  let since: boolean[] = [];
  let restarted = false;
  for (const sig of signals) {
    // A person promotes only a retired skill (anything else is refused, and leaves no row).
    if (sig.kind === 'user.promote' && state.status !== 'retired') continue;
    const recent = r.trialWindow ? { trials: since.slice(0, r.trialWindow), restarted } : undefined;
    const next = applySignal({ ...state, recent }, sig, r);
    delete next.recent;
    rows.push({
      signal: sig.kind,
      value: sig.kind === 'reward' ? sig.value : null,
      statusBefore: state.status,
      statusAfter: next.status,
      etaBefore: state.eta,
      utilityBefore: state.utility,
    });
    if (state.status === 'retired' && next.status !== 'retired') {
      since = [];
      restarted = true;
    } else if (sig.kind === 'trial.pass' || sig.kind === 'trial.fail') since = [sig.kind === 'trial.pass', ...since];
    state = next;
  }
  return { rows, state };
}

/** The state after replacing signal `at` of `signals` by `reported`, told again from the track record. */
function replaced(signals: readonly Signal[], at: number, reported: Signal, r: LifecycleRules = rules) {
  const { rows, state } = track(signals, r);
  const steps = replaceTrial(rows, at, reported, state, r);
  expect(steps).toHaveLength(signals.length - at);
  return steps.at(-1)!.after;
}

/** As if only the reported trial had happened: the history without the judged trial, the reported one last. */
function expected(signals: readonly Signal[], at: number, reported: Signal, r: LifecycleRules = rules) {
  const { state } = track([...signals.slice(0, at), ...signals.slice(at + 1), reported], r);
  const { prior: _p, ...rest } = state;
  return rest;
}

const times = (n: number, sig: Signal) => Array.from({ length: n }, () => sig);

describe('replaceTrial: a judged trial taken back, the reported outcome counted instead', () => {
  it('with fewer trials than the window: counts, eta, utility and status as if only the reported trial had come', () => {
    const signals = [pass, pass, fail, pass, { kind: 'user.positive' } as Signal, pass];
    for (const [at, reported] of [
      [2, pass],
      [3, fail],
      [5, fail],
      [0, fail],
    ] as const) {
      const got = replaced(signals, at, reported);
      const want = expected(signals, at, reported);
      expect(got).toEqual(want);
    }
    // The counts hold one trial of the task: a judged fail reported as a pass is 5 passes of 5, not 5 of 6.
    expect(replaced(signals, 2, pass)).toMatchObject({ trialsAttempted: 5, trialsPassed: 5 });
  });

  it('with a full window: the judged trial leaves the window and the reported one enters it', () => {
    // 30 passes, a judged fail, 12 more passes: the window of 20 holds the fail until the reported pass replaces it.
    const signals = [...times(30, pass), fail, ...times(12, pass)];
    const got = replaced(signals, 30, pass);
    expect(got).toEqual(expected(signals, 30, pass));
    expect(got).toMatchObject({ trialsAttempted: 43, trialsPassed: 43, status: 'active' });
    const { state } = track(signals);
    expect(got.eta).toBeGreaterThan(state.eta);
    // And the other way: a judged pass inside the window that the person reports as a failure.
    const other = [...times(25, pass), ...times(8, fail), pass, ...times(4, fail)];
    expect(replaced(other, 33, fail)).toEqual(expected(other, 33, fail));
  });

  it('a retirement the judged trials caused, and the promotion that undid it: told again without them', () => {
    // Judged failures retire the skill at its third trial; a person promotes it; then passes.
    const signals = [fail, fail, fail, promote, pass, pass, pass];
    const { rows } = track(signals);
    expect(rows[2].statusAfter).toBe('retired');
    expect(rows[3].statusAfter).toBe('probationary');
    // The first judged fail was a success: told again, the skill is not retired when the person's promotion comes
    // (two trials, still on probation), so the promotion changes nothing, and the passes that follow count.
    const got = replaced(signals, 0, pass);
    expect(got).toEqual(expected(signals, 0, pass));
    expect(got).toMatchObject({ trialsAttempted: 6, trialsPassed: 4, status: 'active' });
    // After the promotion, a judged trial of its probation is replaced: the window starts at the promotion.
    expect(replaced(signals, 5, fail)).toEqual(expected(signals, 5, fail));
  });

  it('a retirement and promotion after the replaced trial: its probation is judged on the trials since', () => {
    const signals = [...times(6, pass), pass, ...times(20, fail), promote, fail, pass];
    const { rows } = track(signals);
    expect(rows.filter((r) => r.statusAfter === 'retired' && r.statusBefore !== 'retired')).toHaveLength(1);
    const got = replaced(signals, 6, fail);
    expect(got).toEqual(expected(signals, 6, fail));
    // Its probation is decided by the three trials since the promotion (the reported one last), 1 pass of 3 on its
    // prior of 0.8: eta 2.6 / 5, not by the 20 failures before it.
    expect(got).toMatchObject({ status: 'active', eta: 0.52 });
  });

  it('a promotion of a skill that, told again, never retired changes nothing', () => {
    const signals = [pass, pass, ...times(11, fail), promote, pass];
    const { rows } = track(signals);
    const retiredAt = rows.findIndex((r) => r.statusAfter === 'retired');
    expect(retiredAt).toBe(12);
    // Without the failure that retired it, the skill stays active, and the promotion finds nothing to undo: its eta
    // is not lifted to its prior, as a promotion of a retired skill would.
    const got = replaced(signals, retiredAt, pass);
    expect(got.status).not.toBe('retired');
    expect(got).toEqual(expected(signals, retiredAt, pass));
    const lifted = applySignal({ ...track(signals.slice(0, retiredAt)).state }, promote, rules);
    expect(got.eta).not.toBe(lifted.eta);
  });

  it('taken back with nothing in its place: as if the judged trial had never come', () => {
    const signals = [...times(5, pass), fail, pass, { kind: 'user.negative' } as Signal, pass];
    const { rows, state } = track(signals);
    const steps = replaceTrial(rows, 5, null, state, rules);
    expect(steps).toHaveLength(4);
    const { prior: _p, ...want } = track([...signals.slice(0, 5), ...signals.slice(6)]).state;
    expect(steps.at(-1)!.after).toEqual(want);
    expect(steps.at(-1)!.after).toEqual(steps.at(-1)!.before);
  });

  it('the same with every trial counted (no window)', () => {
    const all = { ...rules, trialWindow: 0 };
    const signals = [...times(22, pass), fail, ...times(3, pass)];
    expect(replaced(signals, 22, pass, all)).toEqual(expected(signals, 22, pass, all));
  });

  it('counts trials carried over from an earlier skill (no rows of their own) as the totals say', () => {
    const { rows, state } = track([pass, fail, pass]);
    const carried = { ...state, trialsAttempted: state.trialsAttempted + 10, trialsPassed: state.trialsPassed + 9 };
    const [step] = replaceTrial(rows, 2, fail, carried, rules).slice(-1);
    expect(step.after).toMatchObject({ trialsAttempted: 13, trialsPassed: 10 });
  });

  it('refuses to take back a signal that is no trial', () => {
    const { rows, state } = track([pass, { kind: 'user.positive' }]);
    expect(() => replaceTrial(rows, 1, pass, state, rules)).toThrow(/no trial/);
  });
});
