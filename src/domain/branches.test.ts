import { describe, expect, it } from 'vitest';
import { toolCall } from './tool-call.case.js';
import {
  branchesFor,
  branchesOf,
  categoricalFields,
  conditionHolds,
  resolveBranches,
  separatingCondition,
  stepsOf,
  textFields,
  toolsetBranchesOf,
  withBranches,
  withoutToolsetSteps,
  withToolsetSteps,
} from './branches.js';
import type { Span } from './types.js';

const call = (position: number, tool: string, args: Record<string, unknown>, result = '{}') =>
  toolCall(position, tool, args, result);
const order = (id: string, status: string, city: string) =>
  JSON.stringify({ order_id: id, address: { city }, status, items: [{ options: { color: 'red' } }] });
/** A retail session: look the order up, then cancel it (pending) or return it (delivered). */
function session(id: string, status: 'pending' | 'delivered', city = 'Austin'): Span {
  const calls = [
    call(0, 'find_user_id_by_email', { email: `${id}@x.org` }, `user_${id}`),
    call(1, 'get_order_details', { order_id: `#W${id}` }, order(`#W${id}`, status, city)),
    status === 'pending'
      ? call(2, 'cancel_pending_order', { order_id: `#W${id}` }, order(`#W${id}`, 'cancelled', city))
      : call(2, 'return_delivered_order_items', { order_id: `#W${id}` }, order(`#W${id}`, 'return requested', city)),
  ];
  return { sessionId: id, start: 0, end: calls.length, calls };
}
const shared = ['find_user_id_by_email', 'get_order_details'];

describe('separatingCondition', () => {
  const cancels = ['1001', '1002', '1003'].map((id) => session(id, 'pending'));
  const returns = ['2001', '2002', '2003', '2004'].map((id) => session(id, 'delivered'));

  it('finds the field of the shared lookup that parts the sessions, read before they act', () => {
    const all = [...cancels, ...returns];
    expect(separatingCondition(cancels, returns, shared, categoricalFields(all))).toEqual({
      tool: 'get_order_details',
      path: 'status',
      in: ['pending'],
    });
    expect(separatingCondition(returns, cancels, shared, categoricalFields(all))?.in).toEqual(['delivered']);
  });

  it('keeps no condition that replays of one record, a mixed field or a list element would give', () => {
    // The same order looked up three times is one record: no evidence.
    const replays = [1, 2, 3].map(() => session('1001', 'pending'));
    expect(separatingCondition(replays, returns, shared)).toBeNull();
    // A status both sides saw does not separate them.
    const mixed = [...returns.slice(0, 3), session('2005', 'pending')];
    expect(separatingCondition(cancels, mixed, shared)).toBeNull();
    // A city that differs by chance is not categorical across the sessions.
    const here = ['1001', '1002', '1003'].map((id, i) => session(id, 'pending', `Town${'abc'[i]}`));
    const there = ['2001', '2002', '2003', '2004'].map((id, i) => session(id, 'delivered', `City${'abcd'[i]}`));
    const cond = separatingCondition(here, there, shared, categoricalFields([...here, ...there]));
    expect(cond?.path).toBe('status');
  });

  it('tolerates a few sessions of the group that saw another value, never one of the rest that saw the value', () => {
    // Eight cancellations of pending orders and one of a delivered order (it did the same): the rule holds for
    // 8 of the 9, and no return saw "pending".
    const group = [
      ...['1001', '1002', '1003', '1004', '1005', '1006', '1007', '1008'].map((id) => session(id, 'pending')),
    ];
    group.push(session('1009', 'delivered'));
    expect(separatingCondition(group, returns, shared)).toEqual({
      tool: 'get_order_details',
      path: 'status',
      in: ['pending'],
    });
    // Two of five that saw another value are too many: no rule.
    const split = [...cancels.slice(0, 3), session('1010', 'delivered'), session('1011', 'delivered')];
    expect(separatingCondition(split, returns, shared)).toBeNull();
    // Two records on each side are evidence enough; one is not.
    expect(separatingCondition(cancels.slice(0, 2), returns.slice(0, 2), shared)?.in).toEqual(['pending']);
    // A field each record has its own value of (a town per order) is no category, however cleanly it parts them:
    // here six towns over eight orders.
    const inTowns = (ids: string[], names: string[]) => ids.map((id, i) => session(id, 'pending', names[i]));
    const ab = inTowns(['1001', '1002', '1003', '1004'], ['Ames', 'Boise', 'Ames', 'Boise']);
    const rest = inTowns(['2001', '2002', '2003', '2004'], ['Cary', 'Dover', 'Elko', 'Fargo']);
    expect(separatingCondition(ab, rest, shared)).toBeNull();
    expect(separatingCondition([cancels[0], cancels[0]], returns, shared)).toBeNull();
  });

  it("never names a person's details, however cleanly they part the sessions", () => {
    // The cancellations were all for customers in Ames, the returns in Cary; every order was pending. The town
    // parts them on the evidence, but it is an address: a skill must not quote it, and it is no rule.
    const here = ['1001', '1002', '1003', '1004'].map((id) => session(id, 'pending', 'Ames'));
    const there = ['2001', '2002', '2003', '2004'].map((id) => session(id, 'pending', 'Cary'));
    const all = [...here, ...there];
    expect(categoricalFields(all)('get_order_details', 'address.city')).toBe(false);
    expect(separatingCondition(here, there, shared, categoricalFields(all))).toBeNull();
    // The same town printed by a check as a line of text is not named either.
    const printed = (id: string, town: string, ok: boolean): Span => {
      const calls = [
        call(0, 'show_customer', {}, `Customer: ${id}\nAddress: ${town}`),
        call(1, ok ? 'cancel_pending_order' : 'return_delivered_order_items', { order_id: `#W${id}` }, 'done'),
      ];
      return { sessionId: id, start: 0, end: calls.length, calls };
    };
    const a = ['1001', '1002', '1003'].map((id) => printed(id, 'Ames', true));
    const b = ['2001', '2002', '2003'].map((id) => printed(id, 'Cary', false));
    expect(separatingCondition(a, b, ['show_customer'], undefined, { text: true, all: true })).toBeNull();
  });
});

describe('branches in a body', () => {
  const branches = [
    {
      when: { tool: 'get_order_details', path: 'status', in: ['pending'] },
      toolSequence: ['find_user_id_by_email', 'get_order_details', 'cancel_pending_order'],
    },
  ];
  const body = '# Return Items\n\n## Steps\n\n1. Call `get_order_details`.\n\n## Done when\n\nDone.\n';

  it('states them plainly and reads them back; an empty list removes the section', () => {
    const written = withBranches(body, branches, (v) => JSON.stringify(v));
    expect(written).toContain(
      '- If `get_order_details` shows `status` in ["pending"], follow: `find_user_id_by_email` > `get_order_details` > `cancel_pending_order`.',
    );
    expect(written.indexOf('## Branches')).toBeLessThan(written.indexOf('## Done when'));
    expect(branchesOf(written)).toEqual(branches);
    expect(withBranches(written, branches, (v) => JSON.stringify(v))).toBe(written);
    expect(withBranches(written, [], (v) => JSON.stringify(v))).toBe(body);
    expect(branchesOf(body)).toEqual([]);
  });

  it("tells an agent without a branch's tools that the procedure does not fit there, instead of handing it over", () => {
    const written = withBranches(body, branches, (v) => JSON.stringify(v));
    const all = (_: string) => true;
    expect(branchesFor(written, all)).toEqual({ body: written, branches });
    const noCancel = branchesFor(written, (t) => t !== 'cancel_pending_order');
    expect(noCancel.branches).toEqual([]);
    expect(noCancel.body).not.toContain('follow: `find_user_id_by_email`');
    expect(noCancel.body).toContain(
      '- If `get_order_details` shows `status` in ["pending"], the sessions went on with `cancel_pending_order`, which is not among your tools: this procedure does not fit; do not follow the steps above.',
    );
    // The rest of the body is untouched, and the line no longer reads back as a branch.
    expect(noCancel.body.replace(/^- If .*$/m, '')).toBe(written.replace(/^- If .*$/m, ''));
    expect(branchesOf(noCancel.body)).toEqual([]);
  });

  it('follows the branch whose condition the session shows, else the main path', () => {
    const skill = { toolSequence: ['get_order_details', 'return_delivered_order_items'], branches };
    const pending = session('3001', 'pending').calls;
    const delivered = session('3002', 'delivered').calls;
    expect(conditionHolds(branches[0].when, pending)).toBe(true);
    expect(resolveBranches(skill, pending)).toEqual(branches[0].toolSequence);
    expect(resolveBranches(skill, delivered)).toEqual(skill.toolSequence);
    expect(resolveBranches({ toolSequence: ['x'] }, pending)).toEqual(['x']);
  });
});

describe('a branch on the tools an agent has', () => {
  const kit = {
    when: { tool: 'can_send_mms', path: '', in: [], available: true as const },
    toolSequence: ['get_customer_by_phone', 'check_network_status', 'toggle_airplane_mode', 'can_send_mms'],
  };
  const onStatus = {
    when: { tool: 'get_details_by_id', path: 'status', in: ['Suspended'] },
    toolSequence: ['get_customer_by_phone', 'get_details_by_id', 'resume_line'],
  };
  const body = '# Fix MMS\n\n## Steps\n\n1. Call `get_customer_by_phone`.\n\n## Done when\n\nDone.\n';

  it("is stated as a condition on the agent's tools and read back as one, with a lookup's branch beside it", () => {
    const written = withBranches(body, [kit, onStatus], (v) => JSON.stringify(v));
    expect(written).toContain('Decided by the tools you have and what a lookup shows');
    expect(written).toContain(
      '- If you can call `can_send_mms` yourself, follow: `get_customer_by_phone` > `check_network_status` > `toggle_airplane_mode` > `can_send_mms`.',
    );
    expect(branchesOf(written)).toEqual([kit, onStatus]);
    expect(toolsetBranchesOf(written)).toEqual([kit]);
    // Only branches on a lookup: said as before.
    expect(withBranches(body, [onStatus], (v) => JSON.stringify(v))).toContain(
      'Decided by what a lookup shows, not by the words of the request',
    );
  });

  it('holds in a session that called the tool, whatever it returned; else the main path', () => {
    const skill = { toolSequence: ['get_customer_by_phone', 'get_details_by_id'], branches: [kit] };
    const held = [
      call(0, 'get_customer_by_phone', { phone: '555' }, '{"customer_id":"C1"}'),
      { ...call(1, 'can_send_mms', {}, 'error'), ok: false },
    ];
    const lacked = [call(0, 'get_customer_by_phone', { phone: '555' }, '{"customer_id":"C1"}')];
    expect(conditionHolds(kit.when, held)).toBe(true);
    expect(conditionHolds(kit.when, lacked)).toBe(false);
    expect(resolveBranches(skill, held)).toEqual(kit.toolSequence);
    expect(resolveBranches(skill, lacked)).toEqual(skill.toolSequence);
  });

  it("states its steps in a section of their own after the branches, which the main path's readers leave aside", () => {
    const steps = ['1. Call `get_customer_by_phone`.', '2. If Airplane Mode is ON: call `toggle_airplane_mode`.'];
    const written = withToolsetSteps(withBranches(body, [kit], String), 'can_send_mms', steps);
    const headings = written.split('\n').filter((l) => l.startsWith('## '));
    expect(headings).toEqual([
      '## Steps',
      '## Branches',
      '## Steps if you can call `can_send_mms` yourself',
      '## Done when',
    ]);
    expect(stepsOf(written)).toEqual(['1. Call `get_customer_by_phone`.']);
    expect(withoutToolsetSteps(written)).toBe(withBranches(body, [kit], String));
    // Written again: replaced, not added twice; the branch stage's rewrite of the branches keeps it where it is.
    expect(withToolsetSteps(written, 'can_send_mms', steps)).toBe(written);
    const rebranched = withBranches(written, [kit, onStatus], (v) => JSON.stringify(v));
    expect(rebranched.split('\n').filter((l) => l.startsWith('## '))).toEqual(headings);
    expect(branchesOf(rebranched)).toEqual([kit, onStatus]);
    // An agent without the phone's tools reads neither the branch nor its steps.
    expect(branchesFor(written, (t) => t === 'get_customer_by_phone').body).toBe(body);
  });

  it('is not handed to an agent that lacks the tool: the line goes, and the section with it when it was the only one', () => {
    const written = withBranches(body, [kit], (v) => JSON.stringify(v));
    const phoneless = (t: string) => !['can_send_mms', 'check_network_status', 'toggle_airplane_mode'].includes(t);
    expect(branchesFor(written, phoneless)).toEqual({ body, branches: [] });
    expect(branchesFor(written, () => true)).toEqual({ body: written, branches: [kit] });
    // Beside a lookup's branch the agent can follow, only the kit's line goes.
    const both = withBranches(body, [kit, onStatus], (v) => JSON.stringify(v));
    const fit = branchesFor(both, phoneless);
    expect(fit.branches).toEqual([onStatus]);
    expect(fit.body).not.toContain('can_send_mms');
    expect(fit.body).toContain('- If `get_details_by_id` shows `status` in ["Suspended"], follow:');
  });
});

describe("conditions on what a tool printed (a step's condition)", () => {
  it('reads the fields of a plain-text result: Key: value lines, their | parts, a one-line text', () => {
    expect(textFields('Airplane Mode: ON\nSIM Card Status: active\n(These are technical settings.)')).toEqual([
      { path: 'Airplane Mode', value: 'ON' },
      { path: 'SIM Card Status', value: 'active' },
    ]);
    expect(textFields('Status Bar: ✈️ Airplane Mode | 🔋 80%')).toEqual([
      { path: 'Status Bar', value: '✈️ Airplane Mode' },
      { path: 'Status Bar', value: '🔋 80%' },
    ]);
    expect(textFields('VPN is turned OFF.')).toEqual([{ path: '', value: 'VPN is turned OFF.' }]);
    expect(textFields('inactive\n')).toEqual([{ path: '', value: 'inactive' }]);
    // JSON has its own paths; a listing of several lines, or a long sentence, is no field.
    expect(textFields('{"status": "pending"}')).toEqual([]);
    expect(textFields('a.txt\nb.txt\nc.txt')).toEqual([]);
    expect(textFields(`The line ${'was checked and '.repeat(5)}found fine.`)).toEqual([]);
    expect(textFields(null)).toEqual([]);
    // A long text (a log, a file) is no status print, whatever lines it holds.
    expect(textFields(`Airplane Mode: ON\n${'log line\n'.repeat(300)}`)).toEqual([]);
  });

  /** A phone support session: read the device's status, then toggle airplane mode off when it was on. */
  const device = (id: string, airplane: 'ON' | 'OFF', data: 'Yes' | 'No', toggles: boolean): Span => {
    const status = `Airplane Mode: ${airplane}\nMobile Data Enabled: ${data}\nData Roaming Enabled: No`;
    const calls = [
      call(0, 'get_customer_by_phone', { phone_number: `555-${id}` }, JSON.stringify({ customer_id: `C${id}` })),
      call(1, 'check_network_status', {}, status),
      ...(toggles ? [call(2, 'toggle_airplane_mode', {}, 'Airplane Mode: OFF')] : []),
      call(3, 'run_speed_test', {}, 'Speed Test Result: 275.00 Mbps (Excellent).'),
    ];
    return { sessionId: id, start: 0, end: calls.length, calls };
  };
  const tools = ['get_customer_by_phone', 'check_network_status'];
  const read = { text: true, all: true, about: 'toggle_airplane_mode' };
  // The sessions that toggled, as they were just before toggling; the others as they were throughout.
  const took = [device('1', 'ON', 'No', true), device('2', 'ON', 'Yes', true), device('3', 'ON', 'No', true)].map(
    (s) => ({ ...s, calls: s.calls.slice(0, 2) }),
  );
  const skipped = [device('4', 'OFF', 'No', false), device('5', 'OFF', 'Yes', false), device('6', 'OFF', 'No', false)];

  it('names the printed line that parts the sessions which took a step from those which did not', () => {
    const categorical = categoricalFields([...took, ...skipped], read);
    expect(separatingCondition(took, skipped, tools, categorical, read)).toEqual({
      tool: 'check_network_status',
      path: 'Airplane Mode',
      in: ['ON'],
      text: true,
    });
    const holds = (calls: Span['calls']) =>
      conditionHolds({ tool: 'check_network_status', path: 'Airplane Mode', in: ['ON'], text: true }, calls);
    expect(holds(device('6', 'ON', 'No', false).calls)).toBe(true);
    expect(holds(device('7', 'OFF', 'No', false).calls)).toBe(false);
    // A branch never reads text: the recall contract's path is a JSON path.
    expect(separatingCondition(took, skipped, tools, categorical)).toBeNull();
  });

  it('names a printed line only for the step it is about, and counts the same print of a check once', () => {
    // "Airplane Mode: ON" says nothing about roaming, however cleanly it parts these sessions.
    expect(separatingCondition(took, skipped, tools, () => true, { ...read, about: 'toggle_roaming' })).toBeNull();
    // The others printed the same status twice: one observation, not the two a rule needs.
    const same = [device('4', 'OFF', 'No', false), device('5', 'OFF', 'No', false)];
    expect(separatingCondition(took, same, tools, () => true, read)).toBeNull();
  });
});
