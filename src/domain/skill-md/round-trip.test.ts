// Properties across the modules: what we serialize parses back to the same fields and validates, and any
// text at all, once canonicalised, serializes to a valid SKILL.md.

import { describe, expect, it } from 'vitest';
import { toCanonicalDoc } from './canonical.js';
import { parseSkillMd } from './parse.js';
import { serializeSkillMd, toDescription, toSkillName, type CanonicalSkillDoc } from './serialize.js';
import { validateSkillMd } from './validate.js';
import { mulberry32 } from '../../support/random.js';

const WORDS = [
  'use',
  'when',
  'the',
  'user',
  'asks:',
  '1.0',
  'yes',
  'null',
  '#tag',
  '"quoted"',
  "it's",
  '- dash',
  '---',
  '[x]',
  '{y}',
  'é',
  '😀',
  'a&b',
  '*',
  '%',
  '@',
  '`',
  '~',
  'true',
  '0o17',
  '1:20',
  '\\',
  '|',
  'key: value',
];

function phrase(next: () => number, max: number): string {
  const n = 1 + Math.floor(next() * max);
  return Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]!).join(next() < 0.9 ? ' ' : '\n');
}

function randomDoc(next: () => number): CanonicalSkillDoc {
  const metadata: Record<string, string> = {
    version: '1.0.0',
    'tools-required': 'a_tool b.tool',
    kind: next() < 0.5 ? 'playbook' : 'heuristic',
  };
  const extra = Math.floor(next() * 4);
  for (let i = 0; i < extra; i++) metadata[`k${i}-${toSkillName(phrase(next, 2))}`] = phrase(next, 6);
  const doc: CanonicalSkillDoc = {
    name: toSkillName(phrase(next, 8)),
    description: toDescription(phrase(next, 30)) || 'fallback',
    license: next() < 0.5 ? 'MIT' : 'Apache-2.0',
    metadata,
    body: `# ${phrase(next, 4).replace(/\n/g, ' ')}\n\n${phrase(next, 40)}\n\n---\n\n1. ${phrase(next, 5)}`,
  };
  if (next() < 0.5) doc.compatibility = toDescription(phrase(next, 10)) || 'any';
  if (next() < 0.5) doc.allowedTools = 'Bash Read';
  return doc;
}

describe('serialize -> parse -> serialize', () => {
  const DOC: CanonicalSkillDoc = {
    name: 'exchange-delivered-order-items',
    description: 'Exchange items of a delivered order. Use when: the customer wants another size.',
    license: 'MIT',
    compatibility: 'Needs the orders API',
    allowedTools: 'get_order exchange_items',
    metadata: {
      version: '1.0.0',
      'tools-required': 'get_order exchange_items',
      kind: 'playbook',
      'parents-episodic': 's1 s2',
      source: 'compiled',
    },
    body: '# Exchange Delivered Order Items\n\n1. Look up the order.\n2. Exchange.\n\n---\n\n## Edge cases\n- Not delivered: refuse.',
  };

  it('reads back the same fields, and the text validates', () => {
    const text = serializeSkillMd(DOC);
    expect(validateSkillMd(text, { dirName: DOC.name })).toEqual({ valid: true, errors: [] });
    const p = parseSkillMd(text);
    expect(p.format).toBe('agentskills');
    expect(p.warnings).toEqual([]);
    expect({
      name: p.name,
      description: p.description,
      license: p.license,
      compatibility: p.compatibility,
      allowedTools: p.allowedTools,
      metadata: p.metadata,
      body: p.body,
    }).toEqual({ ...DOC });
    expect(p.toolsRequired).toEqual(['get_order', 'exchange_items']);
    expect(p.version).toBe('1.0.0');
    expect(p.kind).toBe('playbook');
    expect(p.parents).toEqual({ episodic: ['s1', 's2'], semantic: [], procedural: [] });
  });

  it('is a fixed point: canonicalising what we emitted changes nothing', () => {
    const text = serializeSkillMd(DOC);
    expect(toCanonicalDoc(parseSkillMd(text), { license: 'MIT' })).toEqual(DOC);
    expect(serializeSkillMd(toCanonicalDoc(parseSkillMd(text), { license: 'MIT' }))).toBe(text);
  });

  it('survives CRLF conversion of the emitted text', () => {
    const text = serializeSkillMd(DOC).replace(/\n/g, '\r\n');
    expect(validateSkillMd(text).valid).toBe(true);
    expect(toCanonicalDoc(parseSkillMd(text), { license: 'MIT' })).toEqual(DOC);
  });

  it('holds for 500 randomised valid documents with YAML-hostile text', () => {
    const next = mulberry32(7);
    for (let i = 0; i < 500; i++) {
      const doc = randomDoc(next);
      const text = serializeSkillMd(doc);
      const result = validateSkillMd(text, { dirName: doc.name });
      if (!result.valid) throw new Error(`invalid: ${result.errors.join('; ')}\n${text}`);
      const p = parseSkillMd(text);
      expect(p.format).toBe('agentskills');
      expect(p.name).toBe(doc.name);
      expect(p.description).toBe(doc.description);
      expect(p.license).toBe(doc.license);
      expect(p.compatibility).toBe(doc.compatibility ?? null);
      expect(p.allowedTools).toBe(doc.allowedTools ?? null);
      expect(p.metadata).toEqual(doc.metadata);
      expect(p.body).toBe(doc.body.trimEnd());
      expect(toCanonicalDoc(p, { license: doc.license })).toEqual({ ...doc, body: doc.body.trimEnd() });
    }
  });
});

describe('any text -> parse -> canonical -> serialize is valid', () => {
  const FRAGMENTS = [
    '---',
    '\n',
    '\r\n',
    'name: ',
    'description: ',
    'when_to_use: ',
    'version: 1.0',
    'metadata:\n  ',
    'gaia:\n    tools_required: [a, b]',
    'schema: spector.skill.v1\n',
    'parents:\n  episodic: [e1]\n',
    'kind: playbook\n',
    'Title Case Name',
    'snake_case_name',
    '<b>',
    '>',
    ': ',
    '#',
    '[',
    '{',
    '&x',
    '*x',
    '1. step',
    '# Heading',
    'é😀',
    '\u0000',
    '\uFEFF',
    ' ',
    'x'.repeat(70),
    'y '.repeat(600),
    'steps: [a, b]\n',
    'tools: [t]\n',
    `compatibility: ${'c '.repeat(300)}`,
  ];

  it('holds for 2000 randomised inputs', () => {
    const next = mulberry32(99);
    for (let i = 0; i < 2000; i++) {
      const n = Math.floor(next() * 25);
      const input = Array.from({ length: n }, () => FRAGMENTS[Math.floor(next() * FRAGMENTS.length)]!).join('');
      const doc = toCanonicalDoc(parseSkillMd(input), { license: 'MIT' });
      const text = serializeSkillMd(doc);
      const result = validateSkillMd(text, { dirName: doc.name });
      if (!result.valid)
        throw new Error(`input ${JSON.stringify(input)} gave invalid output: ${result.errors.join('; ')}`);
    }
  });
});
