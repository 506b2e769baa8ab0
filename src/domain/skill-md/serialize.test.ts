import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { serializeSkillMd, toDescription, toSkillName, type CanonicalSkillDoc } from './serialize.js';
import { validateDescription, validateSkillMd, validateSkillName } from './validate.js';

const DOC: CanonicalSkillDoc = {
  name: 'triage-support-ticket',
  description: 'Triage an inbound support ticket end to end. Use when the user pastes a support ticket.',
  license: 'MIT',
  metadata: { version: '1.0.0', 'tools-required': 'query_documents read_file remember', kind: 'playbook' },
  body: '# Triage a Support Ticket\n\n1. Query.\n2. Read.\n\n## Edge cases\n- None.',
};

function frontmatterOf(text: string): unknown {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!m) throw new Error('no frontmatter');
  return parseYaml(m[1] ?? '');
}

describe('serializeSkillMd', () => {
  it('emits ---, the YAML, ---, a blank line, the body and a final newline', () => {
    expect(serializeSkillMd(DOC)).toBe(
      [
        '---',
        'name: triage-support-ticket',
        'description: Triage an inbound support ticket end to end. Use when the user pastes a support ticket.',
        'license: MIT',
        'metadata:',
        '  version: 1.0.0',
        '  tools-required: query_documents read_file remember',
        '  kind: playbook',
        '---',
        '',
        '# Triage a Support Ticket',
        '',
        '1. Query.',
        '2. Read.',
        '',
        '## Edge cases',
        '- None.',
        '',
      ].join('\n'),
    );
  });

  it('orders keys name, description, license, compatibility, allowed-tools, metadata whatever the input order', () => {
    const shuffled: CanonicalSkillDoc = {
      metadata: { b: '2', a: '1' },
      allowedTools: 'Bash Read',
      compatibility: 'Needs git',
      license: 'Apache-2.0',
      body: 'Body.',
      description: 'Desc.',
      name: 'n',
    };
    const keys = Object.keys(frontmatterOf(serializeSkillMd(shuffled)) as object);
    expect(keys).toEqual(['name', 'description', 'license', 'compatibility', 'allowed-tools', 'metadata']);
    expect(Object.keys((frontmatterOf(serializeSkillMd(shuffled)) as { metadata: object }).metadata)).toEqual([
      'b',
      'a',
    ]);
  });

  it('omits compatibility, allowed-tools and an empty metadata map', () => {
    const text = serializeSkillMd({ ...DOC, metadata: {} });
    expect(Object.keys(frontmatterOf(text) as object)).toEqual(['name', 'description', 'license']);
  });

  it('keeps version-like and boolean-like values strings, for YAML 1.2 and 1.1 readers', () => {
    const metadata = {
      version: '1.0.0',
      short: '1.0',
      int: '2',
      yes: 'yes',
      on: 'on',
      nul: 'null',
      tilde: '~',
      oct: '0o17',
      sexa: '1:20',
      empty: '',
    };
    const text = serializeSkillMd({ ...DOC, metadata });
    expect(text).toContain('  version: 1.0.0\n');
    for (const version of ['1.2', '1.1'] as const) {
      const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
      const fm = parseYaml(m?.[1] ?? '', { version }) as { metadata: Record<string, unknown> };
      expect(fm.metadata).toEqual(metadata);
    }
  });

  it('keeps descriptions with colons, quotes, hashes and leading dashes intact', () => {
    for (const description of [
      'Use when: a colon appears',
      '"Quoted" start',
      "it's #1 # not a comment",
      '- looks like a list',
      '[bracketed]',
      '{braced}',
      '@at',
      '`tick`',
      '!bang',
      '&amp',
      '*star',
      '%percent',
      '? question',
    ]) {
      const text = serializeSkillMd({ ...DOC, description });
      expect((frontmatterOf(text) as { description: string }).description).toBe(description);
      expect(validateSkillMd(text)).toEqual({ valid: true, errors: [] });
    }
  });

  it('never folds a long description onto several lines', () => {
    const description = Array.from({ length: 150 }, (_, i) => `word${i}`).join(' ');
    const text = serializeSkillMd({ ...DOC, description });
    expect(text.split('\n')[2]).toBe(`description: ${description}`);
  });

  it('keeps a metadata value with newlines and a --- line inside the frontmatter', () => {
    const text = serializeSkillMd({ ...DOC, metadata: { note: 'line one\n---\nline three' } });
    expect((frontmatterOf(text) as { metadata: { note: string } }).metadata.note).toBe('line one\n---\nline three');
    expect(validateSkillMd(text).valid).toBe(true);
  });

  it('normalises the body: LF endings, no leading blank lines, no trailing whitespace', () => {
    const text = serializeSkillMd({ ...DOC, body: '\r\n\r\n# T\r\n\r\n1. a\r\n   \r\n' });
    expect(text.endsWith('---\n\n# T\n\n1. a\n')).toBe(true);
  });

  it('keeps a metadata key named __proto__ as data', () => {
    const metadata: Record<string, string> = {};
    Object.defineProperty(metadata, '__proto__', { value: 'x', enumerable: true });
    const text = serializeSkillMd({ ...DOC, metadata });
    expect(text).toContain('__proto__: x');
  });
});

describe('toSkillName', () => {
  it('turns Title Case, snake_case, camelCase and SCREAMING_CASE into kebab-case', () => {
    expect(toSkillName('Exchange Delivered Order Items')).toBe('exchange-delivered-order-items');
    expect(toSkillName('exchange_delivered_order_items')).toBe('exchange-delivered-order-items');
    expect(toSkillName('exchangeDeliveredOrderItems')).toBe('exchange-delivered-order-items');
    expect(toSkillName('EXCHANGE_ORDER')).toBe('exchange-order');
    expect(toSkillName('HTTPServerRestart')).toBe('http-server-restart');
  });

  it('drops accents and apostrophes and collapses punctuation', () => {
    expect(toSkillName('Café Crème — déjà vu!')).toBe('cafe-creme-deja-vu');
    expect(toSkillName("Don't  panic...   (really)")).toBe('dont-panic-really');
    expect(toSkillName('Straße & Smørrebrød')).toBe('strasse-smorrebrod');
    expect(toSkillName('--a--b--')).toBe('a-b');
  });

  it('leaves a valid name unchanged', () => {
    for (const name of ['a', 'triage-support-ticket', 'v2-export-3', 'a'.repeat(64)])
      expect(toSkillName(name)).toBe(name);
  });

  it('cuts at the last word boundary that fits in 64 characters', () => {
    const text = Array.from({ length: 20 }, () => 'word').join(' ');
    const name = toSkillName(text);
    expect(name.length).toBeLessThanOrEqual(64);
    expect(name).toMatch(/^(word-)*word$/);
    // 13 words and 12 hyphens make exactly 64 characters; the 14th word does not fit.
    expect(name).toBe(Array.from({ length: 13 }, () => 'word').join('-'));
    expect(toSkillName(`${'a'.repeat(60)} bcdefg`)).toBe('a'.repeat(60));
  });

  it('cuts a single over-long word hard at 64', () => {
    expect(toSkillName('x'.repeat(100))).toBe('x'.repeat(64));
  });

  it('falls back to "skill" when nothing usable remains', () => {
    expect(toSkillName('')).toBe('skill');
    expect(toSkillName('!!! ---')).toBe('skill');
    expect(toSkillName('日本語')).toBe('skill');
  });

  it('always returns a valid name', () => {
    for (const text of [
      '  ',
      'A',
      '9',
      '-x-',
      `${'a'.repeat(63)} bb`,
      'ÅÄÖ åäö',
      'ǅ ǈ',
      'İstanbul',
      '\u0000\u0001',
      '😀 emoji 😀',
    ]) {
      expect(validateSkillName(toSkillName(text))).toEqual([]);
    }
  });
});

describe('toDescription', () => {
  it('strips < and >, collapses whitespace and trims', () => {
    expect(toDescription('  Use for <html>\n\tpages ->  quickly  ')).toBe('Use for html pages - quickly');
  });

  it('drops control characters', () => {
    expect(toDescription('a\u0000b\u0007c\u007f')).toBe('abc');
  });

  it('leaves a description of exactly 1024 characters alone', () => {
    const text = 'd'.repeat(1024);
    expect(toDescription(text)).toBe(text);
  });

  it('caps longer text at 1024 characters on a word boundary', () => {
    const text = Array.from({ length: 300 }, (_, i) => `w${i}`).join(' ');
    const description = toDescription(text);
    expect(description.length).toBeLessThanOrEqual(1024);
    expect(text.startsWith(description)).toBe(true);
    expect(text[description.length]).toBe(' ');
    expect(validateDescription(description)).toEqual([]);
  });

  it('returns an empty string for empty input (callers choose the fallback)', () => {
    expect(toDescription('  <>  ')).toBe('');
  });
});
