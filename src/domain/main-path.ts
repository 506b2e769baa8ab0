/**
 * The main path of a procedure: each session's calls up to the state-changing call that achieved its goal
 * (what came after, a last look-up or a hand-off, is not the procedure), and what that call's result showed
 * when it worked. Pure.
 */
import { isCommandRunner } from './commands.js';
import { type Leaf, resultLeaves } from './result-values.js';
import { roleOf } from './step-role.js';

/**
 * How many of a session's steps belong to its main path: up to its last state-changing call (what came after,
 * a look-up or a hand-off to a person, is not the procedure), and on to the last command run after it: a coding
 * agent's test or build run after its edit is how it knows the change works. All of them when nothing changed
 * anything (a session that only looks things up and answers, or hands off).
 */
export function mainPathLength(seq: readonly string[]): number {
  for (let i = seq.length - 1; i >= 0; i--) {
    if (roleOf(seq[i]) !== 'action') continue;
    for (let j = seq.length - 1; j > i; j--) if (isCommandRunner(seq[j])) return j + 1;
    return i + 1;
  }
  return seq.length;
}

/**
 * The steps of a session's main path, by index: those up to its goal (mainPathLength), and a hand-off to a person
 * that ended the session after it (the lookups between are left out). Whether a procedure keeps that hand-off is
 * for the sessions to decide: where most successful runs of a task ended by handing the user on after the fix
 * (a line resumed, then a transfer when service did not come back), an agent that stops at the fix has not done
 * what they did; where one run did, the consensus drops it as a side trip.
 */
export function mainPathIndices(seq: readonly string[]): number[] {
  const length = mainPathLength(seq);
  const out = Array.from({ length }, (_, i) => i);
  const last = seq.length - 1;
  if (last >= length && roleOf(seq[last]) === 'handoff') out.push(last);
  return out;
}

/** The call a procedure's main path ends at: its last state-changing step, preferring a required one. */
export function goalStep<T extends { tool: string; conditional: boolean }>(steps: readonly T[]): T | null {
  const acting = steps.filter((s) => roleOf(s.tool) === 'action');
  return [...acting].reverse().find((s) => !s.conditional) ?? acting[acting.length - 1] ?? null;
}

/** Field values longer than this are records, not what a result "showed". */
const MAX_SHOWN_VALUE = 40;
/** A plain-text answer's first line up to this long is a sentence saying what happened. */
const MAX_SHOWN_TEXT = 80;
/** Field names that say what happened. */
const OUTCOME_FIELD = /(^|\.)(status|result|success|message|outcome)$/i;

/**
 * What an action's results showed every time it worked: outcome fields (status, result, success, message; not
 * `state`, which is as often a place), or a plain-text answer's first line (path ``: the line that says what
 * happened, above a status print that differs each time), whose value is the same in at least 80% of the results
 * (and seen in at least two), short, and not an id or an amount (`status` `cancelled`, "Email deleted
 * successfully.", "Airplane Mode is now OFF."). Shallow fields first; at most `max`.
 */
export function constantFields(results: readonly string[], max = 2): Leaf[] {
  if (results.length === 0) return [];
  const counts = new Map<string, { leaf: Leaf; n: number }>();
  for (const r of results) {
    for (const leaf of shownLeaves(r)) {
      const key = `${leaf.path}\u0000${leaf.value}`;
      const c = counts.get(key) ?? { leaf, n: 0 };
      c.n++;
      counts.set(key, c);
    }
  }
  const need = Math.max(2, Math.ceil(results.length * 0.8));
  return [...counts.values()]
    .filter((c) => c.n >= need)
    .sort(
      (a, b) => a.leaf.path.split('.').length - b.leaf.path.split('.').length || a.leaf.path.localeCompare(b.leaf.path),
    )
    .slice(0, max)
    .map((c) => c.leaf);
}

/**
 * What one result says happened, each distinct leaf once: its outcome fields, or a plain text's first line (not a
 * printed nothing such as `None`, nor a header over a listing such as `Results:`), short and not an id or an
 * amount. constantFields keeps those most results share; the evaluation checks a stated one against a result.
 */
export function shownLeaves(result: string): Leaf[] {
  const out: Leaf[] = [];
  const once = new Set<string>();
  for (const whole of resultLeaves(result)) {
    const text = whole.path === '';
    const leaf = text ? { path: '', value: firstLine(whole.value) } : whole;
    const said = text
      ? !/^[[{"]/.test(leaf.value) && !/^(none|null|nil|undefined|nan)$/i.test(leaf.value) && !leaf.value.endsWith(':')
      : OUTCOME_FIELD.test(leaf.path);
    if (!said || leaf.path.includes('[]') || leaf.path.includes('*')) continue;
    if (leaf.value.length > (text ? MAX_SHOWN_TEXT : MAX_SHOWN_VALUE)) continue;
    if (/\d{3}/.test(leaf.value) || /(^|[._])id$/i.test(leaf.path)) continue;
    const key = `${leaf.path}\u0000${leaf.value}`;
    if (once.has(key)) continue;
    once.add(key);
    out.push(leaf);
  }
  return out;
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l) ?? ''
  );
}
