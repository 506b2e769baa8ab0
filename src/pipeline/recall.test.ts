import { describe, expect, it } from 'vitest';
import { rankByWords } from './recall.js';

const cancel = {
  name: 'cancel-reservations',
  description: 'Cancel Reservations: looks up reservation, then cancels reservation.',
};
const change = {
  name: 'update-reservation-flight',
  description:
    'Update Reservation Flight: looks up reservation, then updates reservation flights. Use when a user asks to change a flight.',
};

describe('recall order: the embedding, then the words', () => {
  it('lets the words of the request reorder close candidates, and keeps the embedding similarity as served', () => {
    const candidates = [
      { skill: cancel, similarity: 0.66 },
      { skill: change, similarity: 0.61 },
    ];
    const ranked = rankByWords(candidates, "Hi! I'd like to change my flight reservation.", 0.7);
    expect(ranked.map((r) => r.skill.name)).toEqual(['update-reservation-flight', 'cancel-reservations']);
    expect(ranked.map((r) => r.cosine)).toEqual([0.61, 0.66]);
    expect(ranked[0].similarity).toBeGreaterThan(ranked[1].similarity);
  });

  it('with weight 0 is the embedding order, unchanged', () => {
    const ranked = rankByWords(
      [
        { skill: change, similarity: 0.61 },
        { skill: cancel, similarity: 0.66 },
      ],
      'change my flight',
      0,
    );
    expect(ranked.map((r) => [r.skill.name, r.similarity, r.cosine])).toEqual([
      ['cancel-reservations', 0.66, 0.66],
      ['update-reservation-flight', 0.61, 0.61],
    ]);
  });
});
