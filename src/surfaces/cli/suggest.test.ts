import { describe, expect, it } from 'vitest';
import { nearestName } from './suggest.js';

const FLAGS = ['db', 'json', 'top-k', 'dry-run', 'format', 'force', 'from', 'to', 'test', 'train'];

describe('nearestName', () => {
  it('finds a flag typed without its dash, with another separator or in another case', () => {
    expect(nearestName('topk', FLAGS)).toBe('top-k');
    expect(nearestName('top_k', FLAGS)).toBe('top-k');
    expect(nearestName('DryRun', FLAGS)).toBe('dry-run');
  });

  it('finds a name one typo away: a swap, a missing or an extra letter', () => {
    expect(nearestName('jsno', FLAGS)).toBe('json');
    expect(nearestName('fromat', FLAGS)).toBe('format');
    expect(nearestName('recal', ['recall', 'learn', 'ingest'])).toBe('recall');
    expect(nearestName('ingests', ['recall', 'learn', 'ingest'])).toBe('ingest');
  });

  it('guesses nothing for a name that resembles none', () => {
    expect(nearestName('bogus-flag', FLAGS)).toBeUndefined();
    expect(nearestName('frobnicate', ['recall', 'learn', 'ingest'])).toBeUndefined();
    expect(nearestName('', FLAGS)).toBeUndefined();
  });

  it('keeps the edit budget small for short names, so two letters do not match anything', () => {
    expect(nearestName('xy', FLAGS)).toBeUndefined();
    expect(nearestName('tx', FLAGS)).toBe('to');
  });
});
