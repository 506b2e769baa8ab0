import { describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import type { Distiller, DistillInput } from '../src/distillers/distiller.js';
import { HeuristicDistiller } from '../src/distillers/heuristic-distiller.js';
import { redactText } from '../src/domain/redact.js';
import type { SessionRecorder } from '../src/index.js';
import { skillJson } from '../src/surfaces/shapes.js';
import { tempDbPath } from './support/tau.js';

const order = (id: string, status: string) =>
  JSON.stringify({ order_id: id, user_id: `u${id}`, status, items: [{ name: 'Desk Lamp', item_id: `9${id}` }] });

/** Retail-shaped sessions: two procedures that share their lookups and part at what the order turned out to be. */
function sessions() {
  const out = [];
  const cancel = [
    'Cancel my order please',
    'I want to cancel the order I placed',
    'Please cancel my recent order',
    'Cancel order, I changed my mind',
  ];
  const ret = [
    'I want to return the lamp I bought',
    'Return my item, it arrived broken',
    'Please return the desk lamp',
    'Return the order I received',
  ];
  for (const [i, goal] of cancel.entries()) {
    const id = `#W10${i}1`;
    out.push({
      id: `cancel-${i}`,
      goal,
      calls: [
        { tool: 'find_user_id_by_email', args: { email: 'a@x.org' }, result: `user_${i}` },
        { tool: 'get_order_details', args: { order_id: id }, result: order(id, 'pending') },
        {
          tool: 'cancel_pending_order',
          args: { order_id: id, reason: 'no longer needed' },
          result: order(id, 'cancelled'),
        },
      ],
    });
  }
  for (const [i, goal] of ret.entries()) {
    const id = `#W20${i}2`;
    out.push({
      id: `return-${i}`,
      goal,
      calls: [
        { tool: 'find_user_id_by_email', args: { email: 'b@x.org' }, result: `user_${i}` },
        { tool: 'get_order_details', args: { order_id: id }, result: order(id, 'delivered') },
        {
          tool: 'return_delivered_order_items',
          args: { order_id: id, item_ids: [`9${id}`] },
          result: order(id, 'return requested'),
        },
      ],
    });
  }
  return out;
}

/** A fresh memory that recorded these successful sessions, as an agent's wrapper records them, and learned from them. */
async function learnedFrom(
  list: { goal: string; calls: Parameters<SessionRecorder['call']>[0][] }[],
  distiller?: Distiller,
) {
  const memory = await openMemory({ db: tempDbPath(), config: { synthesis: { cooldownMs: 0 } }, distiller });
  for (const s of list) {
    const rec = await memory.startSession({ goal: s.goal });
    for (const c of s.calls) await rec.call(c);
    await rec.end('success', 1);
  }
  await memory.synthesize();
  return memory;
}

describe('skills that branch on what a lookup shows', () => {
  it('learns the condition from the results, states it, and serves it as branches', async () => {
    const memory = await learnedFrom(sessions());
    try {
      const skills = await memory.skills.list();
      const returns = skills.find((s) => s.toolSequence.includes('return_delivered_order_items'))!;
      const cancels = skills.find((s) => s.toolSequence.includes('cancel_pending_order'))!;
      expect(skillJson(returns).branches).toEqual([
        {
          when: { tool: 'get_order_details', path: 'status', in: ['pending'] },
          toolSequence: cancels.toolSequence,
        },
      ]);
      expect(skillJson(cancels).branches[0].when).toEqual({
        tool: 'get_order_details',
        path: 'status',
        in: ['delivered'],
      });
      expect(returns.skillMd).toContain('If `get_order_details` shows `status` in ["pending"], follow:');

      // The stored skill reads back with its branches, and recall serves them with the context that states them.
      const [hit] = await memory.recall('I would like to return the desk lamp I bought');
      expect(hit.id).toBe(returns.id);
      expect(hit.branches).toEqual(skillJson(returns).branches);
      expect(memory.formatContext([hit])).toContain('Branches:');
      // An agent that has no cancel tool is not handed the branch it cannot follow, and is told where the steps
      // stop fitting; the recall still serves the procedure its tools can follow.
      const tools = returns.toolSequence;
      const [lacking] = await memory.recall('I would like to return the desk lamp I bought', { tools });
      expect(lacking.id).toBe(returns.id);
      expect(lacking.branches).toEqual([]);
      const context = memory.formatContext([lacking]);
      expect(context).toContain('`cancel_pending_order`, which is not among your tools');
      expect(context).not.toContain('follow: `');
      const [withCancel] = await memory.recall('I would like to return the desk lamp I bought', {
        tools: [...tools, 'cancel_pending_order'],
      });
      expect(withCancel.branches).toEqual(hit.branches);
      // A second pass with nothing new does not rewrite them.
      const again = await memory.synthesize();
      expect(again.updated).toEqual([]);
    } finally {
      await memory.close();
    }
  });
});

/** Three procedures on one order lookup: changing items while it is pending; once delivered, an exchange or a return. */
function itemSessions() {
  const out = [];
  const product = JSON.stringify({ product_id: 'p1', variants: { a: { item_id: 'v2', available: true } } });
  const kinds = [
    {
      prefix: 'modify',
      status: 'pending',
      tail: ['get_product_details', 'modify_pending_order_items'],
      goals: [
        'Change the lamp in my pending order to the blue one',
        'Swap the color of the lamp I ordered before it ships',
        'Modify the item in my order to the larger size',
        'I want a different variant of the lamp in my order',
      ],
    },
    {
      prefix: 'exchange',
      status: 'delivered',
      tail: ['get_product_details', 'exchange_delivered_order_items'],
      goals: [
        'Exchange the lamp I received for the blue one',
        'I got the lamp, exchange it for another color',
        'Exchange my delivered lamp for a bigger one',
        'Please exchange the lamp that arrived for a new variant',
      ],
    },
    {
      prefix: 'return',
      status: 'delivered',
      tail: ['return_delivered_order_items'],
      goals: [
        'Return the lamp I received, I want my money back',
        'I want to return the delivered lamp for a refund',
        'Refund and return the lamp that came',
        'Return my lamp order for a refund',
        'Send back the lamp I received and refund me',
        'Return the delivered item and give me a refund',
      ],
    },
  ];
  for (const k of kinds)
    for (const [i, goal] of k.goals.entries()) {
      const id = `#W${k.prefix.length}${i}7`;
      out.push({
        id: `${k.prefix}-${i}`,
        goal,
        calls: [
          { tool: 'find_user_id_by_email', args: { email: 'c@x.org' }, result: `user_${k.prefix}_${i}` },
          { tool: 'get_order_details', args: { order_id: id }, result: order(id, k.status) },
          ...k.tail.map((tool) => ({
            tool,
            args: tool === 'get_product_details' ? { product_id: 'p1' } : { order_id: id, item_ids: [`9${id}`] },
            result: tool === 'get_product_details' ? product : order(id, `${k.prefix} requested`),
          })),
        ],
      });
    }
  return out;
}

describe('a skill two others part from on one condition', () => {
  it('branches to the one whose path changes least, not to the one with more support', async () => {
    const memory = await learnedFrom(itemSessions());
    try {
      const skills = await memory.skills.list();
      const by = (tool: string) => skills.find((s) => s.toolSequence.at(-1) === tool)!;
      const modify = by('modify_pending_order_items');
      const exchange = by('exchange_delivered_order_items');
      const ret = by('return_delivered_order_items');
      expect(ret.support).toBeGreaterThan(exchange.support);
      // Items of a delivered order are changed by an exchange, whose path shares the product lookup.
      expect(skillJson(modify).branches).toEqual([
        { when: { tool: 'get_order_details', path: 'status', in: ['delivered'] }, toolSequence: exchange.toolSequence },
      ]);
    } finally {
      await memory.close();
    }
  });
});

/**
 * tau2's telecom task done by two kinds of agents: some look the line up and talk the user through the phone's
 * settings (the user acts on the phone), others hold the phone's tools and fix it themselves. Same requests.
 */
function phoneSessions() {
  const goals = [
    'I cannot send picture messages from my phone',
    'My phone will not send MMS messages',
    'Picture messages fail to send on my phone',
    'MMS does not work on my phone, please help',
  ];
  const customer = JSON.stringify({ customer_id: 'C1001', line_ids: ['L1001'] });
  const line = JSON.stringify({ line_id: 'L1001', status: 'Active', plan_id: 'P1' });
  const lookups = [
    { tool: 'get_customer_by_phone', args: { phone_number: '555-123-2002' }, result: customer },
    { tool: 'get_details_by_id', args: { id: 'L1001' }, result: line },
  ];
  const out = [];
  for (const [i, goal] of goals.entries()) {
    out.push({ goal, calls: lookups });
    out.push({
      goal,
      calls: [
        ...lookups,
        { tool: 'check_network_status', args: {}, result: 'Airplane Mode: ON\nCellular Connection: no_service' },
        { tool: 'toggle_airplane_mode', args: {}, result: 'Airplane Mode is now OFF.' },
        ...(i % 2 ? [{ tool: 'check_apn_settings', args: {}, result: 'Current APN Name: internet' }] : []),
        { tool: 'can_send_mms', args: {}, result: 'Your messaging app can send MMS messages.' },
      ],
    });
  }
  return out;
}

describe("a skill that branches on the agent's tools", () => {
  it("keeps the path every agent can follow, and the phone's tools as a branch for the agents that hold them", async () => {
    const memory = await learnedFrom(phoneSessions());
    try {
      const skills = await memory.skills.list();
      expect(skills).toHaveLength(1);
      const [skill] = skills;
      // Learned from all eight sessions; its steps are those of the agents without the phone's tools.
      expect(skill.sourceSessions).toHaveLength(8);
      expect(skill.toolSequence).toEqual(['get_customer_by_phone', 'get_details_by_id']);
      // The branch is the path to the fix (the check after it is no step of it), on the first of the phone's
      // tools every such agent called.
      const branch = {
        when: { tool: 'check_network_status', path: '', in: [], available: true },
        toolSequence: ['get_customer_by_phone', 'get_details_by_id', 'check_network_status', 'toggle_airplane_mode'],
      };
      expect(skillJson(skill).branches).toEqual([branch]);
      expect(skill.skillMd).toContain(
        '- If you can call `check_network_status` yourself, follow: `get_customer_by_phone` > `get_details_by_id` >',
      );
      expect(skill.toolsRequired).toEqual(expect.arrayContaining(branch.toolSequence));
      // The branch's steps, as a procedure of their own: a switch under the state the check showed, and the
      // finish, what it showed in the sessions.
      expect(skill.body).toContain('## Steps if you can call `check_network_status` yourself');
      expect(skill.body).toContain('4. If Airplane Mode is ON: call `toggle_airplane_mode`.');
      expect(skill.body).toContain(
        'Done when, this way: `toggle_airplane_mode` has succeeded and answered "Airplane Mode is now OFF."',
      );

      const goal = 'Hi, my phone cannot send MMS';
      const [hit] = await memory.recall(goal);
      expect(hit.branches).toEqual([branch]);
      // An agent without the phone's tools gets the procedure, not the branch it cannot take.
      const [lookupsOnly] = await memory.recall(goal, {
        tools: ['get_customer_by_phone', 'get_details_by_id', 'transfer_to_human_agents'],
      });
      expect(lookupsOnly.id).toBe(skill.id);
      expect(lookupsOnly.branches).toEqual([]);
      expect(memory.formatContext([lookupsOnly])).not.toContain('can_send_mms');
      expect(lookupsOnly.body).not.toContain('check_network_status');
      // One that holds them gets it.
      const [phone] = await memory.recall(goal, { tools: [...branch.toolSequence, 'can_send_mms'] });
      expect(phone.branches).toEqual([branch]);
      // A second pass with nothing new does not rewrite the skill.
      const again = await memory.synthesize();
      expect(again.updated).toEqual([]);
    } finally {
      await memory.close();
    }
  });

  it("learns the procedure from its own side alone when the branch's side gives no draft", async () => {
    const heuristic = new HeuristicDistiller({
      requiredSupport: 0.5,
      conditionalSupport: 0.25,
      thinkTools: ['think'],
      redact: redactText,
    });
    // A distiller that declines the phone's side (as a model may answer SKIP).
    const declining: Distiller = {
      id: heuristic.id,
      distil: (input: DistillInput) =>
        input.spans.some((s) => s.calls.some((c) => c.tool === 'toggle_airplane_mode'))
          ? Promise.resolve(null)
          : heuristic.distil(input),
    };
    const memory = await learnedFrom(phoneSessions(), declining);
    try {
      const [skill] = await memory.skills.list();
      expect(skill.toolSequence).toEqual(['get_customer_by_phone', 'get_details_by_id']);
      expect(skillJson(skill).branches).toEqual([]);
      expect(skill.body).not.toContain('Steps if you can call');
      // Its sources and counts are the sessions it was learned from: the four that needed no phone tool.
      expect(skill.sourceSessions).toHaveLength(4);
      expect(skill.successCount).toBe(4);
      expect(skill.body).toContain('Learned from 4 successful sessions');
    } finally {
      await memory.close();
    }
  });
});
