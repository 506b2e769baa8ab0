/** The JSON shapes every surface (CLI --json, REST, MCP) shows: one definition, so they cannot drift. */
import { branchesOf } from '../domain/branches.js';
import type { Session, Skill } from '../domain/types.js';
import type { RecalledSkill } from '../pipeline/recall.js';
import type { Memory } from '../app/memory.js';
import { noSkillNamed as sayNoSkillNamed } from '../domain/skill-rename.js';

/** A skill as every surface shows it: the stable shape of `skills list --json` (README "Stable JSON shapes"). */
export function skillJson(s: Skill) {
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    status: s.status,
    enabled: s.enabled,
    version: s.version,
    kind: s.kind,
    corpus: s.corpus,
    toolsRequired: s.toolsRequired,
    toolSequence: s.toolSequence,
    branches: branchesOf(s.body),
    successCount: s.successCount,
    attemptCount: s.attemptCount,
    support: s.support,
    eta: s.eta,
    utility: s.utility,
    sourceSessions: s.sourceSessions,
    supersededBy: s.supersededBy,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    lastUsedAt: s.lastUsedAt,
  };
}

/**
 * A skill in a list an agent reads (MCP `list_skills`): skillJson with the number of its source sessions instead
 * of their ids. A skill of a busy memory has hundreds, and a tool answer lands in a model's context; the ids stay
 * a read away (the REST skill, `skills list --json`).
 */
export function skillSummaryJson(s: Skill) {
  const { sourceSessions, ...rest } = skillJson(s);
  return { ...rest, sourceSessionCount: sourceSessions.length };
}

/** A recalled skill as `recall --json` shows it: the main path and, where the procedure branches, its branches. */
export function recalledJson(h: RecalledSkill) {
  return {
    id: h.id,
    name: h.name,
    similarity: h.similarity,
    toolsRequired: h.toolsRequired,
    toolSequence: h.toolSequence,
    branches: h.branches,
    body: h.body,
  };
}

/** A page of stored sessions (REST `GET /api/sessions`, `sessions list`): its default size and the most it holds. */
export const SESSION_PAGE = { size: 50, max: 200 } as const;

/** A session without its calls (list views): how many calls and which tools. */
export function sessionSummary(s: Session) {
  return {
    id: s.id,
    goal: s.goal,
    outcome: s.outcome,
    /** `reported` by the log, a person or a pipeline; `judged` by the outcome judge. */
    outcomeSource: s.outcomeSource ?? 'reported',
    reward: s.reward,
    agentId: s.agentId,
    source: s.source,
    startedAt: s.startedAt,
    endedAt: s.endedAt,
    callCount: s.calls.length,
    tools: [...new Set(s.calls.map((c) => c.tool))],
  };
}

/** A session with every tool call (the provenance page). */
export function sessionJson(s: Session) {
  return { ...sessionSummary(s), labels: s.labels ?? null, calls: s.calls };
}

/** What a lookup by a name that found no skill says, with the name the skill it meant has now (skill-rename.ts). */
export async function noSkillNamed(memory: Pick<Memory, 'skills'>, name: string): Promise<string> {
  return sayNoSkillNamed(name, await memory.skills.nowKnownAs(name));
}
