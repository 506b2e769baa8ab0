import { VectorIndex } from '../vector/vector-index.js';

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
  /** Scratch for the unit centroids handed to the indexes (they copy what they are given). */
  private readonly featureUnit: Float32Array;
  private readonly goalUnit: Float32Array;

  constructor(
    private readonly featureDims: number,
    private readonly goalDims: number,
    private readonly threshold: number,
    existing: ClusterState[] = [],
    private readonly idPrefix = 'c',
    private readonly sameGoalThreshold = 0.9,
    /**
     * A session whose tool use matches a cluster's (tool part of the feature, cosine >= 0.95) joins it when
     * its goal is at least this similar: three runs of one procedure, worded three ways, are one cluster.
     */
    private readonly sameProcedureGoalFloor = 0,
    /** Cosine of the tool parts from which two sessions count as one procedure. */
    private readonly sameProcedureToolFloor = 0.95,
  ) {
    this.index = new VectorIndex(featureDims);
    this.goalIndex = new VectorIndex(goalDims);
    this.featureUnit = new Float32Array(featureDims);
    this.goalUnit = new Float32Array(goalDims);
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

  /** Puts a session in its cluster. Keeps neither vector (callers may reuse them): sums and indexes copy. */
  assign(sessionId: string, feature: Float32Array, goal: Float32Array): Assignment {
    const sameGoal = this.goalIndex.search(goal, 1)[0];
    const hit = sameGoal && sameGoal.score >= this.sameGoalThreshold ? sameGoal : this.nearest(feature, goal);
    if (hit && (hit === sameGoal || hit.score >= this.threshold)) {
      const c = this.clusters.get(hit.id)!;
      addInto(c.featureSum, feature);
      addInto(c.goalSum, goal);
      c.size++;
      c.dirty = true;
      c.newMembers.push(sessionId);
      this.index.add(c.id, unitInto(this.featureUnit, c.featureSum));
      this.goalIndex.add(c.id, unitInto(this.goalUnit, c.goalSum));
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
    this.index.add(id, unitInto(this.featureUnit, c.featureSum));
    this.goalIndex.add(id, unitInto(this.goalUnit, c.goalSum));
    return { sessionId, clusterId: id, similarity: hit?.score ?? 0, created: true };
  }

  /**
   * The best cluster for a feature: by combined similarity, except that a cluster with the same procedure
   * (tool part nearly identical) and a goal above the floor is taken at the threshold, whatever the wording.
   */
  private nearest(feature: Float32Array, goal: Float32Array): { id: string; score: number } | undefined {
    const hits = this.index.search(feature, 5);
    if (hits.length === 0) return undefined;
    const toolNorm = partNorm(feature, this.goalDims, this.featureDims);
    if (toolNorm > 0) {
      for (const h of hits) {
        if (h.score >= this.threshold) break;
        const c = this.clusters.get(h.id)!;
        const toolCos = partCosine(feature, c.featureSum, this.goalDims, this.featureDims);
        const goalCos = partCosine(goal, c.goalSum, 0, this.goalDims);
        if (toolCos >= this.sameProcedureToolFloor && goalCos >= this.sameProcedureGoalFloor)
          return { id: h.id, score: this.threshold };
      }
    }
    return hits[0];
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

function partNorm(v: Float32Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n += v[i] * v[i];
  return Math.sqrt(n);
}

/** Cosine of two vectors restricted to the coordinates [from, to). */
function partCosine(a: Float32Array, b: Float32Array, from: number, to: number): number {
  let dot = 0;
  for (let i = from; i < to; i++) dot += a[i] * b[i];
  const na = partNorm(a, from, to);
  const nb = partNorm(b, from, to);
  return na > 0 && nb > 0 ? dot / (na * nb) : 0;
}

function addInto(sum: Float32Array, v: Float32Array) {
  for (let i = 0; i < sum.length; i++) sum[i] += v[i];
}

export function unit(v: Float32Array): Float32Array {
  return unitInto(new Float32Array(v.length), v);
}

/** `v` scaled to unit length into `out` (all zeros stay zeros); returns `out`. */
function unitInto(out: Float32Array, v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  if (n === 0) return out.fill(0);
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
