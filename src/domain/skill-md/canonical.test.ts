import { describe, expect, it } from 'vitest';
import { toCanonicalDoc, toSemver } from './canonical.js';
import { parseSkillMd, type ParsedSkill } from './parse.js';
import { serializeSkillMd } from './serialize.js';
import { validateSkillMd } from './validate.js';

const EMPTY: ParsedSkill = {
  format: 'legacy',
  name: null,
  description: null,
  license: null,
  compatibility: null,
  allowedTools: null,
  metadata: {},
  toolsRequired: [],
  version: null,
  kind: null,
  parents: { episodic: [], semantic: [], procedural: [] },
  body: '',
  warnings: [],
};

function expectValid(parsed: ParsedSkill, license = 'MIT'): void {
  const doc = toCanonicalDoc(parsed, { license });
  expect(validateSkillMd(serializeSkillMd(doc), { dirName: doc.name })).toEqual({ valid: true, errors: [] });
}

describe('toCanonicalDoc', () => {
  it('maps GAIA example A to our metadata: version, tools-required, kind; no gaia.* alias left behind', () => {
    const parsed = parseSkillMd(
      '---\nname: triage-support-ticket\ndescription: Triage a ticket.\nlicense: Apache-2.0\nversion: 1.0.0\nmetadata:\n  gaia:\n    tools_required: [query_documents, read_file, remember]\n---\n\n# Triage\n\n1. a\n2. b\n',
    );
    const doc = toCanonicalDoc(parsed, { license: 'MIT' });
    expect(doc).toEqual({
      name: 'triage-support-ticket',
      description: 'Triage a ticket.',
      license: 'MIT',
      metadata: { version: '1.0.0', 'tools-required': 'query_documents read_file remember', kind: 'playbook' },
      body: '# Triage\n\n1. a\n2. b',
    });
    expectValid(parsed);
  });

  it('takes the license from the options only, never from the text', () => {
    const parsed = {
      ...EMPTY,
      format: 'intermediate' as const,
      name: 'a',
      description: 'd',
      license: 'GPL-3.0',
      body: 'b',
    };
    expect(toCanonicalDoc(parsed, { license: 'MIT' }).license).toBe('MIT');
    expect(toCanonicalDoc(parsed, { license: 'Apache-2.0' }).license).toBe('Apache-2.0');
  });

  it('uses opts.version over the parsed version, the parsed one over 1.0.0, coercing both to SemVer', () => {
    const parsed = { ...EMPTY, name: 'a', description: 'd', body: 'b', version: '2.1' };
    expect(toCanonicalDoc(parsed, { license: 'MIT' }).metadata.version).toBe('2.1.0');
    expect(toCanonicalDoc(parsed, { license: 'MIT', version: '3.0.1' }).metadata.version).toBe('3.0.1');
    expect(toCanonicalDoc({ ...parsed, version: null }, { license: 'MIT' }).metadata.version).toBe('1.0.0');
    expect(toCanonicalDoc({ ...parsed, version: 'latest' }, { license: 'MIT' }).metadata.version).toBe('1.0.0');
  });

  it('keeps Spector kind, parents and confidence, and derives a description from the body prose', () => {
    const parsed = parseSkillMd(
      '---\nschema: spector.skill.v1\nname: null-check-auth-validator\nkind: playbook\nconfidence: 0.35\ntools: []\nparents:\n  episodic: ["<episode-tsid>"]\n  semantic: ["rem-log-<tsid>"]\n---\n# Null-check auth validator\n\nWhen a login endpoint throws NPE on missing principal:\n\n1. Reproduce\n',
    );
    const doc = toCanonicalDoc(parsed, { license: 'MIT' });
    expect(doc.name).toBe('null-check-auth-validator');
    expect(doc.description).toBe('When a login endpoint throws NPE on missing principal:');
    expect(doc.metadata).toEqual({
      version: '1.0.0',
      kind: 'playbook',
      'parents-episodic': '<episode-tsid>',
      'parents-semantic': 'rem-log-<tsid>',
      'spector.confidence': '0.35',
    });
    expectValid(parsed);
  });

  it('infers kind: playbook for a body with numbered steps, heuristic otherwise', () => {
    expect(toCanonicalDoc({ ...EMPTY, body: '# T\n\n1. a\n2. b' }, { license: 'MIT' }).metadata.kind).toBe('playbook');
    expect(toCanonicalDoc({ ...EMPTY, body: 'Prefer small commits.' }, { license: 'MIT' }).metadata.kind).toBe(
      'heuristic',
    );
  });

  it('gives a legacy skill a name from its first heading and a description from its first prose line', () => {
    const parsed = parseSkillMd('# Rotate API Keys\n\nUse when a key leaked.\n\n1. Revoke.\n2. Reissue.\n');
    const doc = toCanonicalDoc(parsed, { license: 'MIT' });
    expect(doc.name).toBe('rotate-api-keys');
    expect(doc.description).toBe('Use when a key leaked.');
    expect(doc.body).toBe('# Rotate API Keys\n\nUse when a key leaked.\n\n1. Revoke.\n2. Reissue.');
    expectValid(parsed);
  });

  it('keeps a legacy text with a broken fence whole, so it survives a second parse', () => {
    const text = '---\nname: [broken\n---\nBody after a broken fence.';
    const doc = toCanonicalDoc(parseSkillMd(text), { license: 'MIT' });
    expect(doc.body).toBe(text);
    expect(parseSkillMd(serializeSkillMd(doc)).body).toBe(text);
  });

  it('fills in everything for an empty skill', () => {
    const doc = toCanonicalDoc(EMPTY, { license: 'MIT' });
    expect(doc).toEqual({
      name: 'skill',
      description: 'skill',
      license: 'MIT',
      metadata: { version: '1.0.0', kind: 'heuristic' },
      body: '# Skill\n\nskill',
    });
    expectValid(EMPTY);
  });

  it('sanitises a description with < > and over-long text', () => {
    const long = `Use for <html> ${'word '.repeat(400)}`;
    const doc = toCanonicalDoc({ ...EMPTY, name: 'a', description: long, body: 'b' }, { license: 'MIT' });
    expect(doc.description.startsWith('Use for html word')).toBe(true);
    expect(doc.description.length).toBeLessThanOrEqual(1024);
  });

  it('fixes names, caps compatibility at 500 characters and drops empty optional fields', () => {
    const doc = toCanonicalDoc(
      {
        ...EMPTY,
        name: 'Bad_Name',
        description: 'd',
        compatibility: `${'word '.repeat(200)}`,
        allowedTools: '  ',
        body: 'b',
      },
      { license: 'MIT' },
    );
    expect(doc.name).toBe('bad-name');
    expect(doc.compatibility!.length).toBeLessThanOrEqual(500);
    expect(doc.allowedTools).toBeUndefined();
  });

  it('keeps other flat metadata after ours, and drops the keys it lifted', () => {
    const parsed = parseSkillMd(
      '---\nname: a\ndescription: d\nmetadata:\n  owner: core\n  tools_required: x y\n  version: 0.3\n  parents.semantic: f1\n  gaia:\n    version: 9.9.9\n---\nbody',
    );
    const doc = toCanonicalDoc(parsed, { license: 'MIT' });
    expect(doc.metadata).toEqual({
      version: '0.3.0',
      'tools-required': 'x y',
      kind: 'heuristic',
      'parents-semantic': 'f1',
      owner: 'core',
    });
    expect(Object.keys(doc.metadata)).toEqual(['version', 'tools-required', 'kind', 'parents-semantic', 'owner']);
  });
});

describe('toSemver', () => {
  it('completes partial versions and keeps pre-release and build parts', () => {
    expect(toSemver('1')).toBe('1.0.0');
    expect(toSemver('v1.2')).toBe('1.2.0');
    expect(toSemver('01.02.03')).toBe('1.2.3');
    expect(toSemver('1.2.3-rc.1+build.5')).toBe('1.2.3-rc.1+build.5');
  });

  it('rejects what is not a version', () => {
    expect(toSemver('latest')).toBeNull();
    expect(toSemver('1.2.3.4')).toBeNull();
    expect(toSemver(null)).toBeNull();
    expect(toSemver(undefined)).toBeNull();
  });
});
