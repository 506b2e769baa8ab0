import { SkillsmithError } from './skillsmith-error.js';

/** An embedder whose dimension is learned from its first answer was used before `await embedder.ready()`. */
export class EmbedderNotReadyError extends SkillsmithError {
  static override readonly code = 'EMBEDDER_NOT_READY';
  constructor(readonly embedder: string) {
    super(
      `${embedder}: the dimension is not known yet; call "await embedder.ready()" (createEmbedder does) before using it`,
    );
  }
}
