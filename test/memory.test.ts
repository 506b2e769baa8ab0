import { describe, expect, it, onTestFinished } from 'vitest';
import { InputError, NotFoundError, SessionStateError } from '../src/errors/index.js';
import { DisabledError } from '../src/errors/disabled-error.js';
import { openMemory } from '../src/app/open-memory.js';
import { SAMPLE, tempDbPath } from './support/tau.js';
import { createLogger } from '../src/support/log.js';

describe('the Memory facade: what the surfaces read through it', () => {
  it('lists, counts and finds stored sessions and facts; events go out after a change', async () => {
    const memory = await openMemory({ db: tempDbPath(), auditFile: null });
    try {
      expect(memory.disabled).toBe(false);
      expect(await memory.sessions.count()).toBe(0);
      const first = await memory.events.lastId();
      const s = await memory.startSession({ goal: 'Refund order #W1001 for alice', id: 'sess-1' });
      await s.call({ tool: 'find_order', args: { id: 'W1001' }, result: 'ok' });
      await s.end('success');
      expect(await memory.sessions.count()).toBe(1);
      expect((await memory.sessions.list({ limit: 10 })).map((x) => x.id)).toEqual([memory.sessions.key('sess-1')]);
      expect((await memory.sessions.get(memory.sessions.key('sess-1')))?.calls).toHaveLength(1);
      expect(await memory.sessions.get('no-such-session')).toBeNull();

      const { id } = await memory.facts.add('Refunds need the order id');
      expect((await memory.facts.list()).map((f) => f.id)).toEqual([id]);

      // A change that writes events: listeners hear of it, and lastEventId moves on.
      await memory.skills.import(new URL('./fixtures/skills-import/', import.meta.url).pathname);
      const heard: string[] = [];
      memory.on('*', (e) => {
        heard.push(e.type);
      });
      const [imported] = await memory.skills.list({ corpus: 'external' });
      await memory.skills.promote(imported.name);
      expect(heard).toContain('skill.promoted');
      expect(await memory.events.lastId()).toBeGreaterThan(first);
    } finally {
      await memory.close();
    }
  });

  it('a disabled memory stores nothing: reads answer empty, recording is a no-op, listing refuses with DisabledError', async () => {
    const memory = await openMemory({ config: { disabled: true } });
    try {
      expect(memory.disabled).toBe(true);
      expect(await memory.sessions.count()).toBe(0);
      expect(await memory.events.lastId()).toBe(0);
      expect(await memory.sessions.get('x')).toBeNull();
      await expect(memory.sessions.list()).rejects.toBeInstanceOf(DisabledError);
      await expect(memory.facts.list()).rejects.toBeInstanceOf(DisabledError);
      expect(await memory.recall('anything')).toEqual([]);
      // An agent that records as it works runs on, storing nothing: turning memory off breaks no run.
      const s = await memory.startSession({ goal: 'Refund order #W1001', id: 'off-1' });
      await s.call({ tool: 'get_order_details', args: { order_id: '#W1001' }, result: '{}' });
      expect(await s.recall()).toEqual([]);
      await s.end('success');
      await expect(s.end('success')).rejects.toThrow(/already ended/);
      expect(await memory.reportOutcome('off-1', 'success')).toEqual({ credited: [] });
      expect(await memory.sessions.count()).toBe(0);
    } finally {
      await memory.close();
    }
  });
});

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
      expect((await memory.parts.store!.getSession('default', s.id))!.calls).toHaveLength(3);
      await s.end('success', 1);
    }
    const report = await memory.synthesize();
    expect(report.created).toHaveLength(1);
    const [skill] = await memory.skills.list();
    expect(skill.toolSequence).toEqual(['find_customer', 'get_order', 'issue_refund']);
    expect(skill.body).toContain('`customer_id` from the result of `find_customer`');
    for (const s of await memory.skills.list()) expect(s.skillMd).not.toMatch(/user\d@example\.com/);

    const hits = await memory.recall('refund my order #W9999');
    expect(hits.map((h) => h.name)).toEqual([skill.name]);
    expect(memory.toolsFor(hits)).toEqual(['find_customer', 'get_order', 'issue_refund']);
    expect(memory.formatContext(hits)).toContain('1. Call `find_customer`');
    await memory.close();
  });

  it('keeps every call of a session two processes record at once (a restarted agent beside the old one, parallel hooks)', async () => {
    const db = tempDbPath();
    // Two memories on one file are two connections, as two processes are: each counts the session's calls itself.
    const first = await openMemory({ db, logLevel: 'silent' });
    const second = await openMemory({ db, logLevel: 'silent' });
    const a = await first.startSession({ goal: 'Fix the failing build', id: 'shared-run' });
    const b = await second.startSession({ goal: 'Fix the failing build', id: 'shared-run' });
    await a.call({ tool: 'read_file', args: { path: 'src/a.ts' }, result: 'x' });
    // b thinks position 0 is free: the call goes after the last one instead of being dropped.
    await b.call({ tool: 'run_tests', args: {}, result: '1 failed' });
    await a.call({ tool: 'edit_file', args: { path: 'src/a.ts' }, result: 'ok' });
    await b.call({ tool: 'run_tests', args: {}, result: 'all passed' });
    const stored = await first.sessions.get('shared-run');
    expect(stored?.calls.map((c) => [c.position, c.tool, c.result])).toEqual([
      [0, 'read_file', 'x'],
      [1, 'run_tests', '1 failed'],
      [2, 'edit_file', 'ok'],
      [3, 'run_tests', 'all passed'],
    ]);
    await first.close();
    await second.close();
  });

  it('rejects a call for a session that was never opened, and a session without a goal', async () => {
    const memory = await openMemory({ db: tempDbPath() });
    await expect(
      memory.parts.store!.appendCall('default', 'nope', {
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

  it('an end refused for a bad outcome or reward leaves the session open: the corrected end records it', async () => {
    const memory = await openMemory({ db: tempDbPath(), auditFile: null });
    onTestFinished(() => memory.close());
    const s = await memory.startSession({ goal: 'Refund order #W1001, the item arrived broken', id: 'end-retry' });
    await s.call({ tool: 'get_order_details', args: { order_id: '#W1001' }, result: '{}', ok: true });
    const wrong = s.end('done' as never);
    await expect(wrong).rejects.toThrow(InputError);
    await expect(wrong).rejects.toThrow('end: outcome must be one of success, failure, unknown, got "done"');
    await expect(s.end('success', '1' as never)).rejects.toThrow(/reward must be a number in \[0,1\], got "1"/);
    expect((await memory.sessions.get('end-retry'))?.endedAt).toBeNull();
    await s.call({ tool: 'refund_order', args: { order_id: '#W1001' }, result: '{}', ok: true });
    await s.end('success', 1);
    const stored = await memory.sessions.get('end-retry');
    expect([stored?.outcome, stored?.reward, stored?.calls.length]).toEqual(['success', 1, 2]);
    // Reported later: the same report is a no-op, another reward is a change and refused, a bad outcome is named.
    expect(await memory.reportOutcome('end-retry', 'success', { reward: 1 })).toEqual({ credited: [] });
    await expect(memory.reportOutcome('end-retry', 'success', { reward: 0.2 })).rejects.toThrow(
      'session end-retry already ended as success with reward 1; a reported outcome is not changed',
    );
    await expect(memory.reportOutcome('end-retry', 'great' as never)).rejects.toThrow(InputError);
  });

  it('names a bad db path and bad recall options, as the CLI and REST name theirs', async () => {
    // An empty path was better-sqlite3's throwaway database: a memory that vanished at close.
    await expect(openMemory({ db: '' })).rejects.toThrow(InputError);
    await expect(openMemory({ db: '  ' })).rejects.toThrow(/db is an empty string/);
    const memory = await openMemory({ db: tempDbPath(), auditFile: null });
    onTestFinished(() => memory.close());
    await expect(memory.recall('refund my order', { topK: -1 })).rejects.toThrow(
      'recall: topK must be a whole number of 1 or more, not -1',
    );
    await expect(memory.recall('refund my order', { topK: 1.5 })).rejects.toThrow(InputError);
    await expect(memory.recall('refund my order', { tools: 'get_order' as never })).rejects.toThrow(
      'recall: tools must be an array of tool names (non-empty strings)',
    );
    await expect(memory.nearest('refund my order', { tools: [''] })).rejects.toThrow(/tools must be an array/);
    expect(await memory.recall('refund my order', { topK: 1, tools: ['get_order'] })).toEqual([]);
  });

  it("a live session ended with a judged outcome gives its skills the judge's trial, which the reported outcome replaces", async () => {
    for (const judgedTrials of [true, false]) {
      const memory = await openMemory({ db: tempDbPath(), auditFile: null, config: { lifecycle: { judgedTrials } } });
      onTestFinished(() => memory.close());
      const refund = async (goal: string, i: number, outcome: 'success' | null) => {
        const s = await memory.startSession({ goal, id: `refund-${i}` });
        if (outcome === null) await s.recall();
        await s.call({ tool: 'find_customer', args: { email: `u${i}@example.com` }, result: `{"id": "c${i}"}` });
        await s.call({ tool: 'get_order', args: { customer_id: `c${i}` }, result: '{"status": "delivered"}' });
        await s.call({ tool: 'issue_refund', args: { order_id: `#W${i}` }, result: '{"ok": true}' });
        // The recorder's judge decided it (the agent answered after its last call worked).
        await s.end(outcome ?? 'success', null, outcome ? {} : { source: 'judged' });
      };
      for (const [i, goal] of ['Refund order #W1 for alice', 'Please refund my order #W2', 'Refund #W3'].entries())
        await refund(goal, i, 'success');
      await memory.synthesize();
      const [learned] = await memory.skills.list();
      await refund('I want a refund for order #W9', 9, null);
      const ex = (await memory.skills.explain(learned.name))!;
      if (!judgedTrials) {
        expect(ex.trials).toEqual([]);
        continue;
      }
      expect(ex.trials.map((t) => [t.signal, t.sessionId, t.actor])).toEqual([['trial.pass', 'refund-9', 'judge']]);
      // The person says it failed: the judged pass gives way to the reported failure.
      expect(await memory.reportOutcome('refund-9', 'failure')).toEqual({ credited: [learned.name] });
      const after = (await memory.skills.explain(learned.name))!;
      expect(after.trials.map((t) => [t.signal, t.actor])).toEqual([['trial.fail', 'outcome']]);
      expect(after.skill).toMatchObject({ trialsAttempted: 1, trialsPassed: 0 });
      expect(after.replaced.map((t) => [t.signal, t.actor, t.replacedBy])).toEqual([
        ['trial.pass', 'judge', after.trials[0].id],
      ]);
      // A session that made every step and then went on with another tool: judged a success, a pass of the skill.
      // Reported a failure, its outcome says nothing of the skill (trialOf): the judged pass is taken back.
      const s = await memory.startSession({ goal: 'Refund order #W7 please', id: 'refund-7' });
      await s.recall();
      await s.call({ tool: 'find_customer', args: { email: 'u7@example.com' }, result: '{"id": "c7"}' });
      await s.call({ tool: 'get_order', args: { customer_id: 'c7' }, result: '{"status": "delivered"}' });
      await s.call({ tool: 'issue_refund', args: { order_id: '#W7' }, result: '{"ok": true}' });
      await s.call({ tool: 'send_email', args: { to: 'u7@example.com' }, result: '{"sent": true}' });
      await s.end('success', null, { source: 'judged' });
      expect((await memory.skills.explain(learned.name))!.skill).toMatchObject({ trialsAttempted: 2, trialsPassed: 1 });
      expect(await memory.reportOutcome('refund-7', 'failure')).toEqual({ credited: [] });
      const taken = (await memory.skills.explain(learned.name))!;
      expect(taken.skill).toMatchObject({ trialsAttempted: 1, trialsPassed: 0, eta: after.skill.eta });
      expect(taken.replaced.map((t) => [t.sessionId, t.replacedBy === t.id])).toEqual([
        ['refund-9', false],
        ['refund-7', true],
      ]);
    }
  });

  it('a recall for a session needs it recorded and running: an id no session holds yet would credit a later one', async () => {
    const memory = await openMemory({ db: tempDbPath(), auditFile: null });
    onTestFinished(() => memory.close());
    const goal = 'Refund order #W1001, the item arrived broken';
    await expect(memory.recall(goal, { sessionId: 'not-yet' })).rejects.toThrow(NotFoundError);
    const s = await memory.startSession({ goal, id: 'running' });
    expect(await memory.recall(goal, { sessionId: 'running' })).toEqual([]);
    await s.end('success');
    await expect(memory.recall(goal, { sessionId: 'running' })).rejects.toThrow(SessionStateError);
    // A look that leaves no trace names no trial, and needs no session.
    expect(await memory.recall(goal, { sessionId: 'not-yet', record: false })).toEqual([]);
  });

  it('re-opening a live session continues it with its goal; another goal under its id is refused, and what it holds stays', async () => {
    const memory = await openMemory({ db: tempDbPath(), auditFile: null });
    onTestFinished(() => memory.close());
    const goal = 'Refund order #W1001, the item arrived broken';
    const first = await memory.startSession({ goal, id: 'agent-run-7' });
    await first.call({ tool: 'get_order_details', args: { order_id: '#W1001' }, result: '{}', ok: true });
    // A restarted agent opens it again: the next call goes after the one recorded.
    const again = await memory.startSession({ goal, id: 'agent-run-7' });
    await again.call({ tool: 'refund_order', args: { order_id: '#W1001' }, result: '{}', ok: true });
    const other = memory.startSession({ goal: 'Book a table for two on Friday', id: 'agent-run-7' });
    await expect(other).rejects.toThrow(SessionStateError);
    // The goal it holds is not quoted: the caller reusing the id may be another client.
    await expect(other).rejects.toThrow(
      "session agent-run-7 is already recording another goal (not repeated here: it may be another client's); continue it with the goal it was started with, or start a new session (another id) for this one",
    );
    await expect(other).rejects.not.toThrow(/W1001|Refund/);
    const stored = await memory.sessions.get('agent-run-7');
    expect(stored?.goal).toBe(goal);
    expect(stored?.calls.map((c) => [c.position, c.tool])).toEqual([
      [0, 'get_order_details'],
      [1, 'refund_order'],
    ]);
  });

  it('rejects a configuration with a wrong key or value, naming it', async () => {
    await expect(openMemory({ db: tempDbPath(), config: { synthesis: { minSteps: 0 } } })).rejects.toThrow(
      /synthesis\.minSteps/,
    );
    await expect(openMemory({ db: tempDbPath(), config: { nope: 1 } as never })).rejects.toThrow(/nope|Unrecognized/);
  });
});

describe('ingesting whole sessions', () => {
  it('names each session that is not one, with its reason, and stores the rest of the batch', async () => {
    const memory = await openMemory({ db: tempDbPath(), auditFile: null });
    onTestFinished(() => memory.close());
    const session = (id: string, over: Record<string, unknown> = {}) =>
      ({
        id,
        namespace: 'default',
        goal: 'Refund order #W1001',
        outcome: 'success',
        reward: null,
        agentId: null,
        source: 'library',
        startedAt: '2026-12-01T10:00:00.000Z',
        endedAt: null,
        labels: null,
        calls: [
          {
            position: 0,
            tool: 'get_order_details',
            args: {},
            result: '{}',
            ok: true,
            error: null,
            durationMs: null,
            at: null,
          },
        ],
        ...over,
      }) as never;
    const r = await memory.ingest([
      session('good-1'),
      session('bad-outcome', { outcome: 'done' }),
      session('no-start', { startedAt: undefined }),
      session('bad-tool', { calls: [{ position: 0, tool: 'get order', args: {}, result: '', ok: true }] }),
      session('good-2'),
      // Calls without positions are in their places; a position taken twice is named (it was a raw SQLite error).
      session('no-positions', {
        calls: [
          { tool: 'get_order', args: { id: 1 } },
          { tool: 'refund', args: { id: 1 }, result: 'done' },
        ],
      }),
      session('same-position', {
        calls: [
          { position: 0, tool: 'get_order', args: {}, result: '', ok: true },
          { position: 0, tool: 'refund', args: {}, result: '', ok: true },
        ],
      }),
    ]);
    expect(r.inserted).toBe(3);
    expect(r.problems?.map((p) => [p.index, p.reason.split(':')[0]])).toEqual([
      [1, 'outcome must be one of success, failure, unknown, got "done"'],
      [2, 'startedAt must be a time (an ISO 8601 string)'],
      [3, 'calls[0].tool'],
      [6, 'calls[1].position'],
    ]);
    expect(await memory.sessions.count()).toBe(3);
    const placed = await memory.sessions.get('no-positions');
    expect(placed?.calls.map((c) => [c.position, c.tool, c.ok, c.result])).toEqual([
      [0, 'get_order', true, ''],
      [1, 'refund', true, 'done'],
    ]);
  });
});

describe('closing a memory', () => {
  it('waits for a pass it was asked for, which ends and lets go of its lock; a second close is a no-op', async () => {
    const db = tempDbPath();
    const logs: string[] = [];
    const logger = createLogger('warn', undefined, (line) => logs.push(line));
    const memory = await openMemory({ db, auditFile: null, logger });
    await memory.ingestFile(SAMPLE);
    const pass = memory.synthesize();
    await Promise.all([memory.close(), memory.close()]);
    expect((await pass).created.length).toBeGreaterThan(0);
    await memory.close();
    expect(logs).toEqual([]);
    const again = await openMemory({ db, auditFile: null });
    onTestFinished(() => again.close());
    expect((await again.synthesize()).stats.newSessions).toBe(0);
  });
});

describe('one synthesis pass at a time', () => {
  it('refuses a second pass on the same namespace while one holds the lock, and runs once it is released', async () => {
    const db = tempDbPath();
    const a = await openMemory({ db });
    const b = await openMemory({ db });
    const release = await a.parts.store!.tryLock('synthesis:default', 'someone-else', 60_000);
    expect(release).not.toBeNull();
    await expect(b.synthesize()).rejects.toThrow(/another synthesis pass is running on namespace default/);
    expect((await b.synthesize({ dryRun: true })).stats.dryRun).toBe(true);
    await release!();
    await expect(b.synthesize()).resolves.toMatchObject({ created: [] });
    // A holder that died loses the lock when it expires.
    expect(await a.parts.store!.tryLock('synthesis:x', 'dead', 1)).not.toBeNull();
    await new Promise((r) => setTimeout(r, 5));
    expect(await b.parts.store!.tryLock('synthesis:x', 'alive', 60_000)).not.toBeNull();
  });
});
