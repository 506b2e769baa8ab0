import { describe, expect, it } from 'vitest';
import { recallText } from './recall.js';

const printing = { formatContext: () => '', toolsFor: () => [] };
const nearest = (similarity: number) => ({ name: 'fix-test', similarity, threshold: 0.4 });

describe('recallText when nothing matches', () => {
  it('names the nearest skill with the decimals that tell its score from the threshold it missed', () => {
    expect(recallText([], false, printing, false, nearest(0.3972))).toContain(
      'The nearest, fix-test, scores 0.397, under the recall threshold 0.400 (thresholds.recall).',
    );
    expect(recallText([], false, printing, false, nearest(0.31))).toContain(
      'The nearest, fix-test, scores 0.31, under the recall threshold 0.40 (thresholds.recall).',
    );
  });
});
