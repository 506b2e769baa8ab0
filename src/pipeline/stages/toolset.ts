import type { SkillsmithConfig } from '../../config/config.js';
import type { Admission } from '../../domain/admit.js';
import type { EvidenceTrace } from '../../domain/evidence.js';
import { detectSpan } from '../../domain/spans.js';
import { type ToolsetSplit, toolsetSplit } from '../../domain/toolsets.js';
import type { Session } from '../../domain/types.js';
import type { GroupInput } from '../group.js';

type Synthesis = SkillsmithConfig['synthesis'];

/** A group parted by the tools its agents could call (domain/toolsets.ts): each side is admitted on its own. */
export interface ToolsetSides {
  split: ToolsetSplit;
  /** The sessions that called none of the toolset: the procedure's side. */
  base: GroupInput;
  /** The sessions that called some of it: the branch's side. */
  kit: GroupInput;
}

/** What a group parted by a toolset adds to its skill: the split, and the admission of the branch's side. */
export interface ToolsetBranch {
  split: ToolsetSplit;
  admission: Admission;
  /** The procedure's side: its failures are the procedure's counter-examples. */
  base: readonly Session[];
  /** The branch's side: its failures are the branch procedure's. */
  kit: readonly Session[];
  /** The branch side's evidence: its successful sessions support the skill too. */
  evidence: EvidenceTrace[];
}

/**
 * The group's sides when its successful sessions part by a toolset (some agents held tools the others never
 * called: tau2's device tools), else null. Failed sessions go with the side whose tools they called.
 */
export function toolsetSides(cfg: Synthesis, input: GroupInput): ToolsetSides | null {
  const rules = { minSteps: cfg.minSteps, thinkTools: cfg.thinkTools };
  const paths = input.sessions.flatMap((s) => {
    const span = s.outcome === 'success' ? detectSpan(s, rules) : null;
    return span ? [span.calls.map((c) => c.tool)] : [];
  });
  const split = toolsetSplit(paths);
  if (!split) return null;
  const kit = new Set(split.tools);
  const uses = (s: Session) => s.calls.some((c) => kit.has(c.tool));
  return {
    split,
    base: { ...input, sessions: input.sessions.filter((s) => !uses(s)) },
    kit: { ...input, sessions: input.sessions.filter(uses) },
  };
}
