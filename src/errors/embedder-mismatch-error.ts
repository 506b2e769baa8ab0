import { SkillsmithError } from './skillsmith-error.js';

/**
 * Stored skills carry vectors of another embedder than the configured one. Vectors of two models are never
 * compared (SPEC "Embedder identity"): learning on would duplicate every skill it cannot recognise, so the
 * pass refuses until `skillsmith reembed` has re-embedded them (or the embedder is switched back).
 */
export class EmbedderMismatchError extends SkillsmithError {
  static override readonly code = 'EMBEDDER_MISMATCH';
  constructor(
    readonly namespace: string,
    readonly configured: string,
    /** The other embedder ids found, with how many skills carry each. */
    readonly found: Record<string, number>,
    readonly total: number,
  ) {
    const stale = Object.values(found).reduce((a, b) => a + b, 0);
    super(
      `${stale} of ${total} skills in namespace "${namespace}" were embedded with ${Object.keys(found).join(', ')}, not the configured ${configured}: ` +
        `run "skillsmith reembed" to re-embed them with ${configured} (or switch the embedder back). The synthesis pass was not run.`,
    );
  }
}
