import { describe, expect, it } from 'vitest';
import { normalizeGoal, unquoteLabels } from './normalize-goal.js';

describe('normalizeGoal on real goals', () => {
  it('replaces the persona id, date and time of an airline goal and keeps the places', () => {
    const out = normalizeGoal(
      'You are mia_li_3668. You want to fly from New York to Seattle on May 20 (one way). You do not want to ' +
        'fly before 11am est. You have 3 baggages. Pay the rest with your 7447 card.',
    );
    expect(out).toBe(
      'You are <id>. You want to fly from New York to Seattle on <date> (one way). You do not want to ' +
        'fly before <time> est. You have <num> baggages. Pay the rest with your <num> card.',
    );
  });

  it('replaces order ids and numbers of a retail goal', () => {
    expect(normalizeGoal('You want to change #W8665881 to be delivered to Suite 641 instead.')).toBe(
      'You want to change <id> to be delivered to Suite <num> instead.',
    );
    expect(normalizeGoal('You name is James Kim and your email is james.kim1995@example.com. You are sad.')).toBe(
      'You name is James Kim and your email is <email>. You are sad.',
    );
    expect(normalizeGoal('You are Chen Johnson from Houston TX, 77004. Change the earbuds in order W5061109.')).toBe(
      'You are Chen Johnson from Houston TX, <num>. Change the earbuds in order <id>.',
    );
  });

  it('replaces reservation codes, flight numbers and money', () => {
    expect(
      normalizeGoal(
        'Change flight HAT069 within reservation XEWRD9 (or 1N99U6). You pay a fee upto $100, not $1,234.56.',
      ),
    ).toBe('Change flight <id> within reservation <id> (or <id>). You pay a fee upto <money>, not <money>.');
  });

  it('replaces a phone number', () => {
    expect(normalizeGoal('You are John Smith with phone number 555-123-2002.')).toBe(
      'You are John Smith with phone number <phone>.',
    );
    expect(normalizeGoal('call +44 20 7946 0958 or (555) 123-4567')).toBe('call <phone> or <phone>');
  });

  it('maps goals that differ only in their entities to the same text', () => {
    const a = normalizeGoal('You are mia_li_3668. Fly JFK to SEA on May 20, budget $300, 2 bags, order #W8665881.');
    const b = normalizeGoal(
      'You are omar_davis_3817. Fly JFK to SEA on June 3rd, budget $1,250, 4 bags, order #W2378156.',
    );
    expect(a).toBe(b);
  });
});

describe('normalizeGoal placeholders', () => {
  it.each([
    ['on 2024-05-20 then', 'on <date> then'],
    ['at 2024-05-20T10:00:00Z', 'at <date>'],
    ['due 05/20/2024.', 'due <date>.'],
    ['on May 20, 2024 or 21st of March', 'on <date> or <date>'],
    ['in Dec 2025', 'in <date>'],
    ['departs 07:00:00 or 9:30 pm or 8 a.m.', 'departs <time> or <time> or <time>'],
    ['costs €50, 3,000 USD or 12 dollars', 'costs <money>, <money> or <money>'],
    ['id ce9e8fd9-9282-4938-8f0c-955f359f9394 and 0x1f2e3d', 'id <id> and <id>'],
    ['payment credit_card_4421486 or gift_card_7194529', 'payment <id> or <id>'],
    ['3-4 hours, 4.5 stars, 1,234 items, 100% sure', '<num>-<num> hours, <num> stars, <num> items, <num>% sure'],
    ['see https://example.com/a?b=1. Then www.example.org', 'see <url>. Then <url>'],
    ['search "wireless earbuds" or `grep -r foo` or “this”', 'search <str> or <str> or <str>'],
  ])('%s', (input, expected) => {
    expect(normalizeGoal(input)).toBe(expected);
  });

  it('keeps words, apostrophes, single-quoted text, ordinals and short product names', () => {
    const text = "You don't want 'No Service' on your i9 laptop with 256GB SSD; it's the 2nd one-stop flight.";
    expect(normalizeGoal(text)).toBe(
      "You don't want 'No Service' on your i9 laptop with <num>GB SSD; it's the 2nd one-stop flight.",
    );
    expect(normalizeGoal('You may want to march on, maybe.')).toBe('You may want to march on, maybe.');
  });

  it('collapses whitespace, trims and keeps case', () => {
    expect(normalizeGoal('  Cancel \n\t my   ORDER  ')).toBe('Cancel my ORDER');
    expect(normalizeGoal('')).toBe('');
  });

  it('is idempotent', () => {
    const once = normalizeGoal('You are mia_li_3668, order #W8665881 on 2024-05-20 at 07:00 for $12, "x" 3 bags');
    expect(normalizeGoal(once)).toBe(once);
  });
});

describe('unquoteLabels', () => {
  it.each([
    ['my phone says "No Service" again', 'my phone says No Service again'],
    ['it shows “Airplane Mode” and “SOS”', 'it shows Airplane Mode and SOS'],
    ['the light says "Can\'t Connect"', "the light says Can't Connect"],
  ])('unquotes a short label of plain words: %s', (input, expected) => {
    expect(unquoteLabels(input)).toBe(expected);
  });

  it.each([
    'post "Excited to announce our new product launch today"',
    'open "report_2024.txt"',
    'search "wireless earbuds 2"',
    'run `ls -la`',
    'no quotes here',
  ])('leaves other quoted strings as they are: %s', (input) => {
    expect(unquoteLabels(input)).toBe(input);
  });

  it('so normalizeGoal keeps the label as words and still hides the rest', () => {
    expect(normalizeGoal(unquoteLabels('shows "No Service" after "order #W123"'))).toBe('shows No Service after <str>');
  });
});
