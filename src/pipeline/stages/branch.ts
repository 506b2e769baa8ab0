import {
  type Branch,
  categoricalFields,
  MAX_BRANCHES,
  separatingCondition,
  toolsetBranchesOf,
  withBranches,
} from '../../domain/branches.js';
import { redactText } from '../../domain/redact.js';
import { bumpVersion, sameProcedureVersion } from '../../domain/reconcile.js';
import { editOf, learnedByOf } from '../../domain/learned-by.js';
import { detectSpan } from '../../domain/spans.js';
import { strongerFirst } from '../../domain/skill-order.js';
import { lcsLength } from '../../domain/sequence.js';
import { roleOf } from '../../domain/step-role.js';
import type { Skill, Span } from '../../domain/types.js';
import { hasInstructions } from '../../domain/untrusted-text.js';
import type { PipelineDeps } from '../pipeline-deps.js';
import { renderStoredSkill } from '../render-skill-md.js';
import type { SkillCatalog } from '../skill-catalog.js';

/** Source sessions read per skill to mine a condition (the newest ones). */
const SESSIONS_PER_SKILL = 40;

/** The state-changing call a procedure ends at (its last acting step), or its last step. */
function endOf(seq: readonly string[]): string | undefined {
  return [...seq].reverse().find((t) => roleOf(t) === 'action') ?? seq[seq.length - 1];
}

/**
 * Branches: each live learned playbook is compared with the other live learned playbooks that share one of its
 * lookups and end at another call. Where a field of a shared lookup, as the sessions saw it before acting,
 * separates the other skill's successful sessions from this one's (branches.ts: separatingCondition), this skill
 * branches toward the other's path on that condition: "If `get_order_details` shows `status` in ["pending"],
 * follow: ...". At most MAX_BRANCHES - 1 branches a skill, the best supported first; a skill whose branches did
 * not change is not written. A skill is rewritten as an update through the single write path: a new minor
 * version, or, for a skill this pass wrote (`writtenThisPass`), that same version amended, so a skill learned with
 * its branches is 1.0.0, not a plain 1.0.0 and a branched 1.1.0 a moment later. A patch version is never amended:
 * it says the procedure reads as the version before it, so other branches on it are a new minor version. Values
 * come from tool results: redacted, quoted as data, and a value that carries an instruction is never a condition.
 */
export async function branchSkills(
  deps: PipelineDeps,
  input: {
    namespace: string;
    skills: SkillCatalog;
    actor: string;
    dryRun: boolean;
    /** Skills whose current version this pass wrote (created, updated or superseding): amended, not bumped. */
    writtenThisPass: ReadonlySet<string>;
  },
): Promise<Skill[]> {
  const cfg = deps.config.synthesis;
  const skills = input.skills
    .live()
    .filter((s) => s.clusterId && s.kind === 'playbook' && s.corpus === 'internal' && s.toolSequence.length > 0);
  if (skills.length < 2) return [];
  const ids = [...new Set(skills.flatMap((s) => s.sourceSessions.slice(-SESSIONS_PER_SKILL)))];
  const sessions = new Map((await deps.store.getSessions(input.namespace, ids)).map((s) => [s.id, s]));
  const spans = new Map<string, Span[]>();
  for (const s of skills) {
    const own = s.sourceSessions.slice(-SESSIONS_PER_SKILL).flatMap((id) => {
      const session = sessions.get(id);
      const span = session ? detectSpan(session, { minSteps: cfg.minSteps, thinkTools: cfg.thinkTools }) : null;
      return span ? [span] : [];
    });
    spans.set(s.id, own);
  }
  const categorical = categoricalFields([...spans.values()].flat());
  const quote = (v: string) => JSON.stringify(redactText(v));
  const written: Skill[] = [];
  // The first that separates on a field wins it: two passes over the same history give the same branches.
  const ordered = [...skills].sort(strongerFirst);
  for (const skill of ordered) {
    // A person's text says its branches as they wrote them (skills edit): no pass adds or drops one.
    if (editOf(skill.skillMd)) continue;
    const own = spans.get(skill.id) ?? [];
    const end = endOf(skill.toolSequence);
    // A branch on the agent's tools is the distil step's (its group's own sessions): kept, and first.
    const toolsets = toolsetBranchesOf(skill.body);
    const found: { when: Branch['when']; other: Skill }[] = [];
    // Of the others, the nearest path first (most steps in common, then support): where two part from this
    // skill on one condition, the branch goes to the one that changes least of the path.
    const nearest = ordered
      .map((other) => ({ other, common: lcsLength(skill.toolSequence, other.toolSequence) }))
      .sort((a, b) => b.common - a.common)
      .map((x) => x.other);
    for (const other of nearest) {
      if (toolsets.length + found.length >= MAX_BRANCHES - 1) break;
      if (other.id === skill.id || endOf(other.toolSequence) === end) continue;
      const shared = skill.toolSequence.filter((t) => roleOf(t) === 'lookup' && other.toolSequence.includes(t));
      if (shared.length === 0) continue;
      const when = separatingCondition(spans.get(other.id) ?? [], own, shared, categorical);
      if (!when || when.in.some((v) => hasInstructions(v))) continue;
      // Conditions on one field must not overlap: the first that holds decides.
      const overlaps = found.some(
        (f) => f.when.tool === when.tool && f.when.path === when.path && f.when.in.some((v) => when.in.includes(v)),
      );
      if (!overlaps) found.push({ when, other });
    }
    const branches = [...toolsets, ...found.map((f) => ({ when: f.when, toolSequence: f.other.toolSequence }))];
    const body = withBranches(skill.body, branches, quote);
    if (body === skill.body) continue;
    const at = deps.now().toISOString();
    // A version this pass wrote takes its branches; but a patch version says its procedure reads as before,
    // so new branches on it are a minor version.
    const amend = input.writtenThisPass.has(skill.id) && !sameProcedureVersion(skill.version);
    const version = amend ? skill.version : bumpVersion(skill.version, 'minor');
    const toolsRequired = [...new Set([...skill.toolsRequired, ...branches.flatMap((b) => b.toolSequence)])];
    const changed: Skill = { ...skill, body, toolsRequired, version, updatedAt: at };
    const updated: Skill = {
      ...changed,
      skillMd: renderStoredSkill(changed, {
        license: deps.config.license,
        learnedBy: learnedByOf(skill.skillMd) ?? deps.distiller.id,
      }),
    };
    const saved = input.dryRun
      ? updated
      : await deps.store.writeSkill({
          action: 'update',
          skill: updated,
          parents: [],
          actor: input.actor,
          detail: {
            reason: found.length ? 'branches on what a shared lookup shows' : 'branches no longer hold',
            branches: found.map((f) => ({ when: f.when, toward: f.other.id })),
          },
          clusterId: null,
          at,
        });
    input.skills.put(saved);
    written.push(saved);
    deps.log.child('pass').info('skill branches', { skill: saved.name, branches: branches.length });
  }
  return written;
}
