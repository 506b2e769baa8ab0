import { VectorIndex } from '../index/vector-index.js';

export interface ClusterState {
  id: string;
  /** Unnormalised sums: the centroid is their direction. */
  featureSum: Float32Array;
  goalSum: Float32Array;
  size: number;
  dirty: boolean;
  skillId: string | null;
  lastPassAt: string | null;
  newMembers: string[];
}

export interface Assignment {
  sessionId: string;
  clusterId: string;
  similarity: number;
  created: boolean;
}

/**
 * Incremental clustering: each new session joins the nearest existing cluster (nearest-neighbour index over
 * centroids) when the similarity reaches the threshold, or starts a new cluster. One index search per
 * session: no all-pairs pass over the history.
 */
export class IncrementalClusters {
  private readonly index: VectorIndex;
  /** Goal centroids: sessions with (near-)identical goals always share a cluster, whatever tools they used. */
  private readonly goalIndex: VectorIndex;
  readonly clusters = new Map<string, ClusterState>();
  private nextId: number;

  constructor(
    private readonly featureDims: number,
    private readonly goalDims: number,
    private readonly threshold: number,
    existing: ClusterState[] = [],
    private readonly idPrefix = 'c',
    private readonly sameGoalThreshold = 0.9,
  ) {
    this.index = new VectorIndex(featureDims);
    this.goalIndex = new VectorIndex(goalDims);
    let max = 0;
    for (const c of existing) {
      this.clusters.set(c.id, c);
      this.index.add(c.id, unit(c.featureSum));
      this.goalIndex.add(c.id, unit(c.goalSum));
      const n = Number(c.id.slice(idPrefix.length));
      if (Number.isFinite(n)) max = Math.max(max, n);
    }
    this.nextId = max + 1;
  }

  assign(sessionId: string, feature: Float32Array, goal: Float32Array): Assignment {
    const sameGoal = this.goalIndex.search(goal, 1)[0];
    const hit = sameGoal && sameGoal.score >= this.sameGoalThreshold ? sameGoal : this.index.search(feature, 1)[0];
    if (hit && (hit === sameGoal || hit.score >= this.threshold)) {
      const c = this.clusters.get(hit.id)!;
      addInto(c.featureSum, feature);
      addInto(c.goalSum, goal);
      c.size++;
      c.dirty = true;
      c.newMembers.push(sessionId);
      this.index.add(c.id, unit(c.featureSum));
      this.goalIndex.add(c.id, unit(c.goalSum));
      return { sessionId, clusterId: c.id, similarity: hit.score, created: false };
    }
    const id = `${this.idPrefix}${String(this.nextId++).padStart(6, '0')}`;
    const c: ClusterState = {
      id,
      featureSum: Float32Array.from(feature),
      goalSum: Float32Array.from(goal),
      size: 1,
      dirty: true,
      skillId: null,
      lastPassAt: null,
      newMembers: [sessionId],
    };
    this.clusters.set(id, c);
    this.index.add(id, unit(c.featureSum));
    this.goalIndex.add(id, unit(c.goalSum));
    return { sessionId, clusterId: id, similarity: hit?.score ?? 0, created: true };
  }

  centroid(id: string): Float32Array {
    return unit(this.clusters.get(id)!.featureSum);
  }

  goalCentroid(id: string): Float32Array {
    return unit(this.clusters.get(id)!.goalSum);
  }

  get dims(): { feature: number; goal: number } {
    return { feature: this.featureDims, goal: this.goalDims };
  }
}

function addInto(sum: Float32Array, v: Float32Array) {
  for (let i = 0; i < sum.length; i++) sum[i] += v[i];
}

export function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  const out = new Float32Array(v.length);
  if (n === 0) return out;
  const inv = 1 / Math.sqrt(n);
  for (let i = 0; i < v.length; i++) out[i] = v[i] * inv;
  return out;
}

/** Rebuilds a cluster's sums from its stored unit centroid and size (a running mean's direction and weight). */
export function sumsFromCentroid(centroid: Float32Array, size: number): Float32Array {
  const out = new Float32Array(centroid.length);
  for (let i = 0; i < centroid.length; i++) out[i] = centroid[i] * size;
  return out;
}
