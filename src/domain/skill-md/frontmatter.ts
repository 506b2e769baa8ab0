// Splitting a SKILL.md text into its YAML frontmatter and markdown body, and loading that YAML into plain
// data without ever executing anything or throwing. Shared by the validator and the parser.

import type { Document } from 'yaml';
import { yamlLibrary } from './yaml-library.js';

/** Aliases (`*name`) a frontmatter may use, and its largest size: far above any real SKILL.md. */
export const MAX_ALIASES = 100;
const MAX_YAML_CHARS = 256 * 1024;

const FENCE = /^---[ \t]*$/;
/** Bounds on what one frontmatter may expand to (guards against alias "billion laughs" and deep nesting). */
const MAX_DEPTH = 64;
const MAX_NODES = 20_000;

export type FrontmatterSplit = { ok: true; yaml: string; body: string } | { ok: false; reason: string };

/** Turns CRLF and lone CR line endings into LF. */
export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/**
 * The body as stored and emitted: LF line endings, no BOM, no leading blank lines, no trailing whitespace.
 * Indentation of the first non-blank line is kept (it may be an indented code block).
 */
export function normalizeBody(body: string): string {
  return normalizeNewlines(body)
    .replace(/^\uFEFF/, '')
    .replace(/^(?:[ \t]*\n)+/, '')
    .trimEnd();
}

/**
 * Splits `---\n<yaml>\n---\n<body>`. A BOM and leading whitespace are skipped; line endings are normalised
 * to LF. The frontmatter ends at the first later line that is exactly `---` (trailing blanks allowed), so
 * `---` lines further down belong to the body.
 */
export function splitFrontmatter(text: string): FrontmatterSplit {
  const t = normalizeNewlines(text).replace(/^[\s\uFEFF]+/, '');
  const lines = t.split('\n');
  if (!FENCE.test(lines[0] ?? '')) return { ok: false, reason: 'text does not start with a "---" frontmatter fence' };
  for (let i = 1; i < lines.length; i++) {
    if (FENCE.test(lines[i] ?? '')) {
      return { ok: true, yaml: lines.slice(1, i).join('\n'), body: normalizeBody(lines.slice(i + 1).join('\n')) };
    }
  }
  return { ok: false, reason: 'frontmatter is not closed by a "---" line' };
}

export type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };

export type YamlLoad = { ok: true; value: YamlValue; warnings: string[] } | { ok: false; reason: string };

/**
 * How scalars come out: `typed` keeps YAML 1.2 core types (numbers, booleans, null), which the validator
 * needs; `source` turns every non-null scalar into its source text, so `version: 1.0` reads as `"1.0"`
 * rather than the number 1 (what a lenient importer wants).
 */
export type ScalarMode = 'typed' | 'source';

class LoadLimit extends Error {}

interface WalkContext {
  doc: Document.Parsed;
  nodes: number;
  /** Resolved alias targets (resolving walks the document, so do it once per alias). */
  aliases: Map<object, unknown>;
}

/** Parses YAML text into plain data. Never throws: errors and limits come back as `{ok: false, reason}`. */
export function loadYaml(src: string, mode: ScalarMode): YamlLoad {
  try {
    if (src.length > MAX_YAML_CHARS)
      return { ok: false, reason: `YAML frontmatter is ${src.length} characters, over the ${MAX_YAML_CHARS} limit` };
    const { parseDocument, visit } = yamlLibrary();
    const doc = parseDocument(src, { uniqueKeys: true, prettyErrors: false, strict: true });
    if (doc.errors.length > 0) return { ok: false, reason: firstLine(doc.errors[0]?.message ?? 'YAML error') };
    // Resolving an alias walks the document: many aliases would make loading quadratic (a billion-laughs
    // variant). A SKILL.md has no use for more than a handful.
    let aliases = 0;
    visit(doc, { Alias: () => (++aliases > MAX_ALIASES ? visit.BREAK : undefined) });
    if (aliases > MAX_ALIASES) return { ok: false, reason: `YAML uses more than ${MAX_ALIASES} aliases` };
    const ctx: WalkContext = { doc, nodes: 0, aliases: new Map() };
    const value = toPlain(doc.contents, ctx, mode, 0);
    return { ok: true, value, warnings: doc.warnings.map((w) => firstLine(w.message)) };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? firstLine(err.message) : 'YAML error' };
  }
}

/** True for a YAML mapping loaded by `loadYaml` (not an array, not null). */
export function isMapping(value: unknown): value is { [key: string]: YamlValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets an own enumerable property, so a key such as `__proto__` is data, never a prototype change. */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function toPlain(node: unknown, ctx: WalkContext, mode: ScalarMode, depth: number): YamlValue {
  const { isAlias, isMap, isScalar, isSeq } = yamlLibrary();
  if (depth > MAX_DEPTH) throw new LoadLimit('YAML nests too deeply');
  if (++ctx.nodes > MAX_NODES) throw new LoadLimit('YAML expands to too many nodes');
  if (node === null || node === undefined) return null;
  if (isAlias(node)) {
    if (!ctx.aliases.has(node)) ctx.aliases.set(node, node.resolve(ctx.doc));
    return toPlain(ctx.aliases.get(node), ctx, mode, depth + 1);
  }
  if (isScalar(node)) return scalarValue(node.value, node.source, mode);
  if (isMap(node)) {
    const out: { [key: string]: YamlValue } = {};
    for (const pair of node.items) {
      setOwn(out, keyText(pair.key, ctx, depth), toPlain(pair.value, ctx, mode, depth + 1));
    }
    return out;
  }
  if (isSeq(node)) return node.items.map((item) => toPlain(item, ctx, mode, depth + 1));
  return null;
}

function scalarValue(value: unknown, source: string | undefined, mode: ScalarMode): YamlValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (mode === 'source') return typeof source === 'string' && source !== '' ? source : String(value);
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  return String(value);
}

function keyText(key: unknown, ctx: WalkContext, depth: number): string {
  // Keys are always text: `1.0:` is the key "1.0", not "1".
  const plain = toPlain(key, ctx, 'source', depth + 1);
  if (typeof plain === 'string') return plain;
  if (plain === null) return '';
  return JSON.stringify(plain);
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}
