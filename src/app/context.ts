import type { SkillsmithConfig } from '../config/config.js';
import { protectId } from '../capture/privacy.js';
import type { Distiller } from '../distillers/distiller.js';
import type { Embedder, EmbedderThresholds } from '../embedders/embedder.js';
import type { Store } from '../store/store.js';
import type { Logger } from '../support/log.js';
import { DisabledError } from '../errors/index.js';

/** A back end the memory owns (a model file, a client session): closed with it. */
export interface Owned {
  close?(): Promise<void>;
}

/**
 * What every service of one memory shares: its store (null when disabled), configuration, embedder, clock,
 * logger and the back ends it must close. Built once by the composition root.
 */
export class AppContext {
  readonly namespace: string;
  private readonly owned: Owned[] = [];

  constructor(
    readonly store: Store | null,
    readonly config: SkillsmithConfig,
    readonly embedder: Embedder,
    readonly log: Logger,
    readonly now: () => Date,
    private distillerInstance: Distiller | null,
    owned: Owned[] = [],
  ) {
    this.namespace = config.namespace;
    this.owned.push(...owned);
  }

  /** The store, or DisabledError: a disabled memory stores nothing. */
  requireStore(): Store {
    if (!this.store)
      throw new DisabledError('memory is disabled (config.disabled or SKILLSMITH_DISABLED=1): nothing is stored');
    return this.store;
  }

  /** Whether anything is stored (false: config.disabled). */
  get storing(): boolean {
    return !!this.store && !this.config.disabled;
  }

  ns(namespace?: string): string {
    return namespace ?? this.namespace;
  }

  /**
   * The key a session id is stored under: unchanged, or a keyed hash when the id itself holds a secret or
   * personal data (see `protectId`). Every lookup by a caller-supplied id goes through it.
   */
  sessionKey(id: string): string {
    return protectId(this.config.capture.privacy, id, 'sid');
  }

  get thresholds(): EmbedderThresholds {
    const t = this.embedder.thresholds;
    return {
      cluster: this.config.thresholds.cluster ?? t.cluster,
      recall: this.config.thresholds.recall ?? t.recall,
      duplicate: this.config.thresholds.duplicate ?? t.duplicate,
    };
  }

  /**
   * The configured distiller, created on first use: recording and recall never load the distillation code
   * (or a model client), which keeps the CLI's cold start short.
   */
  async distiller(): Promise<Distiller> {
    if (!this.distillerInstance) {
      const { createDistiller } = await import('../distillers/create-distiller.js');
      this.distillerInstance = this.own(await createDistiller(this.config, { log: this.log }));
    }
    return this.distillerInstance;
  }

  /** The pipeline's dependencies for a pass or a compile. */
  async pipelineDeps() {
    return {
      store: this.requireStore(),
      embedder: this.embedder,
      distiller: await this.distiller(),
      config: this.config,
      thresholds: this.thresholds,
      now: this.now,
      log: this.log,
    };
  }

  own<T extends Owned>(backEnd: T): T {
    this.owned.push(backEnd);
    return backEnd;
  }

  /** Closes the store and every owned back end (a failure to close a back end is logged, not thrown). */
  async close(): Promise<void> {
    await this.store?.close();
    for (const backEnd of this.owned.splice(0))
      await backEnd.close?.().catch((e) => this.log.warn('closing a model back end failed', { error: String(e) }));
  }
}
