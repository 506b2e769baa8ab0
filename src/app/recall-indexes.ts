import { RecallIndex } from '../pipeline/recall.js';
import type { AppContext } from './context.js';

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
    if (!idx)
      this.byNamespace.set(
        ns,
        (idx = new RecallIndex(this.ctx.requireStore(), this.ctx.embedder, ns, this.ctx.config, this.log)),
      );
    return idx;
  }

  /** Writes each index whose file is behind the changes it applied. */
  persist(): void {
    for (const idx of this.byNamespace.values()) idx.persist();
  }
}
