import { describe, expect, it } from 'vitest';
import { toolsetSplit } from './toolsets.js';

/** tau2 telecom: the same task by agents that looked the line up while the user acted on the phone, and by agents that held the phone's tools. */
const lookups = [
  ['get_customer_by_phone', 'get_details_by_id'],
  ['get_customer_by_phone', 'get_details_by_id', 'get_details_by_id', 'enable_roaming'],
  ['get_customer_by_phone', 'get_details_by_id', 'refuel_data'],
  ['get_customer_by_phone', 'get_details_by_id', 'get_data_usage', 'refuel_data'],
];
const device = [
  ['get_customer_by_phone', 'get_details_by_id', 'check_network_status', 'toggle_airplane_mode', 'can_send_mms'],
  [
    'get_customer_by_phone',
    'get_details_by_id',
    'check_apn_settings',
    'reset_apn_settings',
    'reboot_device',
    'can_send_mms',
  ],
  ['get_customer_by_phone', 'check_network_status', 'enable_roaming', 'toggle_roaming', 'can_send_mms'],
  ['get_customer_by_phone', 'get_details_by_id', 'check_app_permissions', 'grant_app_permission', 'can_send_mms'],
];

describe('toolsetSplit', () => {
  it('parts the sessions that held a kit of tools from those that never called any of it', () => {
    const split = toolsetSplit([...lookups, ...device]);
    expect(split).not.toBeNull();
    // The tool every session of the kit's side called; the kit is every tool no other session called.
    expect(split!.tool).toBe('can_send_mms');
    expect(split!.tools).toEqual(
      [
        'can_send_mms',
        'check_apn_settings',
        'check_app_permissions',
        'check_network_status',
        'grant_app_permission',
        'reboot_device',
        'reset_apn_settings',
        'toggle_airplane_mode',
        'toggle_roaming',
      ].sort(),
    );
    expect(split!.with).toEqual([4, 5, 6, 7]);
    expect(split!.without).toEqual([0, 1, 2, 3]);
    // The same paths in another order give the same split.
    const reversed = toolsetSplit([...device, ...lookups]);
    expect(reversed!.tool).toBe('can_send_mms');
    expect(reversed!.tools).toEqual(split!.tools);
    expect(reversed!.with).toEqual([0, 1, 2, 3]);
  });

  it("finds none in a task's variants: a tool or two some sessions called, no kit", () => {
    // BFCL-like: some sessions also compared or copied files (two tools more), among others using many tools.
    const files = [
      ['cd', 'ls', 'cat', 'grep', 'wc'],
      ['cd', 'ls', 'cat', 'sort', 'wc'],
      ['cd', 'mkdir', 'mv', 'ls', 'cat'],
      ['cd', 'ls', 'cat', 'diff', 'cp'],
      ['cd', 'ls', 'diff', 'cp', 'echo'],
      ['cd', 'cat', 'diff', 'cp', 'touch'],
    ];
    expect(toolsetSplit(files)).toBeNull();
    // A kit of three tools, each session of its side calling two of them, is an optional detour, not a toolset.
    const plain = [
      ['find_user', 'get_order'],
      ['find_user', 'get_order'],
      ['find_user', 'get_order'],
    ];
    const detour = [
      ...plain,
      ['find_user', 'get_order', 'list_products', 'get_product'],
      ['find_user', 'get_order', 'get_product', 'calculate'],
      ['find_user', 'get_product', 'list_products'],
    ];
    expect(toolsetSplit(detour)).toBeNull();
    // Three of them in each session would be a kit.
    const kit = detour.map((p, i) => (i < 3 ? p : [...new Set([...p, 'list_products', 'get_product', 'calculate'])]));
    expect(toolsetSplit(kit)?.tools).toEqual(['calculate', 'get_product', 'list_products']);
  });

  it('needs three sessions on each side, and a kit no smaller than what the other side used', () => {
    expect(toolsetSplit([...lookups, ...device.slice(0, 2)])).toBeNull();
    expect(toolsetSplit([...lookups.slice(0, 2), ...device])).toBeNull();
    // The other side used more tools than the kit has: they are two tasks, not two toolsets.
    const wide = lookups.map((p, i) => [...p, `other_${i}`, `more_${i}`, `yet_${i}`]);
    const small = device.map((p) => [...p.slice(0, 2), 'x1', 'x2', 'x3', 'can_send_mms']);
    expect(toolsetSplit([...wide, ...small])).toBeNull();
  });
});
