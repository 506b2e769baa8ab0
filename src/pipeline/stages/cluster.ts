import type { SkillsmithConfig } from '../../config/config.js';
import { IncrementalClusters, sumsFromCentroid, unit, type ClusterState } from '../../domain/clustering.js';
import { GoalMean } from '../../domain/goal-mean.js';
import { collapseRepeats } from '../../domain/sequence.js';
import { TermStats } from '../../domain/term-stats.js';
import { clusteringFeature, toolFeatures, toolTerms } from '../../domain/tool-features.js';
import type { SessionOutline } from '../../domain/types.js';
import type { Embedder, EmbedderThresholds } from '../../embedders/embedder.js';
import type { ClusterRecord, Store } from '../../store/store.js';
import { stateKey } from '../../store/state-key.js';

/** Dimensions of the tool-use part of a session's clustering feature. */
const FEATURE_TOOL_DIMS = 128;

/** A namespace's clusters for one embedder, and the corpus statistics their features are weighted by. */
export interface Clustering {
  clusters: IncrementalClusters;
  toolStats: TermStats;
  goalStats: TermStats;
  goalMean: GoalMean;
}

/** Reads the stored clusters and statistics, ready for incremental assignment of new sessions. */
export async function loadClustering(
  store: Store,
  namespace: string,
  embedder: Embedder,
  config: SkillsmithConfig,
  thresholds: EmbedderThresholds,
): Promise<Clustering> {
  const toolStats = TermStats.fromJSON(await store.getState(namespace, stateKey.toolStats));
  const goalStats = TermStats.fromJSON(await store.getState(namespace, stateKey.goalStats));
  const goalMean = GoalMean.fromJSON(
    await store.getState(namespace, stateKey.goalMean(embedder.id)),
    embedder.dimensions,
  );
  const threshold = config.thresholds.cluster ?? thresholds.cluster;
  const goalDims = embedder.dimensions;
  const existing = await store.loadClusters(namespace, embedder.id);
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
    config.synthesis.sameProcedureToolFloor,
  );
  return { clusters, toolStats, goalStats, goalMean };
}

/**
 * Cluster: a page of new sessions joins the corpus statistics, then each session joins the nearest cluster
 * (goal and tool use) or starts one. `goals` holds each session's goal embedding.
 */
export function clusterSessions(
  state: Clustering,
  page: readonly SessionOutline[],
  goals: ReadonlyMap<string, Float32Array>,
  synthesis: SkillsmithConfig['synthesis'],
): void {
  const think = synthesis.thinkTools;
  for (const s of page) {
    // A command runner's calls count by what they run (run_shell df, run_shell systemctl restart).
    state.toolStats.addDocument(
      toolTerms(collapseRepeats(s.calls.filter((c) => !think.includes(c.tool)).map((c) => c.key ?? c.tool))),
    );
    state.goalStats.addDocument(goalWords(s.goal));
  }
  // Scratch reused for every session: assign copies what it keeps.
  const { feature: featureDims } = state.clusters.dims;
  const tools = new Float32Array(FEATURE_TOOL_DIMS);
  const feature = new Float32Array(featureDims);
  for (const s of page) {
    const goal = goals.get(s.id)!;
    state.goalMean.add(goal);
    state.clusters.assign(s.id, featureInto(feature, tools, s, goal, state.toolStats, synthesis), goal);
  }
}

/** What a session's clustering feature is made with (config.synthesis). */
interface FeatureSettings {
  thinkTools: readonly string[];
  toolWeight: number;
}

/** A session's clustering feature (its goal and its tool use), into `feature`; `tools`: scratch. */
function featureInto(
  feature: Float32Array,
  tools: Float32Array,
  s: SessionOutline,
  goal: Float32Array,
  toolStats: TermStats,
  synthesis: FeatureSettings,
): Float32Array {
  toolFeatures(toolKeysOf(s, synthesis.thinkTools), toolStats, FEATURE_TOOL_DIMS, undefined, tools);
  return clusteringFeature(goal, tools, synthesis.toolWeight, feature);
}

/** What a session's tool use is made of: its calls that worked, each by its step key, reasoning tools left out. */
function toolKeysOf(s: SessionOutline, thinkTools: readonly string[]): string[] {
  return s.calls.filter((c) => c.ok && !thinkTools.includes(c.tool)).map((c) => c.key ?? c.tool);
}

/**
 * The tool part of a cluster's centroid as a pass makes it for these members under `toolStats`: the direction of the
 * sum of their tool features (all zeros when none called a tool). Look-alike groups compare clusters by it
 * (stages/look-alike.ts), made from the members that ended when some are still open.
 */
export function toolCentroidOf(
  members: readonly SessionOutline[],
  toolStats: TermStats,
  thinkTools: readonly string[],
): Float32Array {
  const sum = new Float32Array(FEATURE_TOOL_DIMS);
  const tools = new Float32Array(FEATURE_TOOL_DIMS);
  for (const s of members) {
    toolFeatures(toolKeysOf(s, thinkTools), toolStats, FEATURE_TOOL_DIMS, undefined, tools);
    for (let i = 0; i < sum.length; i++) sum[i] += tools[i];
  }
  return unit(sum);
}

/**
 * A cluster's centroids as a pass makes them for these members clustered together, in this order, under `toolStats`:
 * the directions of the sums of their clustering features and of their goal embeddings (zero vectors for none). A
 * forget recomputes the clusters its sessions leave so, from the members that stay.
 */
export function centroidsOf(
  members: readonly { session: SessionOutline; goal: Float32Array }[],
  goalDims: number,
  toolStats: TermStats,
  synthesis: FeatureSettings,
): { centroid: Float32Array; goalCentroid: Float32Array } {
  const featureSum = new Float32Array(goalDims + FEATURE_TOOL_DIMS);
  const goalSum = new Float32Array(goalDims);
  const tools = new Float32Array(FEATURE_TOOL_DIMS);
  const feature = new Float32Array(featureSum.length);
  for (const m of members) {
    featureInto(feature, tools, m.session, m.goal, toolStats, synthesis);
    for (let i = 0; i < featureSum.length; i++) featureSum[i] += feature[i];
    for (let i = 0; i < goalSum.length; i++) goalSum[i] += m.goal[i];
  }
  return { centroid: unit(featureSum), goalCentroid: unit(goalSum) };
}

/** Every cluster as the pass leaves it. */
export function clusterRecords(state: Clustering): ClusterRecord[] {
  const { clusters } = state;
  return [...clusters.clusters.values()].map((c) => ({
    id: c.id,
    centroid: clusters.centroid(c.id),
    goalCentroid: clusters.goalCentroid(c.id),
    size: c.size,
    dirty: c.dirty,
    skillId: c.skillId,
    lastPassAt: c.lastPassAt,
    newMembers: c.newMembers,
  }));
}

/** Stores the clusters that grew, the watermark and the statistics. */
export async function saveClustering(
  store: Store,
  namespace: string,
  embedderId: string,
  state: Clustering,
  records: readonly ClusterRecord[],
  watermark: number,
): Promise<void> {
  // Cluster state and watermark move together: a crash before this line re-reads the same sessions.
  await store.saveClusters(
    namespace,
    embedderId,
    records.filter((r) => r.newMembers.length > 0),
    watermark,
  );
  await store.setState(namespace, stateKey.toolStats, state.toolStats.toJSON());
  await store.setState(namespace, stateKey.goalStats, state.goalStats.toJSON());
  await store.setState(namespace, stateKey.goalMean(embedderId), state.goalMean.toJSON());
}

/** The words of a goal that count toward the namespace's goal-word statistics. */
export function goalWords(goal: string): string[] {
  const out: string[] = [];
  for (const [run] of goal.toLowerCase().matchAll(/[a-z']+/g)) {
    const w = run.includes("'") ? run.replace(/'s$/, '').replace(/'/g, '') : run;
    if (w.length >= 3) out.push(w);
  }
  return out;
}
