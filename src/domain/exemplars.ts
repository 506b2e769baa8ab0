/**
 * Recall exemplars: a few vectors per skill, taken from the goals and cues of the sessions it was learned
 * from, so that a request worded like any one of them finds the skill even when the cluster's centroid (a
 * blend of every wording) is far from it. Chosen for spread, not for centrality: the centroid already covers
 * the centre.
 */

/** Most exemplars kept per skill (memory and search cost grow with it). */
export const MAX_EXEMPLARS = 8;

/**
 * Successful sessions, the newest, whose goals and cues exemplars are chosen from: eight spread-out wordings
 * are found among a hundred as well as among a thousand, and each candidate costs an embedding.
 */
export const EXEMPLAR_SOURCES = 128;

/**
 * Greedy farthest-point choice of at most `max` vectors: start with the one nearest the mean, then add the
 * vector least similar to everything chosen so far. Near-duplicates (cosine >= `duplicate`) are never both
 * kept. Deterministic for a given input order.
 */
export function chooseExemplars(
  vectors: readonly Float32Array[],
  max = MAX_EXEMPLARS,
  duplicate = 0.98,
): Float32Array[] {
  const pool = vectors.filter((v) => v.some((x) => x !== 0));
  if (pool.length === 0 || max <= 0) return [];
  const dims = pool[0].length;
  const mean = new Float32Array(dims);
  for (const v of pool) for (let i = 0; i < dims; i++) mean[i] += v[i];
  let first = 0;
  let best = -Infinity;
  pool.forEach((v, i) => {
    const s = dot(v, mean);
    if (s > best) {
      best = s;
      first = i;
    }
  });
  const chosen = [pool[first]];
  // Highest similarity of each candidate to the chosen set.
  const nearest = pool.map((v) => dot(v, pool[first]));
  while (chosen.length < max) {
    let pick = -1;
    let lowest = duplicate;
    nearest.forEach((s, i) => {
      if (s < lowest) {
        lowest = s;
        pick = i;
      }
    });
    if (pick < 0) break;
    chosen.push(pool[pick]);
    pool.forEach((v, i) => {
      nearest[i] = Math.max(nearest[i], dot(v, pool[pick]));
    });
  }
  return chosen;
}

/** Packs unit vectors one after another (the stored shape of `Skill.exemplars`). */
export function packExemplars(vectors: readonly Float32Array[]): Float32Array | null {
  if (vectors.length === 0) return null;
  const dims = vectors[0].length;
  const out = new Float32Array(vectors.length * dims);
  vectors.forEach((v, i) => {
    out.set(v, i * dims);
  });
  return out;
}

/** The packed exemplars of a skill as separate vectors; none when the packing does not fit `dims`. */
export function unpackExemplars(packed: Float32Array | null | undefined, dims: number): Float32Array[] {
  if (!packed || dims <= 0 || packed.length % dims !== 0) return [];
  const out: Float32Array[] = [];
  for (let i = 0; i < packed.length; i += dims) out.push(packed.subarray(i, i + dims));
  return out;
}

/**
 * A skill's packed exemplars without those that are one of `vectors` (cosine at least `same`): the goals and cues of
 * sessions being forgotten, whose embeddings must not stay in the skill. Undefined when none of them is there (nothing
 * to write); null when none is left.
 */
export function exemplarsWithout(
  packed: Float32Array,
  vectors: readonly Float32Array[],
  same = 0.999,
): Float32Array | null | undefined {
  const dims = vectors[0]?.length ?? 0;
  const kept = unpackExemplars(packed, dims);
  if (kept.length === 0) return undefined;
  const norm = (v: Float32Array) => Math.sqrt(dot(v, v)) || 1;
  const norms = vectors.map(norm);
  const left = kept.filter((e) => {
    const n = norm(e);
    return !vectors.some((v, i) => dot(e, v) / (n * norms[i]!) >= same);
  });
  return left.length === kept.length ? undefined : packExemplars(left.map((e) => e.slice()));
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
