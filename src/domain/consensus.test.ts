import { describe, expect, it } from 'vitest';
import { toolCall } from './tool-call.case.js';
import { buildConsensus, isSetting } from './consensus.js';
import type { Span, ToolCall } from './types.js';

const call = toolCall;
const span = (id: string, calls: ToolCall[]): Span => ({ sessionId: id, start: 0, end: calls.length, calls });
const rules = { requiredSupport: 0.5, conditionalSupport: 0.25 };

describe('buildConsensus', () => {
  it('traces the text an edit replaces to the read that printed it, and leaves the new text to the agent', () => {
    const run = (id: string, line: string, fixed: string, request: string): Span => ({
      ...span(id, [
        call(
          0,
          'Read',
          { file_path: `/repo/src/${id}.ts` },
          `     1→export function ${id}() {\n     2→${line}\n     3→}`,
        ),
        call(1, 'Edit', { file_path: `/repo/src/${id}.ts`, old_string: line, new_string: fixed }, 'updated'),
      ]),
      request,
    });
    const spans = [
      run('a', '  return Math.floor(x) / 100;', '  return Math.round(x) / 100;', 'the a test fails, fix it'),
      run('b', '  return total - tax;', '  return total + tax;', 'b is wrong, please fix'),
      run('c', '  if (!m) return null;', '  if (!m) return parse(s);', 'fix c'),
    ];
    const edit = buildConsensus(spans, rules).steps.find((st) => st.tool === 'Edit')!;
    expect(edit.sources).toContainEqual({ arg: 'old_string', from: 'result', tool: 'Read', path: '', part: true });
    expect(edit.dataFlow).toContainEqual({ arg: 'old_string', fromTool: 'Read', path: '', part: true });
    // The line of code the agent wrote, and the file it went to, are its own: no source says the user gave them.
    expect(edit.written).toEqual(['file_path', 'new_string']);
    expect(edit.sources?.filter((x) => x.from === 'user')).toEqual([]);
    // The file it went to is the one the read was given; the new text was given to no earlier step.
    expect(edit.sameAs).toEqual([{ arg: 'file_path', tool: 'Read', fromArg: 'file_path' }]);
  });

  it('says an argument the agent chose took what an earlier step was given, under any name, when most sessions did', () => {
    const run = (id: string, target: string): Span =>
      span(id, [
        call(0, 'Grep', { pattern: `todo-${id}` }, `src/${id}.ts`),
        call(1, 'view', { path: `/w/src/${id}.ts` }, `1: // todo-${id}`),
        call(2, 'str_replace', { file: target, old: `// todo-${id}`, new: `// done ${id}` }, 'ok'),
      ]);
    const edit = (spans: Span[]) => buildConsensus(spans, rules).steps.find((st) => st.tool === 'str_replace')!;
    expect(edit([run('a', '/w/src/a.ts'), run('b', '/w/src/b.ts'), run('c', '/w/src/c.ts')]).sameAs).toEqual([
      { arg: 'file', tool: 'view', fromArg: 'path' },
    ]);
    // Two sessions of three edited another file than the one they viewed: nothing is said.
    expect(edit([run('a', '/w/src/a.ts'), run('b', '/w/lib/b.ts'), run('c', '/w/lib/c.ts')]).sameAs).toBeUndefined();
  });

  it('takes a pair of steps done once per item (Read, then Edit, for each file) as the pair, repeated', () => {
    const pairs = (id: string, files: number) =>
      span(id, [
        call(0, 'Grep'),
        ...Array.from({ length: files }, (_, f) => [call(1 + 2 * f, 'Read'), call(2 + 2 * f, 'Edit')]).flat(),
      ]);
    const { steps } = buildConsensus([pairs('a', 4), pairs('b', 2), pairs('c', 3)], rules);
    expect(steps.map((s) => s.tool)).toEqual(['Grep', 'Read', 'Edit']);
    expect(steps.filter((s) => s.repeated).map((s) => s.tool)).toEqual(['Read', 'Edit']);
    // Once is not a loop: a lookup, an action, and the lookup again to check it stay three steps.
    const check = buildConsensus(
      ['x', 'y'].map((id) => span(id, [call(0, 'get_order'), call(1, 'cancel_order'), call(2, 'get_order')])),
      { ...rules, path: 'whole' },
    );
    expect(check.steps.map((s) => s.tool)).toEqual(['get_order', 'cancel_order', 'get_order']);
  });

  it('keeps the steps most sessions share as required and rarer ones as conditional', () => {
    const spans = [
      span('a', [call(0, 'find_user'), call(1, 'get_order'), call(2, 'refund')]),
      span('b', [call(0, 'find_user'), call(1, 'get_order'), call(2, 'refund')]),
      span('c', [call(0, 'find_user'), call(1, 'get_order'), call(2, 'check_policy'), call(3, 'refund')]),
      span('d', [call(0, 'find_user'), call(1, 'get_order'), call(2, 'refund')]),
      span('e', [call(0, 'find_user'), call(1, 'get_order'), call(2, 'check_policy'), call(3, 'refund')]),
      span('f', [call(0, 'find_user'), call(1, 'get_order'), call(2, 'refund')]),
      span('g', [call(0, 'find_user'), call(1, 'get_order'), call(2, 'refund')]),
      span('h', [call(0, 'find_user'), call(1, 'get_order'), call(2, 'refund')]),
    ];
    const { steps } = buildConsensus(spans, rules);
    expect(steps.map((s) => s.tool)).toEqual(['find_user', 'get_order', 'check_policy', 'refund']);
    expect(steps.find((s) => s.tool === 'check_policy')).toMatchObject({ conditional: true, support: 0.25 });
    expect(steps.filter((s) => !s.conditional).map((s) => s.tool)).toEqual(['find_user', 'get_order', 'refund']);
  });

  it('keeps with an optional step the condition under which the sessions took it, when a lookup shows it', () => {
    const spans = ['1', '2', '3', '4', '5', '6', '7'].map((k, i) => {
      const damaged = i < 3;
      return span(`s${k}`, [
        call(
          0,
          'get_order_details',
          { order_id: `#W${k}00` },
          JSON.stringify({ order_id: `#W${k}00`, condition: damaged ? 'damaged' : 'fine' }),
        ),
        ...(damaged ? [call(1, 'check_policy', { order_id: `#W${k}00` }, '{}')] : []),
        call(2, 'refund_order', { order_id: `#W${k}00` }, '{"status": "refunded"}'),
      ]);
    });
    const full = buildConsensus(spans, rules);
    const policy = full.steps.find((s) => s.tool === 'check_policy');
    expect(policy).toMatchObject({
      conditional: true,
      when: { tool: 'get_order_details', path: 'condition', in: ['damaged'] },
    });
    expect(full.steps.find((s) => s.tool === 'refund_order')?.sources).toEqual([{ arg: 'order_id', from: 'user' }]);
    expect(full.goal?.shows).toEqual([{ path: 'status', value: 'refunded' }]);
    // A state-changing step says what its result showed; a lookup's result is what it found.
    expect(full.steps.find((s) => s.tool === 'refund_order')?.shows).toEqual([{ path: 'status', value: 'refunded' }]);
    expect(full.steps.find((s) => s.tool === 'get_order_details')?.shows).toBeUndefined();
    // What admission and evidence compare sessions with: the same steps, with nothing read from the results.
    const bare = buildConsensus(spans, { ...rules, stepsOnly: true });
    expect(bare.steps.map((s) => [s.tool, s.support, s.conditional])).toEqual(
      full.steps.map((s) => [s.tool, s.support, s.conditional]),
    );
    expect(bare.steps.some((s) => s.when || s.dataFlow.length || s.parameters.length || s.sources || s.shows)).toBe(
      false,
    );
    expect(bare.goal).toEqual({ tool: 'refund_order', shows: [] });
  });

  it('says what a state-changing step showed when it worked, not what a failed try printed before', () => {
    const spans = ['a', 'b', 'c'].map((id, i) =>
      span(id, [
        call(0, 'get_line', { line: `L${i}` }, JSON.stringify({ line: `L${i}`, roaming: false })),
        // One session's first try fails; its retry works like the others.
        ...(i === 0 ? [call(1, 'enable_roaming', { line: 'L0' }, 'Error: line busy', false)] : []),
        call(2, 'enable_roaming', { line: `L${i}` }, 'Roaming enabled.\nStatus Bar: 5G'),
        call(3, 'refuel_data', { line: `L${i}`, gb: 2 }, `Added 2 GB to line L${i}`),
      ]),
    );
    const { steps } = buildConsensus(spans, rules);
    expect(steps.map((s) => s.tool)).toEqual(['get_line', 'enable_roaming', 'refuel_data']);
    expect(steps[1].shows).toEqual([{ path: '', value: 'Roaming enabled.' }]);
    // A result that names the line each time shows nothing constant.
    expect(steps[2].shows).toBeUndefined();
  });

  it('never keeps a step only one session took, even in a small cluster (a side trip, not a step)', () => {
    const spans = [
      span('a', [
        call(0, 'find_user'),
        call(1, 'get_order'),
        call(2, 'list_all_product_types'),
        call(3, 'cancel_order'),
      ]),
      span('b', [call(0, 'find_user'), call(1, 'get_order'), call(2, 'cancel_order')]),
    ];
    expect(buildConsensus(spans, rules).steps.map((s) => s.tool)).toEqual(['find_user', 'get_order', 'cancel_order']);
  });

  it("ends the path at the state-changing call: later lookups go, and one session's extra write", () => {
    const spans = ['a', 'b', 'c'].map((id, i) =>
      span(id, [
        call(0, 'find_user'),
        call(1, 'get_order_details'),
        call(2, 'cancel_pending_order', {}, '{"order_id": "#W1", "status": "cancelled"}'),
        ...(i === 0
          ? [call(3, 'modify_pending_order_items'), call(4, 'cancel_pending_order', {}, '{"status": "cancelled"}')]
          : []),
        call(5, 'get_product_details'),
        // One session of three hands the user on at the end: a side trip, not the procedure.
        ...(i === 1 ? [call(6, 'transfer_to_human_agents')] : []),
      ]),
    );
    const c = buildConsensus(spans, rules);
    expect(c.steps.map((s) => s.tool)).toEqual(['find_user', 'get_order_details', 'cancel_pending_order']);
    expect(c.goal).toEqual({ tool: 'cancel_pending_order', shows: [{ path: 'status', value: 'cancelled' }] });
  });

  it('keeps the hand-off most sessions ended with after the fix where handing on is how the task gets done', () => {
    // Four runs resume the line, three of them then transfer; two more only look and transfer (the fix was not the
    // agent's to make): the hand-off is how this task ends.
    const fixed = ['a', 'b', 'c', 'd'].map((id, i) =>
      span(id, [
        call(0, 'get_customer_by_phone'),
        call(1, 'resume_line', {}, '{"status": "active"}'),
        call(2, 'get_details_by_id'),
        ...(i < 3 ? [call(3, 'transfer_to_human_agents', {}, 'Transfer successful')] : []),
      ]),
    );
    const handedOn = ['e', 'f'].map((id) =>
      span(id, [call(0, 'get_customer_by_phone'), call(1, 'transfer_to_human_agents', {}, 'Transfer successful')]),
    );
    const c = buildConsensus([...fixed, ...handedOn], rules);
    // The look-up between the fix and the hand-off is not a step; the hand-off five of six ended with is.
    expect(c.steps.map((s) => s.tool)).toEqual(['get_customer_by_phone', 'resume_line', 'transfer_to_human_agents']);
    expect(c.steps[2].support).toBe(0.83);
    expect(c.goal).toEqual({ tool: 'resume_line', shows: [{ path: 'status', value: 'active' }] });
    // Where every run did the task and then handed on, the hand-off is how those runs went, not the procedure.
    expect(buildConsensus(fixed, rules).steps.map((s) => s.tool)).toEqual(['get_customer_by_phone', 'resume_line']);
    // Two of five ending so is how those runs went, not a step to take.
    const some = ['a', 'b', 'c', 'd', 'e'].map((id, i) =>
      span(id, [
        call(0, 'get_customer_by_phone'),
        call(1, 'resume_line', {}, '{"status": "active"}'),
        ...(i < 2 ? [call(2, 'transfer_to_human_agents', {}, 'Transfer successful')] : []),
      ]),
    );
    expect(buildConsensus(some, rules).steps.map((s) => s.tool)).toEqual(['get_customer_by_phone', 'resume_line']);
  });

  it('drops steps seen in fewer sessions than conditionalSupport', () => {
    const spans = ['a', 'b', 'c', 'd', 'e'].map((id, i) =>
      span(id, [call(0, 'lookup'), ...(i === 0 ? [call(1, 'rare_detour')] : []), call(2, 'act'), call(3, 'confirm')]),
    );
    expect(buildConsensus(spans, rules).steps.map((s) => s.tool)).toEqual(['lookup', 'act', 'confirm']);
  });

  it('treats a run of the same call as one repeated step', () => {
    const spans = ['a', 'b', 'c'].map((id) =>
      span(id, [call(0, 'find'), call(1, 'get_item'), call(2, 'get_item'), call(3, 'act')]),
    );
    const { steps } = buildConsensus(spans, rules);
    expect(steps.map((s) => s.tool)).toEqual(['find', 'get_item', 'act']);
    expect(steps[1].repeated).toBe(true);
    // Calls that differ in nothing go over nothing the run can name.
    expect(steps[1].over).toBeUndefined();
  });

  it('says what a run of one call goes through: the argument that changes from call to call in most runs', () => {
    const run = (id: string, user: string) =>
      span(id, [
        call(0, 'get_user_details', { user_id: user }, `{"orders": ["#${id}1", "#${id}2"]}`),
        call(1, 'get_order_details', { order_id: `#${id}1`, user_id: user }),
        call(2, 'get_order_details', { order_id: `#${id}2`, user_id: user }),
        call(3, 'return_delivered_order_items', { order_id: `#${id}2` }),
      ]);
    const { steps } = buildConsensus([run('a', 'ann'), run('b', 'bob'), run('c', 'cy')], rules);
    expect(steps[1]).toMatchObject({ tool: 'get_order_details', repeated: true, over: 'order_id' });
    expect(steps[0]).toMatchObject({ repeated: false });
    expect(steps[0].over).toBeUndefined();
  });

  it('marks arguments that vary as parameters and values taken from an earlier result as data flow', () => {
    const spans = ['u1', 'u2', 'u3'].map((user, i) =>
      span(user, [
        call(0, 'find_user', { email: `${user}@x.org` }, `{"user_id": "${user}_id"}`),
        call(1, 'get_orders', { user_id: `${user}_id`, limit: 5 }, '[]'),
        call(2, 'cancel', { order_id: `o${i}`, reason: 'no longer needed' }),
      ]),
    );
    const { steps } = buildConsensus(spans, rules);
    expect(steps[0].parameters).toEqual(['email']);
    expect(steps[1].dataFlow).toEqual([{ arg: 'user_id', fromTool: 'find_user', path: 'user_id' }]);
    expect(steps[0].sources).toEqual([{ arg: 'email', from: 'user' }]);
    expect(steps[1].parameters).not.toContain('limit');
    expect(steps[2].parameters).toEqual(['order_id']);
  });

  it('names the few words the sessions set an argument to, each in two sessions at least, as its choices', () => {
    const reasons = ['no longer needed', 'ordered by mistake', 'no longer needed', 'ordered by mistake'];
    const spansWith = (reason: (i: number) => string, email = (i: number) => `u${i}@x.org`) =>
      [0, 1, 2, 3].map((i) =>
        span(`s${i}`, [
          call(0, 'find_user', { email: email(i) }, `{"user_id": "u${i}"}`),
          call(1, 'cancel', { order_id: `o${i}`, reason: reason(i), notify_email: email(i % 2) }),
        ]),
      );
    const [, cancel] = buildConsensus(
      spansWith((i) => reasons[i]),
      rules,
    ).steps;
    expect(cancel.choices).toEqual([{ arg: 'reason', values: ['no longer needed', 'ordered by mistake'] }]);
    expect(cancel.parameters).toContain('reason');
    // A value one session passed is no choice of the task; a person's data never is (two emails, each twice).
    const once = buildConsensus(
      spansWith((i) => (i === 3 ? 'found cheaper' : reasons[i])),
      rules,
    ).steps[1];
    expect(once.choices).toBeUndefined();
    // More than three values is data, not a vocabulary.
    const many = buildConsensus(
      spansWith((i) => ['a', 'b', 'c', 'd'][i]).concat(spansWith((i) => ['a', 'b', 'c', 'd'][i])),
      rules,
    ).steps[1];
    expect(many.choices).toBeUndefined();
  });

  it('takes each argument from the result that first held its exact value, whatever the names say', () => {
    // A real-shaped telecom session: the bill id is only in the bills, the customer id only in the customer.
    const spans = ['1', '2', '3'].map((k) =>
      span(`s${k}`, [
        call(
          0,
          'get_customer_by_phone',
          { phone_number: `555-01${k}0` },
          `{"customer_id": "C100${k}", "line_ids": ["L200${k}"]}`,
        ),
        call(
          1,
          'get_bills_for_customer',
          { customer_id: `C100${k}` },
          `[{"bill_id": "B300${k}", "status": "overdue"}]`,
        ),
        call(2, 'send_payment_request', { customer_id: `C100${k}`, bill_id: `B300${k}` }, '{"status": "sent"}'),
      ]),
    );
    const pay = buildConsensus(spans, rules).steps[2];
    expect(pay.sources).toEqual([
      { arg: 'bill_id', from: 'result', tool: 'get_bills_for_customer', path: '[].bill_id' },
      { arg: 'customer_id', from: 'result', tool: 'get_customer_by_phone', path: 'customer_id' },
    ]);
  });

  it("takes the bill from the bills when the customer's list of bill ids held it first, and no lookup's echo", () => {
    // The customer record lists its bills' ids; the agent picked the overdue one from the bills. Both hold the value
    // in every session: the field named as the argument (a bill's `bill_id`) says where it was chosen, a list of ids
    // does not. The bill lookup echoes the customer id it was given: no origin of it.
    const spans = ['1', '2', '3'].map((k) =>
      span(`s${k}`, [
        call(0, 'find_customer', { name: `Ann ${k}` }, `C100${k}`),
        call(
          1,
          'get_customer_by_phone',
          { phone_number: `555-01${k}0` },
          `{"customer_id": "C100${k}", "bill_ids": ["B300${k}", "B400${k}"]}`,
        ),
        call(
          2,
          'get_bills_for_customer',
          { customer_id: `C100${k}` },
          `[{"bill_id": "B300${k}", "customer_id": "C100${k}", "status": "overdue"}]`,
        ),
        call(3, 'send_payment_request', { customer_id: `C100${k}`, bill_id: `B300${k}` }, '{"status": "sent"}'),
      ]),
    );
    const pay = buildConsensus(spans, rules).steps[3];
    expect(pay.sources).toEqual([
      { arg: 'bill_id', from: 'result', tool: 'get_bills_for_customer', path: '[].bill_id' },
      // A lookup that answers the id itself is named as well as any field: the first of them stays the source.
      { arg: 'customer_id', from: 'result', tool: 'find_customer', path: '' },
    ]);
  });

  it('takes the source every session had over one that held the value in some sessions first', () => {
    // WorkBench: the recipient's address is in the search results when an earlier email went to them (two
    // sessions of three), and always in the directory lookup that comes after.
    const spans = ['1', '2', '3'].map((k, i) =>
      span(`s${k}`, [
        call(
          0,
          'email.search_emails',
          { query: `Update ${k}` },
          `[{'email_id': '0000012${k}', 'sender/recipient': '${i < 2 ? `p${k}@atlas.example` : 'x@atlas.example'}'}]`,
        ),
        call(
          1,
          'company_directory.find_email_address',
          { name: `p${k}` },
          `array(['p${k}@atlas.example'], dtype=object)`,
        ),
        call(2, 'email.forward_email', { email_id: `0000012${k}`, recipient: `p${k}@atlas.example` }, 'Forwarded.'),
      ]),
    );
    expect(buildConsensus(spans, rules).steps[2].sources).toEqual([
      { arg: 'email_id', from: 'result', tool: 'email.search_emails', path: '[].email_id' },
      { arg: 'recipient', from: 'result', tool: 'company_directory.find_email_address', path: '[]' },
    ]);
  });

  it('states no source the sessions do not agree on', () => {
    const spans = ['1', '2', '3', '4'].map((k, i) =>
      span(`s${k}`, [
        call(0, 'get_user_details', { user_id: `u${k}xx` }, `{"orders": ["#W${k}11"], "default_order": "#W${k}22"}`),
        call(1, 'get_order_details', { order_id: i < 2 ? `#W${k}11` : `#W${k}22` }, '{}'),
      ]),
    );
    const [, get] = buildConsensus(spans, rules).steps;
    expect(get.sources).toEqual([]);
    expect(get.dataFlow).toEqual([]);
  });

  it('is deterministic and rejects an empty cluster', () => {
    const spans = ['a', 'b', 'c'].map((id) => span(id, [call(0, 'x'), call(1, 'y'), call(2, 'z')]));
    expect(buildConsensus(spans, rules)).toEqual(buildConsensus(spans, rules));
    expect(() => buildConsensus([], rules)).toThrow();
  });
});

describe('isSetting: a fixed argument value a skill may quote', () => {
  it.each([
    ['mode', '4g_5g_preferred'],
    ['permission', 'storage'],
    ['app_name', 'messaging'],
    ['theme', 'dark-mode'],
    ['format', 'v1.json'],
  ])('quotes %s %s', (arg, value) => {
    expect(isSetting(arg, value)).toBe(true);
  });

  it.each([
    ['phone_number', '555-123-2002'],
    ['first_name', 'yusuf'],
    ['name', 'ana'],
    ['email', 'a.b'],
    ['customer_id', 'c1001'],
    ['item_ids', 'abc'],
    ['payment_method_id', 'gift_card_7194529'],
    ['mode', 'gift_card_7194529'],
    ['reason', 'no longer needed'],
    ['mode', 'Preferred'],
    ['flag', 'true'],
    ['count', '42'],
    ['mode', 'x'.repeat(33)],
  ])('does not quote %s %s', (arg, value) => {
    expect(isSetting(arg, value)).toBe(false);
  });
});
