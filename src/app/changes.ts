import { RecallIndex } from '../pipeline/recall.js';
import type { AppContext } from './context.js';
import type { Outbox } from './outbox.js';

/**
 * The recall indexes of one memory, one per namespace, built on first recall and kept up to date from the
 * store's change log.
 */
export class RecallIndexes {
  private readonly byNamespace = new Map<string, RecallIndex>();
  private readonly log;

  constructor(private readonly ctx: AppContext) {
    this.log = ctx.log.child('recall');
  }

  of(namespace?: string): RecallIndex {
    const ns = this.ctx.ns(namespace);
    let idx = this.byNamespace.get(ns);
    if (!idx) this.byNamespace.set(ns, (idx = new RecallIndex(this.ctx.requireStore(), this.ctx.embedder, ns, this.ctx.config, this.log)));
    return idx;
  }

  /** Writes each index whose file is behind the changes it applied. */
  persist(): void {
    for (const idx of this.byNamespace.values()) idx.persist();
  }
}

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
