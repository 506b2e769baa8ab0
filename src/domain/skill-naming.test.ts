import { describe, expect, it } from 'vitest';
import { wordSkill } from './skill-naming.js';

const idf = (w: string) => (['order', 'the', 'you'].includes(w) ? 0.2 : 2);

describe('skill names and descriptions', () => {
  it('names a task by the verb the users ask with and the object of the action', () => {
    const w = wordSkill({
      goals: [
        'You want to cancel the order <id> because you changed your mind',
        'Cancel my pending order please',
        'You wish to cancel order <id>',
      ],
      cues: ['Hi, I need to cancel an order I just placed.'],
      toolSequence: ['find_user', 'get_order_details', 'cancel_pending_order'],
      actionTool: 'cancel_pending_order',
      wordWeight: idf,
    });
    expect(w.nameWords).toEqual(['cancel', 'pending', 'order']);
    expect(w.title).toBe('Cancel Pending Order');
    expect(w.description).toMatch(/^Cancel Pending Order: /);
    expect(w.description).toMatch(/Use when a user asks to cancel pending order\./);
  });

  it('calls a problem report a fix, named by what is broken, not by the tool that ended it', () => {
    const w = wordSkill({
      goals: [
        "Your phone has been showing 'No Service' for the past few hours.",
        "Your phone has been showing 'No Service' for the past few hours.",
      ],
      cues: [
        'My phone says No Service and I cannot make calls',
        'Hi, there is no service on my phone since this morning',
      ],
      toolSequence: ['get_customer_by_phone', 'resume_line', 'transfer_to_human_agents'],
      actionTool: 'transfer_to_human_agents',
      wordWeight: idf,
    });
    expect(w.nameWords[0]).toBe('fix');
    expect(w.nameWords).toContain('phone');
    expect(w.nameWords).toContain('service');
    expect(w.nameWords.join('-')).not.toMatch(/transfer|human|agents/);
    expect(w.description).toMatch(/Use when a user reports that their/);
  });

  it('never uses a name of a person or a placeholder, and quotes no goal', () => {
    const goals = [
      'You are Sophia Silva and you want to exchange the keyboard <id>',
      'You are Sophia Silva. Exchange the lamp from order <id>',
    ];
    const w = wordSkill({
      goals,
      cues: [],
      toolSequence: ['get_order_details', 'exchange_delivered_order_items'],
      actionTool: 'exchange_delivered_order_items',
      wordWeight: idf,
    });
    expect(w.nameWords).toEqual(['exchange', 'delivered', 'order', 'items']);
    expect(w.description).not.toMatch(/sophia|silva|<|>|\{/i);
    for (const g of goals) expect(w.description).not.toContain(g);
  });
});
