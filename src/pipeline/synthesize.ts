import { branchSkills } from './stages/branch.js';
import type { DistillerFallback } from '../distillers/distiller.js';
import { learnedByOf, olderDistiller } from '../domain/learned-by.js';
import type { ClusterRecord } from '../store/store.js';
import { EmbedderMismatchError } from '../errors/embedder-mismatch-error.js';
import { distilGroup } from './chain.js';
import type { GroupOutcome } from './group.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { SkillCatalog } from './skill-catalog.js';
import { deferCluster, tooFewEnded } from './stages/admit.js';
import { clusterRecords, clusterSessions, loadClustering, saveClustering } from './stages/cluster.js';
import { consolidateSkills } from './stages/consolidate.js';
import { detectNewSessions, readWatermark } from './stages/detect.js';
import { embedGoals } from './stages/embed.js';
import { findLookAlikes, learnedSessions, type LookAlike, PASS_LOOK_ALIKES } from './stages/look-alike.js';
import { reembed } from './reembed.js';
import { editOf } from '../domain/learned-by.js';
import { stillOpen } from '../domain/open-session.js';
import type { RenamedTool } from '../domain/tool-rename.js';
import { succeedRenamedTools } from './stages/tool-rename.js';
import { reviseRevokedSources } from './stages/revoke.js';

export interface SynthesisReport {
  created: SkillRef[];
  updated: SkillRef[];
  reinforced: SkillRef[];
  /** `renamed`: present when the skill superseded is the same procedure with a tool the agent now calls by another name. */
  superseded: (SkillRef & { supersedes: string; renamed?: RenamedTool[] })[];
  skipped: { cluster: string; reason: string }[];
  /**
   * Present only when there are some: sessions that ran the same steps, each in a cluster too small to learn from
   * because their requests were worded too far apart to group (stages/look-alike.ts). Said when one of them is new.
   */
  lookAlike?: LookAlike[];
  /**
   * Present only when `capture.retentionDays` is set and, after the pass, sessions older than it were forgotten
   * (`sessions`), or kept for want of a readable date (`undated`).
   */
  retention?: { before: string; sessions: number; undated: number };
  /**
   * Present only when there are some: skills whose sources were reported failed after they were learned from them
   * (`revoked` of them): those sessions are no longer their sources, and `retired` says why one was retired.
   */
  revised?: { id: string; name: string; version: string; revoked: number; status: string; retired?: string }[];
  /** Present only when `llm.fallback` stood in for an unavailable model during this pass. */
  fallback?: DistillerFallback;
  /**
   * Present only when there were some: sessions of the clusters this pass distilled that are still open (not ended,
   * no outcome: domain/open-session.ts), and how many clusters held them. Left out of their cluster's counts until
   * they end; their end marks the cluster dirty, and the next pass distils it again with them.
   */
  open?: { sessions: number; clusters: number };
  /** Extra figures about the pass (not part of the stable shape's required keys). */
  stats: {
    newSessions: number;
    clusters: number;
    dirtyClusters: number;
    distilled: number;
    dryRun: boolean;
    ms: number;
  };
}

export interface SkillRef {
  id: string;
  name: string;
  version: string;
  cluster: string;
  /** Only for a skill a person edited (skills edit): the pass kept their text. */
  keptEdit?: true;
  /** With keptEdit, when its sessions now suggest another procedure: that procedure's tools, in order. */
  suggests?: string[];
}

export interface SynthesizeOptions {
  namespace: string;
  dryRun?: boolean;
  actor?: string;
  /** Called as sessions are clustered and clusters distilled (progress bars). */
  onProgress?: (phase: 'cluster' | 'distil', done: number, total: number) => void;
}

/**
 * The synthesis pass: detect -> embed -> cluster over the sessions added since the watermark, then every dirty
 * cluster out of cooldown through the group chain (chain.ts: admit -> evidence -> distil -> verify -> reconcile
 * -> persist), then consolidation of stored skills that are one procedure. Incremental; bounded per pass;
 * never on the hot path. One file per stage in stages/.
 */
export async function synthesize(deps: PipelineDeps, opts: SynthesizeOptions): Promise<SynthesisReport> {
  const started = Date.now();
  const { store, embedder, config } = deps;
  const ns = opts.namespace;
  const log = deps.log.child('pass');
  let preflighted = false;
  const report: SynthesisReport = {
    created: [],
    updated: [],
    reinforced: [],
    superseded: [],
    skipped: [],
    stats: { newSessions: 0, clusters: 0, dirtyClusters: 0, distilled: 0, dryRun: !!opts.dryRun, ms: 0 },
  };
  if (config.disabled) {
    log.info('memory disabled: synthesis skipped');
    return finish();
  }
  if (!config.synthesis.enabled) {
    log.info('synthesis disabled: pass skipped; stored skills stay recallable');
    return finish();
  }
  // Skills embedded by another model cannot be compared with this one's drafts: learning on would duplicate
  // them. Vectors of an earlier version of this embedder are made again first (it says which it supersedes:
  // local and cheap); any other model's, the pass refuses before anything is written, and says how to re-embed.
  let stored = await store.listSkills(ns, { corpus: 'internal', includeSuperseded: true });
  let foreign = foreignVectors(stored, embedder.id);
  const earlier = new Set(embedder.supersedes ?? []);
  if (Object.keys(foreign).length && Object.keys(foreign).every((id) => earlier.has(id))) {
    if (opts.dryRun) {
      log.info('a pass will re-embed the skills an earlier version of the embedder made', { namespace: ns, foreign });
      foreign = {};
    } else {
      const done = await reembed(store, embedder, ns, { actor: opts.actor ?? 'synthesis', now: deps.now });
      log.info('re-embedded the skills an earlier version of the embedder made', {
        namespace: ns,
        embedder: embedder.id,
        from: done.from,
        skills: done.skills,
      });
      stored = await store.listSkills(ns, { corpus: 'internal', includeSuperseded: true });
      foreign = foreignVectors(stored, embedder.id);
    }
  }
  if (Object.keys(foreign).length)
    throw new EmbedderMismatchError(ns, embedder.id, foreign, stored.filter((s) => !s.supersededBy).length);

  // A model distiller must answer before the pass writes anything: LlmUnavailableError skips the whole pass
  // (or, with llm.fallback, switches this pass to the heuristic distiller).
  await deps.distiller.preflight?.();
  preflighted = true;

  // Detect -> embed -> cluster, a page of new sessions at a time.
  const watermark = await readWatermark(store, ns, embedder.id);
  const clustering = await loadClustering(store, ns, embedder, config, deps.thresholds);
  let mark = watermark;
  for await (const page of detectNewSessions(store, ns, watermark, config.synthesis.maxSessionsPerPass, log)) {
    const goals = await embedGoals(store, embedder, page);
    clusterSessions(clustering, page, goals, config.synthesis);
    mark = page[page.length - 1].seq!;
    report.stats.newSessions += page.length;
    opts.onProgress?.('cluster', report.stats.newSessions, report.stats.newSessions);
  }
  report.stats.clusters = clustering.clusters.clusters.size;
  const records = clusterRecords(clustering);
  if (!opts.dryRun) await saveClustering(store, ns, embedder.id, clustering, records, mark);

  // Distil dirty clusters, biggest first, out of cooldown, at most maxClustersPerPass for a model distiller.
  const now = deps.now();
  // A cluster whose skill an earlier version of this distiller wrote is distilled again once, even with no new
  // sessions and in cooldown (learned-by.ts): unless a pass has examined it since the skill was written (a
  // refresh whose draft was skipped), when it waits, like any cluster, for new sessions. Only the cluster the
  // skill was learned from: another cluster that reinforced it holds the same procedure and has nothing to add.
  const outdated = new Map(
    stored
      .filter((s) => !s.supersededBy && s.clusterId && olderDistiller(learnedByOf(s.skillMd), deps.distiller.id))
      .map((s) => [s.id, { written: Date.parse(s.updatedAt), cluster: s.clusterId }]),
  );
  const refresh = (r: ClusterRecord) => {
    const skill = r.skillId ? outdated.get(r.skillId) : undefined;
    return skill?.cluster === r.id && (!r.lastPassAt || Date.parse(r.lastPassAt) <= skill.written);
  };
  const dirty = records
    .filter((r) => r.dirty || refresh(r))
    .sort((a, b) => b.size - a.size || a.id.localeCompare(b.id));
  report.stats.dirtyClusters = dirty.filter((c) => c.size >= config.synthesis.minOccurrences).length;
  // Sources reported failed since a skill was learned leave it first, so the rest of the pass sees what is left.
  const revision = await reviseRevokedSources(deps, {
    namespace: ns,
    dirty,
    stored,
    actor: opts.actor ?? 'synthesis',
    dryRun: !!opts.dryRun,
  });
  stored = revision.stored;
  if (revision.revised.length)
    report.revised = revision.revised.map(({ skill, revoked, retired }) => ({
      id: skill.id,
      name: skill.name,
      version: skill.version,
      revoked,
      status: skill.status,
      ...(retired ? { retired } : {}),
    }));
  // The skills read at the start: the pass lock keeps other passes from writing any since.
  const catalog = new SkillCatalog(embedder.dimensions, stored, embedder.id);
  const bounded = !deps.distiller.id.startsWith('heuristic');
  let distilled = 0;
  const tooSmall: ClusterRecord[] = [];
  const examined = new Set<string>();
  for (const [i, c] of dirty.entries()) {
    opts.onProgress?.('distil', i, dirty.length);
    const deferred = deferCluster(
      refresh(c) ? { ...c, lastPassAt: null } : c,
      config.synthesis,
      now,
      distilled,
      bounded,
    );
    if (deferred) {
      if (deferred.tooSmall) tooSmall.push(c);
      // Too small to be admitted: not worth loading; it stays dirty until it grows. Reported when it changed.
      if (!deferred.tooSmall || c.newMembers.length > 0)
        report.skipped.push({ cluster: c.id, reason: deferred.reason });
      continue;
    }
    // The revise stage may have read these members, and some of the sessions, already (revision.read).
    const held = revision.read.members.get(c.id) ?? (await store.clusterMembers(ns, c.id));
    const memberIds = opts.dryRun ? [...held, ...c.newMembers] : held;
    // Members come oldest first: the newest `maxClusterSessions` of them are read. One still open (the agent may be
    // running, or its end never arrived) counts for nothing yet: its end makes the cluster dirty again. In a cluster
    // that holds more, the open ones are known first (one read of their ids), so that the newest that ended are read,
    // not newer open ones in their place.
    const all = [...new Set(memberIds)];
    const openIds = all.length > config.synthesis.maxClusterSessions ? await store.openSessionIds(ns, all) : null;
    const wanted = (openIds?.size ? all.filter((id) => !openIds.has(id)) : all).slice(
      -config.synthesis.maxClusterSessions,
    );
    const cached = wanted.flatMap((id) => revision.read.sessions.get(id) ?? []);
    const fetched = await store.getSessions(
      ns,
      wanted.filter((id) => !revision.read.sessions.has(id)),
    );
    // In the order the store gives them (by when they were stored), as one read of them all would.
    const read = [...cached, ...fetched].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
    const sessions = read.filter((s) => !stillOpen(s));
    // How many are open: those read say, unless the cluster holds more than are read.
    const open = (openIds?.size ?? 0) + read.length - sessions.length;
    // They count for nothing in the size that decides whether the cluster is examined either: too few ended ones
    // leave it as too small, unexamined (its cooldown not started) until they end.
    if (sessions.length < config.synthesis.minOccurrences) {
      const few = tooFewEnded(c.size, open, config.synthesis);
      if (few) {
        tooSmall.push(c);
        if (c.newMembers.length > 0) report.skipped.push({ cluster: c.id, reason: few.reason });
        continue;
      }
    }
    if (open) {
      report.open ??= { sessions: 0, clusters: 0 };
      report.open.sessions += open;
      report.open.clusters++;
    }
    distilled++;
    examined.add(c.id);
    const out = await distilGroup(deps, {
      namespace: ns,
      clusterId: c.id,
      sessions,
      goalCentroid: c.goalCentroid,
      ownSkillId: c.skillId,
      goalWordWeight: (w) => clustering.goalStats.weight(w),
      toolWeight: (t) => clustering.toolStats.weight(t),
      toolShare: (t) => clustering.toolStats.share(t),
      skills: catalog,
      revivable: revision.revivable,
      dryRun: !!opts.dryRun,
      actor: opts.actor ?? 'synthesis',
    });
    record(out);
    if (out.action === 'skip' && !opts.dryRun) await store.markClusterPassed(ns, c.id, now.toISOString(), false);
  }
  report.stats.distilled = distilled;
  const features = { goalDims: embedder.dimensions, toolStats: clustering.toolStats };
  const lookAlike = await findLookAlikes(store, ns, tooSmall, features, {
    minOccurrences: config.synthesis.minOccurrences,
    thinkTools: config.synthesis.thinkTools,
    dryRun: !!opts.dryRun,
    learned: learnedSessions(stored),
    max: PASS_LOOK_ALIKES,
  });
  if (lookAlike.length) report.lookAlike = lookAlike;
  // Skills stored earlier (or by this pass, from two clusters) that turn out to be one procedure become one.
  for (const { winner, loser } of await consolidateSkills(deps, {
    namespace: ns,
    skills: catalog,
    toolWeight: (t) => clustering.toolStats.weight(t),
    toolShare: (t) => clustering.toolStats.share(t),
    actor: opts.actor ?? 'synthesis',
    dryRun: !!opts.dryRun,
  })) {
    report.superseded.push({
      id: winner.id,
      name: winner.name,
      version: winner.version,
      cluster: winner.clusterId ?? '',
      supersedes: loser.id,
    });
  }
  // A skill whose tool the agent now calls by another name is superseded by the skill learned from the renamed
  // calls, when the sessions say so (stages/tool-rename.ts); one a person edited is kept and says so.
  for (const s of await succeedRenamedTools(deps, {
    namespace: ns,
    skills: catalog,
    examined,
    actor: opts.actor ?? 'synthesis',
    dryRun: !!opts.dryRun,
  })) {
    const [kept, by] = s.keptEdit ? [s.predecessor, s.successor] : [s.successor, s.predecessor];
    const ref = { id: kept.id, name: kept.name, version: kept.version, cluster: kept.clusterId ?? '' };
    if (s.keptEdit) report.reinforced.push({ ...ref, keptEdit: true, suggests: [...by.toolSequence] });
    else report.superseded.push({ ...ref, supersedes: by.id, renamed: s.renamed });
  }
  // Skills that share their lookups and part at the state-changing call branch on what the lookups showed.
  for (const skill of await branchSkills(deps, {
    namespace: ns,
    skills: catalog,
    actor: opts.actor ?? 'synthesis',
    dryRun: !!opts.dryRun,
    writtenThisPass: new Set([...report.created, ...report.updated, ...report.superseded].map((r) => r.id)),
  })) {
    // A skill this pass already wrote is reported once, at the version the pass left it.
    const listed = [...report.created, ...report.updated, ...report.superseded].find((r) => r.id === skill.id);
    if (listed) listed.version = skill.version;
    else
      report.updated.push({ id: skill.id, name: skill.name, version: skill.version, cluster: skill.clusterId ?? '' });
  }
  opts.onProgress?.('distil', dirty.length, dirty.length);
  return finish();

  function record(out: GroupOutcome) {
    if (out.action === 'skip' || !out.skill) {
      report.skipped.push({ cluster: out.clusterId, reason: out.reason ?? 'skipped' });
      return;
    }
    const mark = editOf(out.skill.skillMd);
    const ref: SkillRef = {
      id: out.skill.id,
      name: out.skill.name,
      version: out.skill.version,
      cluster: out.clusterId,
      ...(mark ? { keptEdit: true as const, ...(mark.suggests ? { suggests: mark.suggests } : {}) } : {}),
    };
    if (out.action === 'add') report.created.push(ref);
    else if (out.action === 'update') report.updated.push(ref);
    else if (out.action === 'reinforce') report.reinforced.push(ref);
    else report.superseded.push({ ...ref, supersedes: out.target!.id });
  }

  function finish(): SynthesisReport {
    report.stats.ms = Date.now() - started;
    const fellBack = preflighted ? deps.distiller.fellBack : null;
    if (fellBack) report.fallback = { ...fellBack };
    return report;
  }
}

/** Live skills whose vector another embedder made, counted by that embedder's id. */
function foreignVectors(
  skills: readonly { supersededBy: string | null; embedding: Float32Array | null; embedderId: string | null }[],
  embedderId: string,
): Record<string, number> {
  const foreign: Record<string, number> = {};
  for (const s of skills)
    if (!s.supersededBy && s.embedding && s.embedderId !== embedderId)
      foreign[s.embedderId ?? 'unknown'] = (foreign[s.embedderId ?? 'unknown'] ?? 0) + 1;
  return foreign;
}
