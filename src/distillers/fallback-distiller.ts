import type { Draft } from '../domain/types.js';
import type { Logger } from '../support/log.js';
import type { DistillInput, Distiller, DistillerFallback } from './distiller.js';
import { LlmUnavailableError } from './llm-distiller.js';

/**
 * The opt-in fallback of `llm.fallback: "heuristic"`: when the model back end is unavailable (down, timing
 * out, failing, circuit open) the pass goes on with the heuristic distiller instead of being skipped. Only
 * unavailability switches: a malformed draft, a SKIP or a failed verification stays that cluster's verdict.
 * Every pass starts with the model again; skills record the distiller that actually wrote them, and the
 * pass report and the log say that, and why, the fallback was used.
 */
export class FallbackDistiller implements Distiller {
  private active: Distiller;
  private used: DistillerFallback | null = null;

  constructor(
    private readonly primary: Distiller,
    private readonly secondary: Distiller,
    private readonly log?: Logger,
  ) {
    this.active = primary;
  }

  /** The distiller drafting now: the model's id, or the fallback's after a switch. */
  get id(): string {
    return this.active.id;
  }

  get fellBack(): DistillerFallback | null {
    return this.used;
  }

  async preflight(): Promise<void> {
    this.active = this.primary;
    this.used = null;
    try {
      await this.primary.preflight?.();
    } catch (e) {
      this.switchOver(e);
    }
  }

  async distil(input: DistillInput): Promise<Draft | null> {
    if (this.active === this.primary) {
      try {
        return await this.primary.distil(input);
      } catch (e) {
        this.switchOver(e);
      }
    }
    return this.secondary.distil(input);
  }

  async close(): Promise<void> {
    await this.primary.close?.();
    await this.secondary.close?.();
  }

  private switchOver(e: unknown): void {
    if (!LlmUnavailableError.isInstance(e)) throw e;
    this.used = { from: this.primary.id, to: this.secondary.id, reason: e.problem };
    this.active = this.secondary;
    this.log?.warn('model distiller unavailable: this pass falls back to the heuristic distiller (llm.fallback)', {
      from: this.used.from,
      to: this.used.to,
      reason: e.problem,
    });
  }
}
