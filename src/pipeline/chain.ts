import type { DraftMaterial, GroupInput, GroupOutcome } from './group.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { exemplarsFrom, NO_EXEMPLARS, skillEmbedding } from './skill-embedding.js';
import { admitGroup, summarizeAdmission } from './stages/admit.js';
import { distilDraft, factDraft } from './stages/distil.js';
import { embedTexts } from './stages/embed.js';
import { collectEvidence } from './stages/evidence.js';
import { persistSkill } from './stages/persist.js';
import { reconcileDraft } from './stages/reconcile.js';
import { toolsetSides } from './stages/toolset.js';
import { verifyMaterial } from './stages/verify.js';

/**
 * The stages one group of sessions goes through: (toolset ->) admit -> evidence -> distil -> verify -> reconcile ->
 * persist.
 * The synthesis pass runs it per dirty cluster, compile for its chosen sessions, cue or facts; this is the only
 * code path that writes a learned skill. Each stage is a file in stages/.
 */
export async function distilGroup(deps: PipelineDeps, input: GroupInput): Promise<GroupOutcome> {
  const skip = (reason: string, extra: Partial<GroupOutcome> = {}): GroupOutcome => {
    deps.log.child('pass').info('cluster skipped', { cluster: input.clusterId, reason });
    return { clusterId: input.clusterId, action: 'skip', reason, ...extra };
  };

  let material: DraftMaterial;
  if (input.sessions.length === 0 && input.facts?.length) {
    material = factDraft(input);
  } else {
    const cfg = deps.config.synthesis;
    // Sessions whose agents held tools the others never called part by that toolset: the procedure is the path
    // of those that needed none of it, the others' path a branch, when each side is admitted on its own.
    const sides = toolsetSides(cfg, input);
    const kit = sides ? admitGroup(cfg, sides.kit) : null;
    const base = sides && kit?.admitted ? admitGroup(cfg, sides.base) : null;
    const parted = sides && kit && base?.admitted ? { sides, kit, base } : null;
    const admission = parted ? parted.base : admitGroup(cfg, input);
    if (!admission.admitted)
      return skip(`not admitted: ${admission.reason}`, { admission: summarizeAdmission(admission) });
    const evidence = collectEvidence(cfg, admission);
    const toolset = parted
      ? {
          split: parted.sides.split,
          admission: parted.kit,
          base: parted.sides.base.sessions,
          kit: parted.sides.kit.sessions,
          evidence: collectEvidence(cfg, parted.kit),
        }
      : undefined;
    const distilled = await distilDraft(deps, input, admission, evidence, toolset);
    if ('skipped' in distilled) return skip(distilled.skipped, { admission: summarizeAdmission(admission) });
    material = distilled;
  }
  const { draft, admissionSummary } = material;

  const verdict = await verifyMaterial(deps, input, material);
  if (!verdict.ok)
    return skip(`verification failed: ${verdict.reasons.join('; ')}`, { draft, admission: admissionSummary });

  // The recall vector: what the cluster's goals have in common, plus the words of the procedure itself, so
  // that a short request ("exchange my keyboard") meets a skill learned from long persona-style goals.
  const embedding = await skillEmbedding(deps.embedder, input.goalCentroid, draft);
  const wordings = material.exemplarTexts;
  const exemplars = wordings.length
    ? exemplarsFrom(
        wordings,
        await embedTexts(
          deps.store,
          deps.embedder,
          wordings.map((w) => w.text),
        ),
      )
    : NO_EXEMPLARS;

  const placed = reconcileDraft(deps, input, material, embedding, exemplars);
  const { decision, target } = placed;
  const skill = await persistSkill(deps, input, material, verdict, placed);
  return {
    clusterId: input.clusterId,
    action: decision.action,
    skill,
    draft,
    target: target ? { id: target.id, name: target.name } : undefined,
    admission: admissionSummary,
  };
}
