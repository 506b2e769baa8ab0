import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { LookAlike } from '../pipeline/stages/look-alike.js';
import type { SynthesisReport } from '../pipeline/synthesize.js';
import type { Changes } from './changes.js';
import type { AppContext } from './context.js';
import type { RetentionResult } from './types.js';
import { PassLockedError } from '../errors/index.js';
import type { HeldLock } from '../store/store.js';

/** Look-alike groups `lookAlike` lists unless told otherwise. */
const LOOK_ALIKE_LIST = 20;

export type SynthesisProgress = (phase: 'cluster' | 'distil', done: number, total: number) => void;

/**
 * The pass lock: one synthesis pass (or one forget, which could race a pass writing the session back into a
 * skill's lineage) at a time per namespace, across processes and hosts.
 */
export class PassLock {
  constructor(private readonly ctx: AppContext) {}

  /** The held lock (call it to release it), or null when another holder has the namespace. */
  async tryAcquire(namespace: string, purpose: 'pass' | 'forget' | 'rename' | 'edit'): Promise<HeldLock | null> {
    const holder =
      purpose === 'pass'
        ? `${hostname()}:${process.pid}:${randomUUID()}`
        : `${hostname()}:${process.pid}:${purpose}:${randomUUID()}`;
    return this.ctx.requireStore().tryLock(`synthesis:${namespace}`, holder, purpose === 'pass' ? 10 * 60_000 : 60_000);
  }

  /**
   * The held lock for a person's change (a rename, a forget), waiting up to `waitMs` while another holds the
   * namespace: another change takes milliseconds, so two renames at once both succeed; a pass takes longer, and
   * then null. It lives a minute unless renewed: a forget of many sessions renews it once a batch.
   */
  async acquireForChange(
    namespace: string,
    purpose: 'forget' | 'rename' | 'edit',
    waitMs = CHANGE_WAIT_MS,
  ): Promise<HeldLock | null> {
    const until = Date.now() + waitMs;
    for (;;) {
      const release = await this.tryAcquire(namespace, purpose);
      if (release || Date.now() >= until) return release;
      await new Promise((resolve) => setTimeout(resolve, CHANGE_POLL_MS));
    }
  }
}

/** How long a person's change waits for the namespace, and how often it asks again. */
const CHANGE_WAIT_MS = 5_000;
const CHANGE_POLL_MS = 50;

/**
 * Synthesis passes: the explicit one and the automatic ones (every `synthesis.auto.intervalMs`, after
 * `afterSessions` new sessions, on first use), run in the background one at a time per memory.
 */
export class Synthesis {
  private background: Promise<void> | null = null;
  private rerun = false;
  private sessionsSinceAuto = 0;
  private firstUse = true;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly lock: PassLock,
    private readonly changes: Changes,
  ) {
    const auto = ctx.config.synthesis.auto;
    if (ctx.storing && auto.intervalMs > 0) {
      this.timer = setInterval(() => this.schedule('interval'), auto.intervalMs);
      this.timer.unref();
    }
  }

  /** A pass asked for and still running: close waits for it, so it ends with its lock released. */
  synthesize(
    opts: { dryRun?: boolean; namespace?: string; onProgress?: SynthesisProgress } = {},
  ): Promise<SynthesisReport> {
    const pass = this.runPass(opts);
    const settled = pass.then(
      () => undefined,
      () => undefined,
    );
    this.asked.add(settled);
    void settled.then(() => this.asked.delete(settled));
    return pass;
  }

  private readonly asked = new Set<Promise<void>>();

  private async runPass(
    opts: { dryRun?: boolean; namespace?: string; onProgress?: SynthesisProgress } = {},
  ): Promise<SynthesisReport> {
    const { ctx } = this;
    if (!ctx.storing) {
      ctx.log.child('pass').info('memory disabled: synthesis skipped');
      return {
        created: [],
        updated: [],
        reinforced: [],
        superseded: [],
        skipped: [],
        stats: { newSessions: 0, clusters: 0, dirtyClusters: 0, distilled: 0, dryRun: !!opts.dryRun, ms: 0 },
      };
    }
    const ns = ctx.ns(opts.namespace);
    // A dry run writes nothing and needs no lock.
    const release = opts.dryRun ? null : await this.lock.tryAcquire(ns, 'pass');
    if (!opts.dryRun && !release) {
      throw new PassLockedError(
        `another synthesis pass is running on namespace ${ns}; this one was not started (try again when it is done)`,
      );
    }
    let report: SynthesisReport;
    try {
      const { synthesize } = await import('../pipeline/synthesize.js');
      report = await synthesize(await ctx.pipelineDeps(), {
        namespace: ns,
        dryRun: opts.dryRun,
        onProgress: opts.onProgress,
      });
    } finally {
      await release?.();
    }
    await this.changes.skills(ns);
    const days = ctx.config.capture.retentionDays;
    if (!opts.dryRun && days !== undefined && this.retain) {
      // After the pass, never during it: a session it learned from was read before it goes.
      const before = new Date(ctx.now().getTime() - days * 86_400_000);
      try {
        const r = await this.retain(ns, before);
        if (r.forgotten.length || r.undated.length)
          report.retention = { before: r.before, sessions: r.forgotten.length, undated: r.undated.length };
      } catch (e) {
        // The pass did its work; the sessions are forgotten by the next one.
        ctx.log.child('retention').warn('old sessions not forgotten this time', { error: String(e) });
      }
    }
    return report;
  }

  private retain: ((namespace: string, before: Date) => Promise<RetentionResult>) | null = null;

  /** How a pass forgets sessions older than `capture.retentionDays` (the capture service's forgetBefore). */
  retainWith(fn: (namespace: string, before: Date) => Promise<RetentionResult>): void {
    this.retain = fn;
  }

  /** New sessions were stored (or ended): a pass starts once `synthesis.auto.afterSessions` accumulated. */
  noteNewSessions(n: number): void {
    const after = this.ctx.config.synthesis.auto.afterSessions;
    if (n <= 0 || after <= 0) return;
    this.sessionsSinceAuto += n;
    if (this.sessionsSinceAuto >= after) this.schedule(`${this.sessionsSinceAuto} new sessions`);
  }

  /** The first recording or recall of this memory (`synthesis.auto.onFirstUse`). */
  noteFirstUse(): void {
    if (!this.firstUse) return;
    this.firstUse = false;
    if (this.ctx.config.synthesis.auto.onFirstUse) this.schedule('first use');
  }

  /** The clusters the passes formed for this memory's embedder, each with its member sessions' stored ids. */
  async clusters(namespace?: string): Promise<{ id: string; members: string[] }[]> {
    const { ctx } = this;
    if (!ctx.store) return [];
    const ns = ctx.ns(namespace);
    const clusters: { id: string; members: string[] }[] = [];
    for (const c of await ctx.store.loadClusters(ns, ctx.embedder.id))
      clusters.push({ id: c.id, members: await ctx.store.clusterMembers(ns, c.id) });
    return clusters;
  }

  /**
   * Sessions that ran the same steps and wait, each in a cluster too small to learn from, because their requests
   * were worded too far apart to group: up to `max` groups, largest first, as the last pass left the clusters.
   */
  async lookAlike(namespace?: string, max = LOOK_ALIKE_LIST): Promise<LookAlike[]> {
    const { ctx } = this;
    if (!ctx.store) return [];
    const { lookAlikesNow } = await import('../pipeline/stages/look-alike.js');
    const { store, embedder, config } = ctx;
    return lookAlikesNow({ store, embedder, config }, ctx.ns(namespace), max);
  }

  /** Resolves when no background pass is running (tests, graceful shutdown). */
  async idle(): Promise<void> {
    while (this.background) await this.background;
  }

  /** Stops the automatic passes and waits for the passes running, automatic or asked for. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.idle();
    await Promise.all(this.asked);
  }

  /** Runs a pass in the background (never awaited by recording or recall); one at a time per memory. */
  private schedule(reason: string): void {
    if (this.closed || !this.ctx.storing) return;
    if (this.background) {
      this.rerun = true;
      return;
    }
    this.sessionsSinceAuto = 0;
    const log = this.ctx.log.child('pass');
    this.background = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.synthesize())
      .then(
        (r) => log.info('background pass done', { reason, created: r.created.length, ms: r.stats.ms }),
        (e) => log.error('background pass failed', { reason, error: String(e) }),
      )
      .finally(() => {
        this.background = null;
        if (this.rerun) {
          this.rerun = false;
          this.schedule('rerun');
        }
      });
  }
}
