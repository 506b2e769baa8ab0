// Bounds on untrusted JSON values (issue #14: no recursion on untrusted depth). Everything here is
// iterative: a value nested 100,000 levels deep is measured without growing the call stack, so the caller
// can refuse it with a clear reason before any recursive code (JSON.stringify, redaction, zod) sees it.

/** Deepest nesting that a stored value (arguments, results, labels) may have. Real traces stay under 10. */
export const MAX_JSON_DEPTH = 64;

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
