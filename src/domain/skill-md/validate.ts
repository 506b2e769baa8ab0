// The agentskills.io rules for a SKILL.md, as its reference validator (`skills-ref`) applies them. Pure.
// Every error names the field it is about: `name: must not contain "--"`.

import { isMapping, loadYaml, splitFrontmatter } from './frontmatter.js';
import { codePointLength } from './text.js';

export const ALLOWED_TOP_LEVEL_KEYS = [
  'name',
  'description',
  'license',
  'compatibility',
  'allowed-tools',
  'metadata',
] as const;
export const MAX_NAME_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 1024;
export const MAX_COMPATIBILITY_LENGTH = 500;

export interface ValidationResult {
  valid: boolean;
  errors: string[];
}

export interface ValidateOptions {
  /** The directory holding the SKILL.md (`<dir>/<name>/SKILL.md`); `name` must equal it. */
  dirName?: string;
}

/** Validates a whole SKILL.md text: frontmatter fence, YAML, allowed keys, each field, a non-empty body. */
export function validateSkillMd(text: string, opts: ValidateOptions = {}): ValidationResult {
  const errors: string[] = [];
  if (typeof text !== 'string') return fail(['text: must be a string']);
  const firstLine = text.replace(/^\uFEFF/, '').split(/\r\n?|\n/, 1)[0] ?? '';
  if (!/^---[ \t]*$/.test(firstLine)) {
    return fail(['frontmatter: the text must start with a "---" fence line']);
  }
  const split = splitFrontmatter(text);
  if (!split.ok) return fail([`frontmatter: ${split.reason}`]);
  const loaded = loadYaml(split.yaml, 'typed');
  if (!loaded.ok) return fail([`frontmatter: YAML does not parse: ${loaded.reason}`]);
  const fm = loaded.value;
  if (!isMapping(fm)) return fail(['frontmatter: must be a YAML mapping of keys to values']);

  for (const key of Object.keys(fm)) {
    if (!(ALLOWED_TOP_LEVEL_KEYS as readonly string[]).includes(key)) {
      const hint = key === 'version' ? ' (put it under metadata.version)' : '';
      errors.push(`${key}: is not an allowed top-level key${hint}; allowed: ${ALLOWED_TOP_LEVEL_KEYS.join(', ')}`);
    }
  }

  if (!Object.hasOwn(fm, 'name')) errors.push('name: is required');
  else {
    const nameErrors = validateSkillName(fm.name);
    errors.push(...nameErrors);
    if (nameErrors.length === 0 && opts.dirName !== undefined && fm.name !== opts.dirName) {
      errors.push(`name: must equal the directory name "${opts.dirName}" (got "${String(fm.name)}")`);
    }
  }

  if (!Object.hasOwn(fm, 'description')) errors.push('description: is required');
  else errors.push(...validateDescription(fm.description));

  if (Object.hasOwn(fm, 'license') && typeof fm.license !== 'string') errors.push('license: must be a string');

  if (Object.hasOwn(fm, 'compatibility')) {
    const c = fm.compatibility;
    if (typeof c !== 'string') errors.push('compatibility: must be a string');
    else if (c.trim() === '') errors.push('compatibility: must not be empty when present');
    else if (codePointLength(c) > MAX_COMPATIBILITY_LENGTH) {
      errors.push(`compatibility: must be at most ${MAX_COMPATIBILITY_LENGTH} characters (got ${codePointLength(c)})`);
    }
  }

  if (Object.hasOwn(fm, 'allowed-tools') && typeof fm['allowed-tools'] !== 'string') {
    errors.push('allowed-tools: must be a string (space-separated tool names)');
  }

  if (Object.hasOwn(fm, 'metadata')) {
    const md = fm.metadata;
    if (!isMapping(md)) errors.push('metadata: must be a mapping of string keys to string values');
    else {
      for (const [k, v] of Object.entries(md)) {
        if (typeof v !== 'string') {
          const what =
            v === null
              ? 'null'
              : Array.isArray(v)
                ? 'a list'
                : typeof v === 'object'
                  ? 'a nested mapping'
                  : `a ${typeof v}`;
          errors.push(
            `metadata.${k}: must be a string, got ${what} (metadata is a flat map of string to string; quote scalars)`,
          );
        }
      }
    }
  }

  if (split.body.trim() === '') errors.push('body: must not be empty');

  return { valid: errors.length === 0, errors };
}

/** Errors for a skill name (empty when valid): 1-64 of [a-z0-9-], no leading/trailing `-`, no `--`. */
export function validateSkillName(name: unknown): string[] {
  if (typeof name !== 'string') return ['name: must be a string'];
  if (name === '') return ['name: must not be empty'];
  const errors: string[] = [];
  const length = codePointLength(name);
  if (length > MAX_NAME_LENGTH) errors.push(`name: must be at most ${MAX_NAME_LENGTH} characters (got ${length})`);
  const bad = [...new Set(Array.from(name).filter((ch) => !/^[a-z0-9-]$/.test(ch)))];
  if (bad.length > 0) {
    const shown = bad
      .slice(0, 5)
      .map((ch) => JSON.stringify(ch))
      .join(', ');
    errors.push(`name: must be lowercase ASCII letters, digits and "-" only (found ${shown})`);
  }
  if (name.startsWith('-') || name.endsWith('-')) errors.push('name: must not start or end with "-"');
  if (name.includes('--')) errors.push('name: must not contain "--"');
  return errors;
}

/** Errors for a description (empty when valid): a non-empty string of at most 1024 characters without `<` or `>`. */
export function validateDescription(description: unknown): string[] {
  if (typeof description !== 'string') return ['description: must be a string'];
  if (description.trim() === '') return ['description: must not be empty'];
  const errors: string[] = [];
  const length = codePointLength(description);
  if (length > MAX_DESCRIPTION_LENGTH) {
    errors.push(`description: must be at most ${MAX_DESCRIPTION_LENGTH} characters (got ${length})`);
  }
  if (/[<>]/.test(description)) errors.push('description: must not contain "<" or ">"');
  return errors;
}

function fail(errors: string[]): ValidationResult {
  return { valid: false, errors };
}
