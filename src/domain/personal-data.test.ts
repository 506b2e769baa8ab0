import { describe, expect, it } from 'vitest';
import { renderTrace } from './evidence.js';
import { holdsPersonalData, isPersonalField, maskPersonalFields, PERSONAL_MARKER } from './personal-data.js';

describe('personal data by name', () => {
  it("refuses a field that names a person's details in any part, and keeps the fields rules are made of", () => {
    for (const field of [
      'address.city',
      'shipping_address.zip',
      'passengers[].first_name',
      'name.last_name',
      'email',
      'Phone Number',
      'Address Line 2',
      'dob',
    ])
      expect(isPersonalField(field), field).toBe(true);
    for (const field of [
      'status',
      'cabin',
      'membership',
      'account_status',
      'name',
      'items[].options.capacity',
      'Airplane Mode',
      'addressee',
    ])
      expect(isPersonalField(field), field).toBe(false);
  });

  it('refuses broadly an argument whose value a skill might quote', () => {
    for (const arg of ['name', 'customer_email', 'account_id', 'api_key', 'user_id', 'zip'])
      expect(holdsPersonalData(arg), arg).toBe(true);
    for (const arg of ['mode', 'reason', 'cabin', 'status']) expect(holdsPersonalData(arg), arg).toBe(false);
  });
});

describe('personal data in what a model reads', () => {
  it("masks the fields that hold a person's details, at any depth and inside JSON text; the rest stays", () => {
    const args = { first_name: 'Lei', last_name: 'Wilson', zip: '32255', reason: 'no longer needed' };
    expect(maskPersonalFields(args)).toEqual({
      first_name: PERSONAL_MARKER,
      last_name: PERSONAL_MARKER,
      zip: PERSONAL_MARKER,
      reason: 'no longer needed',
    });
    const result = JSON.stringify({
      user_id: 'lei_wilson_4541',
      address: { city: 'Denver', country: 'USA' },
      dob: '1985-06-15',
      status: 'active',
    });
    expect(JSON.parse(maskPersonalFields(result) as string)).toEqual({
      user_id: 'lei_wilson_4541',
      address: { city: PERSONAL_MARKER, country: PERSONAL_MARKER },
      dob: PERSONAL_MARKER,
      status: 'active',
    });
    // Nothing personal: the very same value back.
    const plain = { order_id: '#W1', items: [1, 2] };
    expect(maskPersonalFields(plain)).toBe(plain);
    expect(maskPersonalFields('delivered')).toBe('delivered');
  });

  it('an evidence trace (what the LLM distiller and the verifier read) names no person', () => {
    const trace = renderTrace(
      {
        id: 's1',
        namespace: 'default',
        goal: 'Return my order',
        outcome: 'success',
        reward: null,
        agentId: null,
        source: null,
        startedAt: '2025-01-01T00:00:00Z',
        endedAt: null,
        labels: null,
        calls: [
          {
            position: 0,
            tool: 'find_user_id_by_name_zip',
            args: { first_name: 'Lei', last_name: 'Wilson', zip: '32255' },
            result: '{"user_id": "lei_wilson_4541", "name": {"first_name": "Lei", "last_name": "Wilson"}}',
            ok: true,
            error: null,
            durationMs: null,
            at: null,
          },
        ],
      } as never,
      { traceCharCap: 2000, thinkTools: [], redact: (t) => t },
    );
    expect(trace.text).not.toMatch(/Lei|Wilson|32255/);
    expect(trace.text).toContain('find_user_id_by_name_zip({"first_name":"[REDACTED:personal]"');
  });
});
