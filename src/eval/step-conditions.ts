/**
 * Do the conditions a skill's steps state hold on sessions it was not learned from? A step some sessions skipped
 * is written with what the others had seen just before taking it ("when `check_network_status` printed "Airplane
 * Mode: ON""); read on other successful sessions that ran that check, the condition should have shown before the
 * step in those that took it, and never in those that did not. Reads each skill's body, as an agent does.
 */
import { type BranchCondition, shownIn } from '../domain/branches.js';
import type { Session } from '../domain/types.js';
import { stepConditions } from '../distillers/heuristic-distiller.js';

export interface StepConditionCheck {
  skill: string;
  step: string;
  when: BranchCondition;
  /** Successful sessions that ran the condition's check. */
  sessions: number;
  /** Took the step, and the check had shown the condition before it. */
  tookWhenShown: number;
  /** Took the step without the check showing the condition before it (another check told them, or nothing did). */
  tookOtherwise: number;
  /** Did not take the step, and the check never showed the condition. */
  skippedWhenNotShown: number;
  /** Did not take the step although the check showed the condition: an agent following the skill would have. */
  firedWithout: number;
}

export function checkStepConditions(
  skills: readonly { name: string; body: string }[],
  sessions: readonly Session[],
): StepConditionCheck[] {
  const out: StepConditionCheck[] = [];
  const successful = sessions.filter((s) => s.outcome === 'success');
  for (const skill of skills) {
    for (const { step, when } of stepConditions(skill.body)) {
      const c: StepConditionCheck = {
        skill: skill.name,
        step,
        when,
        sessions: 0,
        tookWhenShown: 0,
        tookOtherwise: 0,
        skippedWhenNotShown: 0,
        firedWithout: 0,
      };
      for (const s of successful) {
        const calls = s.calls.filter((call) => call.ok);
        if (!calls.some((call) => call.tool === when.tool)) continue;
        c.sessions++;
        const at = calls.findIndex((call) => call.tool === step);
        if (at >= 0) {
          if (shownIn(when, calls.slice(0, at))) c.tookWhenShown++;
          else c.tookOtherwise++;
        } else if (shownIn(when, calls)) c.firedWithout++;
        else c.skippedWhenNotShown++;
      }
      out.push(c);
    }
  }
  return out;
}
