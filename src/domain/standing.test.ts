import { describe, expect, it } from 'vitest';
import { JUDGE_ACTOR } from './replace-trial.js';
import { standingOf, type StandingSignal } from './standing.js';

const skill = {
  name: 'update-ticket',
  corpus: 'internal' as const,
  supersededBy: null,
  enabled: true,
  status: 'retired' as const,
  eta: 0.2,
};

/** A track record of trials, the last one retiring the skill; `judged`: which of them the outcome judge gave. */
function history(signals: ('trial.pass' | 'trial.fail')[], judged: (i: number) => boolean): StandingSignal[] {
  return signals.map((signal, i) => ({
    signal,
    at: `2025-03-0${Math.min(9, 1 + Math.floor(i / 3))}T00:00:00.000Z`,
    statusBefore: 'active',
    statusAfter: i === signals.length - 1 ? 'retired' : 'active',
    actor: judged(i) ? JUDGE_ACTOR : 'outcome',
  }));
}

describe("standingOf: a retired skill's reason says which failed trials the judge gave", () => {
  const signals = ['trial.pass', 'trial.fail', 'trial.fail', 'trial.fail'] as const;
  const reason = (judged: (i: number) => boolean) =>
    standingOf(skill, history([...signals], judged), { retireEta: 0.25, trialWindow: 20 }).reason;

  it('none judged: as before', () => {
    expect(reason(() => false)).toMatch(/^retired on 2025-03-02: 3 of its last 4 trials failed \(eta 0\.200/);
  });

  it('some or all judged: says so, and that a reported outcome replaces a judged trial', () => {
    expect(reason((i) => i >= 2)).toMatch(
      /^retired on 2025-03-02: 3 of its last 4 trials failed \(2 of them as the outcome judge read its task; a task's reported outcome replaces its judged trial\) \(eta 0\.200/,
    );
    expect(reason(() => true)).toMatch(/3 of its last 4 trials failed \(each as the outcome judge read its task;/);
  });
});
