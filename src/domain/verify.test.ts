import { describe, expect, it } from 'vitest';
import type { EvidenceTrace } from './evidence.js';
import type { Draft } from './types.js';
import { identifierWords, tieredWords, verifyDraft } from './verify.js';

const rules = { minCoverage: 0.5, minResonance: 0.5, validateSkillMd: () => [] };

const draft = (step: string): Draft => ({
  name: 'return-delivered-order-items',
  whenToUse: 'Use when a user asks to return delivered order items.',
  toolsRequired: ['get_order_details', 'return_delivered_order_items'],
  toolSequence: ['get_order_details', 'return_delivered_order_items'],
  body: [
    '# Return delivered order items',
    '',
    '1. Call `get_order_details` with `order_id` from the user.',
    `2. ${step}`,
    '',
    '## Edge cases',
    '',
    '- None seen.',
  ].join('\n'),
  kind: 'playbook',
  steps: [],
});

// Capped traces, as a model sees them: the calls' arguments are cut off before their names.
const evidence: EvidenceTrace[] = ['s1', 's2'].map((sessionId) => ({
  sessionId,
  outcome: 'success',
  text: 'goal: return the delivered order items\nget_order_details order_id #W1 -> delivered\nreturn_delivered_order_items …',
  tools: ['get_order_details', 'return_delivered_order_items'],
}));

const material = [
  'return the lamp from my delivered order',
  'return_delivered_order_items {"order_id":"#W1","item_ids":["I1"],"payment_method_id":"pm_1"} {"status":"return requested"}',
];

describe('verifyDraft grounding', () => {
  it("takes a name from the words of the group's sessions without reading their whole text", () => {
    const text = () => {
      throw new Error('the whole text was read');
    };
    const words = () => identifierWords(material);
    const named = draft('Call `return_delivered_order_items` with `item_ids`, `payment_method_id` as the case needs.');
    expect(verifyDraft(named, evidence, rules, undefined, text, words).reasons).toEqual([]);
  });

  it('still refuses a name no session shows, after reading the whole text', () => {
    let read = 0;
    const text = () => {
      read++;
      return material.join('\n');
    };
    const words = () => identifierWords(material);
    const planted = draft('Call `return_delivered_order_items`, then `delete_customer_account`.');
    const verdict = verifyDraft(planted, evidence, rules, undefined, text, words);
    expect(verdict.ok).toBe(false);
    expect(verdict.reasons.join('\n')).toMatch(/names what no session shows: "delete_customer_account"/);
    expect(read).toBe(1);
  });

  it('lists the identifiers of a text, lowercased, once each', () => {
    expect([...identifierWords(['Call get_order_details {"Order_ID": "#W1"} twice', 'twice'])]).toEqual([
      'call',
      'get_order_details',
      'order_id',
      'w1',
      'twice',
    ]);
  });

  describe('tieredWords', () => {
    const calls = [
      {
        args: {
          order_id: '#W1',
          address: { Zip_Code: '1', 'first name': 'x' },
          items: [{ item_id: 'I1' }],
          unset: undefined,
        },
        result: '{"status": "return requested", "refund": {"amount": 3}}',
      },
      { args: {}, result: 'plain text: no_keys here "quoted": value' },
    ];
    const lines = ['return my lamp please', ...calls.map((c) => `tool ${JSON.stringify(c.args)} ${c.result}`)];

    it('answers as the words of the whole material do', () => {
      const whole = identifierWords(lines);
      const tiered = tieredWords(
        () => calls,
        () => lines,
      );
      const asked = [...whole, 'first name', 'first', 'absent', 'zip', 'status', 'refund', 'no_keys', 'w1', 'unset'];
      for (const w of asked) expect(tiered.has(w), w).toBe(whole.has(w));
    });

    it("finds an argument's or a result key's name without reading the whole material", () => {
      const tiered = tieredWords(
        () => calls,
        () => {
          throw new Error('the whole material was read');
        },
      );
      expect(tiered.has('zip_code')).toBe(true);
      expect(tiered.has('item_id')).toBe(true);
      expect(tiered.has('amount')).toBe(true);
      expect(tiered.has('status')).toBe(true);
      expect(() => tiered.has('lamp')).toThrow('the whole material was read');
    });
  });
});
