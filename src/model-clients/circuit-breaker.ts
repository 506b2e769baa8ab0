import { CircuitOpenError } from '../errors/circuit-open-error.js';

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit (default 3). */
  failureThreshold?: number;
  /** How long an open circuit refuses calls before one trial call is let through (default 60 s). */
  coolOffMs?: number;
  now?: () => number;
}

export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * Stops calling a back end after `failureThreshold` consecutive failures, until `coolOffMs` has passed;
 * then one trial call goes through (half-open): success closes the circuit, failure re-opens it.
 * A refused call throws CircuitOpenError, which says until when.
 */
export class CircuitBreaker {
  readonly failureThreshold: number;
  readonly coolOffMs: number;
  private readonly now: () => number;
  private failures = 0;
  private openedAt: number | null = null;
  private trialInFlight = false;
  private lastError: unknown;

  constructor(
    /** Human-readable name of the back end, used in the error (never holds credentials). */
    readonly backend: string,
    opts: CircuitBreakerOptions = {},
  ) {
    this.failureThreshold = Math.max(1, opts.failureThreshold ?? 3);
    this.coolOffMs = Math.max(0, opts.coolOffMs ?? 60_000);
    this.now = opts.now ?? Date.now;
  }

  get state(): CircuitState {
    if (this.openedAt === null) return 'closed';
    return this.now() - this.openedAt >= this.coolOffMs ? 'half-open' : 'open';
  }

  get consecutiveFailures(): number {
    return this.failures;
  }

  /** Throws CircuitOpenError when calls are refused; otherwise lets the call through. */
  before(): void {
    const state = this.state;
    if (state === 'closed') return;
    if (state === 'half-open' && !this.trialInFlight) {
      this.trialInFlight = true;
      return;
    }
    const retryAt = new Date((this.openedAt ?? this.now()) + this.coolOffMs).toISOString();
    throw new CircuitOpenError(this.backend, this.failures, retryAt, { cause: this.lastError });
  }

  success(): void {
    this.failures = 0;
    this.openedAt = null;
    this.trialInFlight = false;
    this.lastError = undefined;
  }

  failure(error?: unknown): void {
    this.failures++;
    this.lastError = error;
    this.trialInFlight = false;
    if (this.failures >= this.failureThreshold || this.openedAt !== null) this.openedAt = this.now();
  }

  /** Runs `fn` under the breaker. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    this.before();
    try {
      const out = await fn();
      this.success();
      return out;
    } catch (e) {
      this.failure(e);
      throw e;
    }
  }
}
