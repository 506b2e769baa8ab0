import { basename } from 'node:path';

/** The similarity thresholds an embedder works with; what a model descriptor carries when it is calibrated. */
export interface EmbedderThresholds {
  /** Minimum goal similarity for a session to join a cluster. */
  cluster: number;
  /** Minimum goal-to-skill similarity for recall. */
  recall: number;
  /** Minimum skill-to-skill description similarity to treat two skills as the same (reconcile). */
  duplicate: number;
}

/**
 * What is known about common embedding models: their dimension (so that no probe request is needed) and,
 * where someone has calibrated them, similarity thresholds. Only nomic-embed-text has published values
 * (GAIA #887 used 0.82 for clustering and recall with its 768-d model); every other model gets
 * GENERIC_MODEL_THRESHOLDS, an uncalibrated starting point. Calibrate on your own traces and set
 * `thresholds.cluster` / `thresholds.recall` / `thresholds.duplicate` in the configuration.
 */
export interface KnownEmbeddingModel {
  dimensions: number;
  thresholds?: EmbedderThresholds;
  /** Where the thresholds come from. */
  source?: string;
}

/** GAIA's value for nomic-embed-text (768-d): cluster and recall 0.82; duplicates must be closer still. */
export const NOMIC_THRESHOLDS: Readonly<EmbedderThresholds> = Object.freeze({
  cluster: 0.82,
  recall: 0.82,
  duplicate: 0.9,
});

/** For models nobody calibrated here: a starting point, reported as such by `skillsmith doctor`. */
export const GENERIC_MODEL_THRESHOLDS: Readonly<EmbedderThresholds> = Object.freeze({
  cluster: 0.8,
  recall: 0.7,
  duplicate: 0.9,
});

const KNOWN: Record<string, KnownEmbeddingModel> = {
  'nomic-embed-text': { dimensions: 768, thresholds: NOMIC_THRESHOLDS, source: 'GAIA #887 (SIMILARITY_TAU 0.82)' },
  'nomic-embed-text-v1': { dimensions: 768, thresholds: NOMIC_THRESHOLDS, source: 'GAIA #887 (SIMILARITY_TAU 0.82)' },
  'nomic-embed-text-v1.5': { dimensions: 768, thresholds: NOMIC_THRESHOLDS, source: 'GAIA #887 (SIMILARITY_TAU 0.82)' },
  'mxbai-embed-large': { dimensions: 1024 },
  'all-minilm': { dimensions: 384 },
  'all-minilm-l6-v2': { dimensions: 384 },
  'bge-m3': { dimensions: 1024 },
  'text-embedding-3-small': { dimensions: 1536 },
  'text-embedding-3-large': { dimensions: 3072 },
  'text-embedding-ada-002': { dimensions: 1536 },
};

/**
 * The canonical short name of a model: lowercase, without an organisation or path prefix, without a
 * `.gguf` suffix, and without Ollama's default `:latest` tag (`nomic-embed-text:latest` is `nomic-embed-text`).
 */
export function canonicalModelName(model: string): string {
  let m = model.trim();
  if (m.includes('/') || m.includes('\\')) m = basename(m.replace(/\\/g, '/'));
  m = m.replace(/\.gguf$/i, '').replace(/:latest$/i, '');
  return m.toLowerCase();
}

/** What is known about a model, matching `nomic-embed-text:v1.5`, `nomic-ai/nomic-embed-text-v1.5`, ... */
export function knownEmbeddingModel(model: string): KnownEmbeddingModel | undefined {
  const name = canonicalModelName(model);
  if (KNOWN[name]) return KNOWN[name];
  const untagged = name.replace(/:.*$/, '');
  if (KNOWN[untagged]) return KNOWN[untagged];
  // Quantised or suffixed variants: nomic-embed-text-v1.5.Q8_0, all-MiniLM-L6-v2-f16, ...
  const prefix = Object.keys(KNOWN)
    .filter((k) => untagged.startsWith(`${k}.`) || untagged.startsWith(`${k}-`))
    .sort((a, b) => b.length - a.length)[0];
  return prefix ? KNOWN[prefix] : undefined;
}

/**
 * Default thresholds for a model: calibrated ones when known, else the generic starting point. A calibration holds
 * for vectors of the length it was made at: a Matryoshka model asked for shorter vectors (`embedder.dimensions`)
 * gives other similarities, so it gets the generic starting point, said as uncalibrated.
 */
export function thresholdsForModel(
  model: string,
  dimensions?: number,
): {
  thresholds: EmbedderThresholds;
  calibrated: boolean;
  source: string;
} {
  const known = knownEmbeddingModel(model);
  if (known?.thresholds && (dimensions === undefined || dimensions === known.dimensions))
    return { thresholds: { ...known.thresholds }, calibrated: true, source: known.source ?? 'built-in table' };
  if (known?.thresholds)
    return {
      thresholds: { ...GENERIC_MODEL_THRESHOLDS },
      calibrated: false,
      source: `generic default (uncalibrated): the built-in values are for ${known.dimensions}-d vectors, and embedder.dimensions asks ${dimensions}`,
    };
  return { thresholds: { ...GENERIC_MODEL_THRESHOLDS }, calibrated: false, source: 'generic default (uncalibrated)' };
}

/** Whether `model` is among the ids a server lists (tolerating `:latest`, paths and `.gguf`). */
export function modelListed(model: string, ids: readonly string[]): boolean {
  if (ids.includes(model)) return true;
  const want = canonicalModelName(model);
  return ids.some((id) => canonicalModelName(id) === want);
}
