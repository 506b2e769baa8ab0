// Shared pieces of the offline agent examples: a tiny retail back end (the tools), the episodes each example
// runs, and the "learn, then recall" ending. The model side of every example is scripted; the skillsmith side
// (recording, storage, synthesis, recall) is the real engine, imported by the package's name as in your own project
// (inside this clone the name resolves to the clone itself, its dist/: run `npm run build` first).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemory } from 'skillsmith';
import { createRecorder } from 'skillsmith/instrument';

/** An in-memory shop: customers and orders. */
export function createShop() {
  const customers = {
    'alice.w@example.com': { user_id: 'alice_w_1001', name: 'Alice W', payment: 'credit_card_1001' },
    'bob.k@example.com': { user_id: 'bob_k_2002', name: 'Bob K', payment: 'paypal_2002' },
    'chen.l@example.com': { user_id: 'chen_l_3003', name: 'Chen L', payment: 'credit_card_3003' },
    'dana.m@example.com': { user_id: 'dana_m_4004', name: 'Dana M', payment: 'gift_card_4004' },
    'eve.n@example.com': { user_id: 'eve_n_5005', name: 'Eve N', payment: 'credit_card_5005' },
    'fay.o@example.com': { user_id: 'fay_o_6006', name: 'Fay O', payment: 'credit_card_6006' },
  };
  const orders = {
    '#W1001': { order_id: '#W1001', user_id: 'alice_w_1001', status: 'pending', total: 54.85 },
    '#W2002': { order_id: '#W2002', user_id: 'bob_k_2002', status: 'pending', total: 120.0 },
    '#W3003': { order_id: '#W3003', user_id: 'chen_l_3003', status: 'pending', total: 18.5 },
    '#W4004': { order_id: '#W4004', user_id: 'dana_m_4004', status: 'delivered', total: 77.1 },
    '#W5005': { order_id: '#W5005', user_id: 'eve_n_5005', status: 'pending', total: 9.99 },
    '#W6006': { order_id: '#W6006', user_id: 'fay_o_6006', status: 'pending', total: 42.0 },
  };
  return {
    /** The tools, as plain functions taking an arguments object (what every SDK ends up calling). */
    tools: {
      find_user_id_by_email: async ({ email }) => {
        const c = customers[email];
        if (!c) throw new Error(`no customer with email ${email}`);
        return c.user_id;
      },
      get_order_details: async ({ order_id }) => {
        const o = orders[order_id];
        if (!o) throw new Error(`order ${order_id} not found`);
        return { ...o };
      },
      cancel_pending_order: async ({ order_id, reason }) => {
        const o = orders[order_id];
        if (!o) throw new Error(`order ${order_id} not found`);
        if (o.status !== 'pending') return { error: `order ${order_id} is ${o.status}, not pending` };
        o.status = 'cancelled';
        return { order_id, status: 'cancelled', reason, refund: o.total };
      },
    },
    schemas: {
      find_user_id_by_email: {
        description: 'Find a customer by email',
        parameters: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] },
      },
      get_order_details: {
        description: 'Details of an order',
        parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
      },
      cancel_pending_order: {
        description: 'Cancel a pending order',
        parameters: {
          type: 'object',
          properties: { order_id: { type: 'string' }, reason: { type: 'string' } },
          required: ['order_id', 'reason'],
        },
      },
    },
  };
}

/** The goals the examples' agents get: the same kind of task, phrased differently. */
export const EPISODES = [
  {
    goal: "Hi, I'm alice.w@example.com and I want to cancel my order #W1001, I ordered it by mistake",
    email: 'alice.w@example.com',
    order: '#W1001',
  },
  {
    goal: 'Please cancel order #W2002 for bob.k@example.com, I no longer need it',
    email: 'bob.k@example.com',
    order: '#W2002',
  },
  {
    goal: 'Cancel my pending order #W3003 (account chen.l@example.com), ordered by mistake',
    email: 'chen.l@example.com',
    order: '#W3003',
  },
  {
    goal: 'I want to cancel order #W4004, my email is dana.m@example.com',
    email: 'dana.m@example.com',
    order: '#W4004',
  },
  {
    goal: 'Can you cancel my order #W5005? I am eve.n@example.com and no longer need it',
    email: 'eve.n@example.com',
    order: '#W5005',
  },
];

/** The scripted "model": what a capable model would do next, given the goal and the tool results so far. */
export function scriptedPlan(episode, step, lastResult) {
  if (step === 0) return { tool: 'find_user_id_by_email', args: { email: episode.email } };
  if (step === 1) return { tool: 'get_order_details', args: { order_id: episode.order } };
  if (step === 2) {
    if (lastResult && lastResult.status !== 'pending')
      return { answer: `Order ${episode.order} is ${lastResult.status}, so it cannot be cancelled.` };
    return { tool: 'cancel_pending_order', args: { order_id: episode.order, reason: 'no longer needed' } };
  }
  if (lastResult?.error) return { answer: `Sorry, I could not cancel ${episode.order}: ${lastResult.error}` };
  return { answer: `Order ${episode.order} is cancelled; ${lastResult?.refund ?? 'the'} will be refunded.` };
}

/** Opens the real memory (a temporary database unless --db PATH is given) and a recorder on it. */
export async function openExampleMemory() {
  const at = process.argv.indexOf('--db');
  const dir = at > 0 ? null : mkdtempSync(join(tmpdir(), 'skillsmith-example-'));
  const db = at > 0 ? process.argv[at + 1] : join(dir, 'memory.db');
  const memory = await openMemory({ db, logLevel: 'warn' });
  const recorder = createRecorder(memory);
  const cleanup = async () => {
    await memory.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
  return { memory, recorder, db, cleanup };
}

/** Learn from what was recorded, then recall for a new goal, and print what a planner would get. */
export async function learnAndRecall(memory, label) {
  const report = await memory.synthesize();
  const skills = await memory.skills.list();
  console.log(
    `[${label}] ${await memory.sessions.count()} sessions recorded; synthesis created ${report.created.length} skill(s): ${skills.map((s) => s.name).join(', ') || '-'}`,
  );
  const goal = 'Please cancel my order #W6006, the account is fay.o@example.com';
  const hits = await memory.recall(goal);
  console.log(
    `[${label}] recall "${goal}" -> ${hits.map((h) => `${h.name} (${h.similarity.toFixed(2)})`).join(', ') || 'no skill'}`,
  );
  if (hits.length) console.log(memory.formatContext(hits));
  return { skills, hits };
}
