import type { Session, Span, ToolCall } from './types.js';

export interface SpanRules {
  minSteps: number;
  /** Tools that only hold the agent's reasoning (e.g. `think`): never steps of a procedure. */
  thinkTools: readonly string[];
}

/**
 * Detect: the material of a successful session is its successful, non-reasoning calls in order, if there
 * are at least minSteps of them. Failed calls stay in the session as evidence for edge cases.
 */
export function detectSpan(session: Session, rules: SpanRules): Span | null {
  if (session.outcome !== 'success') return null;
  const think = new Set(rules.thinkTools);
  const calls = session.calls.filter((c) => c.ok && !think.has(c.tool));
  if (calls.length < rules.minSteps) return null;
  return { sessionId: session.id, start: calls[0].position, end: calls[calls.length - 1].position + 1, calls };
}

/** The tools a session used, in order, without reasoning tools (successful and failed calls alike). */
export function toolPath(calls: readonly ToolCall[], thinkTools: readonly string[], okOnly = false): string[] {
  const think = new Set(thinkTools);
  return calls.filter((c) => !think.has(c.tool) && (!okOnly || c.ok)).map((c) => c.tool);
}
