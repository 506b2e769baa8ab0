import type { SkillsmithConfig } from '../../config/config.js';
import type { Admission } from '../../domain/admit.js';
import { buildConsensus } from '../../domain/consensus.js';
import { gatherEvidence, type EvidenceTrace } from '../../domain/evidence.js';
import { redactText } from '../../domain/redact.js';
import { procedurePath, sequenceF1 } from '../../domain/sequence.js';
import { procedureCalls } from '../../domain/spans.js';
import type { Session } from '../../domain/types.js';
import { consensusRules } from './admit.js';

/**
 * Evidence: the admitted group's most representative successful sessions (closest to its procedure, then
 * recent), each trace capped and redacted before it reaches a model or a skill.
 */
export function collectEvidence(cfg: SkillsmithConfig['synthesis'], admission: Admission): EvidenceTrace[] {
  const procedure = procedurePath(
    buildConsensus(admission.spans, { ...consensusRules(cfg), stepsOnly: true }).steps.map((s) => s.tool),
  );
  const think = new Set(cfg.thinkTools);
  // Each session's path as its procedure reads (the failing run a change made pass included), as admission reads it.
  const agreementOf = (s: Session) =>
    sequenceF1(procedure, procedurePath(procedureCalls(s.calls, think).map((c) => c.tool)));
  return gatherEvidence(
    admission.successfulFollowers.map((session) => ({ session, agreement: agreementOf(session) })),
    {
      evidenceLimit: cfg.evidenceLimit,
      traceCharCap: cfg.traceCharCap,
      thinkTools: cfg.thinkTools,
      redact: redactText,
    },
  );
}
