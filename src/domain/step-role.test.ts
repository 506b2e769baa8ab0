import { describe, expect, it } from 'vitest';
import { chooseActionTool, roleOf, toolWordsOf } from './step-role.js';

describe('toolWordsOf and roleOf', () => {
  it('reads the usual verb-first names as they are', () => {
    expect(toolWordsOf('cancel_pending_order')).toEqual(['cancel', 'pending', 'order']);
    expect(toolWordsOf('fillFuelTank')).toEqual(['fill', 'fuel', 'tank']);
    expect(toolWordsOf('get_customer_by_phone')).toEqual(['get', 'customer']);
    expect(roleOf('cancel_pending_order')).toBe('action');
    expect(roleOf('get_customer_by_phone')).toBe('lookup');
    expect(roleOf('transfer_to_human_agents')).toBe('handoff');
  });

  it('drops a module or server prefix, so a toolset of dotted names has actions', () => {
    expect(toolWordsOf('calendar.create_event')).toEqual(['create', 'event']);
    expect(toolWordsOf('customer_relationship_manager.update_customer')).toEqual(['update', 'customer']);
    expect(toolWordsOf('mcp__github__create_issue')).toEqual(['create', 'issue']);
    expect(roleOf('email.send_email')).toBe('action');
    expect(roleOf('analytics.get_visitor_information_by_date')).toBe('lookup');
  });

  it('puts the verb of an object-first name in front', () => {
    expect(toolWordsOf('vault_create_key')).toEqual(['create', 'vault', 'key']);
    expect(toolWordsOf('flights_book')).toEqual(['book', 'flights']);
    expect(roleOf('pager_create_incident')).toBe('action');
    expect(roleOf('dataframe_drop_duplicates')).toBe('action');
    // A name with no verb computes something: it stays a lookup, words as written.
    expect(toolWordsOf('liter_to_gallon')).toEqual(['liter', 'to', 'gallon']);
    expect(roleOf('liter_to_gallon')).toBe('lookup');
  });

  it('reads shell commands as the verbs they are; those that read stay lookups', () => {
    expect(toolWordsOf('grep')).toEqual(['search', 'file']);
    expect(toolWordsOf('tail')).toEqual(['show', 'file']);
    expect(toolWordsOf('wc')).toEqual(['count', 'file']);
    expect(toolWordsOf('mv')).toEqual(['move', 'file']);
    for (const t of ['grep', 'cat', 'head', 'tail', 'wc']) expect(roleOf(t)).toBe('lookup');
    for (const t of ['cp', 'mv', 'rm', 'mkdir', 'touch', 'echo']) expect(roleOf(t)).toBe('action');
  });

  it('reads steps that spend, buy, sign up or switch something off as changing it', () => {
    // Each of these changes the world (data bought, a policy taken out, a card stored, a VPN cut), so a main
    // path that ends at its last state-changing call keeps them.
    for (const t of [
      'refuel_data',
      'purchase_insurance',
      'register_credit_card',
      'disconnect_vpn',
      'reseat_sim_card',
      'withdraw_funds',
      'fund_account',
      'make_payment',
    ])
      expect(roleOf(t), t).toBe('action');
    expect(roleOf('retrieve_invoice')).toBe('lookup');
    expect(toolWordsOf('retrieve_invoice')[0]).toBe('retrieve');
    // Contacting support hands the case to a person, as a transfer to a human agent does.
    expect(roleOf('contact_customer_support')).toBe('handoff');
  });

  it('treats logging in and out as opening a session, not as the task', () => {
    expect(roleOf('message_login')).toBe('lookup');
    expect(roleOf('logout')).toBe('lookup');
    expect(chooseActionTool(['message_login', 'send_message'], () => 0)).toBe('send_message');
  });
});
