import { z } from 'zod';
import type { Outcome, ToolCall } from '../domain/types.js';
import type { CapturedSession } from './types.js';
import { InputError } from '../errors/input-error.js';
import { toolNameProblem } from '../domain/tool-name.js';
import { keepFirst } from '../support/text.js';

/**
 * The interchange format: one session per line (the shape of the tau trajectories).
 * `meta` is kept as the session's labels for people and scoring tools; the engine never reads it.
 */
export const normalizedStepSchema = z.object({
  tool: z.string().superRefine((name, ctx) => {
    const wrong = toolNameProblem(name);
    if (wrong) ctx.addIssue({ code: 'custom', message: wrong });
  }),
  args: z.record(z.string(), z.unknown()).nullish(),
  result: z.unknown().optional(),
  ok: z.boolean().optional(),
  error: z.string().nullish(),
  duration_ms: z.number().nonnegative().nullish(),
  at: z.string().nullish(),
});

export const normalizedSessionSchema = z.object({
  session_id: z.string().min(1).max(500),
  goal: z.string().min(1, 'goal must be a non-empty string'),
  /** The user's own first words when the goal is something else (a task statement): a recall cue. */
  cue: z.string().nullish(),
  /** Same as `cue`, under the name the tau and BFCL exports use at the top level. */
  first_user_message: z.string().nullish(),
  source: z.string().nullish(),
  agent_id: z.string().nullish(),
  success: z.boolean().nullish(),
  outcome: z.enum(['success', 'failure', 'unknown']).nullish(),
  reward: z.number().min(0).max(1).nullish(),
  started_at: z.string().nullish(),
  ended_at: z.string().nullish(),
  steps: z.array(normalizedStepSchema),
  /** The agent's last answer, when known: the outcome judge reads it (it is not stored). */
  final_answer: z.string().nullish(),
  meta: z.record(z.string(), z.unknown()).nullish(),
});

export type NormalizedSession = z.infer<typeof normalizedSessionSchema>;

export interface CaptureLimits {
  resultChars: number;
  maxCallsPerSession: number;
}

export function capText(text: string, max: number): string {
  return text.length <= max ? text : `${keepFirst(text, max)}… (truncated)`;
}

export function stringifyResult(result: unknown): string {
  if (result == null) return '';
  return typeof result === 'string' ? result : JSON.stringify(result);
}

/** Maps one validated record to a Session. Throws with a reason when the record is unusable. */
export function fromNormalized(
  rec: NormalizedSession,
  namespace: string,
  limits: CaptureLimits,
  now: string,
): CapturedSession {
  if (rec.steps.length > limits.maxCallsPerSession) {
    throw new InputError(
      `steps: ${rec.steps.length} calls exceed the limit of ${limits.maxCallsPerSession} per session (capture.maxCallsPerSession)`,
    );
  }
  const outcome: Outcome = rec.outcome ?? (rec.success == null ? 'unknown' : rec.success ? 'success' : 'failure');
  const calls: ToolCall[] = rec.steps.map((s, position) => ({
    position,
    tool: s.tool,
    args: (s.args ?? {}) as Record<string, unknown>,
    result: capText(stringifyResult(s.result), limits.resultChars),
    ok: s.ok ?? !s.error,
    error: s.error ?? null,
    durationMs: s.duration_ms ?? null,
    at: s.at ?? null,
  }));
  return {
    id: rec.session_id,
    namespace,
    goal: rec.goal,
    cue: cueOf(rec),
    outcome,
    reward: rec.reward ?? null,
    agentId: rec.agent_id ?? null,
    source: rec.source ?? null,
    startedAt: rec.started_at ?? now,
    endedAt: rec.ended_at ?? null,
    labels: rec.meta ?? null,
    calls,
    outcomeSource: 'reported',
  };
}

/**
 * The record's cue: `cue`, else `first_user_message`, else `meta.first_user_message` (the one field of
 * `meta` the engine reads: it is what the agent saw, not a label). None when it only repeats the goal.
 */
export function cueOf(rec: Pick<NormalizedSession, 'goal' | 'cue' | 'first_user_message' | 'meta'>): string | null {
  const fromMeta = rec.meta?.first_user_message;
  const cue = rec.cue ?? rec.first_user_message ?? (typeof fromMeta === 'string' ? fromMeta : null);
  const text = cue?.trim();
  return text && text !== rec.goal.trim() ? text : null;
}
