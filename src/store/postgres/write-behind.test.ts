import { describe, expect, it } from 'vitest';
import { createLogger } from '../../support/log.js';
import { WriteBehindQueue } from './write-behind.js';

const quiet = createLogger('silent');
const down = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('WriteBehindQueue', () => {
  it("push returns at once; items are written in order, off the caller's path", async () => {
    const written: number[] = [];
    const q = new WriteBehindQueue<number>(async (batch) => void written.push(...batch), quiet, { batch: 3 });
    for (let i = 0; i < 10; i++) q.push(i);
    expect(written).toEqual([]);
    await q.flush();
    expect(written).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(q.pending).toBe(0);
  });

  it('keeps items while the database is unreachable, flush says so, and they are written once it is back', async () => {
    let up = false;
    const written: string[] = [];
    const q = new WriteBehindQueue<string>(
      async (batch) => {
        if (!up) throw down();
        written.push(...batch);
      },
      quiet,
      { maxBackoffMs: 20 },
    );
    q.push('a');
    q.push('b');
    await expect(q.flush()).rejects.toThrow(/ECONNREFUSED/);
    expect(q.pending).toBe(2);
    up = true;
    // Retried in the background with backoff, without anyone flushing.
    await expect.poll(() => written, { timeout: 2_000, interval: 10 }).toEqual(['a', 'b']);
    expect(q.pending).toBe(0);
  });

  it('drops a batch the database rejects for what it holds, so the queue never blocks behind it', async () => {
    const written: number[] = [];
    const q = new WriteBehindQueue<number>(
      async (batch) => {
        if (batch.includes(2)) throw new Error('value too long for type character varying');
        written.push(...batch);
      },
      quiet,
      { batch: 1 },
    );
    for (const i of [1, 2, 3]) q.push(i);
    await q.flush();
    expect(written).toEqual([1, 3]);
  });

  it('is bounded: past the limit the oldest waiting items go; close reports what the database never took', async () => {
    const q = new WriteBehindQueue<number>(
      async () => {
        throw down();
      },
      quiet,
      { limit: 3, maxBackoffMs: 10_000 },
    );
    for (let i = 0; i < 5; i++) q.push(i);
    expect(q.pending).toBe(3);
    expect(await q.close(50)).toBe(3);
    expect(() => q.push(9)).toThrow(/closed/);
  });
});
