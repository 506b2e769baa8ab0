import type { SkillsmithConfig } from '../config/config.js';
import type { Distiller } from '../distillers/distiller.js';
import type { Embedder, EmbedderThresholds } from '../embedders/embedder.js';
import type { Store } from '../store/store.js';
import type { Logger } from '../support/log.js';

/** What every stage may use: the side effects (store, models, clock, log) come in here, never from imports. */
export interface PipelineDeps {
  store: Store;
  embedder: Embedder;
  distiller: Distiller;
  config: SkillsmithConfig;
  thresholds: EmbedderThresholds;
  now: () => Date;
  log: Logger;
}
