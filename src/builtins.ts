// Built-in back ends entry point (`skillsmith/builtins`): what `openMemory` uses when no embedder or distiller is
// given. Import them to configure one yourself or to wrap it in your own `Embedder` or `Distiller`.

/** The built-in offline embedder (GloVe word vectors plus lexical features). */
export { createGloveEmbedder, GloveEmbedder } from './embedders/glove/glove-embedder.js';
/** The built-in distiller that needs no model. */
export { HeuristicDistiller } from './distillers/heuristic-distiller.js';
