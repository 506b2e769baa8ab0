import type { SkillsmithConfig } from '../../config/config.js';
import { admitCluster, type Admission } from '../../domain/admit.js';
import { buildConsensus } from '../../domain/consensus.js';
import { findSecrets } from '../../domain/redact.js';
import { detectSpan } from '../../domain/spans.js';
import type { ClusterRecord } from '../../store/store.js';
import type { AdmissionSummary, GroupInput } from '../group.js';

type Synthesis = SkillsmithConfig['synthesis'];

/** The consensus settings admission and evidence share. */
export function consensusRules(cfg: Synthesis) {
  return { requiredSupport: cfg.consensusSupport, conditionalSupport: cfg.conditionalSupport };
}

/**
 * Admit: enough successful sessions followed the group's procedure, and following it beats the group's
 * baseline (or, for an explicit compile, the relaxed counts); deny rules (chain-of-thought, secrets) always.
 */
export function admitGroup(cfg: Synthesis, input: GroupInput): Admission {
  const spanRules = { minSteps: cfg.minSteps, thinkTools: cfg.thinkTools };
  const consensus = consensusRules(cfg);
  return admitCluster(
    input.sessions,
    (s) => detectSpan(s, spanRules),
    // Who followed the procedure is judged on the paths as the sessions took them, not on the main path alone.
    (spans) => buildConsensus(spans, { ...consensus, path: 'whole', stepsOnly: true }).steps.map((s) => s.tool),
    {
      minOccurrences: input.admission?.minOccurrences ?? cfg.minOccurrences,
      minSuccessRate: input.admission?.minSuccessRate ?? cfg.minSuccessRate,
      rule: input.admission ? 'absolute' : cfg.admission,
      minGain: cfg.minGain,
      gainShrinkage: cfg.gainShrinkage,
      followThreshold: cfg.followThreshold,
      thinkTools: cfg.thinkTools,
      findSecrets,
    },
  );
}

export function summarizeAdmission(admission: Admission): AdmissionSummary {
  return {
    successRate: admission.successRate,
    followers: admission.followers,
    successfulFollowers: admission.successfulFollowers,
    denied: admission.denied,
  };
}

/**
 * Before a dirty cluster is loaded: why the pass leaves it for later (too small, in cooldown, or the pass's
 * bound on model distillations reached), or null when it goes through the stages.
 */
export function deferCluster(
  c: Pick<ClusterRecord, 'size' | 'lastPassAt'>,
  cfg: Synthesis,
  now: Date,
  distilled: number,
  bounded: boolean,
): { reason: string; tooSmall: boolean } | null {
  if (c.size < cfg.minOccurrences)
    return { reason: `not admitted: ${c.size} sessions, ${cfg.minOccurrences} needed`, tooSmall: true };
  if (c.lastPassAt && now.getTime() - Date.parse(c.lastPassAt) < cfg.cooldownMs)
    return { reason: 'cooldown: distilled less than cooldownMs ago', tooSmall: false };
  if (bounded && distilled >= cfg.maxClustersPerPass)
    return { reason: `deferred: maxClustersPerPass (${cfg.maxClustersPerPass}) reached`, tooSmall: false };
  return null;
}

/**
 * After deferCluster let a cluster through, and its members were read: whether those still open (not ended, no
 * outcome: domain/open-session.ts) leave fewer ended sessions than a skill needs. Then it is too small as well: an
 * unfinished session, clustered on its calls so far, does not tip its cluster into being examined (nor start its
 * cooldown). Its end makes the cluster dirty again. Null when it goes on.
 */
export function tooFewEnded(
  size: number,
  open: number,
  cfg: Pick<Synthesis, 'minOccurrences'>,
): { reason: string; tooSmall: true } | null {
  const ended = size - open;
  if (open === 0 || ended >= cfg.minOccurrences) return null;
  return {
    reason: `not admitted: ${ended} ended sessions (${open} more still open), ${cfg.minOccurrences} needed`,
    tooSmall: true,
  };
}
