import { describe, expect, it } from 'vitest';
import { validateDescription, validateSkillMd, validateSkillName } from './validate.js';

const BODY = '# Do the thing\n\n1. First step.\n2. Second step.\n\n## Edge cases\n- None.\n';

function doc(frontmatter: string, body = BODY): string {
  return `---\n${frontmatter}\n---\n\n${body}`;
}

const MINIMAL = 'name: do-the-thing\ndescription: Does the thing. Use when the thing needs doing.';

describe('validateSkillMd', () => {
  it('accepts a minimal document with name, description and a body', () => {
    expect(validateSkillMd(doc(MINIMAL))).toEqual({ valid: true, errors: [] });
  });

  it('accepts every allowed top-level key with valid values', () => {
    const text = doc(
      `${MINIMAL}\nlicense: MIT\ncompatibility: Needs network access\nallowed-tools: Bash Read\nmetadata:\n  version: 1.0.0\n  tools-required: a b\n  kind: playbook`,
    );
    expect(validateSkillMd(text)).toEqual({ valid: true, errors: [] });
  });

  it('rejects a top-level version and says where to put it', () => {
    const result = validateSkillMd(doc(`${MINIMAL}\nversion: 1.0.0`));
    expect(result.valid).toBe(false);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatch(/^version: is not an allowed top-level key/);
    expect(result.errors[0]).toContain('metadata.version');
  });

  it('rejects any other unknown top-level key, naming it', () => {
    const result = validateSkillMd(doc(`${MINIMAL}\nwhen_to_use: whenever\ntools_required: [a]`));
    expect(result.errors).toEqual([
      expect.stringMatching(/^when_to_use: is not an allowed top-level key/),
      expect.stringMatching(/^tools_required: is not an allowed top-level key/),
    ]);
  });

  it('requires the text to start with a --- fence', () => {
    expect(validateSkillMd('# Just markdown\n').errors).toEqual([
      expect.stringMatching(/^frontmatter: .*must start with a "---" fence/),
    ]);
    expect(validateSkillMd(`\n${doc(MINIMAL)}`).valid).toBe(false);
  });

  it('rejects frontmatter that never closes', () => {
    expect(validateSkillMd(`---\n${MINIMAL}\n\n# body`).errors).toEqual([
      expect.stringMatching(/^frontmatter: .*not closed/),
    ]);
  });

  it('rejects YAML that does not parse, or is not a mapping', () => {
    expect(validateSkillMd(doc('name: [unclosed\ndescription: x')).errors[0]).toMatch(
      /^frontmatter: YAML does not parse/,
    );
    expect(validateSkillMd(doc('- a\n- b')).errors).toEqual(['frontmatter: must be a YAML mapping of keys to values']);
    expect(validateSkillMd(doc('name: a\nname: b\ndescription: x')).errors[0]).toMatch(
      /^frontmatter: YAML does not parse/,
    );
  });

  it('requires name and description', () => {
    expect(validateSkillMd(doc('license: MIT')).errors).toEqual(['name: is required', 'description: is required']);
  });

  it('requires a non-empty body', () => {
    expect(validateSkillMd(`---\n${MINIMAL}\n---\n`).errors).toEqual(['body: must not be empty']);
    expect(validateSkillMd(`---\n${MINIMAL}\n---\n  \n\t\n`).errors).toEqual(['body: must not be empty']);
  });

  it('requires name to equal the directory name when one is given', () => {
    expect(validateSkillMd(doc(MINIMAL), { dirName: 'do-the-thing' }).valid).toBe(true);
    expect(validateSkillMd(doc(MINIMAL), { dirName: 'other-dir' }).errors).toEqual([
      'name: must equal the directory name "other-dir" (got "do-the-thing")',
    ]);
  });

  it('reports name errors from the name rules', () => {
    expect(validateSkillMd(doc('name: Do_The_Thing\ndescription: x')).errors).toEqual([
      expect.stringMatching(/^name: must be lowercase ASCII letters, digits and "-" only/),
    ]);
  });

  it('reports a non-string name (a YAML number or list)', () => {
    expect(validateSkillMd(doc('name: 123\ndescription: x')).errors).toEqual(['name: must be a string']);
    expect(validateSkillMd(doc('name: [a]\ndescription: x')).errors).toEqual(['name: must be a string']);
  });

  it('requires metadata to be a flat map of string to string', () => {
    const nested = validateSkillMd(doc(`${MINIMAL}\nmetadata:\n  gaia:\n    tools_required: [a]`));
    expect(nested.errors).toEqual([expect.stringMatching(/^metadata\.gaia: must be a string, got a nested mapping/)]);
    const number = validateSkillMd(
      doc(`${MINIMAL}\nmetadata:\n  version: 1.0\n  ok: "1.0"\n  flag: true\n  list: [a]`),
    );
    expect(number.errors).toEqual([
      expect.stringMatching(/^metadata\.version: must be a string, got a number/),
      expect.stringMatching(/^metadata\.flag: must be a string, got a boolean/),
      expect.stringMatching(/^metadata\.list: must be a string, got a list/),
    ]);
    expect(validateSkillMd(doc(`${MINIMAL}\nmetadata: [a, b]`)).errors).toEqual([
      'metadata: must be a mapping of string keys to string values',
    ]);
  });

  it('requires compatibility to be a non-empty string of at most 500 characters', () => {
    expect(validateSkillMd(doc(`${MINIMAL}\ncompatibility: ${'c'.repeat(500)}`)).valid).toBe(true);
    expect(validateSkillMd(doc(`${MINIMAL}\ncompatibility: ${'c'.repeat(501)}`)).errors).toEqual([
      'compatibility: must be at most 500 characters (got 501)',
    ]);
    expect(validateSkillMd(doc(`${MINIMAL}\ncompatibility: [a]`)).errors).toEqual(['compatibility: must be a string']);
    expect(validateSkillMd(doc(`${MINIMAL}\ncompatibility: ""`)).errors).toEqual([
      'compatibility: must not be empty when present',
    ]);
  });

  it('requires allowed-tools and license to be strings', () => {
    expect(validateSkillMd(doc(`${MINIMAL}\nallowed-tools: [Bash, Read]`)).errors).toEqual([
      'allowed-tools: must be a string (space-separated tool names)',
    ]);
    expect(validateSkillMd(doc(`${MINIMAL}\nlicense: [MIT]`)).errors).toEqual(['license: must be a string']);
  });

  it('accepts CRLF line endings and a BOM', () => {
    const crlf = doc(MINIMAL).replace(/\n/g, '\r\n');
    expect(validateSkillMd(crlf).valid).toBe(true);
    expect(validateSkillMd(`\uFEFF${doc(MINIMAL)}`).valid).toBe(true);
  });

  it('keeps a body that contains later --- lines', () => {
    expect(validateSkillMd(doc(MINIMAL, 'Intro\n\n---\n\nMore after a rule.\n')).valid).toBe(true);
  });
});

describe('validateSkillName', () => {
  it('accepts lowercase letters, digits and single inner hyphens', () => {
    expect(validateSkillName('a')).toEqual([]);
    expect(validateSkillName('triage-support-ticket')).toEqual([]);
    expect(validateSkillName('v2-export-3')).toEqual([]);
  });

  it('accepts exactly 64 characters and rejects 65', () => {
    expect(validateSkillName('a'.repeat(64))).toEqual([]);
    expect(validateSkillName('a'.repeat(65))).toEqual(['name: must be at most 64 characters (got 65)']);
  });

  it('rejects empty and non-string names', () => {
    expect(validateSkillName('')).toEqual(['name: must not be empty']);
    expect(validateSkillName(42)).toEqual(['name: must be a string']);
    expect(validateSkillName(null)).toEqual(['name: must be a string']);
  });

  it('rejects uppercase, underscores, spaces and non-ASCII letters, showing what it found', () => {
    expect(validateSkillName('Triage')[0]).toBe(
      'name: must be lowercase ASCII letters, digits and "-" only (found "T")',
    );
    expect(validateSkillName('a_b')[0]).toContain('"_"');
    expect(validateSkillName('a b')[0]).toContain('" "');
    expect(validateSkillName('café')[0]).toContain('"é"');
  });

  it('rejects leading or trailing hyphens and double hyphens', () => {
    expect(validateSkillName('-a')).toEqual(['name: must not start or end with "-"']);
    expect(validateSkillName('a-')).toEqual(['name: must not start or end with "-"']);
    expect(validateSkillName('a--b')).toEqual(['name: must not contain "--"']);
  });
});

describe('validateDescription', () => {
  it('accepts exactly 1024 characters and rejects 1025', () => {
    expect(validateDescription('d'.repeat(1024))).toEqual([]);
    expect(validateDescription('d'.repeat(1025))).toEqual(['description: must be at most 1024 characters (got 1025)']);
  });

  it('counts characters, not UTF-16 units', () => {
    expect(validateDescription('😀'.repeat(1024))).toEqual([]);
  });

  it('rejects empty, whitespace-only and non-string descriptions', () => {
    expect(validateDescription('')).toEqual(['description: must not be empty']);
    expect(validateDescription('   ')).toEqual(['description: must not be empty']);
    expect(validateDescription(undefined)).toEqual(['description: must be a string']);
  });

  it('rejects < and >', () => {
    expect(validateDescription('Use for <html> pages')).toEqual(['description: must not contain "<" or ">"']);
    expect(validateDescription('a -> b')).toEqual(['description: must not contain "<" or ">"']);
  });

  it('accepts colons, quotes and other punctuation', () => {
    expect(validateDescription('Use when: the user says "go"; then #1 & #2.')).toEqual([]);
  });
});
