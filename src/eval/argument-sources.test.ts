import { describe, expect, it } from 'vitest';
import { toolCall } from '../domain/tool-call.case.js';
import type { ProcedureStep } from '../domain/types.js';
import { addChecks, checkSources } from './argument-sources.js';

const call = toolCall;
const step = (tool: string, sources: ProcedureStep['sources']): ProcedureStep => ({
  tool,
  support: 1,
  conditional: false,
  parameters: [],
  dataFlow: [],
  repeated: false,
  sources,
});

describe('checkSources', () => {
  const session = [
    call(0, 'get_customer_by_phone', { phone_number: '555-0100' }, '{"customer_id": "C1001"}'),
    call(1, 'get_bills_for_customer', { customer_id: 'C1001' }, '[{"bill_id": "B3001"}]'),
    call(2, 'send_payment_request', { customer_id: 'C1001', bill_id: 'B3001' }, '{"status": "sent"}'),
  ];

  it('confirms sources the values bear out and counts the ones they do not', () => {
    const right = step('send_payment_request', [
      { arg: 'bill_id', from: 'result', tool: 'get_bills_for_customer', path: '[].bill_id' },
      { arg: 'customer_id', from: 'result', tool: 'get_customer_by_phone', path: 'customer_id' },
    ]);
    // The old guess: the ids swapped between the two lookups.
    const wrong = step('send_payment_request', [
      { arg: 'bill_id', from: 'result', tool: 'get_customer_by_phone', path: 'customer_id' },
      { arg: 'customer_id', from: 'result', tool: 'get_bills_for_customer', path: '[].bill_id' },
    ]);
    expect(checkSources([right], session)).toEqual({
      checked: 2,
      held: 2,
      checkedResults: 2,
      heldResults: 2,
      otherWay: 0,
      undecided: 0,
    });
    expect(checkSources([wrong], session)).toEqual({
      checked: 2,
      held: 0,
      checkedResults: 2,
      heldResults: 0,
      otherWay: 0,
      undecided: 0,
    });
  });

  it('checks a user source as no earlier result holding the value, and skips what the session never called', () => {
    const steps = [
      step('get_customer_by_phone', [{ arg: 'phone_number', from: 'user' }]),
      step('get_bills_for_customer', [{ arg: 'customer_id', from: 'user' }]),
      step('resume_line', [{ arg: 'line_id', from: 'user' }]),
    ];
    const c = checkSources(steps, session);
    expect(c).toEqual({ checked: 2, held: 1, checkedResults: 0, heldResults: 0, otherWay: 0, undecided: 0 });
    expect(addChecks(c, c)).toEqual({
      checked: 4,
      held: 2,
      checkedResults: 0,
      heldResults: 0,
      otherWay: 0,
      undecided: 0,
    });
  });

  it('checks the call that plays the step, and sets apart a source the session reached another way', () => {
    const twice = [
      call(0, 'get_customer_by_phone', { phone_number: '555-0100' }, '{"customer_id": "C1001", "line_ids": ["L2001"]}'),
      call(1, 'get_details_by_id', { id: 'C1001' }, '{"name": "x"}'),
      call(2, 'get_details_by_id', { id: 'L2001' }, '{"status": "suspended"}'),
      call(3, 'resume_line', { line_id: 'L2001' }, '{"status": "active"}'),
    ];
    const steps = [
      step('get_customer_by_phone', []),
      step('get_details_by_id', []),
      step('get_details_by_id', [{ arg: 'id', from: 'result', tool: 'get_customer_by_phone', path: 'line_ids[]' }]),
      step('resume_line', [{ arg: 'line_id', from: 'result', tool: 'find_line_by_number', path: 'line_id' }]),
    ];
    expect(checkSources(steps, twice)).toEqual({
      checked: 1,
      held: 1,
      checkedResults: 1,
      heldResults: 1,
      otherWay: 1,
      undecided: 0,
    });
  });

  it('sets apart a miss that a cut result cannot decide, but not one whose value shows at another field', () => {
    const cut = [
      call(
        0,
        'get_user_details',
        { user_id: 'mia_li_3668' },
        '{"orders": ["#W1000001"], "payment_methods": {"gift_card_1234567": {"id',
      ),
      call(1, 'modify_pending_order_payment', { payment_method_id: 'gift_card_1234567' }, '{"status": "pending"}'),
    ];
    const byPayment = step('modify_pending_order_payment', [
      { arg: 'payment_method_id', from: 'result', tool: 'get_user_details', path: 'payment_methods.*.id' },
    ]);
    expect(checkSources([byPayment], cut)).toMatchObject({ checked: 0, undecided: 1 });
    const seen = [call(0, 'get_user_details', {}, '{"orders": ["#W1000001"], "default": {"id'), cut[1]];
    const byOrder = step('modify_pending_order_payment', [
      { arg: 'payment_method_id', from: 'result', tool: 'get_user_details', path: 'orders[]' },
    ]);
    seen[1] = { ...cut[1], args: { payment_method_id: '#W1000001' } };
    expect(checkSources([byOrder], seen)).toMatchObject({ checked: 1, held: 1, undecided: 0 });
    seen[1] = { ...cut[1], args: { payment_method_id: '#W1000001' } };
    const wrongField = step('modify_pending_order_payment', [
      { arg: 'payment_method_id', from: 'result', tool: 'get_user_details', path: 'default.id' },
    ]);
    expect(checkSources([wrongField], seen)).toMatchObject({ checked: 1, held: 0, undecided: 0 });
  });

  it("decides a user source after a cut result when the session's request names the value", () => {
    const calls = [
      call(0, 'get_user_details', { user_id: 'mia_li_3668' }, '{"orders": ["#W1000001"], "addr'),
      call(1, 'get_order_details', { order_id: '#W1000002' }, '{"status": "pending"}'),
    ];
    const byUser = step('get_order_details', [{ arg: 'order_id', from: 'user' }]);
    expect(checkSources([byUser], calls)).toMatchObject({ checked: 0, undecided: 1 });
    expect(checkSources([byUser], calls, 'Cancel order #W1000002, please')).toMatchObject({
      checked: 1,
      held: 1,
      undecided: 0,
    });
  });
});
