import { describe, expect, it } from 'vitest';
import { loadYaml, normalizeBody, splitFrontmatter } from './frontmatter.js';

describe('splitFrontmatter', () => {
  it('splits at the first closing fence and keeps later --- lines in the body', () => {
    expect(splitFrontmatter('---\nname: a\n---\n\nOne\n---\nTwo\n')).toEqual({
      ok: true,
      yaml: 'name: a',
      body: 'One\n---\nTwo',
    });
  });

  it('normalises CRLF and lone CR, skips a BOM and leading whitespace', () => {
    expect(splitFrontmatter('\uFEFF \r\n---\r\nname: a\r\n---\r\nbody\r\nmore\r\n')).toEqual({
      ok: true,
      yaml: 'name: a',
      body: 'body\nmore',
    });
    expect(splitFrontmatter('---\rname: a\r---\rbody')).toEqual({ ok: true, yaml: 'name: a', body: 'body' });
  });

  it('allows an empty frontmatter and an empty body', () => {
    expect(splitFrontmatter('---\n---\n')).toEqual({ ok: true, yaml: '', body: '' });
  });

  it('says why it cannot split', () => {
    expect(splitFrontmatter('body')).toEqual({
      ok: false,
      reason: 'text does not start with a "---" frontmatter fence',
    });
    expect(splitFrontmatter('---\nname: a\n')).toEqual({
      ok: false,
      reason: 'frontmatter is not closed by a "---" line',
    });
    expect(splitFrontmatter('----\nname: a\n---\n').ok).toBe(false);
  });
});

describe('normalizeBody', () => {
  it('drops leading blank lines and trailing whitespace but keeps first-line indentation', () => {
    expect(normalizeBody('\n  \n    code\n  more\n\n  ')).toBe('    code\n  more');
  });
});

describe('loadYaml', () => {
  it('keeps YAML core types in typed mode and source text in source mode', () => {
    const src = 'a: 1.0\nb: true\nc: ~\nd: "1.0"\ne: [0x1F]';
    expect(loadYaml(src, 'typed')).toEqual({
      ok: true,
      value: { a: 1, b: true, c: null, d: '1.0', e: [31] },
      warnings: [],
    });
    expect(loadYaml(src, 'source')).toEqual({
      ok: true,
      value: { a: '1.0', b: 'true', c: null, d: '1.0', e: ['0x1F'] },
      warnings: [],
    });
  });

  it('resolves ordinary aliases', () => {
    expect(loadYaml('a: &x [1]\nb: *x', 'source')).toEqual({ ok: true, value: { a: ['1'], b: ['1'] }, warnings: [] });
  });

  it('reports errors instead of throwing', () => {
    expect(loadYaml('a: [', 'typed').ok).toBe(false);
    expect(loadYaml('a: 1\na: 2', 'typed').ok).toBe(false);
  });

  it('reports unknown tags as warnings and never runs them', () => {
    const r = loadYaml('f: !!js/function "function () { return 1 }"', 'source');
    expect(r).toMatchObject({ ok: true, value: { f: 'function () { return 1 }' } });
    expect(r.ok && r.warnings[0]).toMatch(/Unresolved tag/);
  });
});
