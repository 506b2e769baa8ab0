import type { Outbox } from './outbox.js';
import type { RecallIndexes } from './recall-indexes.js';

/**
 * What a service reports after a write committed; the one place that turns a write into its consequences
 * (the recall cache of the namespace goes stale, new events and audit records go out).
 */
export class Changes {
  constructor(
    private readonly indexes: RecallIndexes,
    private readonly outbox: Outbox,
  ) {}

  /** Skills of the namespace changed (written, forgotten, enabled, credited). */
  async skills(namespace?: string): Promise<void> {
    this.indexes.of(namespace).invalidate();
    await this.outbox.flush();
  }

  /** Only events or audit records were written (an export). */
  async events(): Promise<void> {
    await this.outbox.flush();
  }
}
