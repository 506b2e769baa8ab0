// The behaviour every Store back end must have, written once and run against each (SQLite, PostgreSQL).
// Only the Store interface is used here, so a back end cannot pass by exposing its tables.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Session, Skill, ToolCall } from '../domain/types.js';
import { stillOpen } from '../domain/open-session.js';
import { stateKey } from './state-key.js';
import { FORGOTTEN_PARENT, type ClusterRecord, type FeedbackRecord, type Store } from './store.js';

export interface StoreFixture {
  store: Store;
  cleanup(): Promise<void>;
  /** A second, independent connection to the same memory (another process, as far as the store can tell). */
  peer?(): Promise<Store>;
}

export function storeContract(name: string, factory: () => Promise<StoreFixture>) {
  describe(`Store contract: ${name}`, () => {
    let fx: StoreFixture;
    let store: Store;
    const peers: Store[] = [];

    beforeEach(async () => {
      fx = await factory();
      store = fx.store;
    });

    afterEach(async () => {
      for (const p of peers.splice(0)) await p.close();
      await fx.cleanup();
    });

    async function peer(): Promise<Store> {
      if (!fx.peer) throw new Error(`the ${name} fixture opens no second connection: give it peer()`);
      const p = await fx.peer();
      peers.push(p);
      return p;
    }

    /** Everything the store holds about skills, through the interface: equal snapshots mean nothing was written. */
    async function skillSnapshot(namespace = 'default', ids: string[] = []) {
      const skills = await store.listSkills(namespace, { includeSuperseded: true });
      const all = [...new Set([...skills.map((s) => s.id), ...ids])].sort();
      return {
        skills: skills.map((s) => ({ ...s, embedding: s.embedding ? Array.from(s.embedding) : null })),
        provenance: await Promise.all(all.map((id) => store.provenance(id))),
        versions: await Promise.all(all.map((id) => store.skillVersions(id))),
        audit: await store.audit(namespace, { limit: 10_000 }),
        events: await store.events(namespace, { limit: 10_000 }),
      };
    }

    // The connection as a whole, and what crosses the four interfaces below (forgetting, namespaces, change token).
    describe('Store', () => {
      describe('opening', () => {
        it('reports a positive schema version, the same on a second connection', async () => {
          const v = await store.schemaVersion();
          expect(Number.isInteger(v) && v > 0).toBe(true);
          if (fx.peer) expect(await (await peer()).schemaVersion()).toBe(v);
          expect(typeof store.kind).toBe('string');
          expect(typeof (await store.changeToken())).toBe('string');
        });
      });

      describe('forgetting', () => {
        const AT = '2025-04-01T00:00:00.000Z';
        const trialFor = (sessionId: string) => ({
          namespace: 'default',
          idOrName: 'sk_old',
          signal: 'trial.pass',
          value: null,
          sessionId,
          actor: 'outcome',
          at: '2025-02-03T00:00:00.000Z',
          compute: (s: Skill) => ({
            status: s.status,
            eta: 0.6,
            utility: s.utility,
            trialsAttempted: s.trialsAttempted + 1,
            trialsPassed: s.trialsPassed + 1,
          }),
        });

        it('forgetSession removes the session, its calls, membership, recalls and cache entries; parents become markers', async () => {
          await store.insertSessions([
            session('default', 's1', 'private goal', [call(0, 'get_order'), call(1, 'cancel_order')]),
            session('default', 's2', 'other goal', [call(0, 'get_order')]),
          ]);
          await store.insertSessions([session('other', 's1', 'same id, other namespace', [call(0, 'x')])]);
          await store.saveClusters('default', 'emb', [cluster('c1', ['s1', 's2'])], 2);
          await store.putCachedEmbeddings('emb', [
            { hash: 'h-s1', vector: new Float32Array([1, 0]) },
            { hash: 'h-s2', vector: new Float32Array([0, 1]) },
          ]);
          await store.writeSkill({
            action: 'add',
            skill: skill(),
            parents: [
              { kind: 'episodic', id: 's1' },
              { kind: 'episodic', id: 's2' },
              { kind: 'semantic', id: 'f1' },
            ],
            actor: 'synth',
            detail: {},
            clusterId: 'c1',
            at: '2025-02-01T00:00:00.000Z',
          });
          await store.recordRecall('default', {
            sessionId: 's1',
            goal: 'private goal',
            at: '2025-02-02T00:00:00.000Z',
            items: [{ skillId: 'sk_old', rank: 0, similarity: 0.9 }],
          });
          await store.applyFeedback(trialFor('s1'));
          // A recall a hook made under its agent's session, given to the task s1 (an audit record names both).
          await store.recordRecall('default', {
            sessionId: 'cc:agent',
            goal: 'private goal',
            at: '2025-02-02T00:00:00.000Z',
            items: [{ skillId: 'sk_old', rank: 0, similarity: 0.9 }],
          });
          const [hookRecall] = await store.recallsHeldBy('default', ['cc:agent']);
          await store.moveRecalls('default', [{ recallId: hookRecall!.id, from: 'cc:agent', to: 's1' }]);

          await store.setState('default', 'goal-stats', 'with the private words');
          const r = await store.forgetSession('default', 's1', {
            actor: 'user',
            at: AT,
            embeddingHashes: [{ embedderId: 'emb', hash: 'h-s1' }],
            stateIfClustered: [{ key: 'goal-stats', value: 'without them' }],
          });
          expect(r).toEqual({
            ref: expect.stringMatching(/^ses-[0-9a-f]{16}$/),
            calls: 2,
            skills: ['sk_old'],
            clusterId: 'c1',
          });

          expect(await store.getSession('default', 's1')).toBeNull();
          expect(await store.countSessions('default')).toBe(1);
          expect((await store.getSession('other', 's1'))?.goal).toBe('same id, other namespace');
          expect(await store.clusterMembers('default', 'c1')).toEqual(['s2']);
          expect((await store.loadClusters('default', 'emb'))[0].size).toBe(1);
          expect(await store.getState('default', 'goal-stats')).toBe('without them');
          expect(await store.skillsServedForSession('default', 's1')).toEqual([]);
          const cache = await store.getCachedEmbeddings('emb', ['h-s1', 'h-s2']);
          expect([...cache.keys()]).toEqual(['h-s2']);
          // The skill stays, says a parent was forgotten, and its trial stays in the track record without the id.
          const kept = (await store.getSkill('default', 'sk_old'))!;
          expect(kept.sourceSessions).toEqual(['s2']);
          const prov = await store.provenance('sk_old');
          expect(
            prov
              .filter((p) => p.sourceKind === 'episodic')
              .map((p) => p.sourceId.startsWith(FORGOTTEN_PARENT) || p.sourceId),
          ).toEqual(expect.arrayContaining([true, 's2']));
          expect(prov).toHaveLength(3);
          expect((await store.feedbackHistory('sk_old')).map((f) => [f.signal, f.sessionId])).toEqual([
            ['trial.pass', null],
          ]);
          // One audit record that names the session by its opaque reference only.
          const audit = (await store.audit('default')).find((a) => a.action === 'session.forget')!;
          expect(audit).toMatchObject({
            actor: 'user',
            at: AT,
            subjectKind: 'session',
            subjectId: r!.ref,
            detail: { calls: 2, skills: ['sk_old'] },
          });
          expect(JSON.stringify(await store.audit('default'))).not.toContain('private goal');
          // The records that named it by id (its trial's, the recall moved to it) name its reference instead.
          expect(JSON.stringify(await store.audit('default'))).not.toContain('"s1"');
          expect((await store.audit('default')).find((a) => a.action === 'recall.move')?.detail).toEqual({
            recall: hookRecall!.id,
            from: 'cc:agent',
            to: r!.ref,
          });
          expect(
            (await store.events('default'))
              .filter((e) => e.type === 'skill.parent_forgotten')
              .map((e) => [e.skillId, e.payload.name]),
          ).toEqual([['sk_old', 'cancel-order']]);

          // Forgetting again, or an unknown session, changes nothing.
          const before = await skillSnapshot();
          expect(await store.forgetSession('default', 's1', { actor: 'user', at: AT })).toBeNull();
          expect(await skillSnapshot()).toEqual(before);
        });

        it("a cluster the forget leaves empty goes, its centroids with it (they were its sessions' goals), unless a skill links it", async () => {
          await store.insertSessions([
            session('default', 'alone', 'private goal alone'),
            session('default', 'learned', 'private goal learned'),
            session('default', 'kept', 'kept goal'),
            session('default', 'named', 'private goal named'),
          ]);
          await store.saveClusters(
            'default',
            'emb',
            [
              cluster('c1', ['alone']),
              { ...cluster('c2', ['learned']), skillId: 'sk_old' },
              cluster('c3', ['kept']),
              cluster('c4', ['named']),
            ],
            4,
          );
          // A skill that names c4 as its group (a retired one comes back by it) while c4 names no skill.
          await store.writeSkill({
            action: 'add',
            skill: skill({ id: 'sk_r', name: 'retired-one', status: 'retired', clusterId: 'c4' }),
            parents: [],
            actor: 'synth',
            detail: {},
            at: AT,
          });
          const gone = await store.forgetSessions('default', [{ id: 'alone' }, { id: 'learned' }, { id: 'named' }], {
            actor: 'user',
            at: AT,
          });
          expect(gone.map((g) => [g.id, g.clusterId])).toEqual([
            ['alone', 'c1'],
            ['learned', 'c2'],
            ['named', 'c4'],
          ]);
          expect((await store.loadClusters('default', 'emb')).map((c) => [c.id, c.size])).toEqual([
            ['c2', 0],
            ['c3', 1],
            ['c4', 0],
          ]);
        });

        it('clustersOfSessions names every member of their clusters, sessionOutlines outlines them; a forget writes the centroids given for the members that stay', async () => {
          await store.insertSessions([
            session('default', 'm1', 'first goal', [
              call(0, 'get_order'),
              call(1, 'run_shell', { args: { cmd: 'git status' } }),
            ]),
            session('default', 'm2', 'second goal', [call(0, 'cancel_order', { ok: false })]),
            session('default', 'm3', 'third goal', [call(0, 'get_order')]),
            session('default', 'o1', 'other goal', [call(0, 'x')]),
            session('default', 'loose', 'never clustered'),
          ]);
          await store.saveClusters('default', 'emb', [cluster('c1', ['m1', 'm2', 'm3']), cluster('c2', ['o1'])], 5);
          const [c1, ...none] = await store.clustersOfSessions('default', ['m2', 'loose', 'unknown']);
          expect(none).toEqual([]);
          expect(c1!.id).toBe('c1');
          expect(c1!.embedderId).toBe('emb');
          expect(c1!.members).toEqual(['m1', 'm2', 'm3']);
          // Outlined as a pass reads them, in the order stored, unknown ids left out.
          const outlines = await store.sessionOutlines('default', ['m3', 'unknown', 'm1', 'm2']);
          expect(outlines.map((m) => [m.id, m.goal, m.calls])).toEqual([
            [
              'm1',
              'first goal',
              [
                { tool: 'get_order', ok: true },
                { tool: 'run_shell', ok: true, key: 'run_shell\u0000git status' },
              ],
            ],
            ['m2', 'second goal', [{ tool: 'cancel_order', ok: false }]],
            ['m3', 'third goal', [{ tool: 'get_order', ok: true }]],
          ]);
          expect(outlines).toEqual(
            (await store.listSessionOutlinesAfter('default', 0, 10)).filter((o) => o.id.startsWith('m')),
          );
          expect(await store.sessionOutlines('default', [])).toEqual([]);
          expect(await store.clustersOfSessions('default', ['loose'])).toEqual([]);

          const two = { centroid: new Float32Array([0, 1, 0]), goalCentroid: new Float32Array([0, 0, 1]) };
          await store.forgetSessions('default', [{ id: 'm2' }, { id: 'o1' }], {
            actor: 'user',
            at: AT,
            // c2 is said to keep one member, but none stays: its centroids are not written (it goes, as it is empty).
            centroids: [
              { clusterId: 'c1', size: 2, ...two },
              { clusterId: 'c2', size: 1, ...two },
            ],
          });
          const left = await store.loadClusters('default', 'emb');
          expect(left.map((c) => [c.id, c.size, Array.from(c.centroid), Array.from(c.goalCentroid)])).toEqual([
            ['c1', 2, [0, 1, 0], [0, 0, 1]],
          ]);
          // Centroids computed from another number of members than stay are not written.
          await store.forgetSessions('default', [{ id: 'm3' }], {
            actor: 'user',
            at: AT,
            centroids: [{ clusterId: 'c1', size: 2, centroid: new Float32Array(3), goalCentroid: new Float32Array(3) }],
          });
          expect((await store.loadClusters('default', 'emb')).map((c) => [c.size, Array.from(c.centroid)])).toEqual([
            [1, [0, 1, 0]],
          ]);
        });

        it('forgetSessions forgets a batch (more than one IN list holds) as forgetSession forgets each, the state once', async () => {
          const ids = Array.from({ length: 1200 }, (_, i) => `b${i}`);
          await store.insertSessions(
            ids.map((id, i) =>
              session('default', id, `private goal ${id}`, [call(0, 'get_order'), call(1, `t${i % 7}`)]),
            ),
          );
          await store.insertSessions([
            session('default', 'k0', 'kept goal', [call(0, 'get_order')]),
            session('default', 'k1', 'kept goal too', [call(0, 'get_order')]),
            session('other', 'b0', 'same id, other namespace', [call(0, 'x')]),
          ]);
          const inC1 = ids.slice(0, 10);
          const inC2 = ids.slice(10, 20);
          await store.saveClusters(
            'default',
            'emb',
            [cluster('c1', [...inC1, 'k0']), cluster('c2', [...inC2, 'k1'])],
            3,
          );
          await store.putCachedEmbeddings('emb', [
            { hash: 'h-b0', vector: new Float32Array([1, 0]) },
            { hash: 'h-b700', vector: new Float32Array([0, 1]) },
            { hash: 'h-k0', vector: new Float32Array([1, 1]) },
          ]);
          const at = '2025-02-01T00:00:00.000Z';
          await store.writeSkill({
            action: 'add',
            skill: skill(),
            parents: ['b0', 'b1', 'k0'].map((id) => ({ kind: 'episodic' as const, id })),
            actor: 'synth',
            detail: {},
            at,
          });
          await store.writeSkill({
            action: 'add',
            skill: skill({ id: 'sk_b', name: 'b' }),
            parents: ['b1', 'b700'].map((id) => ({ kind: 'episodic' as const, id })),
            actor: 'synth',
            detail: {},
            at,
          });
          await store.recordRecall('default', {
            sessionId: 'b5',
            goal: 'private goal b5',
            at,
            items: [{ skillId: 'sk_old', rank: 0, similarity: 0.9 }],
          });
          await store.recordRecall('default', {
            sessionId: 'cc:agent',
            goal: 'private goal b6',
            at,
            items: [{ skillId: 'sk_b', rank: 0, similarity: 0.9 }],
          });
          const [hookRecall] = await store.recallsHeldBy('default', ['cc:agent']);
          await store.moveRecalls('default', [{ recallId: hookRecall!.id, from: 'cc:agent', to: 'b6' }]);
          await store.applyFeedback(trialFor('b2'));
          await store.setState('default', 'goal-stats', 'with their words');
          // The trial's audit record names b2, the recall's move b6.
          const named = JSON.stringify(await store.audit('default', { limit: 10_000 }));
          expect([named.includes('"b2"'), named.includes('"b6"')]).toEqual([true, true]);

          const clustered: string[][] = [];
          const asked = [...ids].reverse();
          const gone = await store.forgetSessions(
            'default',
            [
              ...asked.map((id) => ({
                id,
                embeddingHashes: id === 'b0' || id === 'b700' ? [{ embedderId: 'emb', hash: `h-${id}` }] : [],
              })),
              { id: 'unknown' },
              { id: 'b0' },
            ],
            {
              actor: 'retention',
              at: AT,
              stateIfClustered: (c) => {
                clustered.push([...c].sort());
                return [{ key: 'goal-stats', value: `without ${c.length} of them` }];
              },
            },
          );
          // Each one, in the order given; the unknown and repeated ids skipped.
          expect(gone.map((g) => g.id)).toEqual(asked);
          const of = (id: string) => gone.find((g) => g.id === id)!;
          expect(of('b0')).toEqual({
            id: 'b0',
            ref: expect.stringMatching(/^ses-[0-9a-f]{16}$/),
            calls: 2,
            skills: ['sk_old'],
            clusterId: 'c1',
          });
          expect(of('b1')).toMatchObject({ calls: 2, skills: ['sk_b', 'sk_old'], clusterId: 'c1' });
          expect(of('b700')).toMatchObject({ calls: 2, skills: ['sk_b'], clusterId: null });
          expect(new Set(gone.map((g) => g.ref)).size).toBe(1200);
          // The state, written once, from the sessions a pass had clustered.
          expect(clustered.length).toBeGreaterThan(0);
          expect(clustered.at(-1)).toEqual([...inC1, ...inC2].sort());
          expect(await store.getState('default', 'goal-stats')).toBe('without 20 of them');

          expect(await store.countSessions('default')).toBe(2);
          expect(await store.getSessions('default', ids)).toEqual([]);
          expect((await store.getSession('other', 'b0'))?.goal).toBe('same id, other namespace');
          expect(await store.clusterMembers('default', 'c1')).toEqual(['k0']);
          expect(await store.clusterMembers('default', 'c2')).toEqual(['k1']);
          expect((await store.loadClusters('default', 'emb')).map((c) => [c.id, c.size])).toEqual([
            ['c1', 1],
            ['c2', 1],
          ]);
          expect(await store.skillsServedForSession('default', 'b5')).toEqual([]);
          expect(await store.skillsServedForSession('default', 'b6')).toEqual([]);
          expect([...(await store.getCachedEmbeddings('emb', ['h-b0', 'h-b700', 'h-k0'])).keys()]).toEqual(['h-k0']);
          // Both skills stay, each with a marker per forgotten parent; the trial stays without the session's id.
          expect((await store.getSkill('default', 'sk_old'))!.sourceSessions).toEqual(['k0']);
          expect((await store.getSkill('default', 'sk_b'))!.sourceSessions).toEqual([]);
          const markers = async (id: string) =>
            (await store.provenance(id)).filter((p) => p.sourceId.startsWith(FORGOTTEN_PARENT)).length;
          expect([await markers('sk_old'), await markers('sk_b')]).toEqual([2, 2]);
          expect((await store.feedbackHistory('sk_old')).map((f) => [f.signal, f.sessionId])).toEqual([
            ['trial.pass', null],
          ]);
          // One audit record a session, by its reference; the records that named b2 and b6 by id name theirs.
          const audit = await store.audit('default', { limit: 10_000 });
          const forgets = audit.filter((a) => a.action === 'session.forget');
          expect(forgets).toHaveLength(1200);
          expect(forgets.map((a) => a.subjectId).sort()).toEqual(gone.map((g) => g.ref).sort());
          expect(forgets.find((a) => a.subjectId === of('b1').ref)).toMatchObject({
            actor: 'retention',
            at: AT,
            subjectKind: 'session',
            detail: { calls: 2, skills: ['sk_b', 'sk_old'] },
          });
          const text = JSON.stringify(audit);
          for (const id of ['b2', 'b6', 'b700']) expect(text).not.toContain(`"${id}"`);
          expect(text).not.toContain('private goal');
          expect(audit.find((a) => a.action === 'recall.move')?.detail).toEqual({
            recall: hookRecall!.id,
            from: 'cc:agent',
            to: of('b6').ref,
          });
          expect(
            (await store.events('default', { limit: 10_000 }))
              .filter((e) => e.type === 'skill.parent_forgotten')
              .map((e) => [e.skillId, e.payload.name])
              .sort(),
          ).toEqual([
            ['sk_b', 'b'],
            ['sk_b', 'b'],
            ['sk_old', 'cancel-order'],
            ['sk_old', 'cancel-order'],
          ]);

          // Again, or sessions no pass clustered: nothing of the state is asked for or written.
          await store.insertSessions([session('default', 'loose', 'never clustered', [call(0, 'a')])]);
          const before = await skillSnapshot();
          expect(
            await store.forgetSessions('default', [{ id: 'b0' }, { id: 'unknown' }], { actor: 'x', at: AT }),
          ).toEqual([]);
          expect(await skillSnapshot()).toEqual(before);
          expect(await store.forgetSessions('default', [], { actor: 'x', at: AT })).toEqual([]);
          const calls = clustered.length;
          expect(
            await store.forgetSessions('default', [{ id: 'loose' }], {
              actor: 'x',
              at: AT,
              stateIfClustered: (c) => {
                clustered.push([...c]);
                return [{ key: 'goal-stats', value: 'should not be written' }];
              },
            }),
          ).toMatchObject([{ id: 'loose', calls: 1, skills: [], clusterId: null }]);
          expect(clustered).toHaveLength(calls);
          expect(await store.getState('default', 'goal-stats')).toBe('without 20 of them');
        });

        it('forgetSkill removes the skill with its versions, provenance, feedback and recall items; others stay', async () => {
          await store.writeSkill({
            action: 'add',
            skill: skill({ exemplars: new Float32Array([1, 0]) }),
            parents: [{ kind: 'episodic', id: 's1' }],
            actor: 'synth',
            detail: {},
            at: '2025-02-01T00:00:00.000Z',
          });
          await store.writeSkill({
            action: 'update',
            skill: skill({ version: '1.1.0' }),
            parents: [],
            actor: 'synth',
            detail: {},
            at: '2025-02-02T00:00:00.000Z',
          });
          await store.writeSkill({
            action: 'add',
            skill: skill({ id: 'sk_b', name: 'b' }),
            parents: [{ kind: 'episodic', id: 's1' }],
            actor: 'synth',
            detail: {},
            at: '2025-02-01T00:00:00.000Z',
          });
          await store.recordRecall('default', {
            sessionId: 's1',
            goal: 'cancel',
            at: '2025-02-05T00:00:00.000Z',
            items: [
              { skillId: 'sk_old', rank: 0, similarity: 0.9 },
              { skillId: 'sk_b', rank: 1, similarity: 0.8 },
            ],
          });
          await store.applyFeedback(trialFor('s1'));

          expect(await store.forgetSkill('default', 'cancel-order', { actor: 'user', at: AT })).toEqual({
            id: 'sk_old',
            name: 'cancel-order',
          });
          expect(await store.getSkill('default', 'sk_old')).toBeNull();
          expect(await store.getSkill('default', 'cancel-order')).toBeNull();
          expect((await store.listSkills('default', { includeSuperseded: true })).map((s) => s.id)).toEqual(['sk_b']);
          expect(await store.skillVersions('sk_old')).toEqual([]);
          expect(await store.provenance('sk_old')).toEqual([]);
          expect(await store.feedbackHistory('sk_old')).toEqual([]);
          expect(await store.skillsServedForSession('default', 's1')).toEqual(['sk_b']);
          expect((await store.provenance('sk_b')).map((p) => p.sourceId)).toEqual(['s1']);
          const audit = (await store.audit('default')).find((a) => a.action === 'skill.forget')!;
          expect(audit).toMatchObject({
            actor: 'user',
            subjectKind: 'skill',
            subjectId: 'sk_old',
            detail: { name: 'cancel-order', version: '1.1.0' },
          });
          expect(
            (await store.events('default')).filter((e) => e.type === 'skill.forgotten').map((e) => e.skillId),
          ).toEqual(['sk_old']);

          expect(await store.forgetSkill('default', 'cancel-order', { actor: 'user', at: AT })).toBeNull();
          expect(await store.forgetSkill('other', 'b', { actor: 'user', at: AT })).toBeNull();
          expect(await store.getSkill('default', 'b')).not.toBeNull();
        });

        it('a forget on one connection is what another reads', async () => {
          if (!fx.peer) return;
          await store.insertSessions([session('default', 's1', 'g1', [call(0, 'a')])]);
          const other = await peer();
          // Not clustered: the state given for a clustered session is not written.
          expect(
            await other.forgetSession('default', 's1', {
              actor: 'user',
              at: AT,
              stateIfClustered: [{ key: 'goal-stats', value: 'x' }],
            }),
          ).toMatchObject({ clusterId: null, calls: 1 });
          expect(await store.getSession('default', 's1')).toBeNull();
          expect(await store.getState('default', 'goal-stats')).toBeNull();
        });
      });

      describe('namespaces', () => {
        it("two namespaces in one memory never see each other's sessions, skills, events or audit", async () => {
          await store.insertSessions([
            session('alpha', 's1', 'alpha goal', [call(0, 'a')]),
            session('beta', 's1', 'beta goal', [call(0, 'b')]),
          ]);
          await store.writeSkill({
            action: 'add',
            skill: skill({ id: 'sk_a', namespace: 'alpha' }),
            parents: [{ kind: 'episodic', id: 's1' }],
            actor: 'synth',
            detail: {},
            at: '2025-02-01T00:00:00.000Z',
          });
          await store.writeSkill({
            action: 'add',
            skill: skill({ id: 'sk_b', namespace: 'beta', name: 'beta-skill' }),
            parents: [],
            actor: 'synth',
            detail: {},
            at: '2025-02-01T00:00:00.000Z',
          });
          expect((await store.listSkills('alpha')).map((s) => s.id)).toEqual(['sk_a']);
          expect((await store.listSkills('beta')).map((s) => s.id)).toEqual(['sk_b']);
          expect(await store.getSkill('alpha', 'sk_b')).toBeNull();
          expect(await store.getSkill('beta', 'cancel-order')).toBeNull();
          expect((await store.events('alpha')).map((e) => e.skillId)).toEqual(['sk_a']);
          expect((await store.audit('beta')).map((a) => a.subjectId)).toEqual(['sk_b']);
          expect((await store.listSessionOutlinesAfter('alpha', 0, 10)).map((s) => s.calls[0].tool)).toEqual(['a']);
        });
      });

      describe('change token', () => {
        it('changes when another connection writes a skill, and not when nothing changed', async () => {
          const p = await peer();
          // Both connections have settled on a token.
          await store.listSkills('default');
          const t0 = await store.changeToken();
          expect(await store.changeToken()).toBe(t0);
          await p.writeSkill({
            action: 'add',
            skill: skill(),
            parents: [],
            actor: 'synth',
            detail: {},
            at: '2025-02-01T00:00:00.000Z',
          });
          await expect.poll(() => store.changeToken(), { timeout: 5_000, interval: 20 }).not.toBe(t0);
          const t1 = await store.changeToken();
          await p.setSkillEnabled('default', 'sk_old', false, 'alice');
          await expect.poll(() => store.changeToken(), { timeout: 5_000, interval: 20 }).not.toBe(t1);
          const t2 = await store.changeToken();
          await p.applyFeedback({
            namespace: 'default',
            idOrName: 'sk_old',
            signal: 'user.positive',
            value: null,
            sessionId: null,
            actor: 'user',
            at: '2025-02-02T00:00:00.000Z',
            compute: (s) => ({ ...s, eta: 0.6 }),
          });
          await expect.poll(() => store.changeToken(), { timeout: 5_000, interval: 20 }).not.toBe(t2);
          // And the other connection's write is what this one reads.
          expect((await store.getSkill('default', 'sk_old'))?.eta).toBe(0.6);
        });
      });
    });

    // Capture: sessions with their calls, and facts.
    describe('SessionStore', () => {
      describe('insertSessions', () => {
        it('is idempotent by (namespace, id): the same session twice is stored once and reported skipped', async () => {
          const s = session('default', 'sess-1', 'Cancel my order', [call(0, 'get_order'), call(1, 'cancel_order')]);
          expect(await store.insertSessions([s])).toEqual({ inserted: 1, skipped: 0 });
          expect(
            await store.insertSessions([{ ...s, goal: 'A different goal', calls: [call(0, 'other_tool')] }]),
          ).toEqual({ inserted: 0, skipped: 1 });
          expect(await store.countSessions('default')).toBe(1);
          const got = await store.getSession('default', 'sess-1');
          expect(got?.goal).toBe('Cancel my order');
          expect(got?.calls.map((c) => c.tool)).toEqual(['get_order', 'cancel_order']);
        });

        it('counts a batch with a repeated session as one stored and one skipped', async () => {
          const a = session('default', 'a', 'goal a', [call(0, 't')]);
          expect(await store.insertSessions([a, a, session('default', 'b', 'goal b')])).toEqual({
            inserted: 2,
            skipped: 1,
          });
          expect(await store.countSessions('default')).toBe(2);
          expect((await store.getSession('default', 'a'))?.calls).toHaveLength(1);
          expect(await store.insertSessions([])).toEqual({ inserted: 0, skipped: 0 });
        });

        it('stores every call of a batch in order, however the calls fall across insert statements', async () => {
          const calls = (n: number, prefix: string) =>
            Array.from({ length: n }, (_, i) => call(i, `${prefix}_${i}`, { args: { i }, result: `r${i}` }));
          const batch = [
            session('default', 'long', 'a long session', calls(120, 'long')),
            session('default', 'one', 'one call', calls(1, 'one')),
            session('default', 'none', 'no calls'),
            // A repeated position keeps the first call under it.
            session('default', 'dup', 'repeated position', [call(0, 'first'), call(0, 'second'), call(1, 'third')]),
            session('default', 'tail', 'the last few', calls(49, 'tail')),
          ];
          expect(await store.insertSessions(batch)).toEqual({ inserted: 5, skipped: 0 });
          const long = await store.getSession('default', 'long');
          expect(long!.calls.map((c) => c.tool)).toEqual(calls(120, 'long').map((c) => c.tool));
          expect(long!.calls[119]).toMatchObject({ position: 119, args: { i: 119 }, result: 'r119' });
          expect((await store.getSession('default', 'one'))!.calls.map((c) => c.tool)).toEqual(['one_0']);
          expect((await store.getSession('default', 'none'))!.calls).toEqual([]);
          expect((await store.getSession('default', 'dup'))!.calls.map((c) => c.tool)).toEqual(['first', 'third']);
          expect((await store.getSession('default', 'tail'))!.calls).toHaveLength(49);
        });

        it('treats the same id in another namespace as a different session', async () => {
          await store.insertSessions([session('ns-a', 'shared-id', 'goal in a', [call(0, 'tool_a')])]);
          expect(
            await store.insertSessions([
              session('ns-b', 'shared-id', 'goal in b', [call(0, 'tool_b'), call(1, 'tool_b2')]),
            ]),
          ).toEqual({
            inserted: 1,
            skipped: 0,
          });
          expect(await store.countSessions('ns-a')).toBe(1);
          expect(await store.countSessions('ns-b')).toBe(1);
          const a = await store.getSession('ns-a', 'shared-id');
          const b = await store.getSession('ns-b', 'shared-id');
          expect(a?.goal).toBe('goal in a');
          expect(a?.calls.map((c) => c.tool)).toEqual(['tool_a']);
          expect(b?.goal).toBe('goal in b');
          expect(b?.calls.map((c) => c.tool)).toEqual(['tool_b', 'tool_b2']);
          expect(await store.getSession('ns-c', 'shared-id')).toBeNull();
        });

        it('round-trips every field of a session and its calls', async () => {
          const s = {
            ...session('default', 'full', 'Full record — “quoted” ünïcode 🚀', [
              call(0, 'a', { args: { nested: { list: [1, 2.5, 'x'], flag: true, none: null } }, durationMs: 0.125 }),
              call(1, 'b', { ok: false, error: 'Error: nope', durationMs: null, at: null, result: '' }),
            ]),
            cue: 'hi, my order never came — can you help?',
          };
          await store.insertSessions([s]);
          const got = await store.getSession('default', 'full');
          expect(got).toMatchObject({ ...s, seq: expect.any(Number) });
          expect(got?.calls).toEqual(s.calls);
          const bare = {
            ...session('default', 'bare', 'no extras'),
            cue: null,
            reward: null,
            agentId: null,
            source: null,
            endedAt: null,
            labels: null,
            outcome: 'unknown' as const,
          };
          await store.insertSessions([bare]);
          expect(await store.getSession('default', 'bare')).toMatchObject({ ...bare, seq: expect.any(Number) });
        });

        it('growSessions replaces sessions by their copies further on, in place; the cluster a pass put one in is dirty again', async () => {
          const first = {
            ...session('default', 'grows', 'Cancel order #W1', [call(0, 'get_order')]),
            outcome: 'unknown' as const,
          };
          await store.insertSessions([session('default', 'before', 'g0'), first, session('default', 'after', 'g2')]);
          await store.saveClusters('default', 'emb', [cluster('c1', ['grows']), cluster('c2', ['after'])], 3);
          const linked = { ...skill(), id: 'sk_c1' };
          await store.writeSkill({
            action: 'add',
            skill: linked,
            parents: [],
            actor: 'synth',
            detail: {},
            clusterId: 'c1',
            at: '2025-03-01T00:00:00.000Z',
          });
          expect((await store.loadClusters('default', 'emb')).find((c) => c.id === 'c1')?.dirty).toBe(false);
          const seq = (await store.getSession('default', 'grows'))!.seq;

          const grown = {
            ...first,
            calls: [call(0, 'get_order'), call(1, 'cancel_order', { ok: false, error: 'not pending', result: '' })],
            outcome: 'failure' as const,
            outcomeSource: 'judged' as const,
            endedAt: '2025-01-01T00:09:00.000Z',
            startedAt: '2030-01-01T00:00:00.000Z',
          };
          // A copy of no stored session is left out; the others are replaced.
          expect(await store.growSessions([grown, { ...grown, id: 'absent' }])).toBe(1);
          const got = await store.getSession('default', 'grows');
          expect(got).toMatchObject({ outcome: 'failure', outcomeSource: 'judged', endedAt: grown.endedAt, seq });
          // The start stays the first copy's: the task began then.
          expect(got?.startedAt).toBe(first.startedAt);
          expect(got?.calls).toEqual(grown.calls);
          const clusters = await store.loadClusters('default', 'emb');
          expect(clusters.find((c) => c.id === 'c1')).toMatchObject({ dirty: true, size: 1, skillId: 'sk_c1' });
          expect(await store.countSessions('default')).toBe(3);
          expect(await store.getSession('default', 'absent')).toBeNull();
          expect(await store.growSessions([])).toBe(0);
        });

        it('endSession of a session a pass has put in a cluster marks that cluster dirty, and no other', async () => {
          const open = {
            ...session('default', 'open', 'Cancel order #W1', [call(0, 'get_order')]),
            outcome: 'unknown' as const,
            endedAt: null,
          };
          await store.insertSessions([open, session('default', 'done', 'g2')]);
          await store.saveClusters('default', 'emb', [cluster('c1', ['open']), cluster('c2', ['done'])], 2);
          for (const [id, c] of [
            ['sk_1', 'c1'],
            ['sk_2', 'c2'],
          ])
            await store.writeSkill({
              action: 'add',
              skill: { ...skill(), id, name: id },
              parents: [],
              actor: 'synth',
              detail: {},
              clusterId: c,
              at: '2025-03-01T00:00:00.000Z',
            });
          const dirty = async () => (await store.loadClusters('default', 'emb')).map((c) => [c.id, c.dirty]);
          expect(await dirty()).toEqual([
            ['c1', false],
            ['c2', false],
          ]);
          await store.endSession('default', 'open', 'success', 1, '2025-03-02T00:00:00.000Z');
          expect(await dirty()).toEqual([
            ['c1', true],
            ['c2', false],
          ]);
          // A session no pass has read yet has no cluster to mark.
          await store.insertSessions([session('default', 'fresh', 'g3')]);
          await store.endSession('default', 'fresh', 'failure', 0, '2025-03-02T00:00:00.000Z');
          expect(await dirty()).toEqual([
            ['c1', true],
            ['c2', false],
          ]);
        });

        it('numbers sessions in insertion order: listSessionOutlinesAfter pages through them by seq', async () => {
          for (let i = 0; i < 5; i++)
            await store.insertSessions([session('default', `s${i}`, `goal ${i}`, [call(0, `t${i}`)])]);
          await store.insertSessions([session('other', 'x', 'elsewhere')]);
          const all = await store.listSessionOutlinesAfter('default', 0, 100);
          expect(all.map((s) => s.id)).toEqual(['s0', 's1', 's2', 's3', 's4']);
          const seqs = all.map((s) => s.seq!);
          expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
          expect(new Set(seqs).size).toBe(5);
          const page = await store.listSessionOutlinesAfter('default', seqs[1], 2);
          expect(page.map((s) => s.id)).toEqual(['s2', 's3']);
          expect(page[0].calls.map((c) => c.tool)).toEqual(['t2']);
          expect(await store.listSessionOutlinesAfter('default', seqs[4], 10)).toEqual([]);
          // Newest first, with limit and offset.
          expect((await store.listSessions('default', { limit: 2 })).map((s) => s.id)).toEqual(['s4', 's3']);
          expect((await store.listSessions('default', { limit: 2, offset: 3 })).map((s) => s.id)).toEqual(['s1', 's0']);
          expect(await store.countSessions('default')).toBe(5);
          expect(await store.existingSessionIds('default', ['s1', 'x', 'nope', 's4'])).toEqual(new Set(['s1', 's4']));
          expect(await store.existingSessionIds('default', [])).toEqual(new Set());
        });

        it('openSessionIds: of the sessions asked for, those not ended with no outcome reported or judged', async () => {
          const open = { outcome: 'unknown' as const, reward: null, endedAt: null };
          await store.insertSessions([
            { ...session('default', 'ended', 'g'), ...open, endedAt: '2025-01-01T00:02:00.000Z' },
            // An imported log without the time of its end, whose outcome it reported or the judge gave: ended.
            { ...session('default', 'reported', 'g'), endedAt: null },
            { ...session('default', 'judged', 'g'), endedAt: null, outcomeSource: 'judged' },
            { ...session('default', 'unjudged', 'g'), ...open, outcomeSource: 'judged' },
            { ...session('default', 'imported-open', 'g'), ...open },
            { ...session('other', 'elsewhere', 'g'), ...open },
          ]);
          const { calls: _c, ...live } = { ...session('default', 'live', 'g'), ...open };
          await store.beginSession(live);
          const { calls: _d, ...later } = { ...session('default', 'ends', 'g'), ...open };
          await store.beginSession(later);
          const ids = ['ended', 'reported', 'judged', 'unjudged', 'imported-open', 'live', 'ends', 'elsewhere', 'nope'];
          expect(await store.openSessionIds('default', ids)).toEqual(new Set(['imported-open', 'live', 'ends']));
          // Its end, with whatever outcome (unknown included), closes it.
          await store.endSession('default', 'ends', 'unknown', null, '2025-01-01T00:03:00.000Z');
          expect(await store.openSessionIds('default', ids)).toEqual(new Set(['imported-open', 'live']));
          expect(await store.openSessionIds('default', [])).toEqual(new Set());
          // The store's answer is the pass's: domain/open-session.ts.
          const read = await store.getSessions('default', ids);
          expect(new Set(read.filter(stillOpen).map((s) => s.id))).toEqual(new Set(['imported-open', 'live']));
        });

        it('reads session outlines: goal, outcome, and each call’s tool and ok in position order, nothing else', async () => {
          await store.insertSessions([
            {
              ...session('default', 's5', 'refund an order', [
                call(1, 'refund_order', { ok: false }),
                call(0, 'get_order'),
                call(2, 'refund_order'),
              ]),
              cue: 'I want my money back',
              outcome: 'failure',
            },
          ]);
          const [outline] = await store.listSessionOutlinesAfter('default', 0, 10);
          expect(outline).toEqual({
            id: 's5',
            goal: 'refund an order',
            outcome: 'failure',
            seq: expect.any(Number),
            calls: [
              { tool: 'get_order', ok: true },
              { tool: 'refund_order', ok: false },
              { tool: 'refund_order', ok: true },
            ],
          });
          expect(outline.seq).toBeGreaterThan(0);
        });

        it('gives a command runner’s calls the key of what they ran (the head of the command), and only theirs', async () => {
          await store.insertSessions([
            session('default', 's6', 'restart the web server', [
              call(0, 'Bash', { args: { command: 'sudo systemctl restart nginx', description: 'restart' } }),
              call(1, 'shell', { args: { command: ['bash', '-lc', 'git status'] } }),
              call(2, 'exec_command', { args: { cmd: 'npm test -- cart' } }),
              // Matched by the query's cheap filter on the name, refused by the exact test: a key only for runners.
              call(3, 'share_post', { args: { command: 'x' } }),
              call(4, 'run_shell', { args: { script: 'no command' } }),
            ]),
          ]);
          const [outline] = await store.listSessionOutlinesAfter('default', 0, 10);
          expect(outline.calls).toEqual([
            { tool: 'Bash', ok: true, key: 'Bash\u0000systemctl restart' },
            { tool: 'shell', ok: true, key: 'shell\u0000git status' },
            { tool: 'exec_command', ok: true, key: 'exec_command\u0000npm test' },
            { tool: 'share_post', ok: true },
            { tool: 'run_shell', ok: true },
          ]);
        });
      });

      describe('live sessions', () => {
        it('beginSession + appendCall (idempotent by position) + endSession', async () => {
          const live = {
            ...session('default', 'live-1', 'Book a flight'),
            outcome: 'unknown' as const,
            reward: null,
            endedAt: null,
          };
          const { calls: _ignored, ...head } = live;
          await store.beginSession(head);
          await store.beginSession({ ...head, goal: 'reopened with another goal' });
          expect(await store.countSessions('default')).toBe(1);

          // The answer says whether the call was stored: a taken position changes nothing and says so.
          expect(await store.appendCall('default', 'live-1', call(0, 'search_flights'))).toBe(true);
          expect(await store.appendCall('default', 'live-1', call(0, 'duplicate_attempt'))).toBe(false);
          expect(await store.appendCall('default', 'live-1', call(1, 'book_flight'))).toBe(true);
          let got = await store.getSession('default', 'live-1');
          expect(got?.goal).toBe('Book a flight');
          expect(got?.outcome).toBe('unknown');
          expect(got?.calls.map((c) => [c.position, c.tool])).toEqual([
            [0, 'search_flights'],
            [1, 'book_flight'],
          ]);

          await store.endSession('default', 'live-1', 'success', 0.75, '2025-01-01T00:09:00.000Z');
          got = await store.getSession('default', 'live-1');
          expect(got?.outcome).toBe('success');
          expect(got?.reward).toBe(0.75);
          expect(got?.endedAt).toBe('2025-01-01T00:09:00.000Z');
          expect(got?.calls).toHaveLength(2);
          // Ended (here, or by another process's recorder): a later call is refused, not added to the judged run.
          await expect(store.appendCall('default', 'live-1', call(2, 'late_call'))).rejects.toThrow(
            'session live-1 already ended (success); record into a new session',
          );
          expect((await store.getSession('default', 'live-1'))?.calls).toHaveLength(2);
        });

        it('concurrent appends of the same positions store each call exactly once', async () => {
          const { calls: _c, ...head } = session('default', 'race', 'Race');
          // A live session: not ended yet.
          await store.beginSession({ ...head, outcome: 'unknown', reward: null, endedAt: null });
          const attempts = [];
          for (let round = 0; round < 3; round++)
            for (let p = 0; p < 20; p++) attempts.push(store.appendCall('default', 'race', call(p, `tool_${p}`)));
          await Promise.all(attempts);
          const got = await store.getSession('default', 'race');
          expect(got?.calls.map((c) => c.position)).toEqual(Array.from({ length: 20 }, (_, i) => i));
          expect(got?.calls.map((c) => c.tool)).toEqual(Array.from({ length: 20 }, (_, i) => `tool_${i}`));
        });

        it('appendCall on an unknown session throws a clear error and stores nothing', async () => {
          await expect(store.appendCall('default', 'nope', call(0, 't'))).rejects.toThrow(
            /nope.*beginSession|beginSession.*nope/,
          );
          // A session of the same id in another namespace does not make it known here.
          await store.insertSessions([session('other', 'nope', 'elsewhere')]);
          await expect(store.appendCall('default', 'nope', call(0, 't'))).rejects.toThrow(/nope/);
          // Had the call been stored, it would show up once the session exists.
          const { calls: _c, ...head } = session('default', 'nope', 'now it exists');
          await store.beginSession(head);
          expect((await store.getSession('default', 'nope'))?.calls).toEqual([]);
          expect((await store.getSession('other', 'nope'))?.calls).toEqual([]);
        });

        it('endSession on an unknown session throws', async () => {
          await expect(store.endSession('default', 'ghost', 'success', null, '2025-01-01T00:00:00Z')).rejects.toThrow(
            /ghost/,
          );
        });

        it('getSessions returns sessions in insertion order and leaves unknown ids out', async () => {
          await store.insertSessions([session('default', 'first', 'g1', [call(0, 'x')])]);
          await store.insertSessions([session('default', 'second', 'g2', [call(0, 'y'), call(1, 'z')])]);
          await store.insertSessions([session('default', 'third', 'g3')]);
          await store.insertSessions([session('other', 'fourth', 'g4')]);
          const got = await store.getSessions('default', ['third', 'unknown', 'first', 'fourth', 'second']);
          expect(got.map((s) => s.id)).toEqual(['first', 'second', 'third']);
          expect(got.map((s) => s.calls.map((c) => c.tool))).toEqual([['x'], ['y', 'z'], []]);
          expect(await store.getSessions('default', [])).toEqual([]);
          expect(await store.getSessions('default', ['unknown'])).toEqual([]);
          // Without their calls: the id, goal and start alone, in the same order.
          const heads = await store.sessionHeads('default', ['third', 'unknown', 'first', 'fourth', 'second']);
          expect(heads).toEqual(got.map((s) => ({ id: s.id, goal: s.goal, startedAt: s.startedAt })));
          expect(await store.sessionHeads('default', [])).toEqual([]);
          // When each started and ended, for retention: every session of the namespace, oldest first.
          expect(await store.sessionTimes('default')).toEqual(
            got.map((s) => ({ id: s.id, startedAt: s.startedAt, endedAt: s.endedAt, lastCallAt: null })),
          );
          expect(await store.sessionTimes('nowhere')).toEqual([]);
          // A session still open is dated by its latest call too (the calls' times, not their positions).
          const open = { ...session('default', 'open', 'still running'), endedAt: null };
          await store.insertSessions([
            {
              ...open,
              calls: [
                call(0, 'a', { at: '2025-03-01T10:00:00.000Z' }),
                call(1, 'b', { at: '2025-03-02T09:00:00.000Z' }),
                call(2, 'c', { at: null }),
              ],
            },
            { ...session('default', 'open-quiet', 'no call has a time', [call(0, 'a', { at: null })]), endedAt: null },
          ]);
          expect((await store.sessionTimes('default')).slice(3)).toEqual([
            { id: 'open', startedAt: open.startedAt, endedAt: null, lastCallAt: '2025-03-02T09:00:00.000Z' },
            { id: 'open-quiet', startedAt: open.startedAt, endedAt: null, lastCallAt: null },
          ]);
        });

        it("sessionTimes takes an open session's latest call by the instant its time names, whatever its offset", async () => {
          const open = (id: string, ats: (string | null)[]): Session => ({
            ...session(
              'default',
              id,
              'still running',
              ats.map((at, i) => call(i, 'a', { at })),
            ),
            endedAt: null,
          });
          await store.insertSessions([
            // 10:00+02:00 is 08:00Z, before 09:30Z: as text it would read as the later.
            open('offsets', ['2026-09-01T09:30:00Z', '2026-09-01T10:00:00+02:00']),
            // 23:30-05:00 is 04:30Z the next day, after 2026-09-02T01:00Z; with fractions of a second.
            open('across-midnight', ['2026-09-02T01:00:00.000Z', '2026-09-01T23:30:00.5-05:00', null]),
            // A time that reads as none loses to one that reads as a time; among such times only, the greatest text.
            open('undated-call', ['yesterday, late', '2026-09-01T08:00:00Z']),
            open('no-dates', ['around noon', 'before lunch']),
          ]);
          const last = Object.fromEntries((await store.sessionTimes('default')).map((t) => [t.id, t.lastCallAt]));
          expect(last).toEqual({
            offsets: '2026-09-01T09:30:00Z',
            'across-midnight': '2026-09-01T23:30:00.5-05:00',
            'undated-call': '2026-09-01T08:00:00Z',
            'no-dates': 'before lunch',
          });
        });
      });

      describe('facts', () => {
        it('facts are idempotent by (namespace, id), listed oldest first and fetched in the order asked', async () => {
          await store.addFact({
            id: 'f2',
            namespace: 'default',
            text: 'Second',
            source: null,
            createdAt: '2025-01-02T00:00:00.000Z',
          });
          await store.addFact({
            id: 'f1',
            namespace: 'default',
            text: 'First',
            source: 'policy',
            createdAt: '2025-01-01T00:00:00.000Z',
          });
          await store.addFact({
            id: 'f1',
            namespace: 'default',
            text: 'Changed',
            source: null,
            createdAt: '2025-01-03T00:00:00.000Z',
          });
          await store.addFact({
            id: 'f1',
            namespace: 'other',
            text: 'Other',
            source: null,
            createdAt: '2025-01-01T00:00:00.000Z',
          });
          expect((await store.listFacts('default')).map((f) => [f.id, f.text, f.source])).toEqual([
            ['f1', 'First', 'policy'],
            ['f2', 'Second', null],
          ]);
          expect((await store.getFacts('default', ['f2', 'missing', 'f1'])).map((f) => f.id)).toEqual(['f2', 'f1']);
          expect((await store.getFacts('other', ['f1', 'f2'])).map((f) => f.text)).toEqual(['Other']);
        });
      });
    });

    // Synthesis state under typed keys, the embedding cache, clusters and the pass lock.
    describe('PassStateStore', () => {
      describe('state and the embedding cache', () => {
        it('state is a key-value map per namespace; setState overwrites', async () => {
          const k = stateKey.watermark('e1');
          expect(await store.getState('default', k)).toBeNull();
          await store.setState('default', k, 'v1');
          await store.setState('default', k, 'v2');
          await store.setState('other', k, 'elsewhere');
          expect(await store.getState('default', k)).toBe('v2');
          expect(await store.getState('other', k)).toBe('elsewhere');
          // A key that shapes recall (PostgreSQL writes it with a change notice) reads back the same way.
          await store.setState('default', stateKey.goalMean('e1'), '{"n":1}');
          expect(await store.getState('default', stateKey.goalMean('e1'))).toBe('{"n":1}');
          expect(await store.getState('default', stateKey.goalMean('e2'))).toBeNull();
        });

        it('caches embeddings by (embedder, text hash), bit for bit', async () => {
          const v = new Float32Array([0.1, -2.5, 3e-8, 1234.5678]);
          await store.putCachedEmbeddings('emb-a', [
            { hash: 'h1', vector: v },
            { hash: 'h2', vector: new Float32Array([1, 2]) },
          ]);
          await store.putCachedEmbeddings('emb-a', [{ hash: 'h2', vector: new Float32Array([3, 4]) }]);
          const got = await store.getCachedEmbeddings('emb-a', ['h1', 'h2', 'h3']);
          expect([...got.keys()].sort()).toEqual(['h1', 'h2']);
          expect(Array.from(got.get('h1')!)).toEqual(Array.from(v));
          expect(Array.from(got.get('h2')!)).toEqual([3, 4]);
          expect((await store.getCachedEmbeddings('emb-b', ['h1'])).size).toBe(0);
          expect((await store.getCachedEmbeddings('emb-a', [])).size).toBe(0);
        });
      });

      describe('clusters', () => {
        it('saveClusters stores centroids, membership and the watermark together; a cluster keeps its skill link', async () => {
          await store.insertSessions([
            session('default', 's1', 'g1'),
            session('default', 's2', 'g2'),
            session('default', 's3', 'g3'),
          ]);
          const c1 = cluster('c1', ['s2', 's1']);
          await store.saveClusters('default', 'emb', [c1, cluster('c2', ['s3'])], 42);
          expect(await store.getState('default', 'watermark:emb')).toBe('42');
          const loaded = await store.loadClusters('default', 'emb');
          expect(loaded.map((c) => c.id)).toEqual(['c1', 'c2']);
          expect(Array.from(loaded[0].centroid)).toEqual(Array.from(c1.centroid));
          expect(Array.from(loaded[0].goalCentroid)).toEqual(Array.from(c1.goalCentroid));
          expect(loaded[0]).toMatchObject({ size: 2, dirty: true, skillId: null, lastPassAt: null, newMembers: [] });
          // Members come back in session order.
          expect(await store.clusterMembers('default', 'c1')).toEqual(['s1', 's2']);
          expect(await store.loadClusters('default', 'other-embedder')).toEqual([]);
          expect(await store.loadClusters('other', 'emb')).toEqual([]);

          // Linking a skill clears dirty and stamps the pass; a later save does not undo the link.
          await store.writeSkill({
            action: 'add',
            skill: skill(),
            parents: [],
            actor: 'synth',
            detail: {},
            clusterId: 'c1',
            at: '2025-03-01T00:00:00.000Z',
          });
          let again = (await store.loadClusters('default', 'emb')).find((c) => c.id === 'c1')!;
          expect(again).toMatchObject({ skillId: 'sk_old', dirty: false, lastPassAt: '2025-03-01T00:00:00.000Z' });
          await store.saveClusters('default', 'emb', [{ ...cluster('c1', ['s3']), size: 3, dirty: true }], 43);
          again = (await store.loadClusters('default', 'emb')).find((c) => c.id === 'c1')!;
          expect(again).toMatchObject({
            skillId: 'sk_old',
            dirty: true,
            size: 3,
            lastPassAt: '2025-03-01T00:00:00.000Z',
          });
          // A session moved to another cluster belongs to that one only.
          expect(await store.clusterMembers('default', 'c1')).toEqual(['s1', 's2', 's3']);
          expect(await store.clusterMembers('default', 'c2')).toEqual([]);

          await store.markClusterPassed('default', 'c2', '2025-03-02T00:00:00.000Z', false);
          expect((await store.loadClusters('default', 'emb')).find((c) => c.id === 'c2')).toMatchObject({
            dirty: false,
            lastPassAt: '2025-03-02T00:00:00.000Z',
          });
        });

        it('replaceEmbeddings re-embeds skills and clears the namespace cluster state in one step', async () => {
          await store.insertSessions([session('default', 's1', 'g1')]);
          await store.saveClusters('default', 'old-emb', [cluster('c1', ['s1'])], 7);
          await store.setState('default', 'tool-stats', '{}');
          await store.setState('default', 'goal-stats', '{}');
          await store.setState('default', stateKey.lookAlikeOpen, '[["c1",1]]');
          // Each embedder's mean goes with its watermark (the next pass reads every session from the start).
          await store.setState('default', stateKey.goalMean('old-emb'), '{"n":1}');
          await store.setState('default', stateKey.goalMean('new-emb'), '{"n":1}');
          await store.setState('default', stateKey.auditFileMark('keep-me'), 'yes');
          await store.saveClusters('other', 'old-emb', [cluster('c1', [])], 3);
          await store.writeSkill({
            action: 'add',
            skill: skill({ clusterId: 'c1' }),
            parents: [],
            actor: 'synth',
            detail: {},
            at: '2025-03-01T00:00:00.000Z',
          });
          const before = (await store.getSkill('default', 'sk_old'))!;

          const res = await store.replaceEmbeddings('default', {
            embedderId: 'new-emb',
            vectors: [
              { skillId: 'sk_old', embedding: new Float32Array([0, 0, 1]) },
              { skillId: 'sk_missing', embedding: new Float32Array([1, 0, 0]) },
            ],
            actor: 'doctor',
            at: '2025-03-03T00:00:00.000Z',
          });
          expect(res).toEqual({ skills: 1, clusters: 1 });
          const after = (await store.getSkill('default', 'sk_old'))!;
          expect(after.embedderId).toBe('new-emb');
          expect(Array.from(after.embedding!)).toEqual([0, 0, 1]);
          expect(after.clusterId).toBeNull();
          expect(after.version).toBe(before.version);
          expect(after.updatedAt).toBe(before.updatedAt);
          expect(await store.loadClusters('default', 'old-emb')).toEqual([]);
          expect(await store.clusterMembers('default', 'c1')).toEqual([]);
          expect(await store.getState('default', 'watermark:old-emb')).toBeNull();
          expect(await store.getState('default', 'tool-stats')).toBeNull();
          expect(await store.getState('default', 'goal-stats')).toBeNull();
          expect(await store.getState('default', stateKey.lookAlikeOpen)).toBeNull();
          expect(await store.getState('default', stateKey.goalMean('old-emb'))).toBeNull();
          expect(await store.getState('default', stateKey.goalMean('new-emb'))).toBeNull();
          expect(await store.getState('default', stateKey.auditFileMark('keep-me'))).toBe('yes');
          expect(await store.loadClusters('other', 'old-emb')).toHaveLength(1);
          expect((await store.audit('default', { limit: 1 }))[0]).toMatchObject({
            action: 'skills.reembed',
            actor: 'doctor',
            subjectKind: 'namespace',
          });
          expect((await store.events('default')).at(-1)).toMatchObject({
            type: 'skills.reembedded',
            skillId: null,
            payload: { embedderId: 'new-emb', skills: 1, clusters: 1 },
          });
        });
      });

      describe('tryLock', () => {
        it('one holder at a time per name; released, it can be taken again; names are independent', async () => {
          const release = await store.tryLock('synthesis:default', 'holder-a', 60_000);
          expect(release).toBeTypeOf('function');
          expect(await store.tryLock('synthesis:default', 'holder-b', 60_000)).toBeNull();
          const other = await store.tryLock('synthesis:other', 'holder-b', 60_000);
          expect(other).toBeTypeOf('function');
          await release!();
          const again = await store.tryLock('synthesis:default', 'holder-b', 60_000);
          expect(again).toBeTypeOf('function');
          await again!();
          await other!();
        });

        it('another connection to the same memory is refused while the lock is held', async () => {
          const p = await peer();
          const release = await store.tryLock('synthesis:default', 'holder-a', 60_000);
          expect(release).not.toBeNull();
          expect(await p.tryLock('synthesis:default', 'holder-b', 60_000)).toBeNull();
          await release!();
          const theirs = await p.tryLock('synthesis:default', 'holder-b', 60_000);
          expect(theirs).not.toBeNull();
          expect(await store.tryLock('synthesis:default', 'holder-c', 60_000)).toBeNull();
          await theirs!();
        });

        it('renewed, a lock outlives its ttl and another connection stays refused; released, it renews no more', async () => {
          const p = await peer();
          const ttl = 300;
          const held = await store.tryLock('synthesis:default', 'holder-a', ttl);
          expect(held).not.toBeNull();
          // Four times the ttl in all, renewed a little more often than it would expire.
          for (let i = 0; i < 8; i++) {
            await new Promise((r) => setTimeout(r, ttl / 2));
            expect(await held!.renew()).toBe(true);
            expect(await p.tryLock('synthesis:default', 'holder-b', 60_000), `after ${i + 1} renewals`).toBeNull();
          }
          await held!();
          expect(await held!.renew()).toBe(false);
          const theirs = await p.tryLock('synthesis:default', 'holder-b', 60_000);
          expect(theirs).not.toBeNull();
          await theirs!();
        });
      });
    });

    // Skills and what is written with them (each write as write-plan.ts plans it).
    describe('SkillStore', () => {
      describe('writeSkill', () => {
        const AT1 = '2025-02-01T00:00:00.000Z';
        const AT2 = '2025-02-02T00:00:00.000Z';

        it('add stores every field exactly, with provenance, a version, an audit record and an event', async () => {
          const s = skill({
            eta: 0.123456789012345,
            utility: -0.25,
            embedding: new Float32Array([0.1, 0.2, 0.3]),
            exemplars: new Float32Array([0.6, 0.8, 0, 0, 0.6, 0.8]),
            exemplarSources: [['s1', 's2'], null],
            lastUsedAt: '2025-01-05T00:00:00.000Z',
          });
          const saved = await store.writeSkill({
            action: 'add',
            skill: s,
            parents: [
              { kind: 'episodic', id: 's2' },
              { kind: 'episodic', id: 's1' },
              { kind: 'semantic', id: 'f1' },
            ],
            actor: 'synth',
            detail: { why: 'test' },
            at: AT1,
          });
          expect({
            ...saved,
            embedding: Array.from(saved.embedding!),
            exemplars: Array.from(saved.exemplars!),
          }).toEqual({
            ...s,
            sourceSessions: ['s1', 's2'],
            embedding: Array.from(s.embedding!),
            exemplars: Array.from(s.exemplars!),
            // Read back, a skill says how many of its trials the judge gave: none yet.
            judgedTrials: 0,
          });
          expect(
            (await store.provenance('sk_old')).map((p) => [p.sourceKind, p.sourceId, p.version, p.createdAt]),
          ).toEqual([
            ['semantic', 'f1', '1.0.0', AT1],
            ['episodic', 's1', '1.0.0', AT1],
            ['episodic', 's2', '1.0.0', AT1],
          ]);
          expect(await store.skillVersions('sk_old')).toEqual([
            {
              skillId: 'sk_old',
              version: '1.0.0',
              skillMd: s.skillMd,
              toolSequence: s.toolSequence,
              reason: 'add',
              createdAt: AT1,
            },
          ]);
          expect((await store.audit('default')).map((a) => [a.action, a.actor, a.subjectId, a.detail])).toEqual([
            ['skill.add', 'synth', 'sk_old', { why: 'test', version: '1.0.0', parents: 3, supersedes: null }],
          ]);
          expect((await store.events('default')).map((e) => [e.type, e.skillId, e.payload.name])).toEqual([
            ['skill.created', 'sk_old', 'cancel-order'],
          ]);
        });

        it('reinforce updates counts and text and adds provenance, amending its version row; update adds one', async () => {
          await store.writeSkill({
            action: 'add',
            skill: skill(),
            parents: [{ kind: 'episodic', id: 's1' }],
            actor: 'synth',
            detail: {},
            at: AT1,
          });
          await store.writeSkill({
            action: 'reinforce',
            skill: skill({ support: 5, successCount: 5, attemptCount: 6, skillMd: 'reinforced text', updatedAt: AT2 }),
            parents: [{ kind: 'episodic', id: 's2' }],
            actor: 'synth',
            detail: {},
            at: AT2,
          });
          let got = (await store.getSkill('default', 'sk_old'))!;
          expect(got).toMatchObject({
            support: 5,
            successCount: 5,
            attemptCount: 6,
            updatedAt: AT2,
            createdAt: '2025-01-02T00:00:00.000Z',
            sourceSessions: ['s1', 's2'],
          });
          // The version row holds the skill's text as it is now; its reason and time are its first write's.
          expect(
            (await store.skillVersions('sk_old')).map((v) => [v.version, v.skillMd, v.reason, v.createdAt]),
          ).toEqual([['1.0.0', 'reinforced text', 'add', AT1]]);
          await store.writeSkill({
            action: 'update',
            skill: skill({ version: '1.1.0', body: 'new body', updatedAt: AT2 }),
            parents: [],
            actor: 'synth',
            detail: {},
            at: AT2,
          });
          got = (await store.getSkill('default', 'sk_old'))!;
          expect(got.version).toBe('1.1.0');
          expect(got.body).toBe('new body');
          expect((await store.skillVersions('sk_old')).map((v) => [v.version, v.reason])).toEqual([
            ['1.0.0', 'add'],
            ['1.1.0', 'update'],
          ]);
          expect((await store.events('default')).map((e) => e.type)).toEqual([
            'skill.created',
            'skill.reinforced',
            'skill.updated',
          ]);
        });

        it('rename writes the row under its new name as a new version, with its audit record and event; the old name is free', async () => {
          await store.writeSkill({ action: 'add', skill: skill(), parents: [], actor: 'synth', detail: {}, at: AT1 });
          await store.writeSkill({
            action: 'rename',
            skill: skill({ name: 'refund-to-card', version: '1.1.0', skillMd: 'renamed text', updatedAt: AT2 }),
            parents: [],
            actor: 'user',
            detail: { from: 'cancel-order', to: 'refund-to-card' },
            at: AT2,
          });
          expect(await store.getSkill('default', 'cancel-order')).toBeNull();
          expect((await store.getSkill('default', 'refund-to-card'))!).toMatchObject({
            id: 'sk_old',
            version: '1.1.0',
          });
          expect((await store.skillVersions('sk_old')).map((v) => [v.version, v.reason, v.skillMd])).toEqual([
            ['1.0.0', 'add', skill().skillMd],
            ['1.1.0', 'rename', 'renamed text'],
          ]);
          expect((await store.events('default')).map((e) => [e.type, e.payload.name, e.payload.from])).toEqual([
            ['skill.created', 'cancel-order', undefined],
            ['skill.renamed', 'refund-to-card', 'cancel-order'],
          ]);
          // Newest first.
          expect((await store.audit('default')).map((a) => [a.action, a.actor])).toEqual([
            ['skill.rename', 'user'],
            ['skill.add', 'synth'],
          ]);
          // The old name is free for another skill.
          await store.writeSkill({
            action: 'add',
            skill: skill({ id: 'sk_other', name: 'cancel-order' }),
            parents: [],
            actor: 'synth',
            detail: {},
            at: AT2,
          });
          expect((await store.getSkill('default', 'cancel-order'))!.id).toBe('sk_other');
        });

        it("a person's edit and its revert are versions of the same skill, with their audit records and events", async () => {
          await store.writeSkill({ action: 'add', skill: skill(), parents: [], actor: 'synth', detail: {}, at: AT1 });
          const edited = skill({ version: '1.1.0', skillMd: 'edited text', toolSequence: ['a', 'c'], updatedAt: AT2 });
          await store.writeSkill({ action: 'edit', skill: edited, parents: [], actor: 'cli', detail: {}, at: AT2 });
          // A pass that reinforces the edited skill amends its version: the reason stays the person's.
          await store.writeSkill({
            action: 'reinforce',
            skill: { ...edited, skillMd: 'edited text, more support', support: 9 },
            parents: [],
            actor: 'synth',
            detail: {},
            at: AT2,
          });
          await store.writeSkill({
            action: 'revert',
            skill: skill({ version: '1.2.0', skillMd: 'learned text', updatedAt: AT2 }),
            parents: [],
            actor: 'cli',
            detail: {},
            at: AT2,
          });
          expect(
            (await store.skillVersions('sk_old')).map((v) => [v.version, v.reason, v.skillMd, v.toolSequence]),
          ).toEqual([
            ['1.0.0', 'add', skill().skillMd, skill().toolSequence],
            ['1.1.0', 'edit', 'edited text, more support', ['a', 'c']],
            ['1.2.0', 'revert', 'learned text', skill().toolSequence],
          ]);
          expect((await store.events('default')).map((e) => e.type)).toEqual([
            'skill.created',
            'skill.edited',
            'skill.reinforced',
            'skill.reverted',
          ]);
          expect((await store.audit('default')).map((a) => [a.action, a.actor]).slice(0, 2)).toEqual([
            ['skill.revert', 'cli'],
            ['skill.reinforce', 'synth'],
          ]);
          expect((await store.getSkill('default', 'sk_old'))!).toMatchObject({
            version: '1.2.0',
            skillMd: 'learned text',
          });
        });

        it('a version written again takes the new text and keeps the reason and time of its first write', async () => {
          await store.writeSkill({
            action: 'add',
            skill: skill({ skillMd: '---\nname: old\n---\nplain' }),
            parents: [{ kind: 'episodic', id: 's1' }],
            actor: 'synth',
            detail: {},
            at: AT1,
          });
          // The pass amends the version it wrote (its branch stage): same version, new text and tools.
          await store.writeSkill({
            action: 'update',
            skill: skill({
              skillMd: '---\nname: old\n---\nbranched',
              body: 'branched',
              toolSequence: ['a', 'b'],
              updatedAt: AT2,
            }),
            parents: [],
            actor: 'synth',
            detail: {},
            at: AT2,
          });
          expect(await store.skillVersions('sk_old')).toEqual([
            {
              skillId: 'sk_old',
              version: '1.0.0',
              skillMd: '---\nname: old\n---\nbranched',
              toolSequence: ['a', 'b'],
              reason: 'add',
              createdAt: AT1,
            },
          ]);
          expect((await store.getSkill('default', 'sk_old'))!.skillMd).toBe('---\nname: old\n---\nbranched');
        });

        it('an import keeps its folder files byte for byte, per version; learned skills have none', async () => {
          const bin = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x0a, 0x0d]);
          const v1 = [
            { path: 'SKILL.md', bytes: Buffer.from('---\nname: cancel-order\ndescription: d\n---\n\n# Body\r\n') },
            { path: 'assets/x.png', bytes: bin },
            { path: 'scripts/run.sh', bytes: Buffer.from('#!/bin/sh\necho ok\n'), executable: true },
          ];
          await store.writeSkill({
            action: 'import',
            skill: skill({ corpus: 'external' }),
            parents: [],
            actor: 'user',
            detail: {},
            files: v1,
            at: AT1,
          });
          expect(await store.skillFiles('sk_old', '1.0.0')).toEqual(v1);
          const v2 = [{ path: 'SKILL.md', bytes: Buffer.from('changed') }];
          await store.writeSkill({
            action: 'import',
            skill: skill({ corpus: 'external', version: '1.0.1', updatedAt: AT2 }),
            parents: [],
            actor: 'user',
            detail: {},
            files: v2,
            at: AT2,
          });
          expect(await store.skillFiles('sk_old', '1.0.1')).toEqual(v2);
          expect(await store.skillFiles('sk_old', '1.0.0')).toEqual(v1);
          expect(await store.skillFiles('sk_nope', '1.0.0')).toEqual([]);
        });

        it('supersede marks the old row superseded_by the new one; both rows exist', async () => {
          const old = await store.writeSkill({
            action: 'add',
            skill: skill(),
            parents: [{ kind: 'episodic', id: 's1' }],
            actor: 'synth',
            detail: {},
            at: AT1,
          });
          expect(old.supersededBy).toBeNull();
          expect(old.sourceSessions).toEqual(['s1']);

          const next = skill({ id: 'sk_new', version: '2.0.0', createdAt: AT2, updatedAt: AT2 });
          const saved = await store.writeSkill({
            action: 'supersede',
            skill: next,
            supersedes: 'sk_old',
            parents: [{ kind: 'episodic', id: 's2' }],
            actor: 'synth',
            detail: {},
            at: AT2,
          });
          expect(saved.id).toBe('sk_new');
          expect(saved.supersededBy).toBeNull();

          const oldRow = await store.getSkill('default', 'sk_old');
          expect(oldRow?.supersededBy).toBe('sk_new');
          expect((await store.listSkills('default', { includeSuperseded: true })).map((s) => s.id).sort()).toEqual([
            'sk_new',
            'sk_old',
          ]);
          expect((await store.listSkills('default')).map((s) => s.id)).toEqual(['sk_new']);
          // By name, the live row wins.
          expect((await store.getSkill('default', 'cancel-order'))?.id).toBe('sk_new');
          const events = await store.events('default');
          expect(events.map((e) => [e.type, e.skillId])).toEqual([
            ['skill.created', 'sk_old'],
            ['skill.created', 'sk_new'],
            ['skill.superseded', 'sk_old'],
          ]);
          expect((await store.audit('default', { subjectId: 'sk_new' })).map((a) => a.action)).toEqual([
            'skill.supersede',
          ]);
          expect((await store.skillVersions('sk_new')).map((v) => v.version)).toEqual(['2.0.0']);
        });

        it('a failing supersede (unknown skill id) writes nothing: no skill row, provenance, version, audit or event', async () => {
          await store.writeSkill({
            action: 'add',
            skill: skill(),
            parents: [{ kind: 'episodic', id: 's1' }],
            actor: 'synth',
            detail: {},
            at: AT1,
          });
          const before = await skillSnapshot('default', ['sk_new']);

          await expect(
            store.writeSkill({
              action: 'supersede',
              skill: skill({ id: 'sk_new', name: 'cancel-order-v2' }),
              supersedes: 'sk_does_not_exist',
              parents: [{ kind: 'episodic', id: 's2' }],
              actor: 'synth',
              detail: {},
              at: AT2,
            }),
          ).rejects.toThrow(/sk_does_not_exist/);

          expect(await skillSnapshot('default', ['sk_new'])).toEqual(before);
          expect(await store.getSkill('default', 'sk_new')).toBeNull();
          expect(await store.provenance('sk_new')).toEqual([]);
        });

        it('a supersede that fails after marking the old row is rolled back: the old skill stays live', async () => {
          await store.writeSkill({ action: 'add', skill: skill(), parents: [], actor: 'synth', detail: {}, at: AT1 });
          const before = await skillSnapshot('default', ['sk_broken']);
          // The new row breaks a NOT NULL constraint, so the INSERT fails after the UPDATE of the old row ran.
          const broken = skill({ id: 'sk_broken', description: null as unknown as string });
          await expect(
            store.writeSkill({
              action: 'supersede',
              skill: broken,
              supersedes: 'sk_old',
              parents: [{ kind: 'episodic', id: 's9' }],
              actor: 'synth',
              detail: {},
              at: AT2,
            }),
          ).rejects.toThrow();
          expect(await skillSnapshot('default', ['sk_broken'])).toEqual(before);
          expect((await store.getSkill('default', 'sk_old'))?.supersededBy).toBeNull();
          expect(await store.provenance('sk_broken')).toEqual([]);
        });

        it('superseding an already superseded skill fails', async () => {
          await store.writeSkill({ action: 'add', skill: skill(), parents: [], actor: 'synth', detail: {}, at: AT1 });
          await store.writeSkill({
            action: 'supersede',
            skill: skill({ id: 'sk_2' }),
            supersedes: 'sk_old',
            parents: [],
            actor: 'synth',
            detail: {},
            at: AT2,
          });
          await expect(
            store.writeSkill({
              action: 'supersede',
              skill: skill({ id: 'sk_3' }),
              supersedes: 'sk_old',
              parents: [],
              actor: 'synth',
              detail: {},
              at: AT2,
            }),
          ).rejects.toThrow(/sk_old/);
          expect(await store.getSkill('default', 'sk_3')).toBeNull();
          expect((await store.getSkill('default', 'sk_old'))?.supersededBy).toBe('sk_2');
        });

        it('two live skills of one namespace and corpus cannot share a name; other corpora and namespaces can', async () => {
          await store.writeSkill({ action: 'add', skill: skill(), parents: [], actor: 'synth', detail: {}, at: AT1 });
          await expect(
            store.writeSkill({
              action: 'add',
              skill: skill({ id: 'sk_dup' }),
              parents: [],
              actor: 'synth',
              detail: {},
              at: AT1,
            }),
          ).rejects.toThrow();
          await store.writeSkill({
            action: 'import',
            skill: skill({ id: 'sk_ext', corpus: 'external' }),
            parents: [],
            actor: 'user',
            detail: {},
            at: AT1,
          });
          await store.writeSkill({
            action: 'add',
            skill: skill({ id: 'sk_other', namespace: 'other' }),
            parents: [],
            actor: 'synth',
            detail: {},
            at: AT1,
          });
          // By name: internal before external.
          expect((await store.getSkill('default', 'cancel-order'))?.id).toBe('sk_old');
          expect((await store.listSkills('default', { corpus: 'external' })).map((s) => s.id)).toEqual(['sk_ext']);
        });

        it('listSkills filters by corpus, status, enabled and supersession, oldest first', async () => {
          await store.writeSkill({
            action: 'add',
            skill: skill({ id: 'b', name: 'b', createdAt: '2025-01-03T00:00:00.000Z' }),
            parents: [],
            actor: 's',
            detail: {},
            at: AT1,
          });
          await store.writeSkill({
            action: 'add',
            skill: skill({ id: 'a', name: 'a', createdAt: '2025-01-01T00:00:00.000Z', status: 'active' }),
            parents: [],
            actor: 's',
            detail: {},
            at: AT1,
          });
          await store.writeSkill({
            action: 'add',
            skill: skill({
              id: 'c',
              name: 'c',
              createdAt: '2025-01-02T00:00:00.000Z',
              enabled: false,
              status: 'retired',
            }),
            parents: [],
            actor: 's',
            detail: {},
            at: AT1,
          });
          await store.writeSkill({
            action: 'import',
            skill: skill({ id: 'd', name: 'd', corpus: 'external', createdAt: '2025-01-04T00:00:00.000Z' }),
            parents: [],
            actor: 's',
            detail: {},
            at: AT1,
          });
          const ids = async (f?: Parameters<Store['listSkills']>[1]) =>
            (await store.listSkills('default', f)).map((s) => s.id);
          expect(await ids()).toEqual(['a', 'c', 'b', 'd']);
          expect(await ids({ corpus: 'internal' })).toEqual(['a', 'c', 'b']);
          expect(await ids({ status: ['active', 'retired'] })).toEqual(['a', 'c']);
          expect(await ids({ enabled: false })).toEqual(['c']);
          expect(await ids({ enabled: true, corpus: 'internal', status: ['probationary'] })).toEqual(['b']);
          expect(await store.listSkills('elsewhere')).toEqual([]);
        });
      });

      describe('setSkillEnabled', () => {
        it('writes an audit record and an event for each change, by id or by name', async () => {
          await store.writeSkill({
            action: 'add',
            skill: skill(),
            parents: [],
            actor: 'synth',
            detail: {},
            at: '2025-02-01T00:00:00.000Z',
          });
          const auditBefore = (await store.audit('default')).length;
          const lastEvent = (await store.events('default')).at(-1)!.id;

          const off = await store.setSkillEnabled('default', 'cancel-order', false, 'alice');
          expect(off?.enabled).toBe(false);
          expect((await store.getSkill('default', 'sk_old'))?.enabled).toBe(false);
          const on = await store.setSkillEnabled('default', 'sk_old', true, 'bob');
          expect(on?.enabled).toBe(true);

          const audit = await store.audit('default', { subjectId: 'sk_old' });
          expect(audit.length).toBe(auditBefore + 2);
          // Newest first.
          expect(audit.slice(0, 2).map((a) => [a.action, a.actor, a.subjectKind, a.subjectId])).toEqual([
            ['skill.enable', 'bob', 'skill', 'sk_old'],
            ['skill.disable', 'alice', 'skill', 'sk_old'],
          ]);
          const events = await store.events('default', { afterId: lastEvent });
          expect(events.map((e) => [e.type, e.skillId])).toEqual([
            ['skill.disabled', 'sk_old'],
            ['skill.enabled', 'sk_old'],
          ]);
          expect(events[0].payload).toMatchObject({ name: 'cancel-order' });
        });

        it('returns null for an unknown skill and records nothing', async () => {
          expect(await store.setSkillEnabled('default', 'ghost', false, 'alice')).toBeNull();
          expect(await store.audit('default')).toEqual([]);
          expect(await store.events('default')).toEqual([]);
          expect(await store.lastEventId()).toBe(0);
        });

        it('does not reach a skill of another namespace', async () => {
          await store.writeSkill({
            action: 'add',
            skill: skill(),
            parents: [],
            actor: 'synth',
            detail: {},
            at: '2025-02-01T00:00:00.000Z',
          });
          expect(await store.setSkillEnabled('elsewhere', 'cancel-order', false, 'alice')).toBeNull();
          expect((await store.getSkill('default', 'sk_old'))?.enabled).toBe(true);
          expect(await store.events('elsewhere')).toEqual([]);
          expect(await store.getSkill('elsewhere', 'sk_old')).toBeNull();
        });
      });

      describe('feedback', () => {
        const trial = (pass: boolean, over: Partial<Parameters<Store['applyFeedback']>[0]> = {}) => ({
          namespace: 'default',
          idOrName: 'cancel-order',
          signal: pass ? 'trial.pass' : 'trial.fail',
          value: null,
          sessionId: null,
          actor: 'outcome',
          at: '2025-02-03T00:00:00.000Z',
          compute: (s: Skill) => {
            const attempted = s.trialsAttempted + 1;
            const passed = s.trialsPassed + (pass ? 1 : 0);
            const eta = (passed + 1) / (attempted + 2);
            return {
              status: attempted >= 3 ? (eta >= 0.5 ? ('active' as const) : ('retired' as const)) : s.status,
              eta,
              utility: s.utility + 0.1,
              trialsAttempted: attempted,
              trialsPassed: passed,
            };
          },
          ...over,
        });

        it('applies a signal with its history, audit record and events for eta and status changes', async () => {
          await store.writeSkill({
            action: 'add',
            skill: skill(),
            parents: [],
            actor: 'synth',
            detail: {},
            at: '2025-02-01T00:00:00.000Z',
          });
          const mark = await store.lastEventId();
          const r1 = await store.applyFeedback(trial(false));
          expect(r1?.before.eta).toBe(0.5);
          expect(r1?.after).toMatchObject({
            trialsAttempted: 1,
            trialsPassed: 0,
            eta: 1 / 3,
            status: 'probationary',
            updatedAt: '2025-02-03T00:00:00.000Z',
          });
          await store.applyFeedback(trial(false));
          const r3 = await store.applyFeedback(trial(false));
          expect(r3?.after).toMatchObject({ trialsAttempted: 3, status: 'retired', eta: 0.2 });
          const history = await store.feedbackHistory('sk_old');
          expect(history.map((h) => [h.signal, h.statusBefore, h.statusAfter])).toEqual([
            ['trial.fail', 'probationary', 'probationary'],
            ['trial.fail', 'probationary', 'probationary'],
            ['trial.fail', 'probationary', 'retired'],
          ]);
          expect(history[0]).toMatchObject({
            skillId: 'sk_old',
            etaBefore: 0.5,
            etaAfter: 1 / 3,
            value: null,
            sessionId: null,
          });
          expect(history[2].utilityAfter).toBeCloseTo(0.3, 10);
          expect((await store.events('default', { afterId: mark })).map((e) => e.type)).toEqual([
            'skill.eta_changed',
            'skill.eta_changed',
            'skill.eta_changed',
            'skill.status_changed',
            'skill.retired',
          ]);
          expect((await store.audit('default', { subjectId: 'sk_old', limit: 1 }))[0]).toMatchObject({
            action: 'skill.feedback',
            actor: 'outcome',
          });
          expect(await store.applyFeedback(trial(true, { idOrName: 'ghost' }))).toBeNull();
          expect(await store.applyFeedback(trial(true, { namespace: 'elsewhere' }))).toBeNull();
        });

        it('counts a feedback under an idempotency key once: the same again is a repeat, another under it is refused', async () => {
          const at = '2025-02-01T00:00:00.000Z';
          await store.writeSkill({ action: 'add', skill: skill(), parents: [], actor: 'synth', detail: {}, at });
          await store.writeSkill({
            action: 'add',
            skill: skill({ id: 'sk_b', name: 'b' }),
            parents: [],
            actor: 'synth',
            detail: {},
            at,
          });
          const keyed = (key: string, over: Partial<Parameters<Store['applyFeedback']>[0]> = {}) =>
            trial(true, { actor: 'user', feedbackKey: key, ...over });
          const first = await store.applyFeedback(keyed('k1'));
          expect(first?.repeated).toBeFalsy();
          expect(first?.after.trialsAttempted).toBe(1);
          const written = await skillSnapshot('default', ['sk_old', 'sk_b']);
          const history = await store.feedbackHistory('sk_old');

          // Sent again (a retry after a lost answer): the skill as it is, nothing written.
          const again = await store.applyFeedback(keyed('k1', { at: '2025-02-04T00:00:00.000Z' }));
          expect(again).toEqual({ before: first!.after, after: first!.after, repeated: true });
          // By name or by id, the same feedback.
          expect((await store.applyFeedback(keyed('k1', { idOrName: 'sk_old' })))?.repeated).toBe(true);
          // Another signal, another value, or another skill under the key: refused, nothing written.
          await expect(store.applyFeedback(trial(false, { actor: 'user', feedbackKey: 'k1' }))).rejects.toMatchObject({
            code: 'CONFLICT',
            message: expect.stringMatching(/^this feedback id was given before, with trial\.pass for cancel-order; /),
          });
          await expect(store.applyFeedback(keyed('k1', { idOrName: 'b' }))).rejects.toMatchObject({
            code: 'CONFLICT',
            message: expect.stringMatching(/with trial\.pass for cancel-order/),
          });
          await store.applyFeedback(keyed('r1', { signal: 'reward', value: 0.5 }));
          await expect(store.applyFeedback(keyed('r1', { signal: 'reward', value: 0.7 }))).rejects.toMatchObject({
            code: 'CONFLICT',
            message: expect.stringMatching(/with reward=0\.5 for cancel-order/),
          });
          expect((await store.applyFeedback(keyed('r1', { signal: 'reward', value: 0.5 })))?.repeated).toBe(true);
          expect(await store.feedbackHistory('sk_old')).toHaveLength(history.length + 1);
          const rewarded = await skillSnapshot('default', ['sk_old', 'sk_b']);
          expect(rewarded.audit.length).toBe(written.audit.length + 1);

          // A key is one namespace's: the same key elsewhere is another feedback; an unknown skill is none.
          await store.writeSkill({
            action: 'add',
            skill: skill({ id: 'sk_x', namespace: 'elsewhere' }),
            parents: [],
            actor: 'synth',
            detail: {},
            at,
          });
          expect((await store.applyFeedback(keyed('k1', { namespace: 'elsewhere' })))?.repeated).toBeFalsy();
          expect(await store.applyFeedback(keyed('k9', { idOrName: 'ghost' }))).toBeNull();

          // Two at once under one new key, for two skills (rows locked apart), from two connections: one counts.
          const other = fx.peer ? await peer() : store;
          const both = await Promise.allSettled([
            store.applyFeedback(keyed('k2')),
            other.applyFeedback(keyed('k2', { idOrName: 'b' })),
          ]);
          expect(both.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
          expect(both.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'CONFLICT' } });
          const counted = [...(await store.feedbackHistory('sk_old')), ...(await store.feedbackHistory('sk_b'))];
          expect(counted.length).toBe(history.length + 2);
        });

        it('hands compute the latest trials asked for, newest first, only those since the skill last left retirement', async () => {
          await store.writeSkill({
            action: 'add',
            skill: skill(),
            parents: [],
            actor: 'synth',
            detail: {},
            at: '2025-02-01T00:00:00.000Z',
          });
          const seen: unknown[] = [];
          const watched = (pass: boolean, over: Partial<Parameters<Store['applyFeedback']>[0]> = {}) => {
            const t = trial(pass, over);
            return {
              ...t,
              recentTrials: 2,
              compute: (s: Skill, recent?: { trials: boolean[]; restarted: boolean }) => {
                seen.push(recent);
                return t.compute(s);
              },
            };
          };
          await store.applyFeedback(watched(true));
          await store.applyFeedback(watched(false));
          await store.applyFeedback(watched(false));
          expect(seen).toEqual([
            { trials: [], restarted: false },
            { trials: [true], restarted: false },
            { trials: [false, true], restarted: false },
          ]);
          expect((await store.getSkill('default', 'sk_old'))?.status).toBe('retired');
          // A thumb is no trial; the signal that takes the skill out of retirement starts its trials over.
          const back = (s: Skill) => ({ ...s, status: 'probationary' as const, eta: 0.6 });
          await store.applyFeedback({ ...trial(true), signal: 'user.promote', compute: back });
          seen.length = 0;
          await store.applyFeedback(watched(true));
          await store.applyFeedback(watched(true));
          expect(seen).toEqual([
            { trials: [], restarted: true },
            { trials: [true], restarted: true },
          ]);
          // Without recentTrials none are read.
          await store.applyFeedback({
            ...trial(true),
            compute: (s: Skill, recent?: unknown) => {
              seen.push(recent);
              return trial(true).compute(s);
            },
          });
          expect(seen.at(-1)).toBeUndefined();
        });

        it('oncePerSession: a session gives a skill one trial, however often its outcome is reported', async () => {
          await store.writeSkill({
            action: 'add',
            skill: skill(),
            parents: [],
            actor: 'synth',
            detail: {},
            at: '2025-02-01T00:00:00.000Z',
          });
          expect(await store.applyFeedback(trial(true, { sessionId: 'sess-1', oncePerSession: true }))).not.toBeNull();
          expect(await store.applyFeedback(trial(true, { sessionId: 'sess-1', oncePerSession: true }))).toBeNull();
          expect(await store.applyFeedback(trial(true, { sessionId: 'sess-2', oncePerSession: true }))).not.toBeNull();
          expect((await store.getSkill('default', 'sk_old'))?.trialsAttempted).toBe(2);
        });

        it("a judged trial gives way to the session's reported one: marked replaced, the rows after it restated", async () => {
          await store.writeSkill({
            action: 'add',
            skill: skill(),
            parents: [],
            actor: 'synth',
            detail: {},
            at: '2025-02-01T00:00:00.000Z',
          });
          const replays: { taken: number; rows: [string, string | null, string | null][] }[] = [];
          // A replay that says what it was given and tells each signal again with an eta of its own.
          const replaces = (final: number) => ({
            actors: ['judge'],
            replay: (s: Skill, history: readonly FeedbackRecord[], taken: number) => {
              replays.push({ taken, rows: history.map((h) => [h.signal, h.sessionId, h.actor]) });
              const state = (eta: number, status: Skill['status'] = 'active') => ({
                status,
                eta,
                utility: eta / 2,
                trialsAttempted: s.trialsAttempted,
                trialsPassed: s.trialsPassed,
              });
              const later = history.length - taken - 1;
              return [
                ...Array.from({ length: later }, (_, i) => ({ before: state(i / 4), after: state((i + 1) / 4) })),
                { before: state(later / 4), after: state(final, 'probationary') },
              ];
            },
          });
          const give = (pass: boolean, sessionId: string, actor: string, over = {}) =>
            store.applyFeedback(
              trial(pass, { sessionId, actor, oncePerSession: true, replaces: replaces(0.9), ...over }),
            );
          expect(await give(false, 'task#1', 'judge')).not.toBeNull();
          // The same judgement again (the transcript read once more) changes nothing.
          expect(await give(false, 'task#1', 'judge')).toBeNull();
          expect(await give(true, 'task#2', 'outcome')).not.toBeNull();
          await store.applyFeedback({ ...trial(true), signal: 'user.positive' });
          expect(await give(true, 'task#3', 'judge')).not.toBeNull();
          const before = (await store.feedbackHistory('sk_old')).map((h) => h.id);
          expect(replays).toEqual([]);
          const mark = await store.lastEventId();
          // The person reports task#1's outcome: its judged trial is replaced.
          const reported = await give(true, 'task#1', 'outcome');
          expect(replays).toEqual([
            {
              taken: 0,
              rows: [
                ['trial.fail', 'task#1', 'judge'],
                ['trial.pass', 'task#2', 'outcome'],
                ['user.positive', null, 'outcome'],
                ['trial.pass', 'task#3', 'judge'],
              ],
            },
          ]);
          expect(reported?.after).toMatchObject({ eta: 0.9, utility: 0.45, status: 'probationary', judgedTrials: 1 });
          expect(await store.getSkill('default', 'sk_old')).toMatchObject({
            eta: 0.9,
            status: 'probationary',
            judgedTrials: 1,
          });
          const history = await store.feedbackHistory('sk_old');
          expect(history.map((h) => [h.signal, h.sessionId, h.actor, h.replacedBy])).toEqual([
            ['trial.fail', 'task#1', 'judge', history[4].id],
            ['trial.pass', 'task#2', 'outcome', null],
            ['user.positive', null, 'outcome', null],
            ['trial.pass', 'task#3', 'judge', null],
            ['trial.pass', 'task#1', 'outcome', null],
          ]);
          expect(history.slice(0, 4).map((h) => h.id)).toEqual(before);
          // Each row after the replaced one says what the replay told; the new one follows the last of them.
          expect(history.slice(1).map((h) => [h.etaBefore, h.etaAfter, h.utilityBefore, h.utilityAfter])).toEqual([
            [0, 0.25, 0, 0.125],
            [0.25, 0.5, 0.125, 0.25],
            [0.5, 0.75, 0.25, 0.375],
            [0.75, 0.9, 0.375, 0.45],
          ]);
          expect(history[4]).toMatchObject({ statusBefore: 'active', statusAfter: 'probationary' });
          // The replaced row keeps what it said when it came.
          expect(history[0]).toMatchObject({ etaBefore: 0.5, etaAfter: 1 / 3, statusBefore: 'probationary' });
          const audit = (await store.audit('default', { subjectId: 'sk_old', limit: 1 }))[0];
          expect(audit.detail).toMatchObject({
            signal: 'trial.pass',
            session: 'task#1',
            replaces: { signal: 'trial.fail', actor: 'judge' },
          });
          expect((await store.events('default', { afterId: mark })).map((e) => e.type)).toEqual([
            'skill.eta_changed',
            'skill.status_changed',
          ]);
          // A reported trial is final: neither a judgement nor another report replaces it.
          expect(await give(false, 'task#1', 'judge')).toBeNull();
          expect(await give(false, 'task#1', 'outcome')).toBeNull();
          // A newer judgement of a task (it grew) replaces the judge's earlier one; the replaced row counts no more.
          expect(await give(false, 'task#3', 'judge')).not.toBeNull();
          expect(replays.at(-1)?.rows.map((r) => r[1])).toEqual(['task#2', null, 'task#3', 'task#1']);
          expect(replays.at(-1)?.taken).toBe(2);
          const seen: unknown[] = [];
          await store.applyFeedback({
            ...trial(true, { sessionId: 'task#4', oncePerSession: true }),
            recentTrials: 10,
            compute: (s: Skill, recent?: unknown) => {
              seen.push(recent);
              return trial(true).compute(s);
            },
          });
          // The trials that count, newest first: task#3's newer judgement, task#1's report, task#2's.
          expect(seen).toEqual([{ trials: [false, true, true], restarted: false }]);
        });

        it('withdraw: a judged trial taken back with nothing in its place; without one nothing is written', async () => {
          await store.writeSkill({
            action: 'add',
            skill: skill(),
            parents: [],
            actor: 'synth',
            detail: {},
            at: '2025-02-01T00:00:00.000Z',
          });
          const back = {
            actors: ['judge'],
            replay: (s: Skill, history: readonly FeedbackRecord[], taken: number) => [
              ...history.slice(taken + 1).map(() => ({ before: s, after: s })),
              { before: s, after: { ...s, eta: 0.5, trialsAttempted: 1, trialsPassed: 1 } },
            ],
          };
          const withdraw = (sessionId: string) =>
            store.applyFeedback({
              ...trial(true, { sessionId, oncePerSession: true, replaces: back, withdraw: true }),
              signal: 'trial.withdrawn',
            });
          expect(await withdraw('s1')).toBeNull();
          expect(await store.feedbackHistory('sk_old')).toEqual([]);
          await store.applyFeedback(trial(true, { sessionId: 's0', oncePerSession: true }));
          await store.applyFeedback(trial(false, { sessionId: 's1', actor: 'judge', oncePerSession: true }));
          // A read counts the judge's trials that count (skills list --json: judgedTrials).
          expect((await store.getSkill('default', 'sk_old'))?.judgedTrials).toBe(1);
          const mark = await store.audit('default', { subjectId: 'sk_old', limit: 1000 });
          const res = await withdraw('s1');
          expect(res?.after).toMatchObject({ eta: 0.5, trialsAttempted: 1, trialsPassed: 1, judgedTrials: 0 });
          expect((await store.getSkill('default', 'sk_old'))?.judgedTrials).toBe(0);
          expect((await store.listSkills('default')).map((k) => k.judgedTrials)).toEqual([0]);
          const history = await store.feedbackHistory('sk_old');
          expect(history.map((h) => [h.sessionId, h.actor, h.replacedBy === h.id])).toEqual([
            ['s0', 'outcome', false],
            ['s1', 'judge', true],
          ]);
          const audit = await store.audit('default', { subjectId: 'sk_old', limit: 1000 });
          expect(audit).toHaveLength(mark.length + 1);
          expect(audit[0].detail).toMatchObject({ signal: 'trial.withdrawn', replaces: { signal: 'trial.fail' } });
          // Taken back, it is no trial of the session any more: a later report gives one.
          expect(await store.applyFeedback(trial(true, { sessionId: 's1', oncePerSession: true }))).not.toBeNull();
          expect(await withdraw('s0')).toBeNull();
        });

        it('a trial that replaces none needs no replay, and a judged one is kept when nothing replaces it', async () => {
          await store.writeSkill({
            action: 'add',
            skill: skill(),
            parents: [],
            actor: 'synth',
            detail: {},
            at: '2025-02-01T00:00:00.000Z',
          });
          const never = {
            actors: ['judge'],
            replay: () => {
              throw new Error('no replay was asked for');
            },
          };
          expect(
            await store.applyFeedback(
              trial(true, { sessionId: 's1', actor: 'judge', oncePerSession: true, replaces: never }),
            ),
          ).not.toBeNull();
          // Without `replaces`, a session's trial counts once, the judge's too.
          expect(await store.applyFeedback(trial(false, { sessionId: 's1', oncePerSession: true }))).toBeNull();
          expect((await store.feedbackHistory('sk_old')).map((h) => [h.actor, h.replacedBy])).toEqual([
            ['judge', null],
          ]);
        });

        it('concurrent signals on one skill are all applied, each to the state the previous one left', async () => {
          await store.writeSkill({
            action: 'add',
            skill: skill(),
            parents: [],
            actor: 'synth',
            detail: {},
            at: '2025-02-01T00:00:00.000Z',
          });
          const results = await Promise.all(
            Array.from({ length: 12 }, (_, i) =>
              store.applyFeedback(trial(true, { sessionId: `s${i % 6}`, oncePerSession: true })),
            ),
          );
          expect(results.filter(Boolean)).toHaveLength(6);
          const after = (await store.getSkill('default', 'sk_old'))!;
          expect(after.trialsAttempted).toBe(6);
          expect(after.trialsPassed).toBe(6);
          expect(after.utility).toBeCloseTo(0.6, 10);
          expect(await store.feedbackHistory('sk_old')).toHaveLength(6);
        });
      });

      describe('recall records', () => {
        it('recordRecall remembers what was served for a session and touches last_used_at', async () => {
          await store.writeSkill({
            action: 'add',
            skill: skill(),
            parents: [],
            actor: 'synth',
            detail: {},
            at: '2025-02-01T00:00:00.000Z',
          });
          await store.writeSkill({
            action: 'add',
            skill: skill({ id: 'sk_b', name: 'b' }),
            parents: [],
            actor: 'synth',
            detail: {},
            at: '2025-02-01T00:00:00.000Z',
          });
          await store.recordRecall('default', {
            sessionId: 'sess-1',
            goal: 'cancel',
            at: '2025-02-05T00:00:00.000Z',
            items: [{ skillId: 'sk_old', rank: 0, similarity: 0.9 }],
          });
          await store.recordRecall('default', {
            sessionId: 'sess-1',
            goal: 'cancel again',
            at: '2025-02-06T00:00:00.000Z',
            items: [
              { skillId: 'sk_old', rank: 0, similarity: 0.8 },
              { skillId: 'sk_b', rank: 1, similarity: 0.7 },
            ],
          });
          await store.recordRecall('default', {
            sessionId: null,
            goal: 'no session',
            at: '2025-02-07T00:00:00.000Z',
            items: [],
          });
          expect(await store.skillsServedForSession('default', 'sess-1')).toEqual(['sk_b', 'sk_old']);
          expect(await store.skillsServedForSession('default', 'sess-2')).toEqual([]);
          expect(await store.skillsServedForSession('other', 'sess-1')).toEqual([]);
          expect((await store.getSkill('default', 'sk_old'))?.lastUsedAt).toBe('2025-02-06T00:00:00.000Z');
          await store.touchSkills('default', ['sk_b'], '2025-02-08T00:00:00.000Z');
          await store.touchSkills('other', ['sk_old'], '2025-02-09T00:00:00.000Z');
          const listed = await store.listSkills('default');
          expect(listed.map((s) => [s.id, s.lastUsedAt])).toEqual([
            ['sk_b', '2025-02-08T00:00:00.000Z'],
            ['sk_old', '2025-02-06T00:00:00.000Z'],
          ]);
        });

        it("moves a hook's recalls from the agent's session id to the task they served, once", async () => {
          const at = '2025-02-01T00:00:00.000Z';
          await store.writeSkill({ action: 'add', skill: skill(), parents: [], actor: 'synth', detail: {}, at });
          await store.writeSkill({
            action: 'add',
            skill: skill({ id: 'sk_b', name: 'b' }),
            parents: [],
            actor: 'synth',
            detail: {},
            at,
          });
          const recall = (sessionId: string | null, goal: string, when: string, skillId: string) =>
            store.recordRecall('default', {
              sessionId,
              goal,
              at: when,
              items: [{ skillId, rank: 0, similarity: 0.91 }],
            });
          await recall('cc:S', 'first request', '2025-02-05T00:00:00.000Z', 'sk_old');
          await recall('cc:S', 'second request', '2025-02-05T01:00:00.000Z', 'sk_b');
          await recall('cc:T', 'another agent session', '2025-02-05T02:00:00.000Z', 'sk_b');
          await store.recordRecall('other', {
            sessionId: 'cc:S',
            goal: 'another namespace',
            at,
            items: [{ skillId: 'sk_b', rank: 0, similarity: 0.9 }],
          });
          const held = await store.recallsHeldBy('default', ['cc:S', 'cc:S#2']);
          expect(held.map((r) => [r.sessionId, r.goal, r.at])).toEqual([
            ['cc:S', 'first request', '2025-02-05T00:00:00.000Z'],
            ['cc:S', 'second request', '2025-02-05T01:00:00.000Z'],
          ]);
          const second = held[1]!;
          const moveAt = '2025-02-06T00:00:00.000Z';
          expect(
            await store.moveRecalls('default', [{ recallId: second.id, from: 'cc:S', to: 'cc:S#2' }], {
              actor: 'capture',
              at: moveAt,
            }),
          ).toBe(1);
          // Moved already (another ingest did it first): left where it is.
          expect(await store.moveRecalls('default', [{ recallId: second.id, from: 'cc:S', to: 'cc:S#3' }])).toBe(0);
          // One audit record for the move that happened, naming the recall and where it went from and to.
          expect((await store.audit('default')).filter((a) => a.action === 'recall.move')).toEqual([
            {
              id: expect.any(Number),
              namespace: 'default',
              at: moveAt,
              actor: 'capture',
              action: 'recall.move',
              subjectKind: 'recall',
              subjectId: String(second.id),
              detail: { recall: second.id, from: 'cc:S', to: 'cc:S#2' },
            },
          ]);
          expect(await store.skillsServedForSession('default', 'cc:S')).toEqual(['sk_old']);
          expect(await store.skillsServedForSession('default', 'cc:S#2')).toEqual(['sk_b']);
          expect(await store.skillsServedForSession('other', 'cc:S')).toEqual(['sk_b']);
          expect(await store.recalledForSession('default', 'cc:S#2')).toEqual([
            { skillId: 'sk_b', name: 'b', similarity: 0.91, rank: 0, at: '2025-02-05T01:00:00.000Z' },
          ]);
          expect(await store.recalledForSession('default', 'cc:S#3')).toEqual([]);
          expect((await store.recallsHeldBy('default', ['cc:T'])).map((r) => r.goal)).toEqual([
            'another agent session',
          ]);
        });
      });

      describe('skill revision and vectors (the recall index)', () => {
        const at = '2025-02-01T00:00:00.000Z';
        it('grows with what recall serves or shows, per namespace, not with a recall touch', async () => {
          const r0 = await store.skillRevision('default');
          expect(typeof r0.storeId).toBe('string');
          expect(r0.storeId.length).toBeGreaterThan(0);
          await store.writeSkill({ action: 'add', skill: skill(), parents: [], actor: 'synth', detail: {}, at });
          const r1 = await store.skillRevision('default');
          expect(r1.storeId).toBe(r0.storeId);
          expect(r1.revision).toBeGreaterThan(r0.revision);
          expect((await store.skillRevision('other')).revision).toBe((await store.skillRevision('other')).revision);

          await store.recordRecall('default', {
            sessionId: null,
            goal: 'cancel',
            at,
            items: [{ skillId: 'sk_old', rank: 0, similarity: 0.9 }],
          });
          await store.touchSkills('default', ['sk_old'], at);
          await store.getSkill('default', 'sk_old'); // flushes a queued recall
          expect((await store.skillRevision('default')).revision).toBe(r1.revision);

          await store.setSkillEnabled('default', 'sk_old', false, 'alice');
          const r2 = await store.skillRevision('default');
          expect(r2.revision).toBeGreaterThan(r1.revision);
          await store.applyFeedback({
            namespace: 'default',
            idOrName: 'sk_old',
            signal: 'user.positive',
            value: null,
            sessionId: null,
            actor: 'u',
            at,
            compute: (x) => ({ ...x, eta: 0.6 }),
          });
          expect((await store.skillRevision('default')).revision).toBeGreaterThan(r2.revision);
          // Another namespace's writes leave this one's revision alone.
          const before = await store.skillRevision('default');
          await store.writeSkill({
            action: 'add',
            skill: skill({ id: 'sk_x', namespace: 'other' }),
            parents: [],
            actor: 'synth',
            detail: {},
            at,
          });
          expect((await store.skillRevision('default')).revision).toBe(before.revision);
        });

        it('lists every skill vector, or only those changed after a revision, and the revision they reflect', async () => {
          await store.writeSkill({ action: 'add', skill: skill(), parents: [], actor: 'synth', detail: {}, at });
          await store.writeSkill({
            action: 'add',
            skill: skill({ id: 'sk_b', name: 'b', embedding: null, embedderId: null }),
            parents: [],
            actor: 'synth',
            detail: {},
            at,
          });
          const all = await store.skillVectors('default');
          expect(all.changedIds).toBeNull();
          expect(all.revision).toEqual(await store.skillRevision('default'));
          const byId = new Map(all.rows.map((r) => [r.id, r]));
          expect([...byId.keys()].sort()).toEqual(['sk_b', 'sk_old']);
          expect(byId.get('sk_old')).toMatchObject({
            corpus: 'internal',
            enabled: true,
            status: 'probationary',
            eta: 0.5,
            utility: skill().utility,
            name: skill().name,
            description: skill().description,
            supersededBy: null,
            embedderId: 'test-embedder',
          });
          expect(Array.from(byId.get('sk_old')!.embedding!)).toEqual(Array.from(new Float32Array([0.6, 0.8, 0])));
          expect(byId.get('sk_b')!.embedding).toBeNull();

          const none = await store.skillVectors('default', { changedAfter: all.revision.revision });
          expect(none.changedIds).toEqual([]);
          expect(none.rows).toEqual([]);

          await store.setSkillEnabled('default', 'sk_b', false, 'alice');
          const delta = await store.skillVectors('default', { changedAfter: all.revision.revision });
          expect(delta.changedIds).toEqual(['sk_b']);
          expect(delta.rows.map((r) => [r.id, r.enabled])).toEqual([['sk_b', false]]);
          expect(delta.revision.revision).toBeGreaterThan(all.revision.revision);
        });

        it("sees another connection's writes", async () => {
          const p = await peer();
          const r0 = await store.skillRevision('default');
          await p.writeSkill({ action: 'add', skill: skill(), parents: [], actor: 'synth', detail: {}, at });
          expect((await store.skillRevision('default')).revision).toBeGreaterThan(r0.revision);
          expect((await store.skillVectors('default', { changedAfter: r0.revision })).changedIds).toEqual(['sk_old']);
        });

        it('recallSkills returns what recall serves of the known skills of the namespace only', async () => {
          await store.writeSkill({ action: 'add', skill: skill(), parents: [], actor: 'synth', detail: {}, at });
          await store.writeSkill({
            action: 'add',
            skill: skill({ id: 'sk_x', namespace: 'other' }),
            parents: [],
            actor: 'synth',
            detail: {},
            at,
          });
          const got = await store.recallSkills('default', ['sk_old', 'sk_x', 'ghost', 'sk_old']);
          expect(got.map((s) => [s.id, s.name, s.body])).toEqual([
            ['sk_old', 'cancel-order', '# Cancel order\n\n1. a\n2. b\n'],
          ]);
          expect(await store.recallSkills('default', [])).toEqual([]);
        });
      });
    });

    // The event log and the audit trail.
    describe('EventLog', () => {
      describe('events and audit', () => {
        it('events are read per namespace after an id; audit records of every namespace in id order', async () => {
          expect(await store.lastEventId()).toBe(0);
          await store.appendEvent('default', 'skill.exported', 'sk_1', { path: '/x' }, '2025-02-01T00:00:00.000Z');
          await store.appendEvent('other', 'skill.exported', null, {}, '2025-02-01T00:00:01.000Z');
          await store.appendEvent('default', 'custom', null, { n: 2 }, '2025-02-01T00:00:02.000Z');
          const events = await store.events('default');
          expect(events.map((e) => [e.type, e.skillId, e.payload])).toEqual([
            ['skill.exported', 'sk_1', { path: '/x' }],
            ['custom', null, { n: 2 }],
          ]);
          expect(await store.events('default', { afterId: events[0].id })).toHaveLength(1);
          expect(await store.events('default', { limit: 1 })).toHaveLength(1);
          expect(await store.lastEventId()).toBe(Math.max(...events.map((e) => e.id)));
          // Per namespace: what one tenant is told of the log is its own newest event.
          const other = (await store.events('other'))[0].id;
          await store.appendEvent('other', 'custom', null, {}, '2025-02-01T00:00:03.000Z');
          expect(await store.lastEventId('default')).toBe(events[1].id);
          expect(await store.lastEventId('other')).toBeGreaterThan(other);
          expect(await store.lastEventId('nobody')).toBe(0);

          await store.appendAudit({
            namespace: 'default',
            at: '2025-02-01T00:00:00.000Z',
            actor: 'a',
            action: 'x.one',
            subjectKind: 'k',
            subjectId: 'id1',
            detail: { a: 1 },
          });
          await store.appendAudit({
            namespace: 'other',
            at: '2025-02-01T00:00:00.000Z',
            actor: 'b',
            action: 'x.two',
            subjectKind: 'k',
            subjectId: 'id2',
            detail: {},
          });
          const all = await store.auditSince(0, 100);
          expect(all.map((a) => [a.namespace, a.action, a.detail])).toEqual([
            ['default', 'x.one', { a: 1 }],
            ['other', 'x.two', {}],
          ]);
          expect(await store.auditSince(all[0].id!, 100)).toHaveLength(1);
          expect((await store.audit('default')).map((a) => a.action)).toEqual(['x.one']);
        });
      });

      // One place (write-plan.ts) decides what each write appends; both back ends must append exactly that.
      describe('what each write appends', () => {
        const AT = '2025-05-01T00:00:00.000Z';
        const AT2 = '2025-05-02T00:00:00.000Z';
        const signal = (
          compute: (s: Skill) => Pick<Skill, 'status' | 'eta' | 'utility' | 'trialsAttempted' | 'trialsPassed'>,
        ) => ({
          namespace: 'default',
          idOrName: 'sk_new',
          signal: 'trial.fail',
          value: 0.25,
          sessionId: 'sess-9',
          actor: 'outcome',
          at: AT2,
          compute,
        });

        it('skill writes, supersede, enable, feedback and forget: the exact audit records and events', async () => {
          await store.writeSkill({
            action: 'add',
            skill: skill(),
            parents: [{ kind: 'episodic', id: 's1' }],
            actor: 'synth',
            detail: { cluster: 'c1' },
            at: AT,
          });
          await store.writeSkill({
            action: 'supersede',
            skill: skill({ id: 'sk_new', version: '2.0.0', createdAt: AT, updatedAt: AT }),
            supersedes: 'sk_old',
            parents: [],
            actor: 'synth',
            detail: {},
            at: AT,
          });
          await store.writeSkill({
            action: 'reinforce',
            skill: skill({ id: 'sk_new', version: '2.0.0', successCount: 4 }),
            parents: [{ kind: 'episodic', id: 's2' }],
            actor: 'synth',
            detail: { n: 1 },
            at: AT,
          });
          await store.setSkillEnabled('default', 'sk_new', false, 'user');
          // A signal that moves neither eta nor status: an audit record, no event.
          await store.applyFeedback(
            signal((s) => ({
              status: s.status,
              eta: s.eta,
              utility: s.utility,
              trialsAttempted: s.trialsAttempted + 1,
              trialsPassed: s.trialsPassed,
            })),
          );
          await store.applyFeedback(
            signal((s) => ({
              status: 'retired',
              eta: 0.1,
              utility: -0.5,
              trialsAttempted: s.trialsAttempted + 1,
              trialsPassed: s.trialsPassed,
            })),
          );
          await store.forgetSkill('default', 'sk_new', { actor: 'user', at: AT2 });

          const events = await store.events('default');
          expect(events.map((e) => [e.type, e.skillId, e.payload])).toEqual([
            [
              'skill.created',
              'sk_old',
              { name: 'cancel-order', cluster: 'c1', version: '1.0.0', parents: 1, supersedes: null },
            ],
            ['skill.created', 'sk_new', { name: 'cancel-order', version: '2.0.0', parents: 0, supersedes: 'sk_old' }],
            ['skill.superseded', 'sk_old', { by: 'sk_new' }],
            [
              'skill.reinforced',
              'sk_new',
              { name: 'cancel-order', n: 1, version: '2.0.0', parents: 1, supersedes: null },
            ],
            ['skill.disabled', 'sk_new', { name: 'cancel-order' }],
            ['skill.eta_changed', 'sk_new', { name: 'cancel-order', from: 0.5, to: 0.1, signal: 'trial.fail' }],
            ['skill.status_changed', 'sk_new', { name: 'cancel-order', from: 'probationary', to: 'retired' }],
            ['skill.retired', 'sk_new', { name: 'cancel-order' }],
            ['skill.forgotten', 'sk_new', { name: 'cancel-order', version: '2.0.0', corpus: 'internal' }],
          ]);
          expect(events.every((e) => e.namespace === 'default')).toBe(true);
          const audit = (await store.audit('default', { limit: 100 })).reverse();
          expect(audit.map((a) => [a.action, a.actor, a.subjectKind, a.subjectId, a.detail])).toEqual([
            [
              'skill.add',
              'synth',
              'skill',
              'sk_old',
              { cluster: 'c1', version: '1.0.0', parents: 1, supersedes: null },
            ],
            ['skill.supersede', 'synth', 'skill', 'sk_new', { version: '2.0.0', parents: 0, supersedes: 'sk_old' }],
            ['skill.reinforce', 'synth', 'skill', 'sk_new', { n: 1, version: '2.0.0', parents: 1, supersedes: null }],
            ['skill.disable', 'user', 'skill', 'sk_new', { name: 'cancel-order' }],
            [
              'skill.feedback',
              'outcome',
              'skill',
              'sk_new',
              {
                signal: 'trial.fail',
                value: 0.25,
                session: 'sess-9',
                eta: [0.5, 0.5],
                status: ['probationary', 'probationary'],
                utility: [0, 0],
              },
            ],
            [
              'skill.feedback',
              'outcome',
              'skill',
              'sk_new',
              {
                signal: 'trial.fail',
                value: 0.25,
                session: 'sess-9',
                eta: [0.5, 0.1],
                status: ['probationary', 'retired'],
                utility: [0, -0.5],
              },
            ],
            ['skill.forget', 'user', 'skill', 'sk_new', { name: 'cancel-order', version: '2.0.0', corpus: 'internal' }],
          ]);
          expect(audit.map((a) => a.at)).toEqual([AT, AT, AT, audit[3].at, AT2, AT2, AT2]);
          expect(events[4].at).toBe(audit[3].at);
        });

        it('a supersede names a live skill of its own namespace: one of another namespace is refused, nothing written', async () => {
          await store.writeSkill({
            action: 'add',
            skill: skill({ namespace: 'other' }),
            parents: [],
            actor: 'synth',
            detail: {},
            at: AT,
          });
          const before = await skillSnapshot('default', ['sk_new']);
          const other = await skillSnapshot('other');
          await expect(
            store.writeSkill({
              action: 'supersede',
              skill: skill({ id: 'sk_new' }),
              supersedes: 'sk_old',
              parents: [],
              actor: 'synth',
              detail: {},
              at: AT2,
            }),
          ).rejects.toThrow('cannot supersede sk_old: not a live skill in default');
          expect(await skillSnapshot('default', ['sk_new'])).toEqual(before);
          expect(await skillSnapshot('other')).toEqual(other);
        });

        it('of two supersedes of one skill at once, exactly one is written', async () => {
          await store.writeSkill({ action: 'add', skill: skill(), parents: [], actor: 'synth', detail: {}, at: AT });
          const supersede = (id: string) =>
            store.writeSkill({
              action: 'supersede',
              skill: skill({ id, name: `cancel-order-${id}` }),
              supersedes: 'sk_old',
              parents: [],
              actor: 'synth',
              detail: {},
              at: AT2,
            });
          const results = await Promise.allSettled([supersede('sk_a'), supersede('sk_b')]);
          expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
          const winner = (await store.getSkill('default', 'sk_old'))!.supersededBy;
          expect(['sk_a', 'sk_b']).toContain(winner);
          expect((await store.listSkills('default')).map((s) => s.id)).toEqual([winner]);
          expect((await store.events('default')).filter((e) => e.type === 'skill.superseded')).toHaveLength(1);
        });

        it('a signal skipped as a repeated trial of its session appends nothing', async () => {
          await store.writeSkill({
            action: 'add',
            skill: skill({ id: 'sk_new' }),
            parents: [],
            actor: 'synth',
            detail: {},
            at: AT,
          });
          const req = { ...signal((s) => ({ ...s, trialsAttempted: s.trialsAttempted + 1 })), oncePerSession: true };
          expect(await store.applyFeedback(req)).not.toBeNull();
          const before = await skillSnapshot('default');
          expect(await store.applyFeedback(req)).toBeNull();
          expect(await skillSnapshot('default')).toEqual(before);
          expect(await store.feedbackHistory('sk_new')).toHaveLength(1);
        });
      });
    });
  });
}

export function call(position: number, tool: string, extra: Partial<ToolCall> = {}): ToolCall {
  return {
    position,
    tool,
    args: { n: position },
    result: `result of ${tool}`,
    ok: true,
    error: null,
    durationMs: 12.5,
    at: '2025-01-01T00:00:00.000Z',
    ...extra,
  };
}

export function session(namespace: string, id: string, goal: string, calls: ToolCall[] = []): Session {
  return {
    id,
    namespace,
    goal,
    outcome: 'success',
    reward: 1,
    agentId: 'agent-1',
    source: 'test',
    startedAt: '2025-01-01T00:00:00.000Z',
    endedAt: '2025-01-01T00:01:00.000Z',
    labels: { family: 'demo' },
    calls,
  };
}

export function skill(over: Partial<Skill> = {}): Skill {
  return {
    id: 'sk_old',
    namespace: 'default',
    name: 'cancel-order',
    description: 'Cancel an order. Use when the user wants to cancel a pending order.',
    skillMd: '---\nname: cancel-order\ndescription: Cancel an order.\n---\n\n# Cancel order\n\n1. a\n2. b\n',
    body: '# Cancel order\n\n1. a\n2. b\n',
    version: '1.0.0',
    kind: 'playbook',
    corpus: 'internal',
    status: 'probationary',
    enabled: true,
    toolsRequired: ['get_order', 'cancel_order'],
    toolSequence: ['get_order', 'cancel_order'],
    successCount: 3,
    attemptCount: 3,
    support: 3,
    eta: 0.5,
    utility: 0,
    trialsAttempted: 0,
    trialsPassed: 0,
    sourceSessions: [],
    supersededBy: null,
    clusterId: null,
    embedderId: 'test-embedder',
    embedding: new Float32Array([0.6, 0.8, 0]),
    exemplars: null,
    createdAt: '2025-01-02T00:00:00.000Z',
    updatedAt: '2025-01-02T00:00:00.000Z',
    lastUsedAt: null,
    ...over,
  };
}

function cluster(id: string, members: string[]): ClusterRecord {
  return {
    id,
    centroid: new Float32Array([0.5, 0.25, -0.125]),
    goalCentroid: new Float32Array([1, 0, 0]),
    size: members.length,
    dirty: true,
    skillId: null,
    lastPassAt: null,
    newMembers: members,
  };
}
