import { IncrementalClusters, sumsFromCentroid, type ClusterState } from '../domain/clustering.js';
import { stateKey } from '../store/state-key.js';
import { TermStats } from '../domain/term-stats.js';
import { GoalMean } from '../domain/goal-mean.js';
import { clusteringFeature, toolFeatures, toolTerms } from '../domain/tool-features.js';
import { collapseRepeats } from '../domain/sequence.js';
import type { DistillerFallback } from '../distillers/distiller.js';
import { EmbedderMismatchError } from '../llm/errors/embedder-mismatch-error.js';
import { embedGoals } from './embed-texts.js';
import { consolidateSkills, distilGroup, SkillCatalog, type GroupOutcome, type PipelineDeps } from './distil-cluster.js';

export interface SynthesisReport {
  created: SkillRef[];
  updated: SkillRef[];
  reinforced: SkillRef[];
  superseded: (SkillRef & { supersedes: string })[];
  skipped: { cluster: string; reason: string }[];
  /** Present only when `llm.fallback` stood in for an unavailable model during this pass. */
  fallback?: DistillerFallback;
  /** Extra figures about the pass (not part of the stable shape's required keys). */
  stats: { newSessions: number; clusters: number; dirtyClusters: number; distilled: number; dryRun: boolean; ms: number };
}

export interface SkillRef {
  id: string;
  name: string;
  version: string;
  cluster: string;
}

export interface SynthesizeOptions {
  namespace: string;
  dryRun?: boolean;
  actor?: string;
  /** Called as sessions are clustered and clusters distilled (progress bars). */
  onProgress?: (phase: 'cluster' | 'distil', done: number, total: number) => void;
}

const FEATURE_TOOL_DIMS = 128;
const PAGE = 5000;

/**
 * The synthesis pass: detect -> embed -> cluster over the sessions added since the watermark, then
 * distil every dirty cluster that is out of cooldown. Incremental; bounded per pass; never on the hot path.
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
  // them. Refuse before anything is written, and say how to re-embed.
  const stored = await store.listSkills(ns, { corpus: 'internal', includeSuperseded: true });
  const foreign: Record<string, number> = {};
  for (const s of stored) if (!s.supersededBy && s.embedding && s.embedderId !== embedder.id) foreign[s.embedderId ?? 'unknown'] = (foreign[s.embedderId ?? 'unknown'] ?? 0) + 1;
  if (Object.keys(foreign).length) throw new EmbedderMismatchError(ns, embedder.id, foreign, stored.filter((s) => !s.supersededBy).length);

  // A model distiller must answer before the pass writes anything: LlmUnavailableError skips the whole pass
  // (or, with llm.fallback, switches this pass to the heuristic distiller).
  await deps.distiller.preflight?.();
  preflighted = true;

  const wmKey = stateKey.watermark(embedder.id);
  const watermark = Number((await store.getState(ns, wmKey)) ?? 0);
  const toolStats = TermStats.fromJSON(await store.getState(ns, stateKey.toolStats));
  const goalStats = TermStats.fromJSON(await store.getState(ns, stateKey.goalStats));
  const goalMean = GoalMean.fromJSON(await store.getState(ns, stateKey.goalMean(embedder.id)), embedder.dimensions);
  const threshold = config.thresholds.cluster ?? deps.thresholds.cluster;
  const goalDims = embedder.dimensions;
  const existing = await store.loadClusters(ns, embedder.id);
  const clusters = new IncrementalClusters(
    goalDims + FEATURE_TOOL_DIMS,
    goalDims,
    threshold,
    existing.map<ClusterState>((c) => ({
      id: c.id,
      featureSum: sumsFromCentroid(c.centroid, c.size),
      goalSum: sumsFromCentroid(c.goalCentroid, c.size),
      size: c.size,
      dirty: c.dirty,
      skillId: c.skillId,
      lastPassAt: c.lastPassAt,
      newMembers: [],
    })),
    'c',
    config.synthesis.sameGoalThreshold,
    config.synthesis.sameProcedureGoalFloor,
  );

  // Detect + embed + cluster, a page of new sessions at a time.
  let mark = watermark;
  const think = config.synthesis.thinkTools;
  for (;;) {
    const page = await store.listSessionsAfter(ns, mark, Math.min(PAGE, config.synthesis.maxSessionsPerPass - report.stats.newSessions));
    if (page.length === 0) break;
    const goals = await embedGoals(store, embedder, page);
    for (const s of page) {
      toolStats.addDocument(toolTerms(collapseRepeats(s.calls.filter((c) => !think.includes(c.tool)).map((c) => c.tool))));
      goalStats.addDocument(goalWords(s.goal));
    }
    for (const s of page) {
      const goal = goals.get(s.id)!;
      goalMean.add(goal);
      const tools = toolFeatures(s.calls.filter((c) => c.ok && !think.includes(c.tool)).map((c) => c.tool), toolStats, FEATURE_TOOL_DIMS);
      clusters.assign(s.id, clusteringFeature(goal, tools, config.synthesis.toolWeight), goal);
    }
    mark = page[page.length - 1].seq!;
    report.stats.newSessions += page.length;
    opts.onProgress?.('cluster', report.stats.newSessions, report.stats.newSessions);
    if (page.length < PAGE) break;
    if (report.stats.newSessions >= config.synthesis.maxSessionsPerPass) {
      log.info('pass bounded: the remaining sessions wait for the next pass', { limit: config.synthesis.maxSessionsPerPass });
      break;
    }
  }
  report.stats.clusters = clusters.clusters.size;

  const records = [...clusters.clusters.values()].map((c) => ({
    id: c.id,
    centroid: clusters.centroid(c.id),
    goalCentroid: clusters.goalCentroid(c.id),
    size: c.size,
    dirty: c.dirty,
    skillId: c.skillId,
    lastPassAt: c.lastPassAt,
    newMembers: c.newMembers,
  }));
  if (!opts.dryRun) {
    // Cluster state and watermark move together: a crash before this line re-reads the same sessions.
    await store.saveClusters(ns, embedder.id, records.filter((r) => r.newMembers.length > 0), mark);
    await store.setState(ns, stateKey.toolStats, toolStats.toJSON());
    await store.setState(ns, stateKey.goalStats, goalStats.toJSON());
    await store.setState(ns, stateKey.goalMean(embedder.id), goalMean.toJSON());
  }

  // Distil dirty clusters, biggest first, out of cooldown, at most maxClustersPerPass for a model distiller.
  const now = deps.now();
  const dirty = records.filter((r) => r.dirty).sort((a, b) => b.size - a.size || a.id.localeCompare(b.id));
  report.stats.dirtyClusters = dirty.filter((c) => c.size >= config.synthesis.minOccurrences).length;
  // The skills read at the start: the pass lock keeps other passes from writing any since.
  const catalog = new SkillCatalog(goalDims, stored, embedder.id);
  const bounded = !deps.distiller.id.startsWith('heuristic');
  let distilled = 0;
  for (const [i, c] of dirty.entries()) {
    opts.onProgress?.('distil', i, dirty.length);
    if (c.size < config.synthesis.minOccurrences) {
      // Too small to be admitted: not worth loading; it stays dirty until it grows. Reported when it changed.
      if (c.newMembers.length > 0) report.skipped.push({ cluster: c.id, reason: `not admitted: ${c.size} sessions, ${config.synthesis.minOccurrences} needed` });
      continue;
    }
    if (c.lastPassAt && now.getTime() - Date.parse(c.lastPassAt) < config.synthesis.cooldownMs) {
      report.skipped.push({ cluster: c.id, reason: 'cooldown: distilled less than cooldownMs ago' });
      continue;
    }
    if (bounded && distilled >= config.synthesis.maxClustersPerPass) {
      report.skipped.push({ cluster: c.id, reason: `deferred: maxClustersPerPass (${config.synthesis.maxClustersPerPass}) reached` });
      continue;
    }
    const memberIds = opts.dryRun ? [...(await store.clusterMembers(ns, c.id)), ...c.newMembers] : await store.clusterMembers(ns, c.id);
    const sessions = await store.getSessions(ns, [...new Set(memberIds)]);
    distilled++;
    const out = await distilGroup(deps, {
      namespace: ns,
      clusterId: c.id,
      sessions,
      goalCentroid: c.goalCentroid,
      ownSkillId: c.skillId,
      goalWordWeight: (w) => goalStats.weight(w),
      toolWeight: (t) => toolStats.weight(t),
      skills: catalog,
      dryRun: !!opts.dryRun,
      actor: opts.actor ?? 'synthesis',
    });
    record(out);
    if (out.action === 'skip' && !opts.dryRun) await store.markClusterPassed(ns, c.id, now.toISOString(), false);
  }
  report.stats.distilled = distilled;
  // Skills stored earlier (or by this pass, from two clusters) that turn out to be one procedure become one.
  for (const { winner, loser } of await consolidateSkills(deps, { namespace: ns, skills: catalog, toolWeight: (t) => toolStats.weight(t), actor: opts.actor ?? 'synthesis', dryRun: !!opts.dryRun })) {
    report.superseded.push({ id: winner.id, name: winner.name, version: winner.version, cluster: winner.clusterId ?? '', supersedes: loser.id });
  }
  opts.onProgress?.('distil', dirty.length, dirty.length);
  return finish();

  function record(out: GroupOutcome) {
    if (out.action === 'skip' || !out.skill) {
      report.skipped.push({ cluster: out.clusterId, reason: out.reason ?? 'skipped' });
      return;
    }
    const ref = { id: out.skill.id, name: out.skill.name, version: out.skill.version, cluster: out.clusterId };
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

/** The words of a goal that count toward the namespace's goal-word statistics. */
export function goalWords(goal: string): string[] {
  return goal
    .toLowerCase()
    .split(/[^a-z']+/)
    .map((w) => w.replace(/'s$/, '').replace(/'/g, ''))
    .filter((w) => w.length >= 3);
}

