/**
 * Do the results a skill tells an agent to expect hold on sessions it was not learned from? A state-changing step
 * says what its result showed when it worked ("Expect its result to show "Airplane Mode is now OFF.""), and the
 * finishing condition what the goal call's result showed; read on other successful sessions that made that call
 * and it worked, the last such call's result should show it. Reads each skill's body, as an agent does.
 */
import { shownLeaves } from '../domain/main-path.js';
import type { Session } from '../domain/types.js';
import { stepResults } from '../distillers/heuristic-distiller.js';

export interface StepResultCheck {
  skill: string;
  step: string;
  /** The finishing condition's call (else a step's note). */
  done: boolean;
  shows: { path: string; value: string }[];
  /** Successful sessions in which the call worked at least once. */
  sessions: number;
  /** Of those, the sessions whose last working call of it showed everything stated. */
  held: number;
}

export function checkStepResults(
  skills: readonly { name: string; body: string }[],
  sessions: readonly Session[],
): StepResultCheck[] {
  const successful = sessions.filter((s) => s.outcome === 'success');
  return skills.flatMap((skill) =>
    stepResults(skill.body).map(({ step, shows, done }) => {
      const c: StepResultCheck = { skill: skill.name, step, done, shows, sessions: 0, held: 0 };
      for (const s of successful) {
        const last = s.calls.filter((call) => call.ok && call.tool === step).pop();
        if (!last) continue;
        c.sessions++;
        const shown = shownLeaves(last.result);
        if (shows.every((x) => shown.some((l) => l.path === x.path && l.value === x.value))) c.held++;
      }
      return c;
    }),
  );
}
