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
 * The sessions each of a skill's exemplars was taken from (their stored ids), one entry an exemplar, in the order of
 * the packing (`Skill.exemplarSources`): every candidate session whose goal or cue is that very wording (cosine at least
 * `SAME_WORDING`), so two sessions that asked the same thing both hold it. null for an exemplar of unknown source (one
 * chosen before sources were kept, schema version 13): a forget finds such an exemplar by its vector instead.
 */
export type ExemplarSources = (string[] | null)[];

/** Cosine at or above which two vectors are the same wording (embedded from the same normalised text). */
export const SAME_WORDING = 0.999;

/** A wording an exemplar may be chosen from, with the sessions it comes from (null: not known). */
export interface ExemplarCandidate {
  vector: Float32Array;
  sources: readonly string[] | null;
}

/** A skill's exemplars as stored: packed vectors and their sources (null when none is known). */
export interface SourcedExemplars {
  exemplars: Float32Array | null;
  exemplarSources: ExemplarSources | null;
}

/**
 * `chooseExemplars` over candidates that say their sessions: the same vectors, each with the sources of every
 * candidate of that very wording (the known ones; null when none is known).
 */
export function chooseSourcedExemplars(
  candidates: readonly ExemplarCandidate[],
  max = MAX_EXEMPLARS,
  duplicate = 0.98,
): SourcedExemplars {
  const chosen = chooseExemplars(
    candidates.map((c) => c.vector),
    max,
    duplicate,
  );
  const sources = chosen.map((v) => {
    const known = candidates.filter((c) => c.sources !== null && cosine(c.vector, v) >= SAME_WORDING);
    return known.length ? [...new Set(known.flatMap((c) => c.sources!))] : null;
  });
  return { exemplars: packExemplars(chosen), exemplarSources: storedSources(sources) };
}

/** A skill's stored exemplars as candidates (to merge with another's); an entry the sources do not fit is unknown. */
export function exemplarCandidates(
  stored: { exemplars?: Float32Array | null; exemplarSources?: ExemplarSources | null },
  dims: number,
): ExemplarCandidate[] {
  const vectors = unpackExemplars(stored.exemplars, dims);
  const sources = stored.exemplarSources?.length === vectors.length ? stored.exemplarSources : null;
  return vectors.map((vector, i) => ({ vector, sources: sources?.[i] ?? null }));
}

/**
 * A skill's exemplars without what sessions being forgotten gave them: an exemplar whose sources are known loses the
 * forgotten ones and goes when none is left (a kept session of the same wording keeps it); one of unknown source goes
 * when it is one of `vectors` (cosine at least `SAME_WORDING`), the embeddings of the forgotten sessions' goals and
 * cues, when they are given. Undefined when nothing changes (nothing to write); `exemplars` null when none is left.
 */
export function exemplarsForgetting(
  stored: { exemplars: Float32Array; exemplarSources: ExemplarSources | null },
  forgotten: ReadonlySet<string>,
  vectors?: readonly Float32Array[],
): SourcedExemplars | undefined {
  const known = stored.exemplarSources;
  const dims =
    known?.length && stored.exemplars.length % known.length === 0
      ? stored.exemplars.length / known.length
      : (vectors?.[0]?.length ?? 0);
  const kept = exemplarCandidates(stored, dims);
  if (kept.length === 0) return undefined;
  let changed = false;
  const left: { vector: Float32Array; sources: string[] | null }[] = [];
  for (const e of kept) {
    if (e.sources === null) {
      if (vectors?.some((v) => cosine(e.vector, v) >= SAME_WORDING)) changed = true;
      else left.push({ vector: e.vector, sources: null });
      continue;
    }
    const still = e.sources.filter((id) => !forgotten.has(id));
    if (still.length !== e.sources.length) changed = true;
    if (still.length) left.push({ vector: e.vector, sources: still });
  }
  if (!changed) return undefined;
  return {
    exemplars: packExemplars(left.map((e) => e.vector.slice())),
    exemplarSources: left.length ? storedSources(left.map((e) => e.sources)) : null,
  };
}

/** Sources as stored: null when none of them is known. */
function storedSources(sources: ExemplarSources): ExemplarSources | null {
  return sources.some((s) => s !== null) ? sources : null;
}

function cosine(a: Float32Array, b: Float32Array): number {
  return dot(a, b) / ((Math.sqrt(dot(a, a)) || 1) * (Math.sqrt(dot(b, b)) || 1));
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
