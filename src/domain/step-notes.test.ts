import { describe, expect, it } from 'vitest';
import { DONE_NOTE, doneNote, FIELD_NOTE, fieldNote, RESULT_NOTE, resultNote, shownItems } from './step-notes.js';

describe('step notes read back as they are written', () => {
  it('a result note gives back its quoted items', () => {
    const line = `4. Call \`toggle_data\`.${resultNote(['"Mobile Data is now ON."', '`status` "on"'])}`;
    const m = RESULT_NOTE.exec(line);
    expect(m).not.toBeNull();
    expect(shownItems(m![1])).toEqual([
      { path: '', value: 'Mobile Data is now ON.' },
      { path: 'status', value: 'on' },
    ]);
    expect(resultNote([])).toBe('');
  });

  it('a finishing condition gives back its call and what its result showed', () => {
    const fields = DONE_NOTE.exec(doneNote('resume_line', { shows: ['`line.status` "Active"'] }));
    expect(fields?.[1]).toBe('resume_line');
    expect(shownItems(fields![2])).toEqual([{ path: 'line.status', value: 'Active' }]);
    const answered = DONE_NOTE.exec(doneNote('delete_email', { answered: JSON.stringify('Email "x" deleted.') }));
    expect(answered?.[1]).toBe('delete_email');
    expect(shownItems(answered![2])).toEqual([{ path: '', value: 'Email "x" deleted.' }]);
    // Checked by a command after it: the user is not asked to confirm, and the quote reads back the same.
    const checked = doneNote('Edit', { answered: JSON.stringify('The file a.ts has been updated.') }, true);
    expect(checked).toBe('`Edit` has succeeded and answered "The file a.ts has been updated.".');
    expect(shownItems(DONE_NOTE.exec(checked)![2])).toEqual([{ path: '', value: 'The file a.ts has been updated.' }]);
  });

  it('a field note names the field, or says the result lists values, and both read back as a field note', () => {
    expect(fieldNote('orders[]')).toBe(' (field `orders[]`)');
    expect(fieldNote('[]')).toBe(' (one of the values it lists)');
    // A piece of a text: of the result's text, or of one of its fields.
    expect(fieldNote('', true)).toBe(' (part of its text, copied exactly)');
    expect(fieldNote('output', true)).toBe(' (part of field `output`, copied exactly)');
    for (const [path, part] of [
      ['orders[]', false],
      ['[]', false],
      ['payment_methods.*.id', false],
      ['', true],
      ['output', true],
    ] as const) {
      const line = `Call \`get_order_details\` with \`order_id\` from the result of \`get_user_details\`${fieldNote(path, part)}.`;
      expect(line.replace(FIELD_NOTE, '')).toBe(
        'Call `get_order_details` with `order_id` from the result of `get_user_details`.',
      );
    }
  });

  it('a finishing condition that quotes nothing says the call succeeded and is not read as a quote', () => {
    const text = doneNote('cancel_pending_order', { shows: [] });
    expect(text).toBe('`cancel_pending_order` has succeeded, and the result is confirmed with the user.');
    expect(DONE_NOTE.exec(text)).toBeNull();
    expect(doneNote('Edit', { shows: [] }, true)).toBe('`Edit` has succeeded.');
    expect(DONE_NOTE.exec(doneNote('Edit', { shows: [] }, true))).toBeNull();
  });
});
