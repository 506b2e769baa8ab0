import type { Context } from 'hono';
import type { z } from 'zod';

/** An error with the HTTP status it should be answered with. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 422 | 503,
    message: string,
  ) {
    super(message);
  }
}

/** The request body as JSON, validated; a bad body is a 400 naming each wrong field. */
export async function readJson<T extends z.ZodType>(c: Context, schema: T): Promise<z.infer<T>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new HttpError(400, 'the request body must be JSON (Content-Type: application/json)');
  }
  return parse(schema, body, 'body');
}

/** The query string, validated the same way. */
export function readQuery<T extends z.ZodType>(c: Context, schema: T): z.infer<T> {
  return parse(schema, c.req.query(), 'query');
}

function parse<T extends z.ZodType>(schema: T, value: unknown, where: string): z.infer<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const problems = r.error.issues.map((i) => `${i.path.length ? i.path.join('.') : where}: ${i.message}`);
  throw new HttpError(400, `invalid ${where}: ${problems.join('; ')}`);
}

/** Maps an error from a handler to a status: client mistakes are 4xx with the library's own message. */
export function errorStatus(e: unknown): number {
  if (e instanceof HttpError) return e.status;
  const name = (e as Error)?.name;
  if (name === 'CompileError' || e instanceof RangeError) return 400;
  if (name === 'PassLockedError' || name === 'SessionStateError') return 409;
  if (name === 'NotFoundError') return 404;
  if (name === 'DisabledError') return 503;
  return 500;
}
