import { describe, expect, it } from 'vitest';
import { titleOfName } from './skill-md/index.js';
import { renameProblems, retitle } from './skill-rename.js';

const text = {
  description: 'Fix MMS Messages: looks up the line, then resets the APN. Use when a user reports a problem with MMS.',
  body: '# Fix MMS Messages\n\nLearned from 4 successful sessions.\n\n## Steps\n\n1. Call `get_line`.\n',
};

describe('a skill said under another name', () => {
  it('titles the name, keeping the casing the old title gave a word', () => {
    expect(titleOfName('restore-mms')).toBe('Restore Mms');
    expect(titleOfName('restore-mms', 'Fix MMS Messages')).toBe('Restore MMS');
  });

  it("says the name in the body's title and the description's lead, and nowhere else", () => {
    expect(retitle(text, 'restore-mms')).toEqual({
      description: 'Restore MMS: looks up the line, then resets the APN. Use when a user reports a problem with MMS.',
      body: '# Restore MMS\n\nLearned from 4 successful sessions.\n\n## Steps\n\n1. Call `get_line`.\n',
    });
    // A description a person or a model wrote without the title as its lead is left as it is.
    const other = { ...text, description: 'Resets the APN for a line that sends no pictures.' };
    expect(retitle(other, 'restore-mms').description).toBe(other.description);
    // A body that does not open with a title has none to change.
    const untitled = { ...text, body: 'Steps a person wrote.\n\n# Fix MMS Messages\n' };
    expect(retitle(untitled, 'restore-mms')).toEqual(untitled);
    // A draft written under the distiller's own title, said under the name a person gave.
    expect(retitle(text, 'restore-mms').body.split('\n')[0]).toBe('# Restore MMS');
  });

  it('takes only a valid agentskills name', () => {
    expect(renameProblems('restore-mms')).toEqual([]);
    expect(renameProblems('Restore MMS')).toEqual([
      'must be lowercase ASCII letters, digits and "-" only (found "R", " ", "M", "S")',
    ]);
    expect(renameProblems('-mms')).toEqual(['must not start or end with "-"']);
    expect(renameProblems('')).toEqual(['must not be empty']);
  });
});
