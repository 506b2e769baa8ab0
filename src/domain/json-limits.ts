// Bounds on untrusted JSON values (issue #14: no recursion on untrusted depth). Everything here is
// iterative: a value nested 100,000 levels deep is measured without growing the call stack, so the caller
// can refuse it with a clear reason before any recursive code (JSON.stringify, redaction, zod) sees it.

/** Deepest nesting that a stored value (arguments, results, labels) may have. Real traces stay under 10. */
export const MAX_JSON_DEPTH = 64;
import { keepFirst } from '../support/text.js';

/** True when `value` nests objects or arrays deeper than `limit` levels (a scalar is depth 0). */
export function exceedsDepth(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: [unknown, number][] = [[value, 1]];
  const seen = new Set<object>();
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (depth > limit) return true;
    if (seen.has(v as object)) continue;
    seen.add(v as object);
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const c of children) if (c !== null && typeof c === 'object') stack.push([c, depth + 1]);
  }
  return false;
}

/** The reason given for a value that is nested too deep, naming the field. */
export function depthReason(field: string, limit = MAX_JSON_DEPTH): string {
  return `${field} is nested more than ${limit} levels deep (refused: too deep to store safely)`;
}

// The longest JSON a number can take ("-2.2250738585072014e-308"), and a UTF-16 unit's longest escape (\uXXXX).
const NUMBER_BYTES = 24;
const CHAR_BYTES = 6;

/**
 * An upper bound on the UTF-8 length of `JSON.stringify(value)`, found without serialising it, provided the
 * value nests no deeper than `depthLimit` (counted as `exceedsDepth` counts) and its bound stays within
 * `maxBytes`. -1 otherwise, and when no cheap bound exists (a `toJSON`, a class instance, a bigint): then the
 * caller measures exactly. The recursion stops at `depthLimit`, so untrusted depth never grows the stack;
 * a cycle deepens without end and so gives -1 too.
 */
export function jsonBytesWithin(value: unknown, maxBytes: number, depthLimit = MAX_JSON_DEPTH): number {
  const bytes = bound(value, depthLimit, maxBytes);
  return bytes <= maxBytes ? bytes : -1;
}

function bound(v: unknown, depthLeft: number, budget: number): number {
  switch (typeof v) {
    case 'string':
      return CHAR_BYTES * v.length + 2;
    case 'number':
      return NUMBER_BYTES;
    case 'boolean':
      return 5;
    case 'object':
      break;
    case 'bigint':
      return Number.POSITIVE_INFINITY;
    default:
      return 4; // undefined, a function or a symbol: left out, or `null` in an array
  }
  if (v === null) return 4;
  if (depthLeft === 0) return Number.POSITIVE_INFINITY;
  let bytes = 2;
  if (Array.isArray(v)) {
    bytes += v.length;
    for (let i = 0; i < v.length && bytes <= budget; i++) bytes += bound(v[i], depthLeft - 1, budget - bytes);
    return bytes;
  }
  const proto = Object.getPrototypeOf(v);
  if ((proto !== Object.prototype && proto !== null) || typeof (v as { toJSON?: unknown }).toJSON === 'function')
    return Number.POSITIVE_INFINITY;
  for (const k in v) {
    if (bytes > budget) break;
    bytes += CHAR_BYTES * k.length + 4 + bound((v as Record<string, unknown>)[k], depthLeft - 1, budget - bytes);
  }
  return bytes;
}

/**
 * `value` with every string longer than `maxChars` cut to that many characters and a note of what was cut
 * (`… (4,998,000 characters cut)`), and how many were cut. Iterative, for a value already held to MAX_JSON_DEPTH: a
 * record over the byte limit whose size is in a few long texts (a file an agent wrote, a log it read) keeps its
 * shape.
 */
export function clipLongStrings(value: unknown, maxChars: number): { value: unknown; cut: number } {
  let cut = 0;
  const clip = (s: string) => {
    if (s.length <= maxChars) return s;
    cut++;
    return `${keepFirst(s, maxChars)}… (${(s.length - maxChars).toLocaleString('en-US')} characters cut)`;
  };
  if (typeof value === 'string') return { value: clip(value), cut };
  if (value === null || typeof value !== 'object') return { value, cut };
  const root: unknown = Array.isArray(value) ? [...value] : { ...(value as object) };
  const stack: unknown[] = [root];
  while (stack.length) {
    const node = stack.pop() as Record<string, unknown> | unknown[];
    const keys = Array.isArray(node) ? node.keys() : Object.keys(node);
    for (const k of keys) {
      const v = (node as Record<string | number, unknown>)[k];
      if (typeof v === 'string') (node as Record<string | number, unknown>)[k] = clip(v);
      else if (v !== null && typeof v === 'object') {
        const copy: unknown = Array.isArray(v) ? [...v] : { ...(v as object) };
        (node as Record<string | number, unknown>)[k] = copy;
        stack.push(copy);
      }
    }
  }
  return { value: root, cut };
}

/**
 * What a JSON parser found wrong, without the text it quotes: V8 quotes up to 10 characters either side of the
 * fault (`Unexpected token 'H', ..."assword": Hunter2Sec"... is not valid JSON`), which may be part of a secret
 * that redaction, seeing only a piece, cannot recognise. A reason reaches terminals, logs and answers. Pure.
 */
export function jsonSyntaxReason(message: string): string {
  return message.replace(/,? (?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/, '');
}
