import { BackendUnavailableError } from '../../errors/backend-unavailable-error.js';
import type { Logger } from '../../support/log.js';
import { isConnectionError } from './connection-error.js';

/**
 * A write-behind queue: `push` returns at once and the items are written in order, in batches, off the
 * caller's path. While the database is unreachable the items wait (bounded; the oldest are dropped past
 * `limit`) and the queue retries with backoff. `flush` writes everything pushed so far or throws.
 *
 * Recall uses it for the record of what it served: recall must not wait on a round trip, and must keep
 * answering from its in-memory index while the database restarts.
 */
export class WriteBehindQueue<T> {
  private items: T[] = [];
  private chain: Promise<void> = Promise.resolve();
  private scheduled = false;
  private retry: NodeJS.Timeout | null = null;
  private failures = 0;
  private dropped = 0;
  private closed = false;

  constructor(
    private readonly write: (batch: T[]) => Promise<void>,
    private readonly log: Logger,
    private readonly opts: { batch?: number; limit?: number; maxBackoffMs?: number } = {},
  ) {}

  get pending(): number {
    return this.items.length;
  }

  push(item: T): void {
    if (this.closed)
      throw new BackendUnavailableError('the PostgreSQL store is closed: its write-behind queue takes no more writes');
    const limit = this.opts.limit ?? 10_000;
    if (this.items.length >= limit) {
      this.items.shift();
      if (this.dropped++ % 1000 === 0)
        this.log.warn('database unreachable for long: oldest queued writes dropped', { dropped: this.dropped, limit });
    }
    this.items.push(item);
    if (!this.scheduled && !this.retry) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.background();
      });
    }
  }

  /** Writes every item queued so far (in order, after any write in progress); throws when it cannot. */
  flush(): Promise<void> {
    if (this.items.length === 0) return this.chain;
    if (this.retry) {
      clearTimeout(this.retry);
      this.retry = null;
    }
    return this.drain().catch((e) => {
      this.failed(e);
      throw e;
    });
  }

  /** Flushes (best effort, bounded by timeoutMs) and refuses new items. Returns how many items were lost. */
  async close(timeoutMs = 5_000): Promise<number> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    if (this.items.length === 0) {
      await this.chain;
      return 0;
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([this.drain().catch(() => undefined), timeout]);
    clearTimeout(timer);
    const lost = this.items.length;
    if (lost) this.log.warn('closing with queued writes the database did not take', { lost });
    this.items = [];
    return lost;
  }

  private drain(): Promise<void> {
    const run = async () => {
      const size = this.opts.batch ?? 200;
      while (this.items.length) {
        const batch = this.items.slice(0, size);
        try {
          await this.write(batch);
        } catch (e) {
          if (isConnectionError(e)) throw e;
          // A batch the database rejects for what it holds would block the queue forever: drop it, say so.
          this.items.splice(0, batch.length);
          this.log.error('queued writes rejected by the database and dropped', {
            items: batch.length,
            error: String(e),
          });
          continue;
        }
        this.items.splice(0, batch.length);
      }
    };
    const p = this.chain.then(run);
    this.chain = p.catch(() => undefined);
    return p;
  }

  private background(): void {
    if (this.items.length === 0) return;
    this.drain().then(
      () => {
        if (this.failures) this.log.info('database reachable again: queued writes done', { after: this.failures });
        this.failures = 0;
      },
      (e) => this.failed(e),
    );
  }

  /** Schedules the next attempt, later each time the database is still away. */
  private failed(e: unknown): void {
    if (this.closed || this.retry) return;
    this.failures++;
    if (this.failures === 1)
      this.log.warn('database unreachable: writes queued until it is back', {
        pending: this.items.length,
        error: String(e),
      });
    const delay = Math.min(this.opts.maxBackoffMs ?? 5_000, 100 * 2 ** Math.min(this.failures, 10));
    this.retry = setTimeout(() => {
      this.retry = null;
      this.background();
    }, delay);
    this.retry.unref();
  }
}
