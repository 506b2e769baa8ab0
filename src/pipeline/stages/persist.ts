import type { Verdict } from '../../domain/verify.js';
import type { Skill } from '../../domain/types.js';
import type { SkillWrite } from '../../store/store.js';
import type { DraftMaterial, GroupInput } from '../group.js';
import type { PipelineDeps } from '../pipeline-deps.js';
import type { Placement } from './reconcile.js';

/**
 * Persist and lineage: the skill row, its embedding, provenance (episodic: stored source sessions; semantic:
 * facts), audit record and event, in one store transaction (`writeSkill`). A dry run writes nothing, but the
 * catalog takes the would-be skill so later groups of the same run see it, as they would in a real pass.
 * Returns the skill as stored.
 */
export async function persistSkill(
  deps: PipelineDeps,
  input: GroupInput,
  material: DraftMaterial,
  verdict: Verdict,
  placed: Placement,
): Promise<Skill> {
  const { skill, decision, supersedes, at } = placed;
  if (input.dryRun) {
    if (decision.action === 'supersede') input.skills.remove(decision.target.id);
    input.skills.put(skill);
    return skill;
  }
  const { counts, sourceSessions, admissionSummary } = material;
  const linked = input.linkCluster !== false;
  // Provenance must resolve at write time: keep only parents that are stored sessions.
  const stored = await deps.store.existingSessionIds(input.namespace, sourceSessions);
  const write: SkillWrite = {
    action: decision.action,
    skill,
    ...(decision.action === 'reinforce' || decision.action === 'update' ? { before: decision.target } : {}),
    supersedes,
    parents: [
      ...sourceSessions.filter((id) => stored.has(id)).map((id) => ({ kind: 'episodic' as const, id })),
      ...(input.facts ?? []).map((f) => ({ kind: 'semantic' as const, id: f.id })),
    ],
    actor: input.actor,
    detail: {
      cluster: input.clusterId,
      successRate: round(admissionSummary?.successRate ?? 0),
      followers: counts.attemptCount,
      coverage: round(verdict.coverage),
      resonance: round(verdict.resonance),
      distiller: deps.distiller.id,
      // What more sessions did to the skill they joined: its track record shows the change (explain).
      ...(decision.action === 'reinforce' || decision.action === 'update'
        ? {
            eta: { from: decision.target.eta, to: skill.eta },
            support: { from: decision.target.support, to: skill.support },
            // Back on probation (a skill retired for want of evidence whose group was learned from again).
            ...(decision.target.status !== skill.status
              ? { status: { from: decision.target.status, to: skill.status } }
              : {}),
          }
        : {}),
    },
    clusterId: linked ? input.clusterId : null,
    at,
  };
  const saved = await deps.store.writeSkill(write);
  if (supersedes) input.skills.remove(supersedes);
  input.skills.put(saved);
  deps.log
    .child('pass')
    .info(`skill ${decision.action}`, { cluster: input.clusterId, skill: saved.name, version: saved.version });
  return saved;
}

const round = (x: number) => Math.round(x * 1000) / 1000;
