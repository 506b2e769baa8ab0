/**
 * How often the origin stated for a redacted argument value holds. Capture redaction writes every email as
 * `[REDACTED:email]`, so the engine infers such a value's origin from where values of its kind appeared
 * (domain/result-values.ts). A trace that keeps the real values says where each one came from by the exact value:
 * this compares the two, session by session, for every argument the redaction turned into a marker. Pure.
 */
import { isMarker } from '../domain/redact.js';
import { argumentOrigins, sourceKey } from '../domain/result-values.js';
import { requestOf } from '../domain/spans.js';
import type { Session } from '../domain/types.js';

export interface RedactedOriginCheck {
  /** Arguments whose value the redaction turned into a marker. */
  args: number;
  /** Origins stated as the user, and how many of them the real value confirms. */
  user: number;
  userHeld: number;
  /** Origins stated as an earlier result's field, and how many the real value confirms. */
  result: number;
  resultHeld: number;
  /** No origin stated, and of those how many the real value has one for. */
  none: number;
  noneDecided: number;
}

/**
 * `pairs`: each session as recorded (real values) and as stored (redacted), with the same calls in the same order.
 * A stated origin holds when the real value's origin is the same; one whose real value has no known origin (it
 * follows a cut result) does not.
 */
export function checkRedactedOrigins(pairs: readonly { raw: Session; stored: Session }[]): RedactedOriginCheck {
  const out: RedactedOriginCheck = { args: 0, user: 0, userHeld: 0, result: 0, resultHeld: 0, none: 0, noneDecided: 0 };
  for (const { raw, stored } of pairs) {
    const real = raw.calls.filter((c) => c.ok);
    const red = stored.calls.filter((c) => c.ok);
    if (real.length !== red.length) continue;
    const before = argumentOrigins(real, requestOf(raw));
    const after = argumentOrigins(red, requestOf(stored));
    red.forEach((call, i) => {
      for (const [arg, value] of Object.entries(call.args ?? {})) {
        if (typeof value !== 'string' || !isMarker(value)) continue;
        out.args++;
        const stated = after.get(call.position)?.get(arg);
        const truth = before.get(real[i].position)?.get(arg);
        const held = !!stated && !!truth && sourceKey(stated) === sourceKey(truth);
        if (!stated) {
          out.none++;
          if (truth) out.noneDecided++;
        } else if (stated === 'user') {
          out.user++;
          if (held) out.userHeld++;
        } else {
          out.result++;
          if (held) out.resultHeld++;
        }
      }
    });
  }
  return out;
}
