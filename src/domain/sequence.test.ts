import { describe, expect, it } from 'vitest';
import { procedurePath } from './sequence.js';

describe('procedurePath', () => {
  it('reads a pair of steps done over and over once, and repeats as one step', () => {
    expect(procedurePath(['Grep', 'Read', 'Edit', 'Read', 'Edit', 'Read', 'Edit', 'Bash'])).toEqual([
      'Grep',
      'Read',
      'Edit',
      'Bash',
    ]);
    expect(procedurePath(['Bash', 'Bash', 'Read', 'Read', 'Edit', 'Bash'])).toEqual(['Bash', 'Read', 'Edit', 'Bash']);
  });

  it('keeps a pair done once, and a step between two runs of another', () => {
    expect(procedurePath(['Read', 'Edit', 'Bash'])).toEqual(['Read', 'Edit', 'Bash']);
    expect(procedurePath(['Bash', 'Read', 'Bash', 'Edit'])).toEqual(['Bash', 'Read', 'Bash', 'Edit']);
    expect(procedurePath([])).toEqual([]);
  });
});
