import { editOf } from '../../domain/learned-by.js';
import { retiredForEvidence, reviseSources } from '../../domain/revoked-sources.js';
import type { Session, Skill } from '../../domain/types.js';
import type { ClusterRecord } from '../../store/store.js';
import type { PipelineDeps } from '../pipeline-deps.js';
import { withSupport } from '../support.js';

/** What the stage did to one skill (or, in a dry run, would do). */
export interface RevisedSkill {
  skill: Skill;
  /** Its sources that were reported failed after it was learned: no longer its sources. */
  revoked: number;
  /** Why it was retired; absent when it keeps its status. */
  retired?: string;
}

/**
 * Sources reported failed after a skill was learned from them (a task the judge took for a success and the user
 * then rejected; a run whose reported outcome replaced the judge's) leave the skill: its counts, evidence line and
 * SKILL.md say what is left, and a skill left with less evidence than a new one needs is retired
 * (domain/revoked-sources.ts). A stored outcome that changes marks the session's clusters dirty, so only the
 * members of dirty clusters that held sessions before this pass are read; a cluster of new sessions holds no
 * source. Returns the skills as written, `stored` with them in place for the rest of the pass, and the retired skills
 * that may come back (`revivable`).
 */
export async function reviseRevokedSources(
  deps: PipelineDeps,
  input: { namespace: string; dirty: readonly ClusterRecord[]; stored: Skill[]; actor: string; dryRun: boolean },
): Promise<{ revised: RevisedSkill[]; stored: Skill[]; revivable: Set<string>; read: PassReads }> {
  const read: PassReads = { members: new Map(), sessions: new Map() };
  const { revised, stored } = await revise(deps, input, read);
  // Retired for want of evidence, with its own group to examine again: if the group is learned from again
  // (admitted), the skill comes back on probation (reconcile). One retired by an earlier pass, whenever its group is
  // dirty. One this pass retired, only when its group brings a new successful session in this pass: the revision
  // above already left the group's old sessions as they now stand, so without a new success its admission would rest
  // on the very evidence the skill was just retired for, and retire and revive it in one pass.
  const dirty = new Map(input.dirty.map((c) => [c.id, c]));
  const justRetired = new Set(revised.filter((r) => r.retired).map((r) => r.skill.id));
  const revivable = new Set<string>();
  for (const s of stored) {
    const group = s.clusterId ? dirty.get(s.clusterId) : undefined;
    if (s.supersededBy || s.status !== 'retired' || !group) continue;
    if (
      justRetired.has(s.id)
        ? await newSuccess(deps, input.namespace, group, read)
        : retiredForEvidence(await deps.store.audit(input.namespace, { subjectId: s.id, limit: 200 }))
    )
      revivable.add(s.id);
  }
  return { revised, stored, revivable, read };
}

/** Whether a session that joined the group this pass ended a success (kept in `read` for the rest of the pass). */
async function newSuccess(deps: PipelineDeps, namespace: string, group: ClusterRecord, read: PassReads) {
  const unread = group.newMembers.filter((id) => !read.sessions.has(id));
  for (const s of await deps.store.getSessions(namespace, unread)) read.sessions.set(s.id, s);
  return group.newMembers.some((id) => read.sessions.get(id)?.outcome === 'success');
}

/**
 * What the stage read of the store, for the rest of the pass (its distil loop reads the same clusters): the
 * members of the clusters it looked into, and the sessions it read whole. Outcomes do not change under the pass lock.
 */
export interface PassReads {
  members: Map<string, string[]>;
  sessions: Map<string, Session>;
}

async function revise(
  deps: PipelineDeps,
  input: { namespace: string; dirty: readonly ClusterRecord[]; stored: Skill[]; actor: string; dryRun: boolean },
  read: PassReads,
): Promise<{ revised: RevisedSkill[]; stored: Skill[] }> {
  const { store } = deps;
  const ns = input.namespace;
  const owners = new Map<string, Skill[]>();
  for (const s of input.stored)
    if (!s.supersededBy) for (const id of s.sourceSessions) owners.set(id, [...(owners.get(id) ?? []), s]);
  if (owners.size === 0) return { revised: [], stored: input.stored };
  const candidates = new Set<string>();
  for (const c of input.dirty) {
    if (c.size <= c.newMembers.length) continue;
    const members = await store.clusterMembers(ns, c.id);
    read.members.set(c.id, members);
    for (const id of members) if (owners.has(id)) candidates.add(id);
  }
  if (candidates.size === 0) return { revised: [], stored: input.stored };
  const sources = await store.getSessions(ns, [...candidates]);
  for (const s of sources) read.sessions.set(s.id, s);
  const failed = new Set(sources.filter((s) => s.outcome === 'failure').map((s) => s.id));
  if (failed.size === 0) return { revised: [], stored: input.stored };
  const touched = new Map<string, Skill>();
  for (const id of failed) for (const s of owners.get(id) ?? []) touched.set(s.id, s);
  const rules = {
    minOccurrences: deps.config.synthesis.minOccurrences,
    minSuccessRate: deps.config.synthesis.minSuccessRate,
  };
  const at = deps.now().toISOString();
  const revised: RevisedSkill[] = [];
  const replaced = new Map<string, Skill>();
  for (const skill of [...touched.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    // A person's text stays theirs, with the status they left: only its counts follow the outcomes.
    const r = reviseSources(skill, failed, rules, { keepStatus: !!editOf(skill.skillMd) });
    if (!r) continue;
    let next = withSupport(
      { ...skill, status: r.status, updatedAt: at },
      {
        sourceSessions: r.sourceSessions,
        successCount: r.successCount,
        attemptCount: r.attemptCount,
        support: r.support,
      },
      deps.config.license,
    );
    if (!input.dryRun)
      next = await store.writeSkill({
        action: 'revise',
        skill: next,
        before: skill,
        parents: [],
        dropParents: r.revoked,
        actor: input.actor,
        detail: {
          revoked: r.revoked.length,
          // Which: explain names them (parents.revokedSessions), as the dashboard's skill page does.
          revokedSessions: r.revoked,
          sources: r.sourceSessions.length,
          // As a pass that brings sessions says it (explain's track record).
          eta: { from: skill.eta, to: next.eta },
          support: { from: skill.support, to: next.support },
          status: { from: skill.status, to: next.status },
          ...(r.retiredBecause ? { retired: r.retiredBecause } : {}),
        },
        at,
      });
    replaced.set(skill.id, next);
    revised.push({
      skill: next,
      revoked: r.revoked.length,
      ...(r.retiredBecause ? { retired: r.retiredBecause } : {}),
    });
    deps.log.info('sources reported failed left a skill', {
      namespace: ns,
      skill: skill.name,
      revoked: r.revoked.length,
      retired: !!r.retiredBecause,
    });
  }
  return { revised, stored: input.stored.map((s) => replaced.get(s.id) ?? s) };
}
