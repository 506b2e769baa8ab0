import { toolWordsOf } from './step-role.js';

/**
 * The notes a step line of a learned procedure carries besides what to call: how many of the successful sessions
 * took the step, which field of an earlier result a value comes from, and what a state-changing step's result
 * showed, and the finishing condition's quote of the goal call's result. The heuristic distiller writes them, the context pack leaves them out when a block must be shorter, and
 * the evaluation reads a step's condition and expected result back: one wording, here. Pure.
 */

/** "seen in 60% of successful sessions": the share of the successful sessions that took a step. */
export function supportNote(support: number): string {
  return `seen in ${Math.round(support * 100)}% of successful sessions`;
}

/** A support note, as a pattern (no flags: compose it into others with `.source`). */
export const SUPPORT_NOTE = /seen in \d+% of successful sessions/;

/**
 * " (field `orders[]`)": where in an earlier call's result an argument's value is; " (one of the values it lists)"
 * when the result is a plain list of values (path `[]`: a directory lookup's email addresses), which has no field;
 * " (part of its text, copied exactly)" when the value is a piece of the text there (the lines of a file a read
 * printed, which an edit replaces).
 */
export function fieldNote(path: string, part = false): string {
  if (part) return path ? ` (part of field \`${path}\`, copied exactly)` : ' (part of its text, copied exactly)';
  return path === '[]' ? ' (one of the values it lists)' : ` (field \`${path}\`)`;
}

/** A field note, as a pattern. */
export const FIELD_NOTE =
  / \((?:field `[^`]*`|one of the values it lists|part of (?:its text|field `[^`]*`), copied exactly)\)/;

/**
 * " Expect its result to show "Airplane Mode is now OFF.", as it did in the sessions.": what a state-changing
 * step's result showed when it worked, each item already quoted (a text as JSON, a field as `path` "value").
 */
export function resultNote(shown: readonly string[]): string {
  return shown.length ? ` Expect its result to show ${shown.join(' and ')}, as it did in the sessions.` : '';
}

/** The state a switch was in before a flip left it in the other ("now OFF" -> it was ON). */
const OTHER_STATE: Readonly<Record<string, string>> = {
  on: 'off',
  off: 'on',
  enabled: 'disabled',
  disabled: 'enabled',
};

/**
 * What a switch (`toggle_*`: a flip, with no state to set) was flipped from, read from what it left every time
 * it worked ("Airplane Mode is now OFF." -> Airplane Mode was ON), or null. The sessions all found it in that state;
 * followed blindly, the flip does the opposite. The subject is a short phrase of letters that names the tool's
 * object (a word of the tool's name besides its verb), so no other text of a result reaches the step line.
 */
export function switchedFrom(
  tool: string,
  shown: readonly { path: string; value: string }[],
): { subject: string; state: string } | null {
  const words = toolWordsOf(tool);
  if (words[0] !== 'toggle' || words.length < 2) return null;
  const object = new Set(words.slice(1));
  const namesObject = (subject: string) =>
    subject
      .toLowerCase()
      .split(/[ -]+/)
      .some((w) => object.has(w));
  for (const { path, value } of shown) {
    if (path) continue;
    const m =
      /^([A-Za-z][A-Za-z -]{0,38}?) (?:is )?now (ON|OFF|On|Off|on|off|enabled|disabled|Enabled|Disabled)\b/.exec(
        value.trim(),
      );
    if (!m || !namesObject(m[1])) continue;
    const after = m[2];
    const before = OTHER_STATE[after.toLowerCase()];
    const state = after === after.toUpperCase() ? before.toUpperCase() : before;
    return { subject: m[1], state };
  }
  return null;
}

/** "If Airplane Mode is ON: ": the lead of a switch's step line (the call follows in lower case). */
export function switchLead(flip: { subject: string; state: string }): string {
  return `If ${flip.subject} is ${flip.state}: `;
}

/** A result note, as a pattern: it ends the step line, and its group holds the quoted items. */
export const RESULT_NOTE = / Expect its result to show (.+), as it did in the sessions\.$/;

/** The items of a result note or a finishing condition read back: `"text"` (path ``) or `` `path` "value" ``. */
export function shownItems(said: string): { path: string; value: string }[] {
  return [...said.matchAll(/(?:`([^`]+)` )?("(?:[^"\\]|\\.)*")/g)].map((m) => ({
    path: m[1] ?? '',
    value: JSON.parse(m[2]) as string,
  }));
}

/**
 * The finishing condition of a procedure that ends at a state-changing call: "`resume_line` has succeeded and its
 * result shows `status` "Active", and the result is confirmed with the user." A plain-text answer is quoted as the
 * answer ("... has succeeded and answered "Email deleted.", ..."); each item is already quoted, as in resultNote.
 * `checked`: a command after the change checks it (said on a line of its own), so the user is not asked to.
 */
export function doneNote(
  tool: string,
  shown: { answered: string } | { shows: readonly string[] },
  checked = false,
): string {
  const what =
    'answered' in shown
      ? ` and answered ${shown.answered}`
      : shown.shows.length
        ? ` and its result shows ${shown.shows.join(' and ')}`
        : '';
  // A change a command checks after it (a coding agent's test run) is confirmed by that command, not by the user.
  return `\`${tool}\` has succeeded${what}${checked ? '' : ', and the result is confirmed with the user'}.`;
}

/** A finishing condition that quotes a result, as a pattern: the call, then the quoted items (see shownItems). */
export const DONE_NOTE =
  /^`([^`]+)` has succeeded (?:and answered |and its result shows )(.+?)(?:, and the result is confirmed with the user)?\.$/;
