import type pg from 'pg';
import type { Logger } from '../../support/log.js';

/**
 * Keeps a local change token for the in-memory recall index without a round trip per recall: a dedicated
 * connection LISTENs for commits that changed skills, a slow poll of the change counter covers setups where
 * notifications cannot arrive (e.g. a transaction-mode pooler), and every reconnection counts as a change
 * (commits may have happened while the connection was away). While the database is down the token stays
 * as it is, so recall keeps serving the index it has.
 */
export class ChangeFeed {
  private generation = 0;
  private lastSeen = -1;
  private client: pg.Client | null = null;
  private stopped = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private polling = false;

  constructor(
    private readonly newClient: () => pg.Client,
    private readonly readCounter: () => Promise<number>,
    private readonly log: Logger,
    /** `channel`: the one every skill-changing transaction of this memory notifies on commit (scope.ts). */
    private readonly opts: { pollMs: number; channel: string },
  ) {}

  token(): string {
    return String(this.generation);
  }

  get listening(): boolean {
    return this.client !== null;
  }

  /** A commit left the counter at `value` (a notification, a poll, or this process's own write). */
  observe(value: number): void {
    if (value > this.lastSeen) {
      this.lastSeen = value;
      this.generation++;
    }
  }

  async start(): Promise<void> {
    await this.listen(true);
    if (this.opts.pollMs > 0) {
      this.pollTimer = setInterval(() => void this.poll(), this.opts.pollMs);
      this.pollTimer.unref();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.pollTimer) clearInterval(this.pollTimer);
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }

  private async listen(first: boolean): Promise<void> {
    const client = this.newClient();
    client.on('notification', (m) => {
      if (m.channel === this.opts.channel) this.observe(Number(m.payload));
    });
    client.on('error', (e) => {
      this.log.warn('change listener lost its connection; reconnecting', { error: String(e) });
      this.lost(client);
    });
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.opts.channel}`);
      const { rows } = await client.query('SELECT value FROM change_counter WHERE id = 1');
      const value = Number(rows[0]?.value ?? 0);
      if (this.stopped) {
        await client.end();
        return;
      }
      this.client = client;
      if (first) this.lastSeen = value;
      else {
        // Whatever committed while we were away was not announced to us: count the reconnection as a change.
        this.lastSeen = value;
        this.generation++;
      }
    } catch (e) {
      await client.end().catch(() => undefined);
      throw e;
    }
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => undefined);
    this.reconnect(0);
  }

  private reconnect(attempt: number): void {
    if (this.stopped || this.reconnectTimer) return;
    const delay = Math.min(2_000, 100 * 2 ** attempt);
    this.reconnectTimer = setTimeout(async () => {
      this.reconnectTimer = null;
      if (this.stopped) return;
      try {
        await this.listen(false);
        this.log.info('change listener reconnected');
      } catch {
        this.reconnect(attempt + 1);
      }
    }, delay);
    this.reconnectTimer.unref();
  }

  private async poll(): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    try {
      this.observe(await this.readCounter());
    } catch {
      // The database is away: the listener's reconnection will count as a change when it is back.
    } finally {
      this.polling = false;
    }
  }
}
