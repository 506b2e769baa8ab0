import { isCommandRunner, stepKey } from './commands.js';
import { roleOf } from './step-role.js';
import type { Session, Span, ToolCall } from './types.js';

export interface SpanRules {
  minSteps: number;
  /** Tools that only hold the agent's reasoning (e.g. `think`): never steps of a procedure. */
  thinkTools: readonly string[];
}

/**
 * The calls a session's procedure is made of, reasoning aside: those that worked, and a command run that failed
 * before a change and worked when run again after it. A failing test the fix then made pass is how the agent saw
 * the problem: a step, not a mistake. Other failed calls stay out (edge cases read them).
 */
export function procedureCalls(calls: readonly ToolCall[], think: ReadonlySet<string>): ToolCall[] {
  return calls.filter((c, i) => !think.has(c.tool) && (c.ok || showsTheProblem(calls, i)));
}

function showsTheProblem(calls: readonly ToolCall[], i: number): boolean {
  if (!isCommandRunner(calls[i].tool)) return false;
  const key = stepKey(calls[i]);
  const change = calls.findIndex((c, j) => j > i && c.ok && roleOf(c.tool) === 'action');
  return change > i && calls.some((c, j) => j > change && c.ok && stepKey(c) === key);
}

/**
 * Detect: the material of a successful session is its procedure's calls in order (procedureCalls), if there
 * are at least minSteps of them. Failed calls stay in the session as evidence for edge cases.
 */
export function detectSpan(session: Session, rules: SpanRules): Span | null {
  if (session.outcome !== 'success') return null;
  const calls = procedureCalls(session.calls, new Set(rules.thinkTools));
  if (calls.length < rules.minSteps) return null;
  const request = requestOf(session);
  return {
    sessionId: session.id,
    start: calls[0].position,
    end: calls[calls.length - 1].position + 1,
    calls,
    ...(request ? { request } : {}),
  };
}

/** What the user asked, as the session recorded it: its goal and, when known apart, its first message. */
export function requestOf(session: Pick<Session, 'goal' | 'cue'>): string {
  return [session.goal, session.cue ?? ''].filter(Boolean).join('\n');
}
