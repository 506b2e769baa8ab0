import type { SkillStatus } from './types.js';

/** A feedback signal. Each carries an outcome; without one there is no signal and nothing changes. */
/** The signals that are a session's trial of a skill: an outcome, counted once a session. */
export const TRIAL_SIGNALS = ['trial.pass', 'trial.fail'] as const;

/** Whether a signal is a trial (TRIAL_SIGNALS). */
export function isTrial(kind: string): boolean {
  return (TRIAL_SIGNALS as readonly string[]).includes(kind);
}

export type Signal =
  | { kind: 'trial.pass' }
  | { kind: 'trial.fail' }
  | { kind: 'user.positive' }
  | { kind: 'user.negative' }
  | { kind: 'reward'; value: number }
  /** A person brings a retired skill back: probationary again, at least at the eta its evidence gave it. */
  | { kind: 'user.promote' };

export interface LifecycleState {
  status: SkillStatus;
  eta: number;
  utility: number;
  trialsAttempted: number;
  trialsPassed: number;
  /**
   * Mean of the Beta prior that trials update (weight 2, as Beta(1,1)): the eta the skill's evidence gave it
   * (see admit.seedEta). 0.5 when absent, which is the plain Beta(1,1) posterior.
   */
  prior?: number;
  /**
   * The skill's latest trials before this signal, newest first (true: passed), read for the trial window
   * (LifecycleRules.trialWindow): at most that many, and only those since it last came back from retirement
   * (`restarted`). Absent: every trial counts, as the totals say.
   */
  recent?: { trials: readonly boolean[]; restarted: boolean };
}

export interface LifecycleRules {
  candidateTrials: number;
  minEtaForRetrieval: number;
  retireEta: number;
  etaDelta: number;
  utilityAlpha: number;
  /**
   * How many of its latest trials a skill is judged on (the Beta posterior over them, on its prior): a skill that
   * worked for months and fails from today on (a tool renamed or removed under it) retires after about as many
   * failures as this, not after three times its whole history. 0 or absent: every trial.
   */
  trialWindow?: number;
}

/** The state of a freshly written skill: the Beta posterior with no trials, and utility 0 (ACT-R's weak new production). */
export const INITIAL_LIFECYCLE: LifecycleState = {
  status: 'probationary',
  eta: 0.5,
  utility: 0,
  trialsAttempted: 0,
  trialsPassed: 0,
};

/** Clamped to [0,1] and rounded, so 0.35 - 0.1 is 0.25 and not 0.2499999…: thresholds compare as people expect. */
const clamp01 = (x: number) => Math.round(Math.min(1, Math.max(0, x)) * 1e9) / 1e9;

/**
 * Posterior mean of the pass rate under a Beta prior of weight 2 and mean `prior`: Beta(1,1) for the default
 * 0.5, so (passed + 1) / (attempts + 2). A skill with strong evidence starts higher, and a passed trial never
 * lowers its eta.
 */
export function betaPosterior(passed: number, attempts: number, prior = 0.5): number {
  return (passed + 2 * prior) / (attempts + 2);
}

/** ACT-R 6 utility learning: U <- U + alpha (R - U). */
export function updateUtility(u: number, reward: number, alpha: number): number {
  return u + alpha * (reward - u);
}

/**
 * The single state-transition function of the lifecycle (MemOS): trials move eta as they move the Beta posterior and
 * decide probationary -> active/retired after candidateTrials; thumbs move eta by etaDelta; a reward blends
 * into eta and updates utility. Any skill whose eta falls below retireEta retires; a positive signal brings a
 * retired skill back to probationary. Pure.
 */
export function applySignal(state: LifecycleState, signal: Signal, rules: LifecycleRules): LifecycleState {
  const next: LifecycleState = { ...state };
  let positive = false;
  switch (signal.kind) {
    case 'trial.pass':
    case 'trial.fail': {
      const pass = signal.kind === 'trial.pass';
      next.trialsAttempted += 1;
      next.trialsPassed += pass ? 1 : 0;
      // The trial moves eta as far as it moves the Beta posterior: what thumbs and rewards did stays (a passed trial
      // never lowers eta, a failed one never raises it). With none, eta is the posterior itself.
      // Over the trial window when one is set: the latest trials, a pass or a fail leaving it as this one enters.
      const prior = state.prior ?? 0.5;
      const [before, after] = judgedTrials(state, pass, rules.trialWindow);
      const moved = betaPosterior(after[0], after[1], prior) - betaPosterior(before[0], before[1], prior);
      next.eta = clamp01(state.eta + moved);
      next.utility = updateUtility(state.utility, pass ? 1 : 0, rules.utilityAlpha);
      positive = pass;
      break;
    }
    case 'user.positive':
      next.eta = clamp01(state.eta + rules.etaDelta);
      positive = true;
      break;
    case 'user.promote':
      next.eta = clamp01(Math.max(state.eta, state.prior ?? 0.5, rules.retireEta));
      positive = true;
      break;
    case 'user.negative':
      next.eta = clamp01(state.eta - rules.etaDelta);
      break;
    case 'reward': {
      if (!Number.isFinite(signal.value) || signal.value < 0 || signal.value > 1) {
        throw new RangeError(`reward must be a number in [0,1], got ${signal.value}`);
      }
      next.eta = clamp01(0.7 * state.eta + 0.3 * signal.value);
      next.utility = updateUtility(state.utility, signal.value, rules.utilityAlpha);
      positive = signal.value >= 0.5;
      break;
    }
  }
  // A skill brought back from retirement is on probation again: its trials since then decide.
  const tried =
    state.recent?.restarted && rules.trialWindow
      ? state.recent.trials.length + (isTrial(signal.kind) ? 1 : 0)
      : next.trialsAttempted;
  next.status = nextStatus(state.status, next, positive, tried, rules);
  return next;
}

/**
 * The [passed, attempted] counts a trial's Beta posterior is read over, before and after it: every trial (the
 * totals), or with a window the latest `window` trials. Trials the totals count and the read ones do not (a track
 * record a newer distiller's rewrite carried over to a new skill) count at the totals' pass rate; none count from
 * before the skill last came back from retirement.
 */
function judgedTrials(
  state: LifecycleState,
  pass: boolean,
  window: number | undefined,
): [[number, number], [number, number]] {
  const p = pass ? 1 : 0;
  if (!window || window <= 0 || !state.recent)
    return [
      [state.trialsPassed, state.trialsAttempted],
      [state.trialsPassed + p, state.trialsAttempted + 1],
    ];
  const read = state.recent.trials.slice(0, window);
  const held = state.recent.restarted ? read.length : Math.min(window, Math.max(read.length, state.trialsAttempted));
  const rate = state.trialsAttempted > 0 ? state.trialsPassed / state.trialsAttempted : 0;
  // The window's trials, newest first: those read, then (unread) ones at the totals' rate.
  const passed = (n: number) => {
    const known = read.slice(0, n).filter(Boolean).length;
    return known + Math.max(0, n - read.length) * rate;
  };
  // As this trial enters, the oldest of a full window leaves.
  const kept = Math.min(held, window - 1);
  return [
    [passed(held), held],
    [passed(kept) + p, kept + 1],
  ];
}

function nextStatus(
  current: SkillStatus,
  s: LifecycleState,
  positive: boolean,
  tried: number,
  rules: LifecycleRules,
): SkillStatus {
  if (s.eta < rules.retireEta) return 'retired';
  if (current === 'retired') return positive ? 'probationary' : 'retired';
  if (current === 'probationary' && tried >= rules.candidateTrials) {
    return s.eta >= rules.minEtaForRetrieval ? 'active' : 'retired';
  }
  return current;
}

/** Parses a CLI/API feedback word: pass | fail | up | down | reward=<0..1>. */
export function parseSignal(text: string): Signal {
  const t = text.trim().toLowerCase();
  if (t === 'pass' || t === 'trial.pass') return { kind: 'trial.pass' };
  if (t === 'fail' || t === 'trial.fail') return { kind: 'trial.fail' };
  if (t === 'up' || t === 'user.positive' || t === '+1') return { kind: 'user.positive' };
  if (t === 'down' || t === 'user.negative' || t === '-1') return { kind: 'user.negative' };
  const m = /^reward\s*[=:]\s*(.+)$/.exec(t);
  if (m) {
    const value = Number(m[1]);
    if (!Number.isFinite(value) || value < 0 || value > 1)
      throw new RangeError(`reward must be in [0,1], got "${m[1]}"`);
    return { kind: 'reward', value };
  }
  throw new RangeError(`unknown feedback "${text}": use pass, fail, up, down or reward=<0..1>`);
}
