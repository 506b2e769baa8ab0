import { describe, expect, it } from 'vitest';
import { clip, formatContextPack, TRUNCATION_MARKER } from './context-pack.js';
import { resultNote } from './step-notes.js';
import { breakNearTies } from '../pipeline/recall.js';

const body = [
  '# Refund An Order',
  '',
  '## Steps',
  '',
  '1. Call `find_user`.',
  '2. Call `refund`.',
  '',
  '## Done when',
  '',
  '`refund` succeeded.',
  '',
  '## Edge cases',
  '',
  '- If `refund` fails, stop.',
].join('\n');

describe('context pack', () => {
  it('renders When / Do / Done without YAML', () => {
    const text = formatContextPack(
      [{ id: 'x', name: 'refund-order', description: 'Refund a delivered order.', body, kind: 'playbook', eta: 0.5 }],
      1500,
    );
    // The planner reads the skill's track record in words, not the lifecycle's symbol.
    expect(text).toContain('### Skill: refund-order (playbook, estimated success 0.50)\n');
    expect(text).toContain('When: Refund a delivered order.');
    expect(text).toContain('1. Call `find_user`.');
    expect(text).toContain('Done: `refund` succeeded.');
    expect(text).not.toContain('---');
  });

  it('shortens a long procedure before it cuts anything: the steps, branches and finishing condition stay', () => {
    const steps = Array.from(
      { length: 9 },
      (_, i) =>
        `${i + 1}. Call \`step_${i}\` with \`id\` from the result of \`get_account\` (field \`accounts[].id\`) (when \`get_account\` shows \`status\` in ["open"]: seen in 60% of successful sessions).${i < 8 ? resultNote(['`status` "closed"']) : ''}`,
    );
    const long = [
      '# Close Accounts',
      '',
      '## Steps',
      '',
      ...steps,
      '10. Call `audit` (only when needed: seen in 30% of successful sessions).',
      '',
      '## Branches',
      '',
      '- If `get_account` shows `status` in ["frozen"], follow: `get_account` > `escalate`.',
      '- Otherwise: follow the steps above.',
      '',
      '## Done when',
      '',
      '`step_8` has succeeded.',
      '',
      '## Edge cases',
      '',
      '- If `step_1` fails, check the inputs and retry `step_1`.',
    ].join('\n');
    const description =
      'Close Accounts: looks up accounts, then closes them (10 steps that worked for agents). Use when a user asks to close accounts.';
    const skill = { id: 'x', name: 'close-accounts', description, body: long, kind: 'playbook' as const, eta: 0.5 };
    const whole = formatContextPack([skill], 100_000);
    expect(whole).toContain('(field `accounts[].id`)');
    expect(whole).toContain('sessions). Expect its result to show `status` "closed", as it did in the sessions.');
    const budget = 1500;
    expect(whole.length).toBeGreaterThan(budget);
    const pack = formatContextPack([skill], budget);
    const block = pack.slice(pack.indexOf('\n', pack.indexOf('### Skill')) + 1).trimEnd();
    expect(block.length).toBeLessThanOrEqual(budget);
    expect(pack).not.toContain(TRUNCATION_MARKER);
    expect(pack).toContain('When: Use when a user asks to close accounts.');
    expect(pack).toContain('- If `get_account` shows `status` in ["frozen"], follow: `get_account` > `escalate`.');
    expect(pack).toContain('Done: `step_8` has succeeded.');
    expect(pack).toContain('9. Call `step_8` with `id` from the result of `get_account` (when `get_account` shows');
    expect(pack).toContain('10. Call `audit` (only when needed).');
    expect(pack).not.toContain('seen in');
    expect(pack).not.toContain('Expect its result');
    expect(pack).toContain(
      '1. Call `step_0` with `id` from the result of `get_account` (when `get_account` shows `status` in ["open"]).\n',
    );
    // A budget nothing fits: the shortest form, cut with the marker, within the budget.
    const tight = formatContextPack([skill], 400);
    expect(tight).toContain(TRUNCATION_MARKER);
    expect(tight.slice(tight.indexOf('\n', tight.indexOf('### Skill')) + 1).trimEnd().length).toBeLessThanOrEqual(400);
    expect(tight).not.toContain('(field');
  });

  it('clips a long body with an explicit marker and never exceeds the budget', () => {
    const long = 'x'.repeat(5000);
    const out = clip(long, 1500);
    expect(out.length).toBeLessThanOrEqual(1500);
    expect(out.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(clip('short', 1500)).toBe('short');
  });

  it('breaks near-ties by utility and leaves clear winners alone', () => {
    const ranked = [
      { skill: { utility: 0 }, similarity: 0.9 },
      { skill: { utility: 0.8 }, similarity: 0.89 },
      { skill: { utility: 1 }, similarity: 0.6 },
    ];
    breakNearTies(ranked, 0.02);
    expect(ranked.map((r) => r.skill.utility)).toEqual([0.8, 0, 1]);
  });
});
