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

  /**
   * Sessions of the namespace were forgotten: as `skills`, and the audit file's earlier copies of records that named
   * them by id name their references, as the table does now.
   */
  async sessionsForgotten(namespace: string, sessions: readonly { id: string; ref: string }[]): Promise<void> {
    await this.skills(namespace);
    await this.outbox.forgotten(namespace, sessions);
  }

  /** Only events or audit records were written (an export). */
  async events(): Promise<void> {
    await this.outbox.flush();
  }
}
