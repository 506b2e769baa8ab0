import { describe, expect, it } from 'vitest';
import { redactCapture } from './redact.js';
import { readEdit, sameProcedureText, stepToolsOf } from './skill-edit.js';
import { serializeSkillMd } from './skill-md/index.js';

const BODY = [
  '# Return Delivered Order Items',
  '',
  'Learned from 4 successful sessions; 100% of the 4 sessions that followed this procedure succeeded.',
  '',
  '## Steps',
  '',
  '1. Call `find_user_id_by_name_zip` with `first_name`, `zip` from the user.',
  '2. Call `get_user_details` with `user_id` from the result of `find_user_id_by_name_zip`.',
  '3. Call `get_order_details` with `order_id` from the result of `get_user_details` (field `orders[]`).',
  '4. Call `return_delivered_order_items` with `item_ids` from the result of `get_order_details`.',
  '',
  '## Edge cases',
  '',
  '- No failure was observed: if a step errors, stop and report the error rather than guessing.',
].join('\n');

const SKILL = {
  name: 'return-delivered-order-items',
  description: 'Return Delivered Order Items: looks up the order, then returns its items.',
  body: BODY,
  toolSequence: ['find_user_id_by_name_zip', 'get_user_details', 'get_order_details', 'return_delivered_order_items'],
  toolsRequired: ['find_user_id_by_name_zip', 'get_user_details', 'get_order_details', 'return_delivered_order_items'],
};

/** A SKILL.md as a person would save it: the skill's frontmatter, with these parts changed. */
function text(o: { name?: string; description?: string; body?: string } = {}): string {
  return serializeSkillMd({
    name: o.name ?? SKILL.name,
    description: o.description ?? SKILL.description,
    license: 'MIT',
    metadata: { version: '1.0.0', 'learned-by': 'heuristic@20' },
    body: o.body ?? SKILL.body,
  });
}

describe('stepToolsOf', () => {
  it('reads the tools the ## Steps items call, in order, as the renderer writes them', () => {
    expect(stepToolsOf(BODY)).toEqual({ main: SKILL.toolSequence, all: SKILL.toolSequence });
  });

  it('leaves conditional steps out of the main path, reads a lead before the call, and a command runner', () => {
    const body = [
      '## Steps',
      '1. Call `check_status_bar`.',
      '2. If Airplane Mode is ON: call `toggle_airplane_mode`.',
      '3. Call `reboot_device` (only when needed: in 1 of the 4 successful sessions).',
      '4. Run `npm test` with `Bash`.',
      '5. If the service is down: run `systemctl start nginx` with `Bash`.',
      '6. Tell the user what changed.',
      '',
      '## Edge cases',
      '1. Call `never_this` when the step above fails.',
    ].join('\n');
    expect(stepToolsOf(body)).toEqual({
      main: ['check_status_bar', 'toggle_airplane_mode', 'Bash', 'Bash'],
      all: ['check_status_bar', 'toggle_airplane_mode', 'reboot_device', 'Bash', 'Bash'],
    });
  });

  it('reads the numbered items before the first section of a body without ## Steps; null when no step names a tool', () => {
    expect(stepToolsOf('# Title\n1. Call `a_tool`.\n2) Call `b_tool` with `x`.\n## Edge cases\n- 3. Call `c`')).toEqual(
      {
        main: ['a_tool', 'b_tool'],
        all: ['a_tool', 'b_tool'],
      },
    );
    expect(stepToolsOf('# Title\n\n## Steps\n\n1. Look the order up.\n2. Return the items.')).toBeNull();
  });
});

describe('readEdit', () => {
  it("takes a person's steps as the procedure, the description and body as written", () => {
    const body = BODY.replace(/^3\. .*\n/m, '').replace('4. Call `return', '3. Call `return');
    const r = readEdit(text({ body, description: 'Return the items of a delivered order.' }), SKILL, redactCapture);
    expect(r).toMatchObject({
      ok: true,
      changed: true,
      fields: {
        description: 'Return the items of a delivered order.',
        body,
        toolSequence: ['find_user_id_by_name_zip', 'get_user_details', 'return_delivered_order_items'],
        toolsRequired: ['find_user_id_by_name_zip', 'get_user_details', 'return_delivered_order_items'],
        warnings: [],
        redacted: [],
      },
    });
  });

  it('redacts secrets and personal data, and says which kinds', () => {
    const body = `${BODY}\n- Mail ops@example.com with key sk-abcdefghijklmnopqrstuvwx1234 when it fails.`;
    const r = readEdit(text({ body }), SKILL, redactCapture);
    if (!r.ok || !r.changed) throw new Error('expected a change');
    expect(r.fields.body).not.toContain('ops@example.com');
    expect(r.fields.body).not.toContain('sk-abcdefghijklmnopqrstuvwx1234');
    expect(r.fields.body).toContain('[REDACTED:email]');
    expect(r.fields.redacted).toEqual(['api_key', 'email']);
  });

  it('keeps the procedure it had, with a warning, when no step names a tool; warns of a tool the skill never called', () => {
    const prose = readEdit(
      text({ body: '# Return\n\n## Steps\n\n1. Find the user.\n2. Return the items.' }),
      SKILL,
      redactCapture,
    );
    if (!prose.ok || !prose.changed) throw new Error('expected a change');
    expect(prose.fields.toolSequence).toEqual(SKILL.toolSequence);
    expect(prose.fields.toolsRequired).toEqual(SKILL.toolsRequired);
    expect(prose.fields.warnings).toEqual([
      expect.stringMatching(/^no step names a tool .* keeps the procedure it had/),
    ]);

    const added = readEdit(
      text({ body: BODY.replace('## Edge cases', '5. Call `notify_customer` with `order_id`.\n\n## Edge cases') }),
      SKILL,
      redactCapture,
    );
    if (!added.ok || !added.changed) throw new Error('expected a change');
    expect(added.fields.toolSequence).toEqual([...SKILL.toolSequence, 'notify_customer']);
    expect(added.fields.warnings).toEqual([
      expect.stringMatching(/^`notify_customer`: no version of .* called this tool/),
    ]);
  });

  it('refuses another name (pointing to skills rename) and an invalid SKILL.md, with every reason', () => {
    expect(readEdit(text({ name: 'refund-order' }), SKILL, redactCapture)).toEqual({
      ok: false,
      errors: [expect.stringContaining('use skills rename return-delivered-order-items refund-order')],
    });
    const bad = readEdit(text({ description: 'Use <b>this</b>' }), SKILL, redactCapture);
    expect(bad).toEqual({ ok: false, errors: ['description: must not contain "<" or ">"'] });
    expect(readEdit('# Just a body\n1. Call `a`.', SKILL, redactCapture)).toMatchObject({
      ok: false,
      errors: [expect.stringMatching(/^frontmatter:/)],
    });
  });

  it('says which frontmatter fields it does not keep', () => {
    const withFields = text({ body: `${BODY}\n- Mind the return window.` }).replace(
      /^license: MIT$/m,
      'license: MIT\ncompatibility: Needs the retail tools\nallowed-tools: get_order_details',
    );
    const r = readEdit(withFields, SKILL, redactCapture);
    if (!r.ok || !r.changed) throw new Error('expected a change');
    expect(r.fields.warnings).toEqual([expect.stringMatching(/^compatibility and allowed-tools: not kept/)]);
  });

  it('changes nothing for an empty text, or the description and body it has', () => {
    expect(readEdit('  \n', SKILL, redactCapture)).toEqual({ ok: true, changed: false, why: 'empty' });
    expect(readEdit(text(), SKILL, redactCapture)).toEqual({ ok: true, changed: false, why: 'unchanged' });
  });
});

describe('readEdit: the learned description says the edited procedure step count', () => {
  const LEARNED = {
    ...SKILL,
    description:
      'Return Delivered Order Items: looks up order, then returns delivered order items (4 steps that worked for agents on this kind of request). Use when a user asks to return delivered order items.',
  };
  const withStep = BODY.replace(
    '4. Call `return_delivered_order_items`',
    '4. Call `get_order_details` with `order_id` from the user, to confirm the items.\n5. Call `return_delivered_order_items`',
  );
  const edit = (t: string, learned: boolean) => readEdit(t, LEARNED, redactCapture, { learned });

  it('restates the count when the person left the learned description and the steps grew or shrank', () => {
    const r = edit(text({ description: LEARNED.description, body: withStep }), true);
    if (!(r.ok && r.changed)) throw new Error('expected a change');
    expect(r.fields.toolSequence).toHaveLength(5);
    expect(r.fields.description).toBe(LEARNED.description.replace('(4 steps', '(5 steps'));
    expect(r.fields.warnings).toEqual([
      'description: its learned wording said 4 steps; it now says 5, as the edited procedure has (write your own description to keep other words)',
    ]);
    const shorter = edit(
      text({ description: LEARNED.description, body: BODY.replace(/^3\. .*\n/m, '').replace('4. Call', '3. Call') }),
      true,
    );
    if (!(shorter.ok && shorter.changed)) throw new Error('expected a change');
    expect(shorter.fields.description).toContain('(3 steps that worked');
  });

  it('never rewrites a description the person wrote, now or before, nor one whose steps did not change in number', () => {
    // This text's own description, with the learned clause copied.
    const mine = `${LEARNED.description} Mine.`;
    const own = edit(text({ description: mine, body: withStep }), true);
    expect(own.ok && own.changed && own.fields.description).toBe(mine);
    // A description a person wrote in an earlier edit (the catalog says it is not the learner's).
    const before = edit(text({ description: LEARNED.description, body: withStep }), false);
    expect(before.ok && before.changed && before.fields).toMatchObject({
      description: LEARNED.description,
      warnings: [],
    });
    // A wording fix of a step: the count stays.
    const worded = edit(
      text({ description: LEARNED.description, body: BODY.replace('from the user.', 'from the user (ask).') }),
      true,
    );
    expect(worded.ok && worded.changed && worded.fields.description).toBe(LEARNED.description);
  });
});

describe('sameProcedureText', () => {
  it('is true when only wording changed: a step prose, the notes, the edge cases', () => {
    const worded = BODY.replace(
      '1. Call `find_user_id_by_name_zip` with',
      '1. First, call `find_user_id_by_name_zip`, passing',
    )
      .replace('Learned from 4', 'Learned from 5')
      .replace('stop and report the error rather than guessing', 'stop and tell the user');
    expect(sameProcedureText(BODY, worded)).toBe(true);
    expect(sameProcedureText(BODY, BODY)).toBe(true);
  });

  it('is false when a tool, the order, an argument source, a condition or a branch changed', () => {
    const swapped = BODY.replace('2. Call `get_user_details`', '2. Call `get_customer`');
    const source = BODY.replace(
      '`order_id` from the result of `get_user_details` (field `orders[]`)',
      '`order_id` from the user',
    );
    const field = BODY.replace('(field `orders[]`)', '(field `orders[0]`)');
    const conditional = BODY.replace('(field `orders[]`).', '(field `orders[]`) (only when needed: in 1 of 4).');
    const dropped = BODY.replace(/^3\. .*\n/m, '');
    const branched = `${BODY}\n\n## Branches\n\n- If \`get_order_details\` shows \`status\` in ["pending"], follow: \`get_order_details\` > \`cancel_pending_order\`.`;
    for (const other of [swapped, source, field, conditional, dropped])
      expect(sameProcedureText(BODY, other)).toBe(false);
    expect(sameProcedureText(branched, branched.replace('"pending"', '"processed"'))).toBe(false);
    expect(sameProcedureText(BODY, branched)).toBe(false);
  });
});
