import { chooseSourcedExemplars, exemplarCandidates, type SourcedExemplars } from '../domain/exemplars.js';
import type { Draft, Skill } from '../domain/types.js';
import type { Embedder } from '../embedders/embedder.js';

/**
 * Normalised mean of the goal centroid and the embedding of the procedure's own words: its title, when to use
 * it (the description's "Use when ..." sentence, which says what users ask for even when the title says what
 * the procedure does: "Check Flight Change" is used when a user asks to change a flight) and its tools.
 */
export async function skillEmbedding(
  embedder: Embedder,
  goalCentroid: Float32Array,
  draft: Pick<Draft, 'body' | 'toolsRequired'> & { whenToUse?: string; description?: string },
): Promise<Float32Array> {
  const title = /^#\s+(.+)$/m.exec(draft.body)?.[1] ?? '';
  const use = /\bUse when ([^.:]+)/.exec(draft.whenToUse ?? draft.description ?? '')?.[1] ?? '';
  const words = `${title}. ${use ? `${use}. ` : ''}${draft.toolsRequired.map((t) => t.replace(/[_-]+/g, ' ')).join('. ')}`;
  const [own] = await embedder.embed([words]);
  const out = new Float32Array(goalCentroid.length);
  let norm = 0;
  for (let i = 0; i < out.length; i++) {
    out[i] = goalCentroid[i] + own[i];
    norm += out[i] * out[i];
  }
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i] /= Math.sqrt(norm);
  return out;
}

/** No recall exemplars. */
export const NO_EXEMPLARS: SourcedExemplars = { exemplars: null, exemplarSources: null };

/** Recall exemplars chosen from the wordings (goals and cues) of sessions, given their vectors in the same order. */
export function exemplarsFrom(
  wordings: readonly { sessionId: string }[],
  vectors: readonly Float32Array[],
): SourcedExemplars {
  return chooseSourcedExemplars(vectors.map((vector, i) => ({ vector, sources: [wordings[i]!.sessionId] })));
}

type StoredExemplars = Pick<Skill, 'exemplars' | 'exemplarSources'>;

/** One skill's recall exemplars after it absorbed another group's wordings, each with its sessions. */
export function mergeExemplars(a: StoredExemplars, b: StoredExemplars, dims: number): SourcedExemplars {
  return chooseSourcedExemplars([...exemplarCandidates(a, dims), ...exemplarCandidates(b, dims)]);
}

/** A skill's stored exemplars as they are. */
export function storedExemplars(s: StoredExemplars): SourcedExemplars {
  return { exemplars: s.exemplars ?? null, exemplarSources: s.exemplars ? (s.exemplarSources ?? null) : null };
}
