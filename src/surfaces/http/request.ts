import type { Context } from 'hono';
import type { z } from 'zod';
import { CircuitOpenError } from '../../errors/circuit-open-error.js';
import { HttpError } from '../../errors/http-error.js';
import { httpStatusOf } from '../../errors/error-codes.js';
import { busyStoreText, unreachableStoreText } from '../../app/store-errors.js';
import { jsonSyntaxReason } from '../../domain/json-limits.js';
import { nearestName } from '../../support/nearest-name.js';
import { objectShape } from '../../support/zod-shape.js';
import { errorCodeOf, statusCode } from '../shapes.js';

export { HttpError };

/** The request body as JSON, validated; a bad body is a 400 naming each wrong field. */
export async function readJson<T extends z.ZodType>(
  c: Context,
  schema: T,
  opts: { optional?: boolean } = {},
): Promise<z.infer<T>> {
  let body: unknown;
  const text = await c.req.text();
  try {
    // A route whose fields all have defaults (`optional`) takes no body as an empty object.
    body = opts.optional && !text.trim() ? {} : JSON.parse(text);
  } catch (e) {
    // What the parser found wrong and where (`Unexpected token } in JSON at position 12`), or that there was nothing.
    const why = text.trim() ? jsonSyntaxReason((e as Error).message) : 'the body is empty';
    throw new HttpError(400, `the request body must be JSON (Content-Type: application/json): ${why}`);
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
  const problems = r.error.issues.map((i) =>
    i.code === 'unrecognized_keys'
      ? unknownFields(i.keys, fieldsOf(schema, i.path))
      : `${i.path.length ? i.path.join('.') : where}: ${i.message}`,
  );
  throw new HttpError(400, `invalid ${where}: ${problems.join('; ')}`);
}

/**
 * A body's fields the route does not take (a misspelt `rewrd`, a field of another route), named with the one
 * meant when it is close and the fields taken: a field the server dropped without a word did nothing the client
 * asked for.
 */
function unknownFields(keys: readonly string[], known: readonly string[]): string {
  const named = keys.map((k) => {
    const meant = nearestName(k, known);
    return `"${k}"${meant === undefined ? '' : ` (did you mean "${meant}"?)`}`;
  });
  const takes = known.length ? `; it takes ${known.join(', ')}` : '';
  return `unknown field${keys.length === 1 ? '' : 's'} ${named.join(', ')}${takes}`;
}

/** The field names of the object a schema reads at `path` (through refinements and defaults), or none. */
function fieldsOf(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let at: unknown = schema;
  for (const step of path) at = objectShape(at)?.[String(step)];
  return Object.keys(objectShape(at) ?? {});
}

/**
 * A library call made for a request, with what it refuses said about the request: the library's messages name
 * the function that refused (`startSession: goal must be a non-empty string`), which a REST client never called,
 * so that prefix is taken off (`goal must be a non-empty string`: a field of the body). The error keeps its class,
 * and so its status; the library's own message is unchanged for its other callers.
 */
export async function forRequest<T>(call: string, pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (e) {
    const prefix = `${call}: `;
    if (e instanceof Error && e.message.startsWith(prefix)) e.message = e.message.slice(prefix.length);
    throw e;
  }
}

/**
 * What a handler's error answers: the status by its code (src/errors/error-codes.ts; client mistakes are 4xx), the
 * code every surface gives (`errorCodeOf`), and the message. A memory whose database cannot be reached (a PostgreSQL
 * server down or restarting) is 503, said so: the request may be sent again once it is back; so is a model server
 * that is down or slow (503, with Retry-After when the back end knows when it takes a call again).
 */
export function errorAnswer(e: unknown): { status: number; code: string; message: string; retryAfterS?: number } {
  const code = errorCodeOf(e);
  if (code === 'STORE_UNREACHABLE')
    return { status: 503, code, message: `${unreachableStoreText(e)}; send the request again once it is back` };
  // Another process's long write (a pass, an import) on the SQLite file: a moment later the request goes through.
  if (code === 'STORE_BUSY')
    return { status: 503, code, message: `${busyStoreText(e)}: send the request again`, retryAfterS: 2 };
  const answer = { status: httpStatusOf(e), code, message: (e as Error)?.message ?? String(e) };
  // A model back end cooling off after repeated failures says when it takes a call again.
  if (CircuitOpenError.isInstance(e)) {
    const wait = Math.ceil((Date.parse(e.retryAt) - Date.now()) / 1000);
    if (Number.isFinite(wait)) return { ...answer, retryAfterS: Math.max(1, wait) };
  }
  return answer;
}

/** The JSON body of an error answer: what went wrong, in words, and its stable code. */
export function errorBody(message: string, status: number): { error: string; code: string } {
  return { error: message, code: statusCode(status) };
}
