import { splitStepKey, stepKey } from './commands.js';
import { shareOfSuccesses } from './evidence-line.js';
import { LOOKUP_VERBS, roleOf, toolWordsOf } from './step-role.js';
import type { Session } from './types.js';
import { procedureCalls } from './spans.js';

export interface EdgeCaseInput {
  /** Successful sessions of the cluster (their failed calls show recoveries). */
  successes: Session[];
  /** Sessions of the cluster that failed: counter-examples. */
  failures: Session[];
  procedureTools: readonly string[];
  /**
   * The procedure's steps as they align (commands.ts: stepKey): a command runner's step is its command's head
   * (`Bash` + `npm install`), so a failed `npm outdated` is not taken for a step because `npm install` is one.
   * Default: `procedureTools`.
   */
  procedureKeys?: readonly string[];
  thinkTools: readonly string[];
  /** Redacts secrets and personal data (kept for callers; no error text reaches an edge case any more). */
  redact?: (text: string) => string;
  maxItems?: number;
}

export interface EdgeCase {
  kind: 'recovery' | 'avoid' | 'conditional' | 'required' | 'expected';
  tool: string;
  text: string;
  /** Sessions that show it. */
  count: number;
}

/**
 * Turns observed failure-then-recovery into "if X fails ..." items, tools that only failed sessions used
 * into "do not ..." items, and steps every success made but failures skipped into "call X before Y" items.
 * Deterministic. Error texts are untrusted (a tool can return anything, including orders aimed at the next
 * model that reads the skill), so an item never quotes one: it names the step that failed, the kind of failure
 * in our own fixed words, and what recovered it. A failure seen in one session out of several is noise, not an
 * edge case.
 */
export function findEdgeCases(input: EdgeCaseInput): EdgeCase[] {
  const think = new Set(input.thinkTools);
  const procedure = input.procedureKeys ?? input.procedureTools;
  // Per step (a tool, or a command runner's command): a shell that failed `npm outdated` and then ran `npm install`
  // did not retry anything.
  const recoveries = new Map<string, { count: number; error: string; retried: number; next: Map<string, number> }>();
  // Per command, the sessions whose first run of it failed before the change and passed after (a failing test).
  const expected = new Map<string, number>();
  for (const s of input.successes) {
    const seen = new Set<string>();
    // A failing run the change then made pass is a step (spans.ts: procedureCalls), not a failure recovered from.
    const steps = new Set(procedureCalls(s.calls, think));
    const failedFirst = new Set<string>();
    for (const c of s.calls) if (!c.ok && steps.has(c)) failedFirst.add(stepKey(c));
    for (const key of failedFirst) expected.set(key, (expected.get(key) ?? 0) + 1);
    s.calls.forEach((c, i) => {
      const key = stepKey(c);
      if (c.ok || steps.has(c) || think.has(c.tool) || seen.has(key)) return;
      seen.add(key);
      let r = recoveries.get(key);
      if (!r) recoveries.set(key, (r = { count: 0, error: '', retried: 0, next: new Map() }));
      r.count++;
      if (!r.error) r.error = failureKind(c.error ?? c.result);
      const later = s.calls.slice(i + 1).filter((x) => x.ok && !think.has(x.tool));
      if (later.some((x) => stepKey(x) === key)) r.retried++;
      const next = later[0] && stepKey(later[0]);
      if (next && next !== key) r.next.set(next, (r.next.get(next) ?? 0) + 1);
    });
  }
  const items: EdgeCase[] = [];
  const minRecoveries = input.successes.length >= 3 ? 2 : 1;
  const workedIn = countSessionsUsing(input.successes, think, true);
  for (const [tool, r] of recoveries) {
    if (r.count < minRecoveries) continue;
    const err = r.error ? ` (${r.error})` : '';
    const [it, call] = [stepText(tool), isCommand(tool) ? 'run' : 'call'];
    // A call that is no step of the procedure and never worked in a successful session was a wrong turn:
    // "if it fails, go on" would tell the agent to try it first.
    if (!procedure.includes(tool) && !workedIn.has(tool)) {
      items.push({
        kind: 'avoid',
        tool,
        count: r.count,
        text: `Do not ${call} ${it} for this task: it failed${err} ${r.count === 1 ? `in the one successful session that ${call === 'run' ? 'ran' : 'called'} it, which` : `in each of the ${r.count} successful sessions that ${call === 'run' ? 'ran' : 'called'} it, and they`} succeeded without it.`,
      });
      continue;
    }
    const nextTool = [...r.next.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
    let action: string;
    if (r.retried * 2 >= r.count) {
      action =
        nextTool && nextTool !== tool
          ? `check the inputs (e.g. with ${stepText(nextTool)}) and retry ${it}`
          : `correct the arguments and retry ${it}`;
    } else if (nextTool) action = `continue with ${stepText(nextTool)} instead`;
    else action = 'stop and report the error to the user';
    items.push({ kind: 'recovery', tool, count: r.count, text: `If ${it} fails${err}, ${action}.` });
  }

  // A run that fails before the change is how the agent sees the problem: said, so that no "if a step errors,
  // stop" reads as a reason to stop there.
  for (const [key, count] of expected) {
    if (count < minRecoveries) continue;
    items.push({
      kind: 'expected',
      tool: key,
      count,
      text: `The first run of ${stepText(key)} fails (${shareOfSuccesses(count, input.successes.length)}): that failure shows what to fix, so go on to the change; the same command passes when run again after it.`,
    });
  }
  const inSuccess = countSessionsUsing(input.successes, think);
  const inFailure = countSessionsUsing(input.failures, think);
  const nf = input.failures.length;
  const ns = input.successes.length;
  for (const [tool, k] of inFailure) {
    const okShare = (inSuccess.get(tool) ?? 0) / Math.max(1, ns);
    // A lookup that failed sessions made is how they went wrong, not why: reading changes nothing, so the warning
    // is kept for steps that act or hand off (a warning against `calculate` would only cost the agent a check).
    if (nf >= 2 && k / nf >= 0.5 && okShare <= 0.1 && !procedure.includes(tool) && !readsOnly(tool)) {
      items.push({
        kind: 'avoid',
        tool,
        count: k,
        text: `Do not ${isCommand(tool) ? 'run' : 'call'} ${stepText(tool)} for this task: ${k} of ${nf} failed sessions did, and ${okShare === 0 ? 'no' : 'almost no'} successful one did.`,
      });
    }
  }
  items.push(...skippedSteps(input, think));
  items.sort((a, b) => b.count - a.count || a.tool.localeCompare(b.tool));
  return items.slice(0, input.maxItems ?? 6);
}

/**
 * Steps not to skip: a step of the procedure every successful session made, which failed sessions went without
 * on their way to the procedure's last state change (forwarding to an address they never looked up). At least
 * two such failures, and at least half of the failures that made that change.
 */
function skippedSteps(input: EdgeCaseInput, think: Set<string>): EdgeCase[] {
  const tools = input.procedureTools.filter((t) => !think.has(t));
  const last = [...tools].reverse().find((t) => roleOf(t) === 'action');
  if (!last || input.successes.length < 2) return [];
  const made = (s: Session, tool: string, before = s.calls.length) =>
    s.calls.slice(0, before).some((c) => c.ok && c.tool === tool);
  const reached = input.failures
    .map((s) => ({ s, at: s.calls.findIndex((c) => c.ok && c.tool === last) }))
    .filter((r) => r.at >= 0);
  const items: EdgeCase[] = [];
  for (const tool of tools.slice(0, tools.indexOf(last))) {
    if (!input.successes.every((s) => made(s, tool))) continue;
    const without = reached.filter((r) => !made(r.s, tool, r.at)).length;
    if (without < 2 || without * 2 < reached.length) continue;
    items.push({
      kind: 'required',
      tool,
      count: without,
      text: `Call \`${tool}\` before \`${last}\`: every successful session did, and the ${without} sessions that called \`${last}\` without it failed.`,
    });
  }
  return items;
}

/** Per step (stepKey), how many of the sessions took it (`okOnly`: with a call that worked). */
function countSessionsUsing(sessions: Session[], think: Set<string>, okOnly = false): Map<string, number> {
  const m = new Map<string, number>();
  for (const s of sessions)
    for (const t of new Set(s.calls.filter((c) => !think.has(c.tool) && (!okOnly || c.ok)).map(stepKey)))
      m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

/** A step key with a command (commands.ts: stepKey): the runner's tool, then the command's head. */
const isCommand = (key: string) => splitStepKey(key).command !== undefined;

/**
 * A step that only reads: a lookup tool (step-role.ts), or a command whose first word is a reading verb or a
 * reading program (`grep`, `cat`, `ls`). Any other command may change something (`npm`, `git`, `rm`).
 */
function readsOnly(key: string): boolean {
  const { tool, command } = splitStepKey(key);
  if (command === undefined) return roleOf(tool) === 'lookup';
  const first = command.split(' ')[0] ?? '';
  return LOOKUP_VERBS.has(first) || LOOKUP_VERBS.has(toolWordsOf(first)[0] ?? '');
}

/** A step as an edge case names it: `tool`, or for a command "`npm install` with `Bash`", as a step line does. */
function stepText(key: string): string {
  const { tool, command } = splitStepKey(key);
  return command === undefined ? `\`${tool}\`` : `\`${command}\` with \`${tool}\``;
}

/**
 * The kind of a failure in the distiller's own words, from a fixed list: the error text itself never reaches
 * the skill. Empty when the text fits no kind.
 */
export function failureKind(text: string | null | undefined): string {
  const t = (text ?? '').slice(0, 2000).toLowerCase();
  for (const [re, words] of FAILURE_KINDS) if (re.test(t)) return words;
  return '';
}

const FAILURE_KINDS: [RegExp, string][] = [
  [
    /\b(?:not found|no such|does not exist|doesn't exist|unknown (?:id|user|order|item)|404)\b/,
    'e.g. nothing found for the given id',
  ],
  [/\b(?:permission|forbidden|unauthori[sz]ed|not allowed|denied|401|403)\b/, 'e.g. not permitted'],
  [/\b(?:timed? ?out|timeout|unavailable|try again|rate limit|429|503)\b/, 'e.g. a transient error'],
  [
    /\b(?:invalid|malformed|missing|required|must be|wrong|bad request|out of range|400)\b/,
    'e.g. invalid or missing arguments',
  ],
  [/\b(?:already|duplicate|conflict|409)\b/, 'e.g. already done'],
  [/\b(?:insufficient|not enough|balance|limit exceeded)\b/, 'e.g. insufficient funds or limit'],
  [
    /\b(?:status|cannot be|can't be|not (?:pending|delivered|active|eligible))\b/,
    'e.g. the item is not in the right state',
  ],
];
