// Emitting the canonical SKILL.md, and turning free text into a valid name or description. Pure.

import { yamlLibrary } from './yaml-library.js';
import { normalizeBody, setOwn } from './frontmatter.js';
import { capAtWordBoundary, collapseWhitespace } from './text.js';
import { MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH } from './validate.js';

/** The document we emit: exactly the agentskills.io fields, every metadata value a string. */
export interface CanonicalSkillDoc {
  name: string;
  description: string;
  license: string;
  compatibility?: string;
  /** Emitted as `allowed-tools`. */
  allowedTools?: string;
  /** Flat string map, emitted in the order given (JS orders integer-like keys first). */
  metadata: Record<string, string>;
  body: string;
}

/** The fallback name when text yields no usable characters. */
export const FALLBACK_SKILL_NAME = 'skill';

/**
 * `---\n<yaml>\n---\n\n<body>\n`, keys in the order name, description, license, compatibility,
 * allowed-tools, metadata (omitted when empty). Values are strings; any value a YAML 1.2 or 1.1 reader
 * would take for something else (`1.0`, `yes`, `null`, `0o17`) is double-quoted, so `1.0.0` stays plain and
 * still reads back as a string. Lines are never folded. The body is emitted with LF line endings and
 * without leading blank lines or trailing whitespace.
 */
export function serializeSkillMd(doc: CanonicalSkillDoc): string {
  const fm: Record<string, unknown> = {};
  fm.name = doc.name;
  fm.description = doc.description;
  // Empty only for an imported skill whose file has no licence: absent stays absent, none is invented.
  if (doc.license !== '') fm.license = doc.license;
  if (doc.compatibility !== undefined && doc.compatibility !== null) fm.compatibility = doc.compatibility;
  if (doc.allowedTools !== undefined && doc.allowedTools !== null) fm['allowed-tools'] = doc.allowedTools;
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(doc.metadata ?? {})) setOwn(metadata, key, value);
  if (Object.keys(metadata).length > 0) fm.metadata = metadata;

  const { Document, Scalar, visit } = yamlLibrary();
  const yamlDoc = new Document(fm);
  visit(yamlDoc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && !node.value.includes('\n') && !readsBackAsSameString(node.value)) {
        node.type = Scalar.QUOTE_DOUBLE;
      }
    },
  });
  const yaml = yamlDoc.toString({ lineWidth: 0, minContentWidth: 0 });
  return `---\n${yaml}---\n\n${normalizeBody(doc.body)}\n`;
}

/** True when `value`, written as a plain scalar on its own, reads back as the same string in YAML 1.2 and 1.1. */
function readsBackAsSameString(value: string): boolean {
  const { isScalar, parseDocument } = yamlLibrary();
  for (const version of ['1.2', '1.1'] as const) {
    try {
      const parsed = parseDocument(value, { version, logLevel: 'silent' });
      if (parsed.errors.length > 0 || !isScalar(parsed.contents) || parsed.contents.value !== value) return false;
    } catch {
      return false;
    }
  }
  return true;
}

const SPECIAL_LETTERS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  þ: 'th',
  ı: 'i',
};

/**
 * Any text to a valid skill name: `Exchange Delivered Order Items`, `exchange_delivered_order_items` and
 * `exchangeDeliveredOrderItems` all become `exchange-delivered-order-items`. Accents are dropped
 * (`Café` -> `cafe`), apostrophes vanish (`don't` -> `dont`), every other run of non-alphanumerics is one
 * `-`. Longer than 64 characters, it is cut at the last word boundary that fits. Falls back to `skill`.
 */
/**
 * The title of a skill name ("fix-mms-messages" -> "Fix Mms Messages"; with an old title, the casing it gave a word
 * is kept: "Fix MMS Messages").
 */
export function titleOfName(name: string, oldTitle = ''): string {
  const cased = new Map(oldTitle.split(/\s+/).map((w) => [w.toLowerCase(), w] as const));
  return name
    .split('-')
    .filter(Boolean)
    .map((w) => cased.get(w) ?? w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

export function toSkillName(text: string): string {
  if (typeof text !== 'string') return FALLBACK_SKILL_NAME;
  let s = text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[ßæœøđðłþı]/g, (ch) => SPECIAL_LETTERS[ch] ?? '-')
    .replace(/['\u2018\u2019`]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (s.length > MAX_NAME_LENGTH) {
    const cut = s.lastIndexOf('-', MAX_NAME_LENGTH);
    s = (cut > 0 ? s.slice(0, cut) : s.slice(0, MAX_NAME_LENGTH)).replace(/-+$/, '');
  }
  return s === '' ? FALLBACK_SKILL_NAME : s;
}

/**
 * Any text to a description that passes validation (apart from being empty, which it may return for
 * empty input): `<` and `>` removed, control characters dropped, whitespace collapsed to single spaces,
 * capped at 1024 characters at a word boundary.
 */
export function toDescription(text: string): string {
  if (typeof text !== 'string') return '';
  const cleaned = collapseWhitespace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: this pattern exists to find control characters
    text.replace(/[<>]/g, '').replace(/[\u0000-\u0008\u000E-\u001F\u007F-\u009F\uFEFF]/g, ''),
  );
  return capAtWordBoundary(cleaned, MAX_DESCRIPTION_LENGTH);
}
