/**
 * The object shape of a zod schema under its wrappers (prefault, default, optional, refinements, transform pipes),
 * or null when it reads no object: the fields a configuration section or a request body takes, read from the
 * schema itself.
 */
export function objectShape(schema: unknown): Record<string, unknown> | null {
  let s = schema as { shape?: Record<string, unknown>; def?: { innerType?: unknown; in?: unknown } } | undefined;
  for (let i = 0; i < 8 && s; i++) {
    if (s.shape) return s.shape;
    s = (s.def?.innerType ?? s.def?.in) as typeof s;
  }
  return null;
}
