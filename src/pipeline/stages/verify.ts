import { validateSkillMd } from '../../domain/skill-md/index.js';
import { verifyDraft, type Verdict } from '../../domain/verify.js';
import type { DraftMaterial, GroupInput } from '../group.js';
import type { PipelineDeps } from '../pipeline-deps.js';
import { renderSkillMd } from '../render-skill-md.js';

/**
 * Verify (no model): the draft names only tools of its material, covers and resonates with its evidence
 * (`synthesis.verify`), has numbered steps and an Edge cases section, and renders to a valid SKILL.md.
 * A failed draft is recorded as a `skill.verification_failed` event (not in a dry run).
 */
export async function verifyMaterial(deps: PipelineDeps, input: GroupInput, material: DraftMaterial): Promise<Verdict> {
  const { draft } = material;
  const license = deps.config.license;
  const verdict = verifyDraft(
    draft,
    material.evidence,
    {
      minCoverage: deps.config.synthesis.verify.minCoverage,
      minResonance: deps.config.synthesis.verify.minResonance,
      validateSkillMd: (d) =>
        validateSkillMd(
          renderSkillMd(d, {
            license,
            version: '1.0.0',
            id: 'x',
            sourceSessions: [],
            clusterId: input.clusterId,
            learnedBy: deps.distiller.id,
          }),
        ).errors,
    },
    material.materialTools,
    material.materialText,
    material.materialWords,
  );
  if (!verdict.ok) {
    deps.log.child('verifier').warn('verification failed', { cluster: input.clusterId, reasons: verdict.reasons });
    if (!input.dryRun) {
      await deps.store.appendEvent(
        input.namespace,
        'skill.verification_failed',
        null,
        { cluster: input.clusterId, name: draft.name, reasons: verdict.reasons },
        deps.now().toISOString(),
      );
    }
  }
  return verdict;
}
