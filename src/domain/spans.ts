import type { Session, Span } from './types.js';

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
