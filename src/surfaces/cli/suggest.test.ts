import { describe, expect, it } from 'vitest';
import { FLAG_NAMES, parseCommandLine } from './options.js';
import { nearestName } from '../../support/nearest-name.js';
import { parseErrorMessage } from './suggest.js';

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

describe('parseErrorMessage', () => {
  const refused = (argv: string[]) => {
    try {
      parseCommandLine(argv);
    } catch (e) {
      return parseErrorMessage(e, FLAG_NAMES);
    }
    throw new Error(`${argv.join(' ')} was accepted`);
  };

  it('names the mistyped flag and the one meant, with or without a value after =', () => {
    expect(refused(['recall', 'x', '--topk', '3'])).toBe('unknown flag --topk (did you mean --top-k?)');
    expect(refused(['recall', 'x', '--topk=3'])).toBe('unknown flag --topk (did you mean --top-k?)');
    expect(refused(['learn', 'f', '--dryrun'])).toBe('unknown flag --dryrun (did you mean --dry-run?)');
  });

  it('names an unknown flag with no near neighbour plainly, and passes other parse errors through', () => {
    expect(refused(['recall', 'x', '--bogus-flag'])).toBe('unknown flag --bogus-flag');
    expect(refused(['recall', '--top-k'])).toMatch(/--top-k/);
  });
});
