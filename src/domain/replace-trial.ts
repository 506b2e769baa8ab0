import { applySignal, isTrial, type LifecycleRules, type LifecycleState, type Signal } from './lifecycle.js';

/** Who gives a judged trial (lifecycle.judgedTrials): the outcome judge. A reported trial replaces it. */
export const JUDGE_ACTOR = 'judge';

/**
 * One signal of a skill's track record as its feedback rows keep it: what came, and the state it found and left.
 * Oldest first; only the signals that count (a trial that was replaced is not among them).
 */
export interface PastSignal {
  signal: string;
  value: number | null;
  statusBefore: string;
  statusAfter: string;
  etaBefore: number;
  /** Null on a row written before feedback kept it. */
  utilityBefore: number | null;
}

/** A lifecycle state without the window it was computed over. */
export type ReplayedState = Omit<LifecycleState, 'recent' | 'prior'>;

/** What a signal of the replay found and left. */
export interface ReplayedStep {
  before: ReplayedState;
  after: ReplayedState;
}

/**
 * A skill's lifecycle with one trial of its track record taken back, and `signal` come last instead: a judged
 * trial that the task's reported outcome replaces, or that a newer judgement of the task (it grew) replaces. The
 * state before the taken trial stays as it was; from there every later signal is applied again (applySignal, over
 * the trial window as the rest of the history gives it), then `signal`. So the skill's counts, eta, utility and
 * status end as if the taken trial had never come and `signal` had come now: one trial of the task, never two.
 *
 * `history`: the skill's signals that count, oldest first, the taken one at `taken`. `now`: the skill's state
 * (trial totals include every trial of `history`, and any its record carried over from an earlier skill), with the
 * prior its evidence gives it. Returns one step per signal after the taken one, then the step of `signal`. `signal`
 * null takes the trial back with nothing in its place (the task's reported outcome says nothing of the skill: the
 * session went another way); its step then changes nothing.
 *
 * A person's promotion (`user.promote`) of a skill that, told again, was never retired changes nothing: it was a
 * return from a retirement that no longer happened. Pure.
 */
export function replaceTrial(
  history: readonly PastSignal[],
  taken: number,
  signal: Signal | null,
  now: Pick<LifecycleState, 'trialsAttempted' | 'trialsPassed' | 'utility' | 'prior'>,
  rules: LifecycleRules,
): ReplayedStep[] {
  const gone = history[taken];
  if (!gone || !isTrial(gone.signal)) throw new RangeError(`signal ${taken} of the history is no trial to replace`);
  // The totals before the taken trial: today's, less every trial from it on.
  const from = history.slice(taken).filter((h) => isTrial(h.signal));
  const attempted = Math.max(0, now.trialsAttempted - from.length);
  const passed = Math.max(0, now.trialsPassed - from.filter((h) => h.signal === 'trial.pass').length);
  // Its trials before the taken one, newest first, since it last came back from retirement (the return excluded).
  let back = -1;
  for (let i = 0; i < taken; i++) if (returned(history[i].statusBefore, history[i].statusAfter)) back = i;
  let recent = history
    .slice(back + 1, taken)
    .filter((h) => isTrial(h.signal))
    .map((h) => h.signal === 'trial.pass')
    .reverse();
  let restarted = back >= 0;
  let state: ReplayedState = {
    status: gone.statusBefore as LifecycleState['status'],
    eta: gone.etaBefore,
    utility: gone.utilityBefore ?? now.utility,
    trialsAttempted: attempted,
    trialsPassed: passed,
  };
  const windowed = !!rules.trialWindow && rules.trialWindow > 0;
  const steps: ReplayedStep[] = [];
  for (const sig of [...history.slice(taken + 1).map(signalOf), signal]) {
    let after: ReplayedState = state;
    if (sig && !(sig.kind === 'user.promote' && state.status !== 'retired')) {
      const {
        prior: _p,
        recent: _r,
        ...next
      } = applySignal(
        { ...state, prior: now.prior, ...(windowed ? { recent: { trials: recent, restarted } } : {}) },
        sig,
        rules,
      );
      after = next;
    }
    steps.push({ before: state, after });
    if (returned(state.status, after.status)) {
      recent = [];
      restarted = true;
    } else if (sig && isTrial(sig.kind)) recent = [sig.kind === 'trial.pass', ...recent];
    state = after;
  }
  return steps;
}

/** A signal that took a skill out of retirement: its trials from then on judge it. */
function returned(before: string, after: string): boolean {
  return before === 'retired' && after !== 'retired';
}

/** The signal a stored row holds; null for a kind this version does not apply (it changes nothing here). */
function signalOf(h: PastSignal): Signal | null {
  switch (h.signal) {
    case 'trial.pass':
    case 'trial.fail':
    case 'user.positive':
    case 'user.negative':
    case 'user.promote':
      return { kind: h.signal };
    case 'reward':
      return h.value == null ? null : { kind: 'reward', value: h.value };
    default:
      return null;
  }
}
