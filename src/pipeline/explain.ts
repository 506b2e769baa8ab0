import { editOf } from '../domain/learned-by.js';
import { sameProcedureVersion } from '../domain/reconcile.js';
import { sameProcedureText } from '../domain/skill-edit.js';
import { parseSkillMd } from '../domain/skill-md/index.js';
import { JUDGE_ACTOR } from '../domain/replace-trial.js';
import { standingOf, type Standing } from '../domain/standing.js';
import type { AuditRecord, Skill } from '../domain/types.js';
import { FORGOTTEN_PARENT, type FeedbackRecord, type SkillVersion, type Store } from '../store/store.js';

export interface Explanation {
  skill: Pick<
    Skill,
    | 'id'
    | 'name'
    | 'description'
    | 'version'
    | 'kind'
    | 'corpus'
    | 'status'
    | 'enabled'
    | 'eta'
    | 'utility'
    | 'successCount'
    | 'attemptCount'
    | 'support'
    | 'trialsAttempted'
    | 'trialsPassed'
    | 'createdAt'
    | 'lastUsedAt'
  >;
  parents: {
    sessions: { id: string; goal: string; outcome: string; calls: number; tools: string[]; addedInVersion: string }[];
    /** Stored parent sessions in all; `sessions` holds the first of them when fewer were asked for. */
    sessionCount: number;
    facts: { id: string; text: string }[];
    missing: string[];
    /** Parent sessions a person had forgotten: counted, their ids and content gone. */
    forgotten: number;
    /** Sessions it was learned from that were reported failed afterwards: no longer its parents (stages/revoke.ts). */
    revoked: number;
    /**
     * Those of them a pass named, in the order they were taken out (a pass of an earlier release counted them
     * only): their ids.
     */
    revokedSessions: string[];
  };
  /**
   * Only when there are some: sessions of the skill's cluster (its kind of request) that are still open (not ended,
   * no outcome yet: domain/open-session.ts). No pass counts them for or against it until they end; then the next
   * pass distils the cluster again with them.
   */
  openSessions?: number;
  /**
   * Oldest first; `sameProcedure`: a version whose procedure reads as the version before it (restamped): a learned
   * skill's patch version (a newer release of its distiller wrote the same text), a rename, or a person's edit (or
   * revert) that changed only wording.
   */
  versions: (Pick<SkillVersion, 'version' | 'reason' | 'createdAt' | 'toolSequence'> & { sameProcedure: boolean })[];
  /** Oldest first: the skills this one replaced, itself, then whatever replaced it. */
  supersedeChain: { id: string; name: string; version: string; status: string }[];
  /** Whether recall can serve it, and if not, why and what brings it back (standing.ts). */
  standing: Standing;
  /**
   * Only for a skill superseded because the agent now calls a tool of it by another name (stages/tool-rename.ts):
   * the tools renamed; its successor is the same procedure with them.
   */
  renamedTools?: { from: string; to: string }[];
  /**
   * Only for a skill whose text a person edited (skills edit): who and when, and, when a later pass found its
   * sessions following another procedure, that procedure's tools (`suggests`). Passes keep the text until
   * `skills edit NAME --revert`.
   */
  edited?: { by: string; at: string; suggests?: string[] };
  /**
   * Its signals that count, oldest first: trials, thumbs, rewards, promotions. `actor` says who gave each: a trial
   * the outcome judge gave a task is `judge` (lifecycle.judgedTrials), a reported outcome's `outcome`.
   */
  trials: FeedbackRecord[];
  /** Judged trials that count no more: the task's reported outcome, or a newer judgement, took their place (`replacedBy`). */
  replaced: FeedbackRecord[];
  /** eta and utility after each signal, from the creation prior on. */
  /** `support`: on a pass that brought sessions to the skill, how many sessions support it after it. */
  /** `judged`: a trial the outcome judge gave (absent on every other row). */
  track: {
    at: string;
    eta: number;
    utility: number | null;
    status: string;
    signal: string;
    support?: number;
    judged?: true;
  }[];
  audit: AuditRecord[];
}

/**
 * Whether a version of a skill kept its procedure: a learned skill's patch update (a re-stamp, whose procedure
 * reads as the version before it), a rename (only the name changed), or a person's edit or revert whose steps
 * (tools, order, argument sources, conditions) and branches read as `before`'s, the version before it
 * (skill-edit.ts: sameProcedureText): it changed wording only. An imported skill's patch version is a changed file
 * (its own numbering), not a re-stamp.
 */
export function restamped(
  skill: Pick<Skill, 'corpus'>,
  v: Pick<SkillVersion, 'version' | 'reason' | 'skillMd' | 'toolSequence'>,
  before: Pick<SkillVersion, 'skillMd' | 'toolSequence'> | null,
): boolean {
  if (skill.corpus !== 'internal') return false;
  if (v.reason === 'edit' || v.reason === 'revert')
    return (
      !!before &&
      before.toolSequence.join('\n') === v.toolSequence.join('\n') &&
      sameProcedureText(parseSkillMd(before.skillMd).body, parseSkillMd(v.skillMd).body)
    );
  return v.reason === 'rename' || (v.reason === 'update' && sameProcedureVersion(v.version));
}

/**
 * Why a skill exists: its parents, versions, lineage, trials and track record. Read-only. `sessions`: read and
 * give only the first that many stored parent sessions (a skill of a busy memory has hundreds; a page shows a
 * few), in the order they became parents; `parents.sessionCount` says how many there are.
 */
export async function explainSkill(
  store: Store,
  namespace: string,
  idOrName: string,
  opts: {
    sessions?: number;
    lifecycle?: { retireEta: number; trialWindow?: number };
    /** The skill recall serves now for a request (the goal of one of its sessions): for a retired skill's standing. */
    servedFor?: (goal: string) => Promise<string | null>;
  } = {},
): Promise<Explanation | null> {
  const skill = await store.getSkill(namespace, idOrName);
  if (!skill) return null;
  const prov = await store.provenance(skill.id);
  const episodic = prov.filter((p) => p.sourceKind === 'episodic');
  const sessionIds = episodic.filter((p) => !p.sourceId.startsWith(FORGOTTEN_PARENT)).map((p) => p.sourceId);
  // With a limit, which parents are still stored is asked first (ids only), so only the first few are read whole;
  // without one, every parent is read whole once and what came back says which are stored.
  const known = opts.sessions === undefined ? null : await store.existingSessionIds(namespace, sessionIds);
  const wanted = known ? sessionIds.filter((id) => known.has(id)).slice(0, opts.sessions) : sessionIds;
  const read = await store.getSessions(namespace, wanted);
  const stored = known ?? new Set(read.map((s) => s.id));
  const present = sessionIds.filter((id) => stored.has(id));
  const order = new Map(sessionIds.map((id, i) => [id, i]));
  const sessions = read.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  const factIds = prov.filter((p) => p.sourceKind === 'semantic').map((p) => p.sourceId);
  const facts = await store.getFacts(namespace, factIds);
  const versionOf = new Map(prov.map((p) => [p.sourceId, p.version]));

  const all = await store.listSkills(namespace, { includeSuperseded: true });
  const byId = new Map(all.map((s) => [s.id, s]));
  const chain: Skill[] = [skill];
  for (
    let prev = all.find((s) => s.supersededBy === chain[0].id);
    prev && !chain.includes(prev);
    prev = all.find((s) => s.supersededBy === chain[0].id)
  ) {
    chain.unshift(prev);
  }
  for (
    let next = skill.supersededBy ? byId.get(skill.supersededBy) : undefined;
    next && !chain.includes(next);
    next = next.supersededBy ? byId.get(next.supersededBy) : undefined
  ) {
    chain.push(next);
  }

  const open = skill.clusterId
    ? (await store.openSessionIds(namespace, await store.clusterMembers(namespace, skill.clusterId))).size
    : 0;
  const renamedTools = skill.supersededBy ? await renamedBy(store, namespace, skill) : null;
  const history = await store.feedbackHistory(skill.id);
  const trials = history.filter((f) => f.replacedBy === null);
  const audit = (await store.audit(namespace, { subjectId: skill.id, limit: 1000 })).reverse();
  const track = trackRecord(skill, trials, audit);
  return {
    skill: {
      id: skill.id,
      name: skill.name,
      description: skill.description,
      version: skill.version,
      kind: skill.kind,
      corpus: skill.corpus,
      status: skill.status,
      enabled: skill.enabled,
      eta: skill.eta,
      utility: skill.utility,
      successCount: skill.successCount,
      attemptCount: skill.attemptCount,
      support: skill.support,
      trialsAttempted: skill.trialsAttempted,
      trialsPassed: skill.trialsPassed,
      createdAt: skill.createdAt,
      lastUsedAt: skill.lastUsedAt,
    },
    parents: {
      sessions: sessions.map((s) => ({
        id: s.id,
        goal: s.goal,
        outcome: s.outcome,
        calls: s.calls.length,
        tools: [...new Set(s.calls.map((c) => c.tool))],
        addedInVersion: versionOf.get(s.id) ?? skill.version,
      })),
      facts: facts.map((f) => ({ id: f.id, text: f.text })),
      sessionCount: present.length,
      // Provenance is an audit trail, not a foreign key: a pruned session leaves a dangling id.
      missing: sessionIds.filter((id) => !stored.has(id)),
      forgotten: episodic.length - sessionIds.length,
      revoked: revokedParents(audit),
      revokedSessions: revokedSessionIds(audit),
    },
    ...(open ? { openSessions: open } : {}),
    versions: (await store.skillVersions(skill.id)).map((v, i, all) => ({
      version: v.version,
      reason: v.reason,
      createdAt: v.createdAt,
      toolSequence: v.toolSequence,
      sameProcedure: restamped(skill, v, all[i - 1] ?? null),
    })),
    supersedeChain: chain.map((s) => ({
      id: s.id,
      name: s.name,
      version: s.version,
      status: s.supersededBy ? 'superseded' : s.status,
    })),
    standing: standingOf(skill, trials, {
      retireEta: opts.lifecycle?.retireEta ?? 0.25,
      trialWindow: opts.lifecycle?.trialWindow,
      supersededByName: skill.supersededBy ? (byId.get(skill.supersededBy)?.name ?? null) : null,
      renamedTools,
      servedInstead: await servedInstead(store, namespace, skill, opts.servedFor),
      revisedAway: revisedAway(audit),
    }),
    ...editedOf(skill),
    ...(renamedTools ? { renamedTools } : {}),
    trials,
    replaced: history.filter((f) => f.replacedBy !== null),
    track,
    audit,
  };
}

/** The `edited` field of an explanation, for a skill a person edited. */
function editedOf(skill: Skill): Pick<Explanation, 'edited'> {
  const mark = editOf(skill.skillMd);
  if (!mark) return {};
  return { edited: { by: mark.editedBy, at: mark.editedAt, ...(mark.suggests ? { suggests: mark.suggests } : {}) } };
}

/**
 * For a retired skill: the skill recall serves now for the latest request it was learned from (its newest stored
 * source session's goal), when that is another one; else null.
 */
async function servedInstead(
  store: Store,
  namespace: string,
  skill: Skill,
  servedFor: ((goal: string) => Promise<string | null>) | undefined,
): Promise<string | null> {
  if (!servedFor || skill.status !== 'retired' || skill.supersededBy || skill.corpus !== 'internal') return null;
  const ids = skill.sourceSessions.filter((id) => !id.startsWith(FORGOTTEN_PARENT));
  for (const id of ids.slice(-3).reverse()) {
    const session = await store.getSession(namespace, id);
    if (!session) continue;
    const name = await servedFor(session.goal);
    return name && name !== skill.name ? name : null;
  }
  return null;
}

type TrackRow = Explanation['track'][number];

/**
 * eta, utility and status after each signal, oldest first: the start (seeded from its evidence), each trial, thumb
 * or reward, and each pass whose sessions joined the skill (a reinforcement, an update, a consolidation: their audit
 * records say what eta and support went from and to; records written before they said so are not shown).
 */
function trackRecord(
  skill: Pick<Skill, 'createdAt' | 'eta'>,
  trials: readonly FeedbackRecord[],
  audit: readonly AuditRecord[],
): TrackRow[] {
  const grew = audit.flatMap((a) => {
    const eta = a.detail.eta as { from?: unknown; to?: unknown } | undefined;
    const support = a.detail.support as { to?: unknown } | undefined;
    const status = a.detail.status as { to?: unknown } | undefined;
    const signal = GREW[a.action];
    if (!signal || typeof eta?.from !== 'number' || typeof eta.to !== 'number') return [];
    return [
      {
        at: a.at,
        from: eta.from,
        to: eta.to,
        support: typeof support?.to === 'number' ? support.to : null,
        signal,
        status: typeof status?.to === 'string' ? status.to : '',
      },
    ];
  });
  // The eta it started with: before the first signal of any kind, or today's when none came.
  const first = [
    ...trials.map((t) => ({ at: t.at, eta: t.etaBefore })),
    ...grew.map((g) => ({ at: g.at, eta: g.from })),
  ].sort((a, b) => a.at.localeCompare(b.at))[0];
  const rows: (TrackRow & { order: number })[] = [
    {
      at: skill.createdAt,
      eta: first?.eta ?? skill.eta,
      utility: 0,
      status: 'probationary',
      signal: 'created',
      order: 0,
    },
    ...trials.map((t, i) => ({
      at: t.at,
      eta: t.etaAfter,
      utility: t.utilityAfter,
      status: t.statusAfter,
      signal: t.signal,
      ...(t.actor === JUDGE_ACTOR ? { judged: true as const } : {}),
      order: 1 + i,
    })),
    ...grew.map((g, i) => ({
      at: g.at,
      eta: g.to,
      utility: null,
      status: g.status,
      signal: g.signal,
      ...(g.support === null ? {} : { support: g.support }),
      order: 1 + trials.length + i,
    })),
  ];
  rows.sort((a, b) => a.at.localeCompare(b.at) || a.order - b.order);
  // A pass changes no utility, and no status but a revise's: each row of one says the ones in effect.
  for (let i = 1; i < rows.length; i++)
    if (rows[i].utility === null) {
      rows[i].utility = rows[i - 1].utility;
      if (rows[i].status === '') rows[i].status = rows[i - 1].status;
    }
  return rows.map(({ order: _order, ...row }) => row);
}

/** The audit actions of passes that bring sessions to a skill (or take them away), as its track record names them. */
const GREW: Record<string, string> = {
  'skill.reinforce': 'reinforced',
  'skill.update': 'updated',
  'skill.revise': 'revised',
};

/** The latest pass that retired the skill because sources were reported failed (stages/revoke.ts), oldest-first audit. */
function revisedAway(audit: readonly AuditRecord[]): { at: string; reason: string } | null {
  for (let i = audit.length - 1; i >= 0; i--) {
    const a = audit[i];
    if (a.action === 'skill.revise' && typeof a.detail.retired === 'string')
      return { at: a.at, reason: a.detail.retired };
  }
  return null;
}

/** How many of its sources were reported failed after it was learned from them (and left it). */
function revokedParents(audit: readonly AuditRecord[]): number {
  return audit
    .filter((a) => a.action === 'skill.revise')
    .reduce((n, a) => n + (typeof a.detail.revoked === 'number' ? a.detail.revoked : 0), 0);
}

/** The ids of the sources taken out (the revise records that name them), oldest-first audit, each once. */
function revokedSessionIds(audit: readonly AuditRecord[]): string[] {
  const ids = new Set<string>();
  for (const a of audit)
    if (a.action === 'skill.revise' && Array.isArray(a.detail.revokedSessions))
      for (const id of a.detail.revokedSessions) if (typeof id === 'string') ids.add(id);
  return [...ids];
}

/** The tools renamed, when the skill's successor superseded it as the same procedure with a renamed tool (its audit record says). */
async function renamedBy(
  store: Store,
  namespace: string,
  skill: Pick<Skill, 'id' | 'supersededBy'>,
): Promise<{ from: string; to: string }[] | null> {
  const records = await store.audit(namespace, { subjectId: skill.supersededBy!, limit: 1000 });
  const renamed = records.find((r) => r.detail.supersedes === skill.id)?.detail.renamed;
  if (!Array.isArray(renamed)) return null;
  return renamed.filter(
    (r): r is { from: string; to: string } =>
      typeof r === 'object' && r !== null && typeof r.from === 'string' && typeof r.to === 'string',
  );
}
