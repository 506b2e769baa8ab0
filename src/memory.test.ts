import { describe, expect, it } from 'vitest';
import { openMemory } from './memory.js';
import { tempDbPath } from '../test/support/tau.js';

describe('recording sessions as they happen', () => {
  it('stores each call immediately, ends with an outcome, and learns from recorded sessions', async () => {
    const db = tempDbPath();
    const memory = await openMemory({ db });
    const goals = [
      'Refund order #W1001 for alice',
      'Please refund my order #W2002',
      'I want a refund for order #W3003',
      'Refund the order #W4004 I placed',
    ];
    for (const [i, goal] of goals.entries()) {
      const s = await memory.startSession({ goal, agentId: 'agent-1' });
      await s.call({
        tool: 'find_customer',
        args: { email: `user${i}@example.com` },
        result: `{"customer_id": "cust_${i}"}`,
      });
      await s.call({
        tool: 'get_order',
        args: { customer_id: `cust_${i}`, order_id: `#W${i}` },
        result: '{"status": "delivered"}',
      });
      await s.call({ tool: 'issue_refund', args: { order_id: `#W${i}` }, result: '{"ok": true}' });
      // Stored before the session ends: a crash now loses nothing recorded so far.
      expect((await memory.store!.getSession('default', s.id))!.calls).toHaveLength(3);
      await s.end('success', 1);
    }
    const report = await memory.synthesize();
    expect(report.created).toHaveLength(1);
    const [skill] = await memory.listSkills();
    expect(skill.toolSequence).toEqual(['find_customer', 'get_order', 'issue_refund']);
    expect(skill.body).toContain('`customer_id` from the result of `find_customer`');
    for (const s of await memory.listSkills()) expect(s.skillMd).not.toMatch(/user\d@example\.com/);

    const hits = await memory.recall('refund my order #W9999');
    expect(hits.map((h) => h.name)).toEqual([skill.name]);
    expect(memory.toolsFor(hits)).toEqual(['find_customer', 'get_order', 'issue_refund']);
    expect(memory.formatContext(hits)).toContain('1. Call `find_customer`');
    await memory.close();
  });

  it('rejects a call for a session that was never opened, and a session without a goal', async () => {
    const memory = await openMemory({ db: tempDbPath() });
    await expect(
      memory.store!.appendCall('default', 'nope', {
        position: 0,
        tool: 't',
        args: {},
        result: '',
        ok: true,
        error: null,
        durationMs: null,
        at: null,
      }),
    ).rejects.toThrow(/not open/);
    await expect(memory.startSession({ goal: '  ' })).rejects.toThrow(/goal/);
    const s = await memory.startSession({ goal: 'x y z' });
    await expect(s.end('success', 2)).rejects.toThrow(/reward/);
    await s.end('success', 1);
    await expect(memory.startSession({ goal: 'x y z', id: s.id })).rejects.toThrow(/already ended/);
  });

  it('rejects a configuration with a wrong key or value, naming it', async () => {
    await expect(openMemory({ db: tempDbPath(), config: { synthesis: { minSteps: 0 } } })).rejects.toThrow(
      /synthesis\.minSteps/,
    );
    await expect(openMemory({ db: tempDbPath(), config: { nope: 1 } as never })).rejects.toThrow(/nope|Unrecognized/);
  });
});

describe('one synthesis pass at a time', () => {
  it('refuses a second pass on the same namespace while one holds the lock, and runs once it is released', async () => {
    const db = tempDbPath();
    const a = await openMemory({ db });
    const b = await openMemory({ db });
    const release = await a.store!.tryLock('synthesis:default', 'someone-else', 60_000);
    expect(release).not.toBeNull();
    await expect(b.synthesize()).rejects.toThrow(/another synthesis pass is running on namespace default/);
    expect((await b.synthesize({ dryRun: true })).stats.dryRun).toBe(true);
    await release!();
    await expect(b.synthesize()).resolves.toMatchObject({ created: [] });
    // A holder that died loses the lock when it expires.
    expect(await a.store!.tryLock('synthesis:x', 'dead', 1)).not.toBeNull();
    await new Promise((r) => setTimeout(r, 5));
    expect(await b.store!.tryLock('synthesis:x', 'alive', 60_000)).not.toBeNull();
  });
});
