// The plain clustering a user might write instead of IncrementalClusters (GAIA-style greedy / leader
// clustering): for each new session, compare its goal embedding with the first member of every existing
// cluster, in creation order, and join the first one whose cosine reaches the threshold; else start a new
// cluster. O(n x clusters) dot products over Float32Arrays, no index.

import { nowMs } from './monitor.js';

export interface GreedyRun {
  /** Sessions assigned before the run finished or hit its time budget. */
  processed: number;
  clusters: number;
  ms: number;
  complete: boolean;
  /** ms per session over the last 1,024 sessions processed: a lower bound on every later session's cost (clusters only grow). */
  recentMsPerSession: number;
}

/** Unit vectors in, cosine = dot product. Stops after `budgetMs` (checked every 64 sessions). */
export function greedyCluster(
  vectors: readonly Float32Array[],
  threshold: number,
  budgetMs = Number.POSITIVE_INFINITY,
  onProgress?: (done: number) => void,
): GreedyRun {
  const leaders: Float32Array[] = [];
  const start = nowMs();
  let i = 0;
  let markAt = start;
  let markI = 0;
  let recent = 0;
  for (; i < vectors.length; i++) {
    if ((i & 63) === 0 && i > 0) {
      const t = nowMs();
      if (i - markI >= 1024) {
        recent = (t - markAt) / (i - markI);
        markAt = t;
        markI = i;
        onProgress?.(i);
      }
      if (t - start > budgetMs) break;
    }
    const v = vectors[i];
    const dims = v.length;
    let joined = false;
    for (let c = 0; c < leaders.length; c++) {
      const l = leaders[c];
      let s = 0;
      for (let j = 0; j < dims; j++) s += l[j] * v[j];
      if (s >= threshold) {
        joined = true;
        break;
      }
    }
    if (!joined) leaders.push(v);
  }
  const ms = nowMs() - start;
  if (i > markI) recent = Math.max(recent, (nowMs() - markAt) / (i - markI));
  return {
    processed: i,
    clusters: leaders.length,
    ms,
    complete: i === vectors.length,
    recentMsPerSession: recent || ms / Math.max(1, i),
  };
}
