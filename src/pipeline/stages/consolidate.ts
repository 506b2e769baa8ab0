import { comparedSteps, defaultReconcileRules, oneSkill } from '../../domain/reconcile.js';
import { strongerThenOlderFirst } from '../../domain/skill-order.js';
import { editOf, givenNameOf } from '../../domain/learned-by.js';
import type { Skill } from '../../domain/types.js';
import type { PipelineDeps } from '../pipeline-deps.js';
import type { SkillCatalog } from '../skill-catalog.js';
import { mergeExemplars, storedExemplars } from '../skill-embedding.js';
import { withSupport } from '../support.js';

/**
 * Consolidation of skills already stored: two live skills learned by passes that are one skill (same action,
 * overlapping tools beyond the common ones, or duplicate requests; reconcile's oneSkill) and alike enough to be recalled for each other's requests
 * become one, unless a person named the one that would be absorbed. The one with more support absorbs the other's provenance, counts and exemplars; the other is
 * superseded with lineage, never deleted. One write per pair, through the single write path.
 */
export async function consolidateSkills(
  deps: PipelineDeps,
  input: {
    namespace: string;
    skills: SkillCatalog;
    toolWeight: (t: string) => number;
    toolShare: (t: string) => number;
    actor: string;
    dryRun: boolean;
  },
): Promise<{ winner: Skill; loser: Skill }[]> {
  const merged: { winner: Skill; loser: Skill }[] = [];
  const bar = Math.min(deps.thresholds.recall, deps.thresholds.duplicate);
  const rules = {
    ...defaultReconcileRules,
    toolWeight: input.toolWeight,
    toolShare: input.toolShare,
    duplicate: deps.thresholds.duplicate,
  };
  const learned = input.skills.live().filter((s) => s.clusterId && s.embedding);
  learned.sort(strongerThenOlderFirst);
  for (const candidate of learned) {
    const winner = input.skills.get(candidate.id);
    if (!winner?.embedding) continue;
    for (const { skill: loser, similarity } of input.skills.neighbours(winner.embedding, bar, winner.id)) {
      // A skill a person named (skills rename) is one they told apart, and one they edited (skills edit) is theirs:
      // no housekeeping folds it into another.
      if (
        !loser.clusterId ||
        givenNameOf(loser.skillMd) ||
        editOf(loser.skillMd) ||
        loser.support > winner.support ||
        !oneSkill(
          comparedSteps(winner.toolSequence, winner.body),
          comparedSteps(loser.toolSequence, loser.body),
          similarity,
          rules,
        )
      )
        continue;
      const at = deps.now().toISOString();
      const absorbed: Skill = withSupport(
        {
          ...winner,
          ...(winner.exemplars ? mergeExemplars(winner, loser, deps.embedder.dimensions) : storedExemplars(loser)),
          updatedAt: at,
        },
        {
          successCount: winner.successCount + loser.successCount,
          attemptCount: winner.attemptCount + loser.attemptCount,
          support: winner.support + loser.support,
          sourceSessions: [...new Set([...winner.sourceSessions, ...loser.sourceSessions])],
        },
        deps.config.license,
      );
      merged.push({ winner: absorbed, loser });
      if (!input.dryRun) {
        const stored = await deps.store.existingSessionIds(input.namespace, loser.sourceSessions);
        const saved = await deps.store.writeSkill({
          action: 'reinforce',
          skill: absorbed,
          supersedes: loser.id,
          parents: loser.sourceSessions.filter((id) => stored.has(id)).map((id) => ({ kind: 'episodic' as const, id })),
          actor: input.actor,
          detail: {
            consolidated: loser.id,
            reason: 'same procedure as a live skill with more support',
            eta: { from: winner.eta, to: absorbed.eta },
            support: { from: winner.support, to: absorbed.support },
          },
          clusterId: winner.clusterId,
          at,
        });
        input.skills.remove(loser.id);
        input.skills.put(saved);
      } else {
        input.skills.remove(loser.id);
        input.skills.put(absorbed);
      }
      deps.log.child('pass').info('skills consolidated', { skill: winner.name, absorbed: loser.name });
    }
  }
  return merged;
}
