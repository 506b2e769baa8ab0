import { splitStepKey, stepKey } from './commands.js';
import type { Outcome, ToolCall } from './types.js';

/** What a recalled skill's trial reads of it: its main path as the keys its steps align on, and every tool it names. */
export interface TrialProcedure {
  /** The main path's step keys (commands.ts: stepKeysOf): the steps a session that followed it made. */
  steps: readonly string[];
  /** Every tool the skill names (its main path, branches and edge cases): a call to another one left its path. */
  tools: readonly string[];
}

/**
 * Which trial a session's reported outcome is for a skill recalled for it: 'pass', 'fail', or null when the session
 * went another way, so its outcome says nothing about the skill. Pure.
 *
 * Only a call to a tool the skill does not name, after one it names, shows that a session left it: a session that
 * stayed on its tools, or took its own way to the first of them (another lookup of the same user), gives it its
 * outcome, as a trial always did (an agent may record only some of its calls).
 * - A step of the skill that failed and never worked in the session is the skill's failure, whatever the outcome:
 *   the session failed on it, or got there by another tool (a tool renamed or removed under the skill, and the
 *   agent found the new one). A step that failed and then worked (a retry) is not.
 * - A success that made every step of the skill's main path, each at least once without an error, is a pass, extra
 *   calls or not.
 * - A session that called a tool the skill does not name and did neither (it closed the ticket with patch_ticket
 *   where the skill says update_ticket; it failed on a tool the skill does not call) gives no trial: served beside
 *   the skill it followed, a skill is not credited with that one's outcome.
 */
export function trialOf(
  procedure: TrialProcedure,
  calls: readonly Pick<ToolCall, 'tool' | 'args' | 'ok'>[],
  outcome: Exclude<Outcome, 'unknown'>,
  thinkTools: readonly string[],
): 'pass' | 'fail' | null {
  const think = new Set(thinkTools);
  const work = calls.filter((c) => !think.has(c.tool));
  const plain = outcome === 'success' ? 'pass' : 'fail';
  const named = new Set([...procedure.tools, ...procedure.steps.map((k) => splitStepKey(k).tool)]);
  const onPath = work.findIndex((c) => named.has(c.tool));
  if (onPath < 0 || !work.slice(onPath + 1).some((c) => !named.has(c.tool))) return plain;
  const worked = new Set<string>();
  const failed = new Set<string>();
  for (const c of work) (c.ok ? worked : failed).add(stepKey(c));
  const steps = [...new Set(procedure.steps)];
  if (steps.some((k) => failed.has(k) && !worked.has(k))) return 'fail';
  if (outcome === 'success' && steps.every((k) => worked.has(k))) return 'pass';
  return null;
}
