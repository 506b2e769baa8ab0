import { HttpError } from './http-error.js';
import { SkillsmithError } from './skillsmith-error.js';

/** How the surfaces answer an error: the REST status and the CLI exit code (1 failure, 2 usage or configuration). */
export interface ErrorOutcome {
  readonly http: number;
  readonly exit: 1 | 2;
}

/**
 * Every error code with its REST status and CLI exit code: the one place that decides them. Errors a caller
 * can fix in the request answer 4xx; mistakes in the command line or configuration exit 2; the rest is 500/1.
 */
export const ERROR_OUTCOMES: Readonly<Record<string, ErrorOutcome>> = Object.freeze({
  SKILLSMITH_ERROR: { http: 500, exit: 1 },
  // Configuration and command line: fix the call and run again.
  CONFIG_INVALID: { http: 500, exit: 2 },
  BACKEND_CONFIG: { http: 500, exit: 2 },
  USAGE: { http: 400, exit: 2 },
  UNSAFE_BIND: { http: 500, exit: 2 },
  // The request or its input.
  INPUT_INVALID: { http: 400, exit: 1 },
  COMPILE_INVALID: { http: 400, exit: 1 },
  HTTP_REQUEST: { http: 400, exit: 1 },
  NOT_FOUND: { http: 404, exit: 1 },
  // The memory's state.
  PASS_LOCKED: { http: 409, exit: 1 },
  SESSION_STATE: { http: 409, exit: 1 },
  CONFLICT: { http: 409, exit: 1 },
  READ_ONLY_MEMORY: { http: 409, exit: 1 },
  DISABLED: { http: 503, exit: 1 },
  TRANSFER_FAILED: { http: 500, exit: 1 },
  // Model and embedding back ends.
  BACKEND_UNAVAILABLE: { http: 500, exit: 1 },
  BACKEND_LOAD_FAILED: { http: 500, exit: 1 },
  MISSING_OPTIONAL_DEPENDENCY: { http: 500, exit: 1 },
  // A model server that is down, slow or cooling off: 503, the request may be sent again later.
  CIRCUIT_OPEN: { http: 503, exit: 1 },
  EMBEDDER_MISMATCH: { http: 500, exit: 1 },
  EMBEDDER_NOT_READY: { http: 500, exit: 1 },
  EMBEDDING_DIMENSION: { http: 500, exit: 1 },
  ENDPOINT_HTTP_ERROR: { http: 500, exit: 1 },
  ENDPOINT_TIMEOUT: { http: 503, exit: 1 },
  ENDPOINT_UNREACHABLE: { http: 503, exit: 1 },
  LLM_UNAVAILABLE: { http: 503, exit: 1 },
  MALFORMED_DRAFT: { http: 500, exit: 1 },
  MALFORMED_RESPONSE: { http: 500, exit: 1 },
  // The model answered, but its answer stopped at the token limit: not the server being down.
  ANSWER_TRUNCATED: { http: 500, exit: 1 },
});

const UNKNOWN: ErrorOutcome = { http: 500, exit: 1 };

function outcome(e: unknown): ErrorOutcome {
  return SkillsmithError.isInstance(e) ? (ERROR_OUTCOMES[e.code] ?? UNKNOWN) : UNKNOWN;
}

/**
 * The REST status for an error: an `HttpError` carries its own; a coded error follows its code; a RangeError
 * (an argument out of range, e.g. a feedback value) is the caller's mistake, 400; anything else 500.
 */
export function httpStatusOf(e: unknown): number {
  if (HttpError.isInstance(e)) return e.status;
  if (e instanceof RangeError) return 400;
  return outcome(e).http;
}

/** The CLI exit code for an error that ends a command: 2 for a usage or configuration mistake, else 1. */
export function exitCodeOf(e: unknown): 1 | 2 {
  return outcome(e).exit;
}
