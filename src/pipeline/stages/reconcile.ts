import { seedEta } from '../../domain/admit.js';
import { bumpVersion, comparedSteps, defaultReconcileRules, reconcile, type Decision } from '../../domain/reconcile.js';
import { toolsetBranchesOf, withBranches } from '../../domain/branches.js';
import { editOf, givenNameOf, learnedByOf, olderDistiller, type GivenName } from '../../domain/learned-by.js';
import { retitle } from '../../domain/skill-rename.js';
import type { Draft, Skill } from '../../domain/types.js';
import type { DraftMaterial, GroupInput } from '../group.js';
import type { PipelineDeps } from '../pipeline-deps.js';
import { renderSkillMd } from '../render-skill-md.js';
import { uniqueName } from '../../domain/skill-naming.js';
import { mergeExemplars, storedExemplars } from '../skill-embedding.js';
import type { SourcedExemplars } from '../../domain/exemplars.js';
import { reinforcedCounts, withSupport } from '../support.js';
import { sameButEvidence } from '../../domain/evidence-line.js';
import { newSkill, newSkillId } from '../../domain/new-skill.js';

/** A group that adds sessions and nothing else (reinforcedCounts). */
const NO_COUNTS = { successCount: 0, attemptCount: 0, support: 0 };

/** What a skill's use has taught: carried over when a newer distiller rewrites it. */
function trackRecord(s: Skill): Partial<Skill> {
  return {
    eta: s.eta,
    utility: s.utility,
    trialsAttempted: s.trialsAttempted,
    trialsPassed: s.trialsPassed,
    status: s.status,
    enabled: s.enabled,
    lastUsedAt: s.lastUsedAt,
  };
}

/** Where a verified draft lands among the live skills, and the skill row that results. */
export interface Placement {
  decision: Decision;
  skill: Skill;
  /** The skill the new one supersedes. */
  supersedes?: string;
  /** The existing skill the decision is about (all but `add`). */
  target?: Skill;
  /** The time of the write. */
  at: string;
}

/**
 * Reconcile: against the live skills (by recall-vector similarity, never by name alone), the draft is a new
 * skill (add), a new version of its own cluster's skill (update), support for an existing one (reinforce), or
 * its successor (supersede). Nothing is deleted; the resulting row is built here, written by persist.
 */
export function reconcileDraft(
  deps: PipelineDeps,
  input: GroupInput,
  material: DraftMaterial,
  embedding: Float32Array,
  exemplars: SourcedExemplars,
): Placement {
  const { draft, counts, sourceSessions } = material;
  const linked = input.linkCluster !== false;
  const own = input.ownSkillId ? (input.skills.get(input.ownSkillId) ?? null) : null;
  const license = deps.config.license;
  // A skill is this cluster's own only if it was learned from it; a skill another cluster reinforced is a
  // neighbour: a weaker variant never rewrites it (no flip-flopping between two clusters' procedures).
  const mine = own && own.clusterId === input.clusterId ? own : null;
  // Candidates for consolidation: any live skill as related as a recall match (the recall threshold); reconcile
  // then keeps only those that are the same procedure (shared action, overlapping tools), so one task kind
  // split over several clusters still ends as one skill, and a look-alike with another action stays apart.
  // An explicit compile from chosen sessions is a person's request for this skill: only a true duplicate
  // (the duplicate threshold) is reinforced instead.
  const bar = linked ? Math.min(deps.thresholds.recall, deps.thresholds.duplicate) : deps.thresholds.duplicate;
  // A skill another cluster's earlier draft reinforced is judged again as any neighbour is, at the similarity its
  // requests have now: a link an earlier release made on tools alone (a coding agent's Edit) does not stick.
  const neighbours = mine
    ? []
    : own
      ? [{ skill: own, similarity: input.skills.similarity(embedding, own) ?? 1 }]
      : input.skills.neighbours(embedding, bar);
  const reconciled = reconcile(
    {
      toolSequence: comparedSteps(draft.toolSequence, draft.body),
      successes: counts.successCount,
      followers: counts.attemptCount,
    },
    mine,
    neighbours,
    {
      ...defaultReconcileRules,
      toolWeight: input.toolWeight,
      toolShare: input.toolShare,
      duplicate: deps.thresholds.duplicate,
    },
  );
  // Written by an earlier version of this distiller: the cluster's skill takes this version's text whatever
  // the procedure did. Under a new name it is superseded (lineage kept, track record carried over), as
  // planners and exports know a skill by its name; under the same name it is updated.
  // A text a person edited (skills edit) is theirs: no newer distiller rewrites it.
  const upgradedFrom =
    mine && !editOf(mine.skillMd) && olderDistiller(learnedByOf(mine.skillMd), deps.distiller.id) ? mine : null;
  // A name a person gave (skills rename) is not the distiller's to change.
  const renamed = !!upgradedFrom && draft.name !== upgradedFrom.name && !givenNameOf(upgradedFrom.skillMd);
  const decided: Decision =
    upgradedFrom && reconciled.action !== 'supersede'
      ? { action: renamed ? 'supersede' : 'update', target: upgradedFrom, similarity: 1 }
      : reconciled;
  // A skill a person edited keeps their text: a pass that would write its procedure anew (update), or replace it
  // with its group's better one (supersede), reinforces it instead, and its own group's procedure is recorded as
  // what the sessions suggest (`sessions-suggest`), for the person to look at.
  const keptEdit = (decided.action === 'update' || decided.action === 'supersede') && !!editOf(decided.target.skillMd);
  const decision: Decision = keptEdit
    ? { action: 'reinforce', target: decided.target, similarity: decided.similarity }
    : decided;
  const at = deps.now().toISOString();
  // Its own group learned from again: a skill retired for want of evidence has it back, on probation.
  const revived = (t: Skill): Partial<Pick<Skill, 'status'>> =>
    mine?.id === t.id && t.status === 'retired' && input.revivable?.has(t.id) ? { status: 'probationary' } : {};
  const base = {
    namespace: input.namespace,
    corpus: 'internal' as const,
    kind: draft.kind,
    embedderId: deps.embedder.id,
    embedding,
    ...exemplars,
    clusterId: linked ? input.clusterId : null,
  };

  if (decision.action === 'add' || decision.action === 'supersede') {
    const id = newSkillId();
    const version = decision.action === 'add' ? '1.0.0' : bumpVersion(decision.target.version, 'major');
    // A superseding skill of the same cluster keeps the name people know; one from another cluster is named
    // by its own draft (its title and description say what it does), with the lineage in supersedes.
    const keep = decision.action === 'supersede' && decision.target.clusterId === input.clusterId && !renamed;
    // A new name is free among every live skill but the one it replaces (the draft was named before reconcile
    // chose its target, and a neighbour it did not merge with may hold that name).
    const taken = input.skills.names(decision.action === 'supersede' ? decision.target.id : undefined);
    // A draft that was given a qualifier or a number only because the skill it supersedes held the name
    // (cancel-pending-order-modify-items beside cancel-pending-order) takes that name back.
    const renamedAway =
      decision.action === 'supersede' && !renamed && draft.name.startsWith(`${decision.target.name}-`);
    // A name a person gave the skill goes on with it (`keep`: its own group's better procedure does that task now),
    // said in the successor's words too; another group's skill that supersedes it keeps the name its own draft gives
    // it (a lookup by the person's name is told which skill superseded it).
    const given = keep ? givenNameOf(decision.target.skillMd) : null;
    const name =
      keep || renamedAway ? decision.target.name : taken.has(draft.name) ? uniqueName(draft.name, taken) : draft.name;
    const named = { ...draft, name, ...wordsUnder(draft, name, given) };
    const skill: Skill = newSkill(at, {
      ...base,
      id,
      name,
      description: named.whenToUse,
      body: named.body,
      skillMd: renderSkillMd(named, {
        license,
        version,
        id,
        sourceSessions,
        clusterId: input.clusterId,
        learnedBy: deps.distiller.id,
        given,
      }),
      version,
      toolsRequired: draft.toolsRequired,
      toolSequence: draft.toolSequence,
      ...counts,
      // Seeded from the evidence (Beta posterior over the followers): thin support starts lower; trials do the rest.
      eta: seedEta(counts.successCount, counts.attemptCount),
      sourceSessions,
      // The same skill in this distiller's words: what trials and people said of it still holds.
      ...(upgradedFrom && decision.action === 'supersede' && decision.target === upgradedFrom
        ? trackRecord(upgradedFrom)
        : {}),
    });
    if (decision.action === 'add') return { decision, skill, at };
    return { decision, skill, supersedes: decision.target.id, target: decision.target, at };
  }
  const t = decision.target;
  if (decision.action === 'update') {
    // A newer distiller that writes this skill's procedure word for word as before (branches on a lookup are the
    // branch stage's, those on the agent's tools the draft's own: they are kept, and if that stage finds others, it writes a minor version; the counts of its
    // evidence line are the skill's, below) changes only the skill's metadata: a patch version.
    // Under the name people know: a name a person gave is said in the draft's title and description too.
    const words = wordsUnder(draft, t.name, givenNameOf(t.skillMd));
    const sameText =
      t === upgradedFrom &&
      words.whenToUse === t.description &&
      sameButEvidence(words.body, withBranches(t.body, toolsetBranchesOf(t.body), String)) &&
      draft.toolSequence.join('\n') === t.toolSequence.join('\n');
    const version = bumpVersion(t.version, sameText ? 'patch' : 'minor');
    const kept = sameText ? { body: t.body, toolsRequired: t.toolsRequired } : { ...draft, body: words.body };
    // Its own group's sessions, and those other groups brought it (reinforcedCounts), still support it; its text
    // is this distiller's, under the name people know.
    const skill: Skill = withSupport(
      {
        ...t,
        ...base,
        ...revived(t),
        description: words.whenToUse,
        body: kept.body,
        version,
        toolsRequired: kept.toolsRequired,
        toolSequence: draft.toolSequence,
        updatedAt: at,
      },
      reinforcedCounts({ sourceSessions, ...counts }, { sourceSessions: t.sourceSessions, counts: NO_COUNTS }),
      license,
      { learnedBy: deps.distiller.id, clusterId: input.clusterId },
    );
    return { decision, skill, target: t, at };
  }
  // Its own cluster grew: its recall vector follows the cluster. Another group's support leaves it alone.
  const ownGrowth = t.clusterId === input.clusterId && linked;
  // An edited skill's own group says, each time it is distilled again, whether its sessions still suggest another
  // procedure than the person's (a draft of the same procedure clears what an earlier pass suggested).
  const mark = editOf(t.skillMd);
  const edit =
    mark && mine?.id === t.id
      ? { editedBy: mark.editedBy, editedAt: mark.editedAt, ...(keptEdit ? { suggests: [...draft.toolSequence] } : {}) }
      : undefined;
  const skill: Skill = withSupport(
    {
      ...t,
      ...revived(t),
      embedding: ownGrowth || !t.embedding || t.embedderId !== deps.embedder.id ? embedding : t.embedding,
      // Its own cluster's wordings and another group's are merged into those it has: another group's wordings stay
      // when its own cluster grows again (replaced, a request worded as that group's sessions were found the skill
      // after one pass and lost it after the next).
      ...(!t.exemplars || t.embedderId !== deps.embedder.id
        ? exemplars
        : exemplars.exemplars
          ? mergeExemplars(exemplars, t, deps.embedder.dimensions)
          : storedExemplars(t)),
      embedderId: deps.embedder.id,
      clusterId: t.clusterId ?? (linked ? input.clusterId : null),
      updatedAt: at,
    },
    reinforcedCounts(t, material),
    license,
    undefined,
    edit,
  );
  return { decision, skill, target: t, at };
}

/** A draft's description and body, said under `name` when a person gave it (`given`); else as it wrote them. */
function wordsUnder(
  draft: Pick<Draft, 'whenToUse' | 'body'>,
  name: string,
  given: GivenName | null,
): { whenToUse: string; body: string } {
  if (!given) return { whenToUse: draft.whenToUse, body: draft.body };
  const said = retitle({ description: draft.whenToUse, body: draft.body }, name);
  return { whenToUse: said.description, body: said.body };
}
