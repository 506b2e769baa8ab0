import { describe, expect, it } from 'vitest';
import { constantFields, goalStep, mainPathIndices, mainPathLength } from './main-path.js';

describe('the main path', () => {
  it('ends at the last state-changing call, or keeps everything when nothing changed anything', () => {
    expect(mainPathLength(['get_order', 'cancel_order', 'get_order', 'transfer_to_human_agents'])).toBe(2);
    expect(mainPathLength(['get_bills', 'send_payment_request', 'get_line', 'resume_line', 'get_line'])).toBe(4);
    expect(mainPathLength(['get_x', 'get_y', 'transfer_to_human_agents'])).toBe(3);
    // Buying more data after enabling roaming is the fix, not a look-up after it (tau2 telecom).
    const data = ['get_customer_by_phone', 'enable_roaming', 'get_data_usage', 'refuel_data', 'get_details_by_id'];
    expect(mainPathLength(data)).toBe(4);
  });

  it('runs on to the last command run after the change: the test that shows the edit worked', () => {
    expect(mainPathLength(['Read', 'Edit', 'Bash'])).toBe(3);
    expect(mainPathLength(['Read', 'Edit', 'Read', 'Bash', 'Read'])).toBe(4);
    expect(mainPathLength(['Grep', 'Edit', 'Read'])).toBe(2);
    expect(mainPathLength(['get_order', 'cancel_order', 'exec_command', 'transfer_to_human_agents'])).toBe(3);
  });

  it('keeps a hand-off that ended the session after the fix, without the look-ups between', () => {
    expect(mainPathIndices(['get_line', 'resume_line', 'get_line', 'transfer_to_human_agents'])).toEqual([0, 1, 3]);
    expect(mainPathIndices(['get_line', 'resume_line', 'transfer_to_human_agents', 'get_line'])).toEqual([0, 1]);
    expect(mainPathIndices(['get_x', 'transfer_to_human_agents'])).toEqual([0, 1]);
    expect(mainPathIndices(['get_order', 'cancel_order', 'get_order'])).toEqual([0, 1]);
  });

  it('names the last required state-changing step as the goal', () => {
    const step = (tool: string, conditional = false) => ({ tool, conditional });
    expect(goalStep([step('get_bills'), step('send_payment_request'), step('resume_line')])?.tool).toBe('resume_line');
    expect(goalStep([step('get_x'), step('cancel_order'), step('modify_order', true)])?.tool).toBe('cancel_order');
    expect(goalStep([step('get_x'), step('transfer_to_human_agents')])).toBeNull();
  });

  it('says what the goal call showed every time, never an id or an amount', () => {
    const results = [
      '{"order_id": "#W1234567", "status": "cancelled", "total": 120.5}',
      '{"order_id": "#W7654321", "status": "cancelled", "total": 99.5}',
      '{"order_id": "#W1111111", "status": "cancelled", "total": 120.5}',
    ];
    expect(constantFields(results)).toEqual([{ path: 'status', value: 'cancelled' }]);
    expect(constantFields([results[0]])).toEqual([]);
    expect(constantFields([results[0], '{"status": "pending"}'])).toEqual([]);
  });

  it('quotes a plain-text answer the goal call gave every time, but not a printed nothing', () => {
    const said = ['Email forwarded successfully.', 'Email forwarded successfully.', 'Email forwarded successfully.'];
    expect(constantFields(said)).toEqual([{ path: '', value: 'Email forwarded successfully.' }]);
    expect(constantFields(['None', 'None', 'None'])).toEqual([]);
    // Answers that differ (an id in each) say nothing constant.
    expect(constantFields(['Created task 00001234', 'Created task 00005678'])).toEqual([]);
  });

  it("reads a printed answer's first line, over a status print that differs each time", () => {
    const toggled = ['Poor | 2G', 'Excellent | 5G', 'Good | 4G'].map(
      (bar) => `Airplane Mode is now OFF.\nStatus Bar: ${bar}`,
    );
    expect(constantFields(toggled)).toEqual([{ path: '', value: 'Airplane Mode is now OFF.' }]);
    // A sentence up to 80 characters says what happened; a longer first line is a record.
    const set = (bar: string) => `Preferred Network Mode set to: 4g_5g_preferred\nStatus Bar: ${bar}`;
    expect(constantFields([set('a'), set('b')])).toEqual([
      { path: '', value: 'Preferred Network Mode set to: 4g_5g_preferred' },
    ]);
    expect(constantFields(['x'.repeat(81), 'x'.repeat(81)])).toEqual([]);
    // A header over a listing says nothing about what happened.
    expect(constantFields(['Files:\na.txt', 'Files:\nb.txt'])).toEqual([]);
  });
});
