import { type BranchCondition, categoricalFields, separatingCondition } from './branches.js';
import { isCommandRunner, splitStepKey } from './commands.js';
import { normalizeGoal } from './normalize-goal.js';
import { contentWords } from './word-match.js';
import type { Session, Span, ToolCall } from './types.js';
import { dot } from '../vector/vector-math.js';

/** A tool of a procedure that the agent now calls by another name (an MCP server's update renamed it). */
export interface RenamedTool {
  from: string;
  to: string;
}

/**
 * The renamed steps of two procedures that are one procedure but for the names of some tools: step for step the
 * same, except steps where `before` calls one tool and `after` another, each old tool always by the same new one
 * (and no two by one), with at least one step alike, no renamed tool left in `after` and no new tool already in
 * `before` (a step moved or swapped is no rename). Null when they differ otherwise: a step more or less, another
 * order, or a command line that changed (a command runner's step is told apart by its command, not renamed).
 */
export function renamedSteps(before: readonly string[], after: readonly string[]): RenamedTool[] | null {
  if (before.length !== after.length || before.length === 0) return null;
  const forward = new Map<string, string>();
  const backward = new Map<string, string>();
  let alike = 0;
  for (let i = 0; i < before.length; i++) {
    const a = before[i]!;
    const b = after[i]!;
    if (a === b) {
      alike++;
      continue;
    }
    if (commandStep(a) || commandStep(b)) return null;
    if ((forward.get(a) ?? b) !== b || (backward.get(b) ?? a) !== a) return null;
    forward.set(a, b);
    backward.set(b, a);
  }
  if (forward.size === 0 || alike === 0) return null;
  for (const [a, b] of forward) if (after.includes(a) || before.includes(b)) return null;
  return [...forward].map(([from, to]) => ({ from, to }));
}

function commandStep(key: string): boolean {
  const { tool, command } = splitStepKey(key);
  return command !== undefined || isCommandRunner(tool);
}

/**
 * Whether requests worded as `goals` (the vectors of the newer skill's requests: its exemplars) would find the
 * older skill: at least half of them are at least `threshold` alike to one of its recall vectors (its centroid and
 * exemplars), as recall scores a skill by its best vector.
 */
export function goalsRecall(
  goals: readonly Float32Array[],
  vectors: readonly Float32Array[],
  threshold: number,
): boolean {
  if (!goals.length || !vectors.length) return false;
  const found = goals.filter((g) => vectors.some((v) => dot(g, v) >= threshold)).length;
  return found * 2 >= goals.length;
}

export type RenameVerdict = { settled: true } | { settled: false; reason: string };

type SessionOfKind = Pick<Session, 'startedAt' | 'calls'> & { seq?: number };

/** Sessions in which the new name alone has worked, since the old one last did, before a rename is taken as done. */
export const RENAME_SETTLED_AFTER = 3;

/**
 * Whether the sessions of one kind of task (the older skill's group and the newer one's) show that each renamed
 * tool was renamed, not that two tools serve side by side:
 * - the new tool is called with the same argument names as the old one was, and answers with the same fields when
 *   either answers in JSON (a tool that takes or returns other things is another tool, and its procedure another);
 * - the old tool is no longer seen working: the latest sessions that used either name used the new one alone, at
 *   least RENAME_SETTLED_AFTER of them, and, when both names worked for a while (agents updated one by one, a fleet
 *   with two versions of a server), at least as many as the sessions from the new name's first use to the old
 *   name's last. A call of the old name that failed (410 Gone, unknown tool) is an agent not told yet, not a use.
 * Sessions are ordered by start time, then by the order they were stored in.
 */
export function renameSettled(renamed: readonly RenamedTool[], sessions: readonly SessionOfKind[]): RenameVerdict {
  const order = (s: SessionOfKind) => [Date.parse(s.startedAt) || 0, s.seq ?? 0] as const;
  const sorted = [...sessions].sort((a, b) => {
    const [x, y] = [order(a), order(b)];
    return x[0] - y[0] || x[1] - y[1];
  });
  const worked = (s: SessionOfKind, tool: string) => s.calls.some((c) => c.tool === tool && c.ok);
  for (const { from, to } of renamed) {
    const calls = (tool: string) => sessions.flatMap((s) => s.calls.filter((c) => c.tool === tool && c.ok));
    const old = calls(from);
    const now = calls(to);
    if (!old.length || !now.length)
      return { settled: false, reason: `no call of ${old.length ? to : from} that worked to compare` };
    if (!sameSet(argumentNames(old), argumentNames(now)))
      return { settled: false, reason: `${to} takes other arguments than ${from}` };
    const oldFields = resultFields(old);
    const newFields = resultFields(now);
    if ((oldFields || newFields) && !(oldFields && newFields && sameSet(oldFields, newFields)))
      return { settled: false, reason: `${to} answers with other fields than ${from}` };
    const uses = sorted.filter((s) => worked(s, from) || worked(s, to));
    const firstNew = uses.findIndex((s) => worked(s, to));
    let lastOld = -1;
    uses.forEach((s, i) => {
      if (worked(s, from)) lastOld = i;
    });
    const since = uses.length - 1 - lastOld;
    const wanted = Math.max(RENAME_SETTLED_AFTER, lastOld - firstNew + 1);
    if (since < wanted)
      return {
        settled: false,
        reason:
          lastOld >= firstNew
            ? `${from} still worked after ${to} was first used: ${since} session(s) since used ${to} alone (${wanted} wanted)`
            : `${to} alone worked in ${since} session(s) since ${from} last did (${wanted} wanted)`,
      };
  }
  return { settled: true };
}

/**
 * What the lookups showed that tells the sessions with the old name from those with the new one, when something
 * does: a field of a lookup both call, as branches.ts reads one (`get_order_details` showed `status` "delivered"
 * before every call of one and "pending" before the other). Two actions taken in different situations are two
 * tasks (an exchange of delivered items and a change of pending ones take the same arguments), however their
 * requests are worded; a renamed tool is called where the old one was. Null when nothing separates them.
 */
export function otherSituation(renamed: readonly RenamedTool[], spans: readonly Span[]): BranchCondition | null {
  const uses = (span: Span, tools: readonly string[]) => span.calls.some((c) => tools.includes(c.tool));
  const from = renamed.map((r) => r.from);
  const to = renamed.map((r) => r.to);
  const old = spans.filter((s) => uses(s, from) && !uses(s, to));
  const now = spans.filter((s) => uses(s, to) && !uses(s, from));
  const renamedTools = new Set([...from, ...to]);
  const shared = [...new Set(old.flatMap((s) => s.calls.map((c) => c.tool)))].filter(
    (t) => !renamedTools.has(t) && now.some((s) => s.calls.some((c) => c.tool === t)),
  );
  if (!old.length || !now.length || !shared.length) return null;
  const categorical = categoricalFields([...old, ...now]);
  return (
    separatingCondition(now, old, shared, categorical) ?? separatingCondition(old, now, shared, categorical) ?? null
  );
}

/** Requests on each side before a word can tell them apart (requestsApart). */
const MIN_REQUESTS = 3;

/**
 * A word that tells the requests of the sessions with the old name from those with the new one: in at least three
 * quarters of one side's requests and at most a quarter of the other's (with at least MIN_REQUESTS on each side),
 * such as "refund" against "cancel". People do not change how they ask when a server renames a tool; an embedding
 * of two requests that share most of their words ("Refund order # to ..." and "Cancel my pending order #") can miss
 * the one word that names another task. Null when no word does.
 */
export function requestsApart(
  renamed: readonly RenamedTool[],
  sessions: readonly Pick<Session, 'goal' | 'calls'>[],
): string | null {
  const worked = (s: Pick<Session, 'calls'>, tools: readonly string[]) =>
    s.calls.some((c) => c.ok && tools.includes(c.tool));
  const from = renamed.map((r) => r.from);
  const to = renamed.map((r) => r.to);
  const words = (side: readonly Pick<Session, 'goal'>[]) => side.map((s) => contentWords(normalizeGoal(s.goal)));
  const old = words(sessions.filter((s) => worked(s, from) && !worked(s, to)));
  const now = words(sessions.filter((s) => worked(s, to) && !worked(s, from)));
  if (old.length < MIN_REQUESTS || now.length < MIN_REQUESTS) return null;
  const share = (side: Set<string>[], w: string) => side.filter((ws) => ws.has(w)).length / side.length;
  const apart = (a: Set<string>[], b: Set<string>[], w: string) => share(a, w) >= 0.75 && share(b, w) <= 0.25;
  const all = [...new Set([...old, ...now].flatMap((ws) => [...ws]))].sort();
  return all.find((w) => apart(old, now, w) || apart(now, old, w)) ?? null;
}

function argumentNames(calls: readonly Pick<ToolCall, 'args'>[]): Set<string> {
  return new Set(calls.flatMap((c) => Object.keys(c.args ?? {})));
}

/** The fields a tool answered with, over the calls whose result is a JSON object (or a list of them); null when none is. */
function resultFields(calls: readonly Pick<ToolCall, 'result'>[]): Set<string> | null {
  let fields: Set<string> | null = null;
  for (const c of calls) {
    let value: unknown;
    try {
      value = JSON.parse(c.result);
    } catch {
      continue;
    }
    const objects = (Array.isArray(value) ? value : [value]).filter(
      (v): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v),
    );
    if (!objects.length) continue;
    fields ??= new Set();
    for (const o of objects) for (const k of Object.keys(o)) fields.add(k);
  }
  return fields;
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}
