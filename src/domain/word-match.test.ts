import { describe, expect, it } from 'vitest';
import { contentWords, distinctiveWeights, overlapScorer, skillWords, stem, wordOverlap } from './word-match.js';

const bag = (s: { name: string; description: string }) => new Set(skillWords(s).split(' '));

describe('word overlap of a request with what a skill says it does', () => {
  it('keeps content words, stems their forms, drops courtesy and placeholders', () => {
    expect([...contentWords('Hi, I need to cancel my orders <id> please')].sort()).toEqual(['cancel', 'order']);
    expect(contentWords('Cancelled ORDER').has('cancel')).toBe(true);
    expect(contentWords('fillFuelTank').has('fuel')).toBe(true);
  });

  it('gives the forms of a word one stem, a final e included', () => {
    const one = (...forms: string[]) => new Set(forms.map(stem));
    expect(one('price', 'prices', 'priced')).toEqual(new Set(['pric']));
    expect(one('change', 'changes', 'changed', 'changing')).toEqual(new Set(['chang']));
    expect(one('message', 'messages')).toEqual(new Set(['messag']));
    expect(one('address', 'addresses')).toEqual(new Set(['address']));
    expect(one('order', 'orders', 'ordered')).toEqual(new Set(['order']));
    expect(one('cancel', 'cancelled', 'cancels')).toEqual(new Set(['cancel']));
    // Short words keep their e ("use", "fee"): too little is left to tell words apart.
    expect(stem('use')).toBe('use');
    // So a request that says "message" meets a skill that says "messages".
    expect(wordOverlap(contentWords('The message will not send'), contentWords('Fix MMS Messages'))).toBeGreaterThan(0);
  });

  it('scores the verb that tells two skills apart: "change" is not "cancel"', () => {
    const change = bag({
      name: 'update-reservation-flight',
      description:
        'Update Reservation Flight: looks up reservation, then updates reservation flights. Use when a user asks to change a flight.',
    });
    const cancel = bag({
      name: 'cancel-reservations',
      description:
        'Cancel Reservations: looks up reservation, then cancels reservation. Use when a user asks to cancel reservations.',
    });
    const request = contentWords("Hi! I'd like to change my flight reservation.");
    expect(wordOverlap(request, change)).toBeGreaterThan(wordOverlap(request, cancel));
    expect(wordOverlap(contentWords('I need to cancel my reservation'), cancel)).toBeGreaterThan(
      wordOverlap(contentWords('I need to cancel my reservation'), change),
    );
  });

  it('is 0 with nothing in common or nothing to compare, 1 for the same words', () => {
    expect(wordOverlap(contentWords('weather in Paris'), contentWords('refund my order'))).toBe(0);
    expect(wordOverlap(new Set(), contentWords('refund my order'))).toBe(0);
    expect(wordOverlap(contentWords('refund order'), contentWords('orders refund'))).toBeCloseTo(1);
  });

  it('scores a compact word string as it scores the set of its words', () => {
    const skills = [
      { name: 'cancel-reservations', description: 'Cancel Reservations: looks up reservation, then cancels it.' },
      { name: 'fill-fuel-tank', description: 'Fills the tank of the car. Use when the fuel is low.' },
      { name: 'x', description: '' },
      // Words inside other words ("car" in "cart" and "scar", "tank" in "tanks") are not matches.
      { name: 'empty-cart', description: 'Empties a scarce cart of its tanks and carts.' },
    ];
    const requests = [
      'I need to cancel my reservation',
      'fuel the car please',
      '',
      'weather in Paris',
      'car tank art',
      'empty the cart',
    ];
    for (const s of skills)
      for (const r of requests) {
        const words = skillWords(s);
        const expected = words ? wordOverlap(contentWords(r), new Set(words.split(' '))) : 0;
        expect(wordOverlap(contentWords(r), words)).toBeCloseTo(expected, 12);
      }
  });

  it("follows a skill object's name and description when they change", () => {
    const skill = { name: 'cancel-order', description: 'Cancels a pending order.' };
    expect(skillWords(skill)).toBe('cancel order pend');
    skill.description = 'Refunds a delivered order.';
    expect(skillWords(skill)).toBe('cancel deliver order refund');
    skill.name = 'refund-order';
    expect(skillWords(skill)).toBe('deliver order refund');
  });
});

describe('words weighted by how well they tell the candidates apart', () => {
  const phone = skillWords({
    name: 'fix-phone-service',
    description: 'Fix Phone Service: resumes the line. Use when a phone has a problem.',
  });
  const mms = skillWords({
    name: 'fix-mms-messages',
    description:
      'Fix MMS Messages: checks the network status, APN settings, wifi calling and app permissions, then grants the messaging app its storage permission. Use when a phone has a problem sending pictures.',
  });

  it('counts a word every candidate holds less than a word one alone holds, and a word none holds as 1', () => {
    const weights = distinctiveWeights([phone, mms]);
    expect(weights.square('fix')).toBeLessThan(weights.square('mms'));
    expect(weights.square('mms')).toBeCloseTo(Math.log(3 / 1.5) ** 2, 12);
    expect(weights.square('fix')).toBeCloseTo(Math.log(3 / 2.5) ** 2, 12);
    expect(weights.square('weather')).toBe(1);
    // A skill's size sums its words' squares, whether or not it was among the skills weighed.
    expect(weights.size('fix mms')).toBeCloseTo(weights.square('fix') + weights.square('mms'), 12);
    expect(distinctiveWeights([]).size('fix mms')).toBe(2);
  });

  it('counts a string as often as it stands among the candidates (copies of one procedure count each)', () => {
    // The copies hold "phone" three times and "mms" once, among four candidates and an empty one.
    const weights = distinctiveWeights([phone, phone, mms, phone, '']);
    expect(weights.square('mms')).toBe(Math.log(6 / 1.5) ** 2);
    expect(weights.square('resum')).toBe(Math.log(6 / 3.5) ** 2);
    expect(weights.square('fix')).toBe(Math.log(6 / 4.5) ** 2);
    const sum = (s: string) => s.split(' ').reduce((a, w) => a + weights.square(w), 0);
    expect(weights.size(phone)).toBe(sum(phone));
    expect(weights.size(mms)).toBe(sum(mms));
    expect(weights.size('')).toBe(0);
    // Asked again (recall weighs the same strings on every request), the figures are the same.
    expect(distinctiveWeights([phone, phone, mms, phone, '']).size(mms)).toBe(sum(mms));
  });

  it('puts the skill that shares the telling word first where plain counts put the other first', () => {
    const request = contentWords('Hi! My phone has a problem with MMS, can you fix it?');
    // Counted plainly, the shorter description wins on the words both share (fix, phone, problem).
    expect(wordOverlap(request, phone)).toBeGreaterThan(wordOverlap(request, mms));
    const weighted = overlapScorer(request, distinctiveWeights([phone, mms]));
    expect(weighted(mms)).toBeGreaterThan(weighted(phone));
  });

  it('is a cosine: 0 with nothing shared or nothing to compare, 1 for the same words', () => {
    const weights = distinctiveWeights([phone, mms]);
    expect(overlapScorer(contentWords('weather in Paris'), weights)(mms)).toBe(0);
    expect(overlapScorer(contentWords('weather in Paris'), weights)('')).toBe(0);
    expect(overlapScorer(new Set(mms.split(' ')), weights)(mms)).toBeCloseTo(1, 12);
  });
});
