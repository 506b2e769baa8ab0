/**
 * The engine configurations the evaluation compares. Every one runs here: the embedded GloVe embedder with
 * different weights, the clustering signal, and the recall threshold. (The heuristic distiller is the only distiller that exists;
 * an LLM distiller needs a model server, which these machines do not have.)
 */
import { configSchema, type SkillsmithConfigInput } from '../config/config.js';
import type { Embedder } from '../embedders/embedder.js';
import { createGloveEmbedder } from '../embedders/glove/glove-embedder.js';

export interface EvalVariant {
  name: string;
  description: string;
  /** A fresh embedder for this variant; the memory's default (GloVe SIF + lexical) when absent. */
  embedder?: () => Embedder;
  /** Configuration overrides on top of the evaluation's base configuration. */
  config?: SkillsmithConfigInput;
}

export const EVAL_VARIANTS: readonly EvalVariant[] = [
  {
    name: 'default',
    // The weight is read from the defaults, so the report says what ran.
    description: `embedded defaults: GloVe SIF + lexical (0.6/0.4), clustering on goal + tool use (toolWeight ${configSchema.parse({}).synthesis.toolWeight}), heuristic distiller`,
  },
  {
    name: 'semantic-only',
    description: 'GloVe SIF part only (weights semantic 1, lexical 0); default thresholds',
    embedder: () => createGloveEmbedder({ weights: { semantic: 1, lexical: 0 } }),
  },
  {
    name: 'lexical-only',
    description:
      'lexical (hashed IDF unigrams + bigrams) part only (weights semantic 0, lexical 1); default thresholds',
    embedder: () => createGloveEmbedder({ weights: { semantic: 0, lexical: 1 } }),
  },
  {
    name: 'goal-only-clustering',
    description: 'default embedder, clustering on goal text alone (synthesis.toolWeight 0)',
    config: { synthesis: { toolWeight: 0 } },
  },
  {
    name: 'tool-only-clustering',
    description: 'default embedder, clustering on tool use alone, except near-identical goals (synthesis.toolWeight 1)',
    config: { synthesis: { toolWeight: 1 } },
  },
  {
    name: 'recall-threshold-0.5',
    description:
      'embedded defaults with a stricter recall threshold (thresholds.recall 0.5 instead of the GloVe default 0.4): recall against false recall',
    config: { thresholds: { recall: 0.5 } },
  },
];

export function variantByName(name: string): EvalVariant | undefined {
  return EVAL_VARIANTS.find((v) => v.name === name);
}
