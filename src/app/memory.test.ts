import { describe, expect, it } from 'vitest';
import { DisabledError, openMemory } from '../memory.js';
import { tempDbPath } from '../../test/support/tau.js';

describe('the Memory facade: what the surfaces read through it', () => {
  it('lists, counts and finds stored sessions and facts; events go out after a change', async () => {
    const memory = await openMemory({ db: tempDbPath(), auditFile: null });
    try {
      expect(memory.disabled).toBe(false);
      expect(await memory.countSessions()).toBe(0);
      const first = await memory.lastEventId();
      const s = await memory.startSession({ goal: 'Refund order #W1001 for alice', id: 'sess-1' });
      await s.call({ tool: 'find_order', args: { id: 'W1001' }, result: 'ok' });
      await s.end('success');
      expect(await memory.countSessions()).toBe(1);
      expect((await memory.listSessions({ limit: 10 })).map((x) => x.id)).toEqual([memory.sessionKey('sess-1')]);
      expect((await memory.getSession(memory.sessionKey('sess-1')))?.calls).toHaveLength(1);
      expect(await memory.getSession('no-such-session')).toBeNull();

      const { id } = await memory.addFact('Refunds need the order id');
      expect((await memory.listFacts()).map((f) => f.id)).toEqual([id]);

      // A change that writes events: listeners hear of it, and lastEventId moves on.
      await memory.importSkills(new URL('../../test/fixtures/skills-import/', import.meta.url).pathname);
      const heard: string[] = [];
      memory.on('*', (e) => {
        heard.push(e.type);
      });
      const [imported] = await memory.listSkills({ corpus: 'external' });
      await memory.promote(imported.name);
      expect(heard).toContain('skill.promoted');
      expect(await memory.lastEventId()).toBeGreaterThan(first);
    } finally {
      await memory.close();
    }
  });

  it('a disabled memory stores nothing: reads answer empty, listing refuses with DisabledError', async () => {
    const memory = await openMemory({ config: { disabled: true } });
    try {
      expect(memory.disabled).toBe(true);
      expect(await memory.countSessions()).toBe(0);
      expect(await memory.lastEventId()).toBe(0);
      expect(await memory.getSession('x')).toBeNull();
      await expect(memory.listSessions()).rejects.toBeInstanceOf(DisabledError);
      await expect(memory.listFacts()).rejects.toBeInstanceOf(DisabledError);
      expect(await memory.recall('anything')).toEqual([]);
    } finally {
      await memory.close();
    }
  });
});
