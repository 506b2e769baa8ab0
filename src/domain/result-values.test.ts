import { describe, expect, it } from 'vitest';
import { toolCall } from './tool-call.case.js';
import { argumentHolders, argumentOrigins, isCut, resultLeaves, valueHeldBy } from './result-values.js';

const call = toolCall;

describe('resultLeaves', () => {
  it('lists string and number leaves with dot paths, lists as [] and id keys as *', () => {
    const text = JSON.stringify({
      name: { first_name: 'Mia' },
      orders: ['#W8665881', '#W2890441'],
      payment_methods: { credit_card_4421486: { id: 'credit_card_4421486', last_four: '7447' } },
      address1: '975 Sunset Drive',
      total: 293.5,
      gift: true,
    });
    expect(resultLeaves(text)).toEqual([
      { path: 'name.first_name', value: 'Mia' },
      { path: 'orders[]', value: '#W8665881' },
      { path: 'orders[]', value: '#W2890441' },
      { path: 'payment_methods.*.id', value: 'credit_card_4421486' },
      { path: 'payment_methods.*.last_four', value: '7447' },
      { path: 'address1', value: '975 Sunset Drive' },
      { path: 'total', value: '293.5' },
    ]);
  });

  it('reads a result cut in the middle up to the cut, and a plain-text result as one leaf', () => {
    const cut = '{"order_id": "#W8665881", "items": [{"item_id": "5855700373", "price": 293.46, "options": {"col';
    expect(resultLeaves(cut)).toEqual([
      { path: 'order_id', value: '#W8665881' },
      { path: 'items[].item_id', value: '5855700373' },
      { path: 'items[].price', value: '293.46' },
    ]);
    expect(resultLeaves(' fatima_johnson_7581 ')).toEqual([{ path: '', value: 'fatima_johnson_7581' }]);
    expect(resultLeaves('')).toEqual([]);
  });

  it('reads a whole result (parsed) and the same text with its end gone astray (read by hand) alike', () => {
    const whole = JSON.stringify({
      user_id: 'mei_davis_8935',
      address: { city: 'Denver', zip: '80217' },
      orders: ['#W2890441'],
      payment_methods: { credit_card_1061405: { id: 'credit_card_1061405', brand: 'mastercard' } },
      note: 'say "hi"\nthen leave',
      total: 1e21,
      rate: -0.25,
      flags: [true, null],
    });
    expect(isCut(whole)).toBe(false);
    expect(isCut(`${whole} trailing`)).toBe(true);
    expect(resultLeaves(`${whole} trailing`)).toEqual(resultLeaves(whole));
    expect(resultLeaves(whole)).toContainEqual({ path: 'note', value: 'say "hi"\nthen leave' });
    expect(resultLeaves(whole)).toContainEqual({ path: 'total', value: '1e+21' });
  });

  it("reads a Python tool's printed dicts and lists like JSON (single quotes, None, numpy's array(...))", () => {
    const text =
      "[{'email_id': '00000120', 'inbox/outbox': 'inbox', 'subject': 'Anaya\\'s update', 'cc': None, 'read': True}]";
    expect(resultLeaves(text)).toEqual([
      { path: '[].email_id', value: '00000120' },
      { path: '[].inbox/outbox', value: 'inbox' },
      { path: '[].subject', value: "Anaya's update" },
    ]);
    expect(isCut(text)).toBe(false);
    const array = "array(['nadia.moreau@atlas.com'], dtype=object)";
    expect(resultLeaves(array)).toEqual([{ path: '[]', value: 'nadia.moreau@atlas.com' }]);
    expect(isCut(array)).toBe(false);
    // Cut by capture: the values before the cut, and the origin of later values unknown.
    const cut = "[{'customer_id': '00000046', 'assigned_to_email': 'lena.schmidt@atlas.com', 'customer_name': 'Ke";
    expect(resultLeaves(cut).map((l) => l.value)).toEqual(['00000046', 'lena.schmidt@atlas.com']);
    expect(isCut(cut)).toBe(true);
    // Plain text stays one leaf, quotes and all.
    expect(resultLeaves("'quoted' words")).toEqual([{ path: '', value: "'quoted' words" }]);
  });

  it('traces an argument to the Python-printed result that held it', () => {
    const calls = [
      call(0, 'email.search_emails', { query: 'Board' }, "[{'email_id': '00000120', 'subject': 'Board'}]"),
      call(
        1,
        'company_directory.find_email_address',
        { name: 'nadia' },
        "array(['nadia.moreau@atlas.com'], dtype=object)",
      ),
      call(2, 'email.forward_email', { email_id: '00000120', recipient: 'nadia.moreau@atlas.com' }, 'Email forwarded.'),
    ];
    expect(Object.fromEntries(argumentOrigins(calls).get(2)!)).toEqual({
      email_id: { tool: 'email.search_emails', path: '[].email_id' },
      recipient: { tool: 'company_directory.find_email_address', path: '[]' },
    });
  });

  it('never traces a redacted credential to a result: every redacted key reads the same', () => {
    const calls = [
      call(0, 'get_order_details', { order_id: '#W1' }, '{"order_id": "#W1", "stripe": "[REDACTED:api_key]"}'),
      call(1, 'refund_order', { order_id: '#W1', api_key: '[REDACTED:api_key]' }, 'Refunded.'),
    ];
    const origins = argumentOrigins(calls).get(1)!;
    expect(origins.get('order_id')).toBe('user');
    expect(origins.has('api_key')).toBe(false);
  });

  it('traces a redacted value to the latest result that showed one of its kind, never the first with any', () => {
    const calls = [
      call(0, 'email.search_emails', { query: 'Board' }, "[{'email_id': '00000120', 'sender': '[REDACTED:email]'}]"),
      call(1, 'company_directory.find_email_address', { name: 'nadia' }, "['[REDACTED:email]']"),
      call(2, 'email.forward_email', { email_id: '00000120', recipient: '[REDACTED:email]' }, 'Email forwarded.'),
    ];
    // Every redacted email reads the same: the directory lookup made just before is where the address came from.
    expect(Object.fromEntries(argumentOrigins(calls).get(2)!)).toEqual({
      email_id: { tool: 'email.search_emails', path: '[].email_id' },
      recipient: { tool: 'company_directory.find_email_address', path: '[]' },
    });
    // Not when the request holds an email too (the user's, or the lookup's), nor when the latest result showed one
    // in two fields (a sender and a recipient).
    expect(argumentOrigins(calls, 'Forward it to [REDACTED:email]').get(2)!.has('recipient')).toBe(false);
    const two = [
      calls[0],
      call(1, 'email.get_email', { email_id: '00000120' }, "{'sender': '[REDACTED:email]', 'to': '[REDACTED:email]'}"),
      calls[2],
    ];
    expect(argumentOrigins(two).get(2)!.has('recipient')).toBe(false);
    // A result cut before the lookup leaves it the latest holder; one cut after it may hold the value in the part
    // that is gone.
    const searchCut = call(0, 'email.search_emails', { query: 'Board' }, '[{"email_id": "00000120", "body": "Dear Nad');
    expect(
      argumentOrigins([searchCut, ...calls.slice(1)])
        .get(2)!
        .get('recipient'),
    ).toEqual({
      tool: 'company_directory.find_email_address',
      path: '[]',
    });
    const cutAfter = [calls[1], { ...searchCut, position: 2 }, { ...calls[2], position: 3 }];
    expect(argumentOrigins(cutAfter).get(3)!.has('recipient')).toBe(false);
  });

  it("takes a redacted value as the user's when no earlier result showed one of its kind", () => {
    const calls = [
      call(0, 'get_customer_by_phone', { phone_number: '[REDACTED:phone]' }, '{"customer_id": "C1001"}'),
      call(1, 'get_details_by_id', { id: 'L1002' }, '{"line_id": "L1002", "status": "Suspended", "pla'),
      call(2, 'find_user_id_by_email', { email: '[REDACTED:email]' }, 'user_0001'),
      call(3, 'send_sms', { to: '[REDACTED:phone]' }, 'sent'),
    ];
    // Results are redacted alike: no earlier result showed a phone, so none held the one looked up by.
    expect(argumentOrigins(calls).get(0)!.get('phone_number')).toBe('user');
    // After a cut result, only a request holding one of its kind says so (the cut part may have held it)...
    expect(argumentOrigins(calls).get(2)!.has('email')).toBe(false);
    expect(argumentOrigins(calls, 'I am [REDACTED:email], find me').get(2)!.get('email')).toBe('user');
    // ...and once a result showed one, a phone may be the user's or that one: unknown, whatever the request says.
    const shown = [calls[0], call(1, 'get_line', { id: 'L1' }, '{"owner": "[REDACTED:phone]"}'), calls[3]];
    expect(argumentOrigins(shown, 'call me on [REDACTED:phone]').get(3)!.has('to')).toBe(false);
  });

  it('lists every earlier result that held a value, the first appearance first', () => {
    const calls = [
      call(0, 'email.search_emails', { query: 'Board' }, "[{'email_id': '00000120', 'to': 'nadia@atlas.example'}]"),
      call(1, 'company_directory.find_email_address', { name: 'nadia' }, "['nadia@atlas.example']"),
      call(2, 'email.forward_email', { email_id: '00000120', recipient: 'nadia@atlas.example' }, 'Email forwarded.'),
      call(3, 'email.search_emails', { query: 'nadia' }, "[{'email_id': '00000121', 'to': 'nadia@atlas.example'}]"),
    ];
    expect(Object.fromEntries(argumentHolders(calls).get(2)!)).toEqual({
      email_id: [{ tool: 'email.search_emails', path: '[].email_id' }],
      recipient: [
        { tool: 'email.search_emails', path: '[].to' },
        { tool: 'company_directory.find_email_address', path: '[]' },
      ],
    });
    // A value the user gave first is theirs, whatever result echoes it later.
    expect(argumentHolders(calls).get(3)!.get('query')).toEqual(['user']);
  });

  it('never counts a result that repeats what its call was given as a place the value came from', () => {
    const calls = [
      call(0, 'get_user_details', { user_id: 'ann_1' }, '{"orders": ["#W1234567", "#W7654321"]}'),
      call(1, 'get_order_details', { order_id: '#W1234567' }, '{"order_id": "#W1234567", "user_id": "ann_1"}'),
      call(2, 'cancel_pending_order', { order_id: '#W1234567' }, '{"status": "cancelled"}'),
    ];
    // The order came from the user's orders; the order lookup only says back the id it was asked for.
    expect(argumentHolders(calls).get(2)!.get('order_id')).toEqual([{ tool: 'get_user_details', path: 'orders[]' }]);
  });

  it('traces a path to the line of a plain-text listing that held it (the files a search found)', () => {
    const found = 'Found 2 files\n/repo/src/customers/store.ts\n/repo/src/api/routes.ts';
    const calls = [
      call(0, 'Grep', { pattern: 'getUserById', output_mode: 'files_with_matches' }, found),
      call(1, 'Read', { file_path: '/repo/src/api/routes.ts' }, 'import { getUserById } from "../customers/store"'),
      call(2, 'Edit', { file_path: '/repo/src/README.md', old_string: 'x', new_string: 'y' }, 'updated'),
    ];
    const holders = argumentHolders(calls, 'Rename getUserById to findUserById everywhere');
    expect(holders.get(1)!.get('file_path')).toEqual([{ tool: 'Grep', path: '' }]);
    expect(valueHeldBy(calls, 1, '/repo/src/api/routes.ts', { tool: 'Grep', path: '' })).toBe(true);
    // A path no line holds whole is the user's: a line is a value, not a text to search in.
    expect(holders.get(2)!.get('file_path')).toEqual(['user']);
    expect(holders.get(0)!.get('pattern')).toEqual(['user']);
  });

  it('traces a piece of a text to the result that printed it: the lines of a file a read showed, numbers aside', () => {
    const file = '     1→export function f(cents: number) {\n     2→  const value = Math.floor(cents) / 100;\n     3→}';
    const calls = [
      call(0, 'Read', { file_path: '/repo/src/f.ts' }, file),
      call(1, 'Edit', {
        old_string: '  const value = Math.floor(cents) / 100;\n}',
        new_string: 'x',
        file_path: 'f.ts',
      }),
      call(2, 'Edit', { old_string: '  const value = Math.round(cents) / 100;' }),
      call(3, 'Edit', { old_string: 'export function f' }),
      call(4, 'Edit', { old_string: 'cents)' }),
      call(
        5,
        'shell',
        { command: 'sed -n 1,3p app.py' },
        JSON.stringify({ output: 'def total(items):\n    return sum(items)' }),
      ),
      call(6, 'apply_patch', { old: '    return sum(items)' }),
    ];
    const holders = argumentHolders(calls, 'fix f: the export function f rounds down');
    const read = { tool: 'Read', path: '', part: true } as const;
    expect(holders.get(1)!.get('old_string')).toEqual([read]);
    expect(valueHeldBy(calls, 1, '  const value = Math.floor(cents) / 100;\n}', read)).toBe(true);
    // Not the whole result, nor the field: the piece only.
    expect(valueHeldBy(calls, 1, '  const value = Math.floor(cents) / 100;\n}', { tool: 'Read', path: '' })).toBe(
      false,
    );
    // Text the file does not hold, or held only after the call, is no piece of it.
    expect(holders.get(2)!.get('old_string')).toEqual(['user']);
    expect(valueHeldBy(calls, 0, '  const value = Math.floor(cents) / 100;', read)).toBe(false);
    // What the request names stays the user's, and a piece too short to say anything is left to the user as well.
    expect(holders.get(3)!.get('old_string')).toEqual(['user']);
    expect(holders.get(4)!.get('old_string')).toEqual(['user']);
    // A note the read appended after the listing leaves the listing's lines readable as the file's.
    const noted = [
      call(
        0,
        'Read',
        { file_path: '/repo/g.ts' },
        `${file}\n\n<system-reminder>\nNote: the file is short.\n</system-reminder>`,
      ),
      call(1, 'Edit', { old_string: 'export function f(cents: number) {\n  const value' }),
    ];
    expect(argumentHolders(noted).get(1)!.get('old_string')).toEqual([read]);
    // A field of several lines (a command's output) is a text too.
    expect(holders.get(6)!.get('old')).toEqual([{ tool: 'shell', path: 'output', part: true }]);
  });

  it("takes a value the request names as the user's, even after a result capture cut", () => {
    const calls = [
      call(0, 'email.search_emails', { query: 'Board' }, "[{'email_id': '00000120', 'body': 'Dear Nadia, the boa"),
      call(1, 'company_directory.find_email_address', { name: 'nadia' }, "['[REDACTED:email]']"),
    ];
    // Without the request the name might sit in the cut part of the search results: no known origin.
    expect(argumentOrigins(calls).get(1)!.has('name')).toBe(false);
    // The same calls with a request: worked out again, not answered from what was found without it; a first
    // mention inside a word ("nadiasoft") does not count, a later whole-word one does.
    const request = "Forward nadiasoft's emails from anaya about 'Board' to Nadia";
    expect(argumentHolders(calls, request).get(1)!.get('name')).toEqual(['user']);
    expect(argumentOrigins(calls, request).get(1)!.get('name')).toBe('user');
    // A whole word only: "nad" is not named by "Nadia".
    const part = [calls[0], call(1, 'company_directory.find_email_address', { name: 'nad' }, '[]')];
    expect(argumentHolders(part, request).get(1)!.has('name')).toBe(false);
  });

  it('stops at a malformed string in a cut result instead of failing the pass', () => {
    const cut = '{"status": "pending", "note": "bad \\x escape", "more": "gone';
    expect(resultLeaves(cut)).toEqual([{ path: 'status', value: 'pending' }]);
    expect(isCut(cut)).toBe(true);
  });
});

describe('argumentOrigins', () => {
  const session = [
    call(0, 'find_user_id_by_name_zip', { first_name: 'Fatima', zip: '78712' }, 'fatima_johnson_7581'),
    call(1, 'get_user_details', { user_id: 'fatima_johnson_7581' }, '{"orders": ["#W8665881", "#W1111111"]}'),
    call(2, 'get_order_details', { order_id: '#W9999999' }, 'Error: order not found', false),
    call(3, 'get_order_details', { order_id: '#W8665881' }, '{"order_id": "#W8665881", "status": "pending"}'),
    call(4, 'cancel_pending_order', { order_id: '#W8665881', reason: 'no longer needed' }, '{"status": "cancelled"}'),
  ];

  it('traces each value to the result it first appeared in, or to the user', () => {
    const o = argumentOrigins(session);
    expect(o.get(0)!.get('first_name')).toBe('user');
    expect(o.get(1)!.get('user_id')).toEqual({ tool: 'find_user_id_by_name_zip', path: '' });
    // A value no result held came from the user, even when a later call is of the same tool.
    expect(o.get(2)!.get('order_id')).toBe('user');
    // First appearance, not the latest echo: the order id came from the user's details, not the order lookup.
    expect(o.get(3)!.get('order_id')).toEqual({ tool: 'get_user_details', path: 'orders[]' });
    expect(o.get(4)!.get('order_id')).toEqual({ tool: 'get_user_details', path: 'orders[]' });
    expect(o.get(4)!.get('reason')).toBe('user');
  });

  it('gives no origin to a value that a cut result may have held', () => {
    const cut = [
      call(
        0,
        'get_product_details',
        { product_id: '6086499569' },
        '{"name": "Lamp", "variants": {"1569765161": {"item_id": "15697',
      ),
      call(1, 'exchange_delivered_order_items', { new_item_ids: ['1569765161'], reason: 'broken lamp' }, '{}'),
    ];
    const o = argumentOrigins(cut);
    expect(o.get(0)!.get('product_id')).toBe('user');
    expect(o.get(1)!.has('new_item_ids')).toBe(false);
    expect(o.get(1)!.has('reason')).toBe(false);
  });

  it('checks a stated source against the values of a session', () => {
    expect(valueHeldBy(session, 4, '#W8665881', { tool: 'get_user_details', path: 'orders[]' })).toBe(true);
    expect(valueHeldBy(session, 4, '#W8665881', { tool: 'get_user_details', path: 'default_order' })).toBe(false);
    expect(valueHeldBy(session, 1, '#W8665881', { tool: 'get_user_details', path: 'orders[]' })).toBe(false);
    expect(valueHeldBy(session, 4, 'no longer needed', 'user')).toBe(true);
    expect(valueHeldBy(session, 4, '#W8665881', 'user')).toBe(false);
  });
});
