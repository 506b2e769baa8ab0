// Recall's ranking of near-ties (many skills learned from one goal share its vector): utility and eta come
// from what the index keeps beside its vectors, the served skills from the store, checked as stored now.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { newSkill } from '../src/domain/new-skill.js';
import { normalizeGoal } from '../src/domain/normalize-goal.js';
import { openMemory } from '../src/app/open-memory.js';
import type { Memory } from '../src/app/memory.js';
import { contentWords, skillWords } from '../src/domain/word-match.js';
import { bestPerSkill, rankByWords } from '../src/pipeline/recall.js';
import { tempDbPath } from './support/tau.js';

const GOAL = 'cancel my pending order and refund it';

/** `n` skills learned from one goal (one vector), utility rising with the index. */
async function copiesOfOneGoal(n: number): Promise<{ memory: Memory; db: string; ids: string[] }> {
  const db = tempDbPath();
  const memory = await openMemory({ db, config: { recall: { persistIndex: false, topK: 3 } } });
  const embedding = memory.parts.embedder.embedSync!(normalizeGoal(GOAL));
  const ids: string[] = [];
  for (let i = 0; i < n; i++)
    ids.push(await addSkill(memory, i, { name: `cancel-order-${i}`, description: GOAL, embedding, utility: i / 100 }));
  return { memory, db, ids };
}

/** Writes the `i`-th skill of a test (one second apart) straight to the store, with the vector given; its id. */
async function addSkill(
  memory: Memory,
  i: number,
  s: { name: string; description: string; embedding: Float32Array; utility?: number },
): Promise<string> {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
  const skill = newSkill(at, {
    namespace: memory.namespace,
    name: s.name,
    description: s.description,
    skillMd: `---\nname: ${s.name}\n---\n`,
    body: `# ${s.name}\n`,
    kind: 'playbook',
    ...(s.utility !== undefined ? { utility: s.utility } : {}),
    embedderId: memory.parts.embedder.id,
    embedding: s.embedding,
  });
  await memory.parts.store!.writeSkill({ action: 'add', skill, parents: [], actor: 'test', detail: {}, at });
  return skill.id;
}

/** Counts the skill ids recall reads from the store. */
function countReads(memory: Memory): { ids: number } {
  const store = memory.parts.store!;
  const read = store.recallSkills.bind(store);
  const count = { ids: 0 };
  store.recallSkills = async (ns, ids) => {
    count.ids += ids.length;
    return read(ns, ids);
  };
  return count;
}

describe('recall among near-ties', () => {
  it('ranks forty copies of one goal by utility, reading from the store only the skills it serves', async () => {
    const { memory, ids } = await copiesOfOneGoal(40);
    const reads = countReads(memory);
    const first = await memory.recall(GOAL, { record: false });
    expect(first.map((h) => h.id)).toEqual([ids[39], ids[38], ids[37]]);
    expect(reads.ids).toBeLessThanOrEqual(3);
    reads.ids = 0;
    // Served again: the recently served skills are kept, nothing is read.
    expect((await memory.recall(GOAL, { record: false })).map((h) => h.id)).toEqual(first.map((h) => h.id));
    expect(reads.ids).toBe(0);
    await memory.close();
  });

  it('follows a utility changed by another connection: the re-ranked list is the one fresh rows give', async () => {
    const { memory, db, ids } = await copiesOfOneGoal(20);
    await memory.recall(GOAL, { record: false });
    const other = new Database(db);
    other.prepare('UPDATE skills SET utility = 5 WHERE id = ?').run(ids[0]);
    other.prepare('UPDATE skills SET enabled = 0 WHERE id = ?').run(ids[19]);
    other.close();
    expect((await memory.recall(GOAL, { record: false })).map((h) => h.id)).toEqual([ids[0], ids[18], ids[17]]);
    await memory.close();
  });

  it('sees a change another connection commits while a recall is being recorded', async () => {
    const { memory, db, ids } = await copiesOfOneGoal(20);
    const store = memory.parts.store!;
    const record = store.recordRecall.bind(store);
    let raced = false;
    store.recordRecall = async (ns, r) => {
      await record(ns, r);
      if (raced) return;
      raced = true;
      const other = new Database(db);
      other.prepare('UPDATE skills SET enabled = 0 WHERE id = ?').run(ids[19]);
      other.close();
    };
    expect((await memory.recall(GOAL)).map((h) => h.id)).toEqual([ids[19], ids[18], ids[17]]);
    expect((await memory.recall(GOAL)).map((h) => h.id)).toEqual([ids[18], ids[17], ids[16]]);
    await memory.close();
  });

  it('never serves a skill the store no longer allows, even one its ranks still hold (a write racing the recall)', async () => {
    const { memory, ids } = await copiesOfOneGoal(20);
    // The index is built from rows where the best one is servable; read as stored now, it is disabled (as if
    // written between the index's check of the change log and the read of the skills it serves).
    const store = memory.parts.store!;
    const read = store.recallSkills.bind(store);
    store.recallSkills = async (ns, wanted) =>
      (await read(ns, wanted)).map((s) => (s.id === ids[19] ? { ...s, enabled: false } : s));
    const served = await memory.recall(GOAL, { record: false });
    expect(served.map((h) => h.id)).not.toContain(ids[19]);
    expect(served.map((h) => h.id)).toEqual([ids[18], ids[17], ids[16]]);
    await memory.close();
  });
});

const cancel = {
  name: 'cancel-reservations',
  description: 'Cancel Reservations: looks up reservation, then cancels reservation.',
};
const change = {
  name: 'update-reservation-flight',
  description:
    'Update Reservation Flight: looks up reservation, then updates reservation flights. Use when a user asks to change a flight.',
};
const rank = (s: { name: string; description: string }) => ({ words: skillWords(s) });

describe('recall order: the embedding, then the words', () => {
  it('lets the words of the request reorder close candidates, and keeps the embedding similarity apart', () => {
    const ranked = rankByWords(
      [
        { skill: rank(cancel), similarity: 0.66, id: cancel.name },
        { skill: rank(change), similarity: 0.61, id: change.name },
      ],
      contentWords("Hi! I'd like to change my flight reservation."),
      0.7,
    );
    expect(ranked.map((r) => r.id)).toEqual(['update-reservation-flight', 'cancel-reservations']);
    expect(ranked.map((r) => r.cosine)).toEqual([0.61, 0.66]);
    expect(ranked[0].similarity).toBeGreaterThan(ranked[1].similarity);
  });

  it('weighs the words the candidates share less than the word that tells them apart', () => {
    const phone = {
      name: 'fix-phone-service',
      description: 'Fix Phone Service: resumes the line. Use when a phone has a problem.',
    };
    const mms = {
      name: 'fix-mms-messages',
      description:
        'Fix MMS Messages: checks the network status, APN settings, wifi calling and app permissions, then grants the messaging app its storage permission. Use when a phone has a problem sending pictures.',
    };
    // The embedding puts the phone skill a little ahead; the request names MMS, which only the other skill says.
    const ranked = rankByWords(
      [
        { skill: rank(phone), similarity: 0.6, id: phone.name },
        { skill: rank(mms), similarity: 0.52, id: mms.name },
      ],
      contentWords('Hi! My phone has a problem with MMS, can you fix it?'),
      0.7,
    );
    expect(ranked.map((r) => r.id)).toEqual(['fix-mms-messages', 'fix-phone-service']);
    // Beyond the near-tie margin (0.02): utility does not undo what the words decided.
    expect(ranked[0].similarity - ranked[1].similarity).toBeGreaterThan(0.02);
  });

  it('with weight 0 is the embedding order, unchanged', () => {
    const ranked = rankByWords(
      [
        { skill: rank(change), similarity: 0.61, id: change.name },
        { skill: rank(cancel), similarity: 0.66, id: cancel.name },
      ],
      contentWords('change my flight'),
      0,
    );
    expect(ranked.map((r) => [r.id, r.similarity, r.cosine])).toEqual([
      ['cancel-reservations', 0.66, 0.66],
      ['update-reservation-flight', 0.61, 0.61],
    ]);
  });
});

describe('recall order: a quoted label is words', () => {
  /** Two skills on one vector (the request's), so only the words order them. */
  async function twoSkills(request: string) {
    const memory = await openMemory({ db: tempDbPath(), config: { recall: { persistIndex: false } } });
    const embedding = memory.parts.embedder.embedSync!(normalizeGoal(request));
    const skills = [
      [
        'fix-phone-service',
        'Fix Phone Service: resumes the line. Use when a user reports a problem with their phone service.',
      ],
      ['fix-phone', 'Fix Phone: restarts it.'],
    ];
    for (const [i, [name, description]] of skills.entries())
      await addSkill(memory, i, { name, description, embedding });
    return memory;
  }

  it('reads the words of what the user quotes from the screen ("No Service"), not a placeholder', async () => {
    const request = 'My phone shows "No Service" since this morning';
    const memory = await twoSkills(request);
    try {
      // Without the label's words only "phone" is shared, and the skill with fewer words would come first.
      expect((await memory.recall(request)).map((s) => s.name)).toEqual(['fix-phone-service', 'fix-phone']);
      expect((await memory.recall('My phone shows “No Service” since this morning'))[0].name).toBe('fix-phone-service');
    } finally {
      await memory.close();
    }
  });

  it("keeps a quoted message a placeholder: its words are not the request's", async () => {
    const request = 'My phone shows "Service restored at 9:30 on line 2" since this morning';
    const memory = await twoSkills('My phone shows "No Service" since this morning');
    try {
      expect((await memory.recall(request))[0]?.name).toBe('fix-phone');
    } finally {
      await memory.close();
    }
  });
});

describe('one hit a skill', () => {
  it("folds a skill's centroid and exemplars into its best score, best first, in order or not", () => {
    const hits = [
      { id: 'a#2', score: 0.9 },
      { id: 'b', score: 0.8 },
      { id: 'a', score: 0.7 },
      { id: 'c#1', score: 0.6 },
      { id: 'b#1', score: 0.5 },
    ];
    const folded = [
      { id: 'a', score: 0.9 },
      { id: 'b', score: 0.8 },
      { id: 'c', score: 0.6 },
    ];
    expect(bestPerSkill(hits)).toEqual(folded);
    expect(bestPerSkill([...hits].reverse())).toEqual(folded);
    expect(bestPerSkill([hits[4], hits[0], hits[2], hits[1], hits[3]])).toEqual(folded);
    // The hits given are not changed.
    expect(hits[0]).toEqual({ id: 'a#2', score: 0.9 });
  });
});
