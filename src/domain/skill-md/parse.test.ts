import { describe, expect, it } from 'vitest';
import { parseIntermediate, parseSkillMd, type ParsedSkill } from './parse.js';
import { validateSkillName } from './validate.js';
import { mulberry32 } from '../../support/random.js';

// Example A of the GAIA seed (gaia-skill-auto-synthesis.md): the on-disk #691 document.
const GAIA_A = `---
name: triage-support-ticket
description: Triage an inbound support ticket end to end. Use when the user pastes a support ticket or asks to triage one.
license: MIT
version: 1.0.0
metadata:
  gaia:
    tools_required:
      - query_documents
      - read_file
      - remember
---

# Triage a Support Ticket

1. Pull matching policy docs with \`query_documents\`.
2. Read any attached log with \`read_file\`.
3. Record the disposition with \`remember\` for follow-up.

## Edge cases
- If no policy doc matches, escalate rather than guessing.
- A ticket with no attached log skips step 2.
`;

// Example B of the GAIA seed: the intermediate form the LLM emits.
const GAIA_B = `---
name: triage-support-ticket
when_to_use: Triage an inbound support ticket end to end. Use when the user pastes a support ticket or asks to triage one.
tools_required: [query_documents, read_file, remember]
---

# Triage a Support Ticket

1. Pull matching policy docs with \`query_documents\`.
2. Read any attached log with \`read_file\`.
3. Record the disposition with \`remember\` for follow-up.

## Edge cases
- If no policy doc matches, escalate rather than guessing.
- A ticket with no attached log skips step 2.
`;

// Section 5.4 of the Spector seed (spector-adr-0086-skill-crystallization.md).
const SPECTOR = `---
schema: spector.skill.v1
name: null-check-auth-validator
kind: playbook
confidence: 0.35
tools: []
parents:
  episodic: ["<episode-tsid>"]
  semantic: ["rem-log-<tsid>"]
---
# Null-check auth validator

When a login endpoint throws NPE on missing principal:

1. Reproduce with a request that has no auth context
2. Guard the principal in the validator
3. Add a regression test

Done when the NPE is gone and the test is green.
`;

const OURS = `---
name: exchange-delivered-order-items
description: Exchange items of a delivered order. Use when a customer wants a different size or colour.
license: MIT
compatibility: Needs the orders API
allowed-tools: get_order exchange_items
metadata:
  version: 1.2.0
  tools-required: get_order get_product exchange_items
  kind: playbook
  parents-episodic: s1 s2
  parents-semantic: f1
  source: compiled
---

# Exchange Delivered Order Items

1. Look up the order with \`get_order\`.
2. Check stock with \`get_product\`.
3. Exchange with \`exchange_items\`.

## Edge cases
- Order not delivered: refuse.
`;

const BODY_A = GAIA_A.split('---\n\n')[1]!.trimEnd();

describe('parseSkillMd: our agentskills.io documents', () => {
  it('reads every field, metadata as written, and lifts tools, version, kind and parents', () => {
    const p = parseSkillMd(OURS);
    expect(p).toEqual<ParsedSkill>({
      format: 'agentskills',
      name: 'exchange-delivered-order-items',
      description: 'Exchange items of a delivered order. Use when a customer wants a different size or colour.',
      license: 'MIT',
      compatibility: 'Needs the orders API',
      allowedTools: 'get_order exchange_items',
      metadata: {
        version: '1.2.0',
        'tools-required': 'get_order get_product exchange_items',
        kind: 'playbook',
        'parents-episodic': 's1 s2',
        'parents-semantic': 'f1',
        source: 'compiled',
      },
      toolsRequired: ['get_order', 'get_product', 'exchange_items'],
      version: '1.2.0',
      kind: 'playbook',
      parents: { episodic: ['s1', 's2'], semantic: ['f1'], procedural: [] },
      body: OURS.split('---\n\n')[1]!.trimEnd(),
      warnings: [],
    });
  });

  it('reads unquoted numbers and booleans in metadata as their source text', () => {
    const p = parseSkillMd(
      '---\nname: a\ndescription: d\nmetadata:\n  version: 1.0\n  retries: 003\n  beta: yes\n---\nbody',
    );
    expect(p.metadata).toEqual({ version: '1.0', retries: '003', beta: 'yes' });
    expect(p.version).toBe('1.0');
  });

  it('flattens nested metadata into dotted keys and lists into space-separated values', () => {
    const p = parseSkillMd(
      '---\nname: a\ndescription: d\nmetadata:\n  owner:\n    team: core\n    tags: [x, y]\n  empty:\n---\nbody',
    );
    expect(p.metadata).toEqual({ 'owner.team': 'core', 'owner.tags': 'x y' });
    expect(p.warnings).toEqual(['metadata.empty: empty value dropped']);
  });

  it('treats a __proto__ key as data, not as a prototype', () => {
    const p = parseSkillMd('---\nname: a\ndescription: d\nmetadata:\n  __proto__: polluted\n---\nbody');
    expect(Object.getPrototypeOf(p.metadata)).toBe(Object.prototype);
    expect(Object.keys(p.metadata)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps a body that contains --- lines later in the text intact', () => {
    const body = '# Title\n\nIntro.\n\n---\n\nname: not-frontmatter\n\n---\n\nEnd.';
    const p = parseSkillMd(`---\nname: a\ndescription: d\n---\n\n${body}\n`);
    expect(p.format).toBe('agentskills');
    expect(p.name).toBe('a');
    expect(p.body).toBe(body);
  });

  it('reads CRLF line endings and returns an LF body', () => {
    const p = parseSkillMd(OURS.replace(/\n/g, '\r\n'));
    const q = parseSkillMd(OURS);
    expect(p).toEqual(q);
    expect(p.body).not.toContain('\r');
  });

  it('skips a BOM and leading whitespace before the fence', () => {
    expect(parseSkillMd(`\uFEFF  \n\n${OURS}`)).toEqual(parseSkillMd(OURS));
  });

  it('accepts a fence line with trailing blanks', () => {
    expect(parseSkillMd('---  \nname: a\ndescription: d\n--- \t\nbody').name).toBe('a');
  });

  it('normalises snake_case and Title Case names, saying so in a warning', () => {
    const snake = parseSkillMd('---\nname: exchange_delivered_order_items\ndescription: d\n---\nbody');
    expect(snake.name).toBe('exchange-delivered-order-items');
    expect(snake.warnings).toEqual([
      'name: "exchange_delivered_order_items" is not a valid skill name; normalised to "exchange-delivered-order-items"',
    ]);
    const title = parseSkillMd('---\nname: Exchange Delivered Order Items\ndescription: d\n---\nbody');
    expect(title.name).toBe('exchange-delivered-order-items');
    expect(title.warnings[0]).toContain('normalised to "exchange-delivered-order-items"');
  });

  it('warns about a description that breaks the rules but keeps it as written', () => {
    const p = parseSkillMd('---\nname: a\ndescription: Use for <html>\n---\nbody');
    expect(p.description).toBe('Use for <html>');
    expect(p.warnings).toEqual(['description: must not contain "<" or ">"']);
  });

  it('warns about unknown top-level keys and an empty body', () => {
    const p = parseSkillMd('---\nname: a\ndescription: d\nsecurity_tier: trusted\n---\n');
    expect(p.warnings).toEqual(['security_tier: unknown top-level key ignored', 'body: is empty']);
  });

  it('joins an allowed-tools list into a string', () => {
    const p = parseSkillMd('---\nname: a\ndescription: d\nallowed-tools: [Bash, Read]\n---\nbody');
    expect(p.allowedTools).toBe('Bash Read');
  });

  it('ignores a kind other than playbook or heuristic, with a warning', () => {
    const p = parseSkillMd('---\nname: a\ndescription: d\nmetadata:\n  kind: graph_template\n---\nbody');
    expect(p.kind).toBeNull();
    expect(p.warnings).toContain('kind: "graph_template" is not playbook or heuristic; ignored');
  });
});

describe('parseSkillMd: GAIA', () => {
  it('reads example A: tools from metadata.gaia.tools_required, top-level version', () => {
    const p = parseSkillMd(GAIA_A);
    expect(p.format).toBe('gaia');
    expect(p.name).toBe('triage-support-ticket');
    expect(p.description).toBe(
      'Triage an inbound support ticket end to end. Use when the user pastes a support ticket or asks to triage one.',
    );
    expect(p.license).toBe('MIT');
    expect(p.toolsRequired).toEqual(['query_documents', 'read_file', 'remember']);
    expect(p.version).toBe('1.0.0');
    expect(p.metadata).toEqual({ 'gaia.tools_required': 'query_documents read_file remember' });
    expect(p.body).toBe(BODY_A);
    expect(p.warnings).toEqual([]);
  });

  it('reads example B, the intermediate form: when_to_use is the description, tools_required the tools', () => {
    const p = parseSkillMd(GAIA_B);
    expect(p.format).toBe('intermediate');
    expect(p.name).toBe('triage-support-ticket');
    expect(p.description).toBe(
      'Triage an inbound support ticket end to end. Use when the user pastes a support ticket or asks to triage one.',
    );
    expect(p.toolsRequired).toEqual(['query_documents', 'read_file', 'remember']);
    expect(p.license).toBeNull();
    expect(p.version).toBeNull();
    expect(p.body).toBe(BODY_A);
  });

  it('does not take GAIA top-level tools (provided tools) as required tools', () => {
    const p = parseSkillMd('---\nname: a\ndescription: d\nversion: 2.0.0\ntools: [x]\n---\nbody');
    expect(p.toolsRequired).toEqual([]);
    expect(p.warnings).toContain('tools: read as provided tools, not required tools; ignored');
  });
});

describe('parseSkillMd: Spector', () => {
  it('reads the section 5.4 body: kind playbook, parents, confidence kept as metadata', () => {
    const p = parseSkillMd(SPECTOR);
    expect(p.format).toBe('spector');
    expect(p.name).toBe('null-check-auth-validator');
    expect(p.kind).toBe('playbook');
    expect(p.parents).toEqual({ episodic: ['<episode-tsid>'], semantic: ['rem-log-<tsid>'], procedural: [] });
    expect(p.toolsRequired).toEqual([]);
    expect(p.metadata).toEqual({ 'spector.confidence': '0.35' });
    expect(p.description).toBeNull();
    expect(p.body.startsWith('# Null-check auth validator\n\nWhen a login endpoint')).toBe(true);
    expect(p.body.endsWith('Done when the NPE is gone and the test is green.')).toBe(true);
    expect(p.warnings).toEqual([]);
  });

  it('reads Spector tools as required tools, and procedural parents', () => {
    const p = parseSkillMd(
      '---\nschema: spector.skill.v1\nname: a\nkind: heuristic\ntools: [grep, sed]\nparents:\n  procedural: skill-1\n---\nbody',
    );
    expect(p.toolsRequired).toEqual(['grep', 'sed']);
    expect(p.kind).toBe('heuristic');
    expect(p.parents.procedural).toEqual(['skill-1']);
  });

  it('reads an unknown schema leniently, with a warning', () => {
    const p = parseSkillMd('---\nschema: other.v9\nname: a\ndescription: d\n---\nbody');
    expect(p.format).toBe('agentskills');
    expect(p.warnings).toContain('schema: "other.v9" is not a known schema; read leniently');
  });
});

describe('parseSkillMd: MemOS exports', () => {
  const MEMOS = `---
name: apkAddDependency
invocationGuide: Install a missing Alpine package before building.
procedure:
  - description: Find the missing package in the error
  - tool: apk.add
    description: Install it with apk add
  - Rebuild the image
parameters:
  - name: package
    type: string
eta: 0.72
status: active
tools: [docker.build]
---
`;

  it('takes name, the invocation guide as description, tools from tools and steps, and renders steps as the body', () => {
    const p = parseSkillMd(MEMOS);
    expect(p.format).toBe('memos');
    expect(p.name).toBe('apk-add-dependency');
    expect(p.description).toBe('Install a missing Alpine package before building.');
    expect(p.toolsRequired).toEqual(['docker.build', 'apk.add']);
    expect(p.metadata).toEqual({ 'memos.eta': '0.72', 'memos.status': 'active', 'memos.parameters': 'package' });
    expect(p.body).toBe(
      '# Apk Add Dependency\n\n1. Find the missing package in the error\n2. Install it with apk add\n3. Rebuild the image',
    );
  });

  it('prefers description over summary and keeps a written body over the steps', () => {
    const p = parseSkillMd(
      '---\nname: a\ndescription: The description.\nsummary: The summary.\nsteps: [one, two]\n---\n# Written body',
    );
    expect(p.description).toBe('The description.');
    expect(p.body).toBe('# Written body');
  });

  it('reads steps nested in a procedure object', () => {
    const p = parseSkillMd(
      '---\nname: a\nsummary: s\nprocedure:\n  steps:\n    - {tool: t1, text: Do one}\n    - {tool: t2}\n---\n',
    );
    expect(p.toolsRequired).toEqual(['t1', 't2']);
    expect(p.body).toBe('# A\n\n1. Do one\n2. Call `t2`.');
  });
});

describe('parseSkillMd: legacy (fail-open)', () => {
  const legacyCases: [string, string][] = [
    ['plain markdown', '# A skill\n\n1. Do it.\n'],
    ['empty text', ''],
    ['whitespace only', '  \n\t\n'],
    ['a fence that never closes', '---\nname: a\ndescription: d\n\n# body'],
    ['YAML that does not parse', '---\nname: [unclosed\ndescription: d\n---\nbody'],
    ['duplicate keys', '---\nname: a\nname: b\n---\nbody'],
    ['frontmatter that is a list', '---\n- a\n- b\n---\nbody'],
    ['frontmatter that is a scalar', '---\njust text\n---\nbody'],
    ['empty frontmatter', '---\n---\nbody'],
    ['a horizontal rule that is not a fence', '---- \nname: a\n---\nbody'],
    ['text before the fence', 'Intro\n---\nname: a\n---\nbody'],
  ];

  for (const [label, text] of legacyCases) {
    it(`reads ${label} as legacy with the whole original text as body`, () => {
      const p = parseSkillMd(text);
      expect(p.format).toBe('legacy');
      expect(p.body).toBe(text);
      expect(p.name).toBeNull();
      expect(p.description).toBeNull();
      expect(p.metadata).toEqual({});
      expect(p.toolsRequired).toEqual([]);
      expect(p.warnings).toHaveLength(1);
      expect(p.warnings[0]).toMatch(/^legacy skill: .*; the whole text is the body$/);
    });
  }

  it('keeps the original text exactly, CRLF, BOM and all', () => {
    const text = '\uFEFF---\r\nname: [bad\r\n---\r\nbody\r\n';
    expect(parseSkillMd(text).body).toBe(text);
  });

  it('says why the text is legacy', () => {
    expect(parseSkillMd('---\nname: [x\n---\nb').warnings[0]).toContain('frontmatter YAML does not parse');
    expect(parseSkillMd('---\nname: x\n').warnings[0]).toContain('not closed');
    expect(parseSkillMd('# x').warnings[0]).toContain('does not start with');
  });

  it('stops YAML alias bombs instead of expanding them', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]',
      'f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]',
      'g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]',
    ].join('\n');
    const text = `---\n${bomb}\n---\nbody`;
    const p = parseSkillMd(text);
    expect(p.format).toBe('legacy');
    expect(p.body).toBe(text);
  });

  it('stops a self-referencing alias', () => {
    expect(parseSkillMd('---\nname: &n [*n]\n---\nbody').format).toBe('legacy');
  });

  it('does not throw for non-string input that slips past the types', () => {
    for (const input of [undefined, null, 42, {}, []] as unknown as string[]) {
      expect(() => parseSkillMd(input)).not.toThrow();
      expect(parseSkillMd(input).format).toBe('legacy');
    }
  });
});

const ALPHABET = [
  '-',
  '-',
  '---',
  '\n',
  '\n',
  '\r\n',
  '\r',
  ' ',
  '  ',
  '\t',
  ':',
  ': ',
  '#',
  '[',
  ']',
  '{',
  '}',
  ',',
  '&a',
  '*a',
  '!',
  '!!str',
  '|',
  '>',
  '<',
  '"',
  "'",
  '%',
  '@',
  '`',
  '?',
  '~',
  'name',
  'description',
  'metadata',
  'version',
  'when_to_use',
  'schema',
  'spector.skill.v1',
  'tools_required',
  'parents',
  'episodic',
  'a',
  'B',
  '1',
  '1.0',
  'true',
  'null',
  '\uFEFF',
  '\u0000',
  '\u2028',
  'é',
  '😀',
  '\uD800',
  '...',
];

function garbage(next: () => number): string {
  const parts: string[] = [];
  const n = Math.floor(next() * 60);
  for (let i = 0; i < n; i++) parts.push(ALPHABET[Math.floor(next() * ALPHABET.length)]!);
  const text = parts.join('');
  // Half the cases start like frontmatter, so the YAML path is exercised too.
  return next() < 0.5 ? `---\n${text}\n---\n${parts.slice(0, 5).join('')}` : text;
}

describe('parseSkillMd never throws (randomised)', () => {
  it('returns a well-formed ParsedSkill for 3000 garbage inputs', () => {
    const next = mulberry32(20240611);
    const formats = new Set(['agentskills', 'gaia', 'spector', 'memos', 'intermediate', 'legacy']);
    for (let i = 0; i < 3000; i++) {
      const input = garbage(next);
      let p: ParsedSkill;
      try {
        p = parseSkillMd(input);
      } catch (err) {
        throw new Error(`parseSkillMd threw on ${JSON.stringify(input)}: ${String(err)}`);
      }
      expect(formats.has(p.format)).toBe(true);
      expect(typeof p.body).toBe('string');
      expect(Array.isArray(p.warnings)).toBe(true);
      expect(p.toolsRequired.every((t) => typeof t === 'string' && t !== '')).toBe(true);
      expect(Object.values(p.metadata).every((v) => typeof v === 'string')).toBe(true);
      if (p.name !== null) expect(validateSkillName(p.name)).toEqual([]);
      if (p.format === 'legacy') expect(p.body).toBe(input);
      expect(() => parseIntermediate(input)).not.toThrow();
    }
  });
});

describe('parseIntermediate (the LLM output contract)', () => {
  it('reads the literal SKIP, trimmed, as no skill', () => {
    expect(parseIntermediate('SKIP')).toEqual({ kind: 'skip' });
    expect(parseIntermediate('  \nSKIP\n ')).toEqual({ kind: 'skip' });
  });

  it('is case-sensitive about SKIP and does not accept SKIP with extra words', () => {
    expect(parseIntermediate('skip').kind).toBe('error');
    expect(parseIntermediate('Skip').kind).toBe('error');
    expect(parseIntermediate('SKIP: not enough evidence').kind).toBe('error');
  });

  it('reads example B of the GAIA seed as a draft', () => {
    expect(parseIntermediate(GAIA_B)).toEqual({
      kind: 'draft',
      name: 'triage-support-ticket',
      whenToUse:
        'Triage an inbound support ticket end to end. Use when the user pastes a support ticket or asks to triage one.',
      toolsRequired: ['query_documents', 'read_file', 'remember'],
      body: BODY_A,
    });
  });

  it('tolerates one surrounding markdown code fence and CRLF', () => {
    const fenced = `\`\`\`markdown\n${GAIA_B}\`\`\``.replace(/\n/g, '\r\n');
    expect(parseIntermediate(fenced)).toEqual(parseIntermediate(GAIA_B));
    expect(parseIntermediate('```\nSKIP\n```')).toEqual({ kind: 'skip' });
  });

  it('normalises a snake_case name into a valid one', () => {
    const r = parseIntermediate(
      '---\nname: triage_ticket\nwhen_to_use: Use when triaging.\ntools_required: [a]\n---\n# T\n1. a',
    );
    expect(r).toMatchObject({ kind: 'draft', name: 'triage-ticket' });
  });

  it('accepts description in place of when_to_use and a missing tools_required as no tools', () => {
    const r = parseIntermediate('---\nname: a\ndescription: Use when x.\n---\n# T\n1. a');
    expect(r).toEqual({ kind: 'draft', name: 'a', whenToUse: 'Use when x.', toolsRequired: [], body: '# T\n1. a' });
  });

  it('reports what is missing or malformed', () => {
    expect(parseIntermediate('')).toEqual({ kind: 'error', reason: 'output is empty' });
    expect(parseIntermediate('# Just a body')).toEqual({
      kind: 'error',
      reason: expect.stringMatching(/^not the intermediate form: .*fence/),
    });
    expect(parseIntermediate('---\nname: [x\n---\nbody')).toEqual({
      kind: 'error',
      reason: expect.stringMatching(/^not the intermediate form: frontmatter YAML does not parse/),
    });
    expect(parseIntermediate('---\nwhen_to_use: w\n---\nbody')).toEqual({ kind: 'error', reason: 'name: missing' });
    expect(parseIntermediate('---\nname: a\n---\nbody')).toEqual({ kind: 'error', reason: 'when_to_use: missing' });
    expect(parseIntermediate('---\nname: a\nwhen_to_use: w\n---\n\n')).toEqual({
      kind: 'error',
      reason: 'body: empty',
    });
  });
});

describe('tool names of an imported skill', () => {
  it('leaves out a required tool whose name no tool-calling API gives, with a warning, and keeps the others', () => {
    const p = parseSkillMd(`---
name: post-weather
description: Posts the weather to a channel. Use when a user asks to share the weather.
metadata:
  tools-required: get_weather <script>alert(1)</script> post_message
---

1. Call \`get_weather\`.
`);
    expect(p.toolsRequired).toEqual(['get_weather', 'post_message']);
    expect(p.warnings).toEqual([
      expect.stringMatching(/^tools-required: "<script>alert\(1\)<\/script>" is not a tool name: .*; left out$/),
    ]);
  });
});
