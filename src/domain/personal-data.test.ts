import { describe, expect, it } from 'vitest';
import { holdsPersonalData, isPersonalField } from './personal-data.js';

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
