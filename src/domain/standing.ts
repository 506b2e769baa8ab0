import { JUDGE_ACTOR } from './replace-trial.js';
import type { Skill } from './types.js';

/** What a skill's standing reads of one feedback row (its track record), oldest first. */
export interface StandingSignal {
  signal: string;
  at: string;
  statusBefore: string;
  statusAfter: string;
  /** Who gave it: `judge` for a trial the outcome judge gave (JUDGE_ACTOR); null or absent for older rows. */
  actor?: string | null;
}

/** Whether recall can serve a skill (when a request matches it), and if not, why, in a person's words. */
export interface Standing {
  recallable: boolean;
  /** Why recall does not serve it, and what brings it back; null when it can be served. */
  reason: string | null;
}

/**
 * A skill's standing for `skills show`, `skills explain`, the REST explain and the dashboard: recallable, or the
 * reason it is not (imported, superseded, disabled, retired by its trials or a person, below the eta floor) with
 * what brings it back. `history`: its feedback rows, oldest first. Pure.
 */
export function standingOf(
  skill: Pick<Skill, 'name' | 'corpus' | 'supersededBy' | 'enabled' | 'status' | 'eta'>,
  history: readonly StandingSignal[],
  opts: {
    retireEta: number;
    trialWindow?: number;
    supersededByName?: string | null;
    /** Superseded because a tool was renamed: the successor is the same procedure with these tools renamed. */
    renamedTools?: readonly { from: string; to: string }[] | null;
    /** The skill recall serves now for the latest request this one was learned from, if another. */
    servedInstead?: string | null;
    /**
     * When a pass retired it because sessions it was learned from were reported failed afterwards, and why
     * (domain/revoked-sources.ts); a retirement its trials made later is said instead.
     */
    revisedAway?: { at: string; reason: string } | null;
  },
): Standing {
  const promote = `skills promote ${skill.name}`;
  if (skill.supersededBy)
    return {
      recallable: false,
      reason: `superseded by ${opts.supersededByName ?? skill.supersededBy}${renamedText(opts.renamedTools)}: recall serves that skill for its requests`,
    };
  if (skill.corpus !== 'internal')
    return { recallable: false, reason: `imported: never recalled until a person promotes it (${promote})` };
  if (!skill.enabled)
    return {
      recallable: false,
      reason: `disabled by a person: skills enable ${skill.name} lets recall serve it again`,
    };
  const eta = skill.eta.toFixed(3);
  if (skill.status === 'retired') {
    const instead = opts.servedInstead
      ? `; for the requests it was learned from, recall now serves ${opts.servedInstead}`
      : '; if its tools changed, a skill learned from the new runs takes its place';
    const revised = opts.revisedAway;
    if (
      revised &&
      !history.some((h) => h.at > revised.at && h.statusAfter === 'retired' && h.statusBefore !== 'retired')
    )
      return {
        recallable: false,
        reason: `retired on ${revised.at.slice(0, 10)}: ${revised.reason}: recall no longer serves it${opts.servedInstead ? instead : ''}. If those sessions did the task after all, ${promote} brings it back on probation and its trials from then on judge it`,
      };
    return {
      recallable: false,
      reason: `${retiredBy(history, opts.trialWindow)} (eta ${eta}, retired below ${opts.retireEta}): recall no longer serves it${instead}. If what made it fail is over (a tool that was down, a fix), ${promote} brings it back on probation and its trials from then on judge it`,
    };
  }
  if (skill.eta < opts.retireEta)
    return {
      recallable: false,
      reason: `eta ${eta} is below lifecycle.retireEta ${opts.retireEta}: recall does not serve it until a positive signal (feedback up, a passed trial) lifts it`,
    };
  return { recallable: true, reason: null };
}

/** When and by what a retired skill was retired, from its track record. */
function retiredBy(history: readonly StandingSignal[], window = 0): string {
  let at = -1;
  for (let i = history.length - 1; i >= 0; i--)
    if (history[i].statusAfter === 'retired' && history[i].statusBefore !== 'retired') {
      at = i;
      break;
    }
  if (at < 0) return 'retired';
  const row = history[at];
  const day = row.at.slice(0, 10);
  if (!row.signal.startsWith('trial.')) return `retired on ${day} by a ${row.signal} signal`;
  // Its trials up to then, since it last came back from retirement, as many as it was judged on.
  let from = 0;
  for (let i = at - 1; i >= 0; i--)
    if (history[i].statusBefore === 'retired' && history[i].statusAfter !== 'retired') {
      from = i + 1;
      break;
    }
  const trials = history.slice(from, at + 1).filter((h) => h.signal.startsWith('trial.'));
  const counted = window > 0 ? trials.slice(-window) : trials;
  const failed = counted.filter((h) => h.signal === 'trial.fail');
  // Failures the outcome judge gave are said: a person who knows better reports the task's outcome instead.
  const byJudge = failed.filter((h) => h.actor === JUDGE_ACTOR).length;
  const which =
    byJudge === 0
      ? ''
      : ` (${byJudge === failed.length ? 'each' : `${byJudge} of them`} as the outcome judge read its task; a task's reported outcome replaces its judged trial)`;
  return `retired on ${day}: ${failed.length} of its last ${counted.length} trials failed${which}`;
}

/** " (the same procedure: update_address is now set_address)", or nothing. */
export function renamedText(renamed: readonly { from: string; to: string }[] | null | undefined): string {
  return renamed?.length ? ` (the same procedure: ${renamed.map((r) => `${r.from} is now ${r.to}`).join(', ')})` : '';
}
