import type { EmbedderThresholds } from '../model-clients/models.js';

export type { EmbedderThresholds };

/**
 * Turns texts into unit-length vectors. Vectors of two embedders are never compared: every stored vector
 * carries `id`, and thresholds that depend on the embedder are keyed by it.
 */
export interface Embedder {
  /** Versioned identity, e.g. `glove-sif-lex@2`. Changing the maths must change the id. */
  readonly id: string;
  /**
   * Ids of earlier versions of this same embedder (local, offline, cheap to run again) whose vectors a
   * synthesis pass may replace on its own, re-embedding the namespace before it learns. Vectors of any other
   * id stay a mismatch that the user settles with `skillsmith reembed`.
   */
  readonly supersedes?: readonly string[];
  readonly dimensions: number;
  /** Calibrated cosine thresholds for this embedder. */
  readonly thresholds: EmbedderThresholds;
  /** Embeds a batch; every returned vector is L2-normalised (or all-zero for an empty text). */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /** Optional synchronous path for in-process embedders (recall hot path). */
  embedSync?(text: string): Float32Array;
  /**
   * The recall threshold for one request's vector, from the configured one, and whether the vector holds nothing
   * of the request's meaning (`wordsOnly`): the GloVe embedder compares a request none of whose words it knows the
   * meaning of (another language) by its words and characters alone, whose similarities run lower than those of
   * vectors that carry both. Absent: the configured threshold for every request.
   */
  recallThreshold?(query: Float32Array, configured: number): { threshold: number; wordsOnly: boolean };
  /** Releases what the embedder holds (a loaded model); the owner calls it once, when done. */
  close?(): Promise<void>;
}
