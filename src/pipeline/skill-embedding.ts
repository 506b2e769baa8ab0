import { chooseExemplars, packExemplars, unpackExemplars } from '../domain/exemplars.js';
import type { Draft } from '../domain/types.js';
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

/** One skill's recall exemplars after it absorbed another group's wordings. */
export function mergeExemplars(a: Float32Array, b: Float32Array | null, dims: number): Float32Array | null {
  return packExemplars(chooseExemplars([...unpackExemplars(a, dims), ...unpackExemplars(b, dims)]));
}
