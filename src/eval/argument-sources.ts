/**
 * How often a procedure's stated argument sources hold on sessions it was not learned from. The procedure's
 * steps are aligned with the session's successful calls (LCS of the tool names, so a lookup used several times
 * is checked at the call that plays the step's part); each stated source of an aligned call is then checked by
 * value: a result source holds when an earlier result of the stated tool holds the exact value at the stated
 * field (or, for a piece of a text, holds it within the text there), a user source when the value appeared first
 * as an argument (no earlier result held it) or the session's request names it. A result source whose tool the session never called before the step is not
 * checkable (the session took another way to the value, e.g. found the user by email instead of by name and
 * zip) and is counted apart. Pure.
 */
import { argumentOrigins, isCut, valueHeldBy } from '../domain/result-values.js';
import { lcsAlignment } from '../domain/sequence.js';
import type { ProcedureStep, ToolCall } from '../domain/types.js';

export interface SourceCheck {
  /** Stated sources that could be checked. */
  checked: number;
  /** Of those, how many the session's values confirm. */
  held: number;
  /** The same, for sources that name an earlier result only. */
  checkedResults: number;
  heldResults: number;
  /** Result sources whose tool the session did not call before the step (another way to the value). */
  otherWay: number;
  /**
   * Sources the session cannot decide: for a result source, the value is nowhere in the visible part of the stated
   * tool's results and one of them was cut by capture (`capture.resultChars`); for a user source, an earlier
   * result was cut and no visible part held the value (it may sit in the part that is gone).
   */
  undecided: number;
}

/** Is the value anywhere in the visible part of these results (then a miss at the stated field is a miss)? */
function visibleIn(calls: readonly ToolCall[], value: unknown): boolean {
  return calls.some((c) => valueHeldBy([c], c.position + 1, value, 'user') === false);
}

export const NO_CHECKS: SourceCheck = {
  checked: 0,
  held: 0,
  checkedResults: 0,
  heldResults: 0,
  otherWay: 0,
  undecided: 0,
};

export function checkSources(steps: readonly ProcedureStep[], calls: readonly ToolCall[], request = ''): SourceCheck {
  const out = { ...NO_CHECKS };
  const ok = calls.filter((c) => c.ok);
  const origins = argumentOrigins(ok, request);
  const pairs = lcsAlignment(
    steps.map((s) => s.tool),
    ok.map((c) => c.tool),
  );
  for (const [i, j] of pairs) {
    const step = steps[i];
    const call = ok[j];
    for (const s of step.sources ?? []) {
      if (!(s.arg in (call.args ?? {}))) continue;
      const earlier = ok.filter((c) => c.position < call.position);
      let held: boolean;
      if (s.from === 'user') {
        const origin = origins.get(call.position)?.get(s.arg);
        // After a cut result, a value no visible part held has no known origin: the session cannot decide.
        if (!origin) {
          out.undecided++;
          continue;
        }
        held = origin === 'user';
      } else {
        const own = earlier.filter((c) => c.tool === s.tool);
        if (own.length === 0) {
          out.otherWay++;
          continue;
        }
        held = valueHeldBy(ok, call.position, call.args[s.arg], {
          tool: s.tool,
          path: s.path,
          ...(s.part ? { part: true as const } : {}),
        });
        if (!held && own.some((c) => isCut(c.result)) && !visibleIn(own, call.args[s.arg])) {
          out.undecided++;
          continue;
        }
        out.checkedResults++;
        if (held) out.heldResults++;
      }
      out.checked++;
      if (held) out.held++;
    }
  }
  return out;
}

export function addChecks(a: SourceCheck, b: SourceCheck): SourceCheck {
  return {
    checked: a.checked + b.checked,
    held: a.held + b.held,
    checkedResults: a.checkedResults + b.checkedResults,
    heldResults: a.heldResults + b.heldResults,
    otherWay: a.otherWay + b.otherWay,
    undecided: a.undecided + b.undecided,
  };
}
