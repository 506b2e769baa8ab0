import type { Outcome } from '../domain/types.js';
import { contentId, isObject, outcomeOf, type JsonObject } from './common.js';
import type { CaptureLimits } from './normalized-jsonl.js';
import { applyOutput, hasResponsesCalls, isResponsesItem, isResponsesItemList, readItem } from './responses-items.js';
import { TaskSplitter } from './task-splitter.js';
import type { ParsedSession } from './types.js';
import { InputError } from '../errors/input-error.js';

/**
 * OpenAI Agents SDK run history and Responses API items (see responses-items.ts for the item shapes), in the
 * containers they are saved in: a JSON array of items (`result.to_input_list()`), an object holding them under
 * `messages`, `input` (+ `output`), `items` or `history`, a Responses API response (`{"object": "response",
 * "output": [...]}`), or JSONL with one item per line. The outcome is the container's `outcome` / `success`
 * when it has one, else unknown (the judge decides). Several tasks in one history split by the rule in
 * task-splitter.ts.
 */

export interface ItemEntry {
  item: unknown;
  /** JSON path of the item, for problems. */
  where: string;
  line: number;
  at: string | null;
}

export interface ItemSessionOptions {
  idBase: string;
  source: string;
  namespace: string;
  limits: CaptureLimits;
  now: string;
  outcome?: Outcome;
  reward?: number | null;
  agentId?: string | null;
  labels?: Record<string, unknown> | null;
  /** False for user messages that are context rather than a request (instructions, environment). */
  isGoalText?: (text: string) => boolean;
  resultCheck?: (text: string) => { failed: boolean; error: string | null };
}

export interface BuiltSession extends ParsedSession {
  line: number;
}

/** Sessions from an ordered list of Responses items; one problem per unusable item, thrown as a list. */
export function sessionsFromItems(
  entries: ItemEntry[],
  o: ItemSessionOptions,
  problems: { line: number; path: string; reason: string }[],
): BuiltSession[] {
  const split = new TaskSplitter();
  for (const e of entries) {
    try {
      const ev = readItem(e.item, e.where, o.limits, e.at);
      if (ev.kind === 'user') {
        if (ev.text.trim() && (o.isGoalText ?? (() => true))(ev.text)) split.user(ev.text, e.line, e.at);
      } else if (ev.kind === 'assistant') split.assistantText(ev.text, e.at);
      else if (ev.kind === 'call') split.call(ev.id, ev.call, !ev.done, e.at);
      else if (ev.kind === 'output') {
        applyOutput(split.current.pending, ev, o.limits, e.where, o.resultCheck);
        split.resulted(e.at);
      }
    } catch (err) {
      problems.push({ line: e.line, path: e.where, reason: (err as Error).message });
    }
  }
  const out: BuiltSession[] = [];
  split.tasks.forEach((t, i) => {
    if (t.goal === null) {
      if (t.calls.length)
        problems.push({
          line: t.line,
          path: '',
          reason: `${t.calls.length} tool call(s) with no user message before them to take the goal from`,
        });
      return;
    }
    if (t.calls.length > o.limits.maxCallsPerSession) {
      problems.push({
        line: t.line,
        path: '',
        reason: `${t.calls.length} calls exceed the limit of ${o.limits.maxCallsPerSession}`,
      });
      return;
    }
    out.push({
      line: t.line,
      finalAnswer: t.finalAnswer,
      session: {
        id: i === 0 ? o.idBase : `${o.idBase}#${i + 1}`,
        namespace: o.namespace,
        goal: t.goal,
        outcome: o.outcome ?? 'unknown',
        reward: o.reward ?? null,
        agentId: o.agentId ?? null,
        source: o.source,
        startedAt: t.startedAt ?? o.now,
        endedAt: t.endedAt,
        labels: o.labels ?? null,
        calls: t.calls,
        outcomeSource: 'reported',
      },
    });
  });
  return out;
}

const CONTAINER_KEYS = ['messages', 'input', 'items', 'history', 'output', 'new_items'] as const;

/** The item list of a container, or null when the value is not one. */
export function responsesItemsOf(v: unknown): unknown[] | null {
  if (isResponsesItemList(v)) return v;
  if (!isObject(v)) return null;
  const lists: unknown[] = [];
  for (const k of CONTAINER_KEYS) if (Array.isArray(v[k])) lists.push(...(v[k] as unknown[]));
  // Agents SDK RunItems wrap the item as `raw_item`.
  const items = lists.map((x) => (isObject(x) && isObject(x.raw_item) ? x.raw_item : x));
  return items.length &&
    hasResponsesCalls(items) &&
    items.every((x) => isResponsesItem(x) || (isObject(x) && typeof x.role === 'string'))
    ? items
    : null;
}

/** Whether a whole value (container or list) is OpenAI Agents / Responses run history. */
export function isAgentsHistory(v: unknown): boolean {
  return responsesItemsOf(v) !== null;
}

export function fromAgentsHistory(
  v: unknown,
  namespace: string,
  limits: CaptureLimits,
  now: string,
  line: number,
  path: string,
  problems: { line: number; path: string; reason: string }[],
): BuiltSession[] {
  const items = responsesItemsOf(v);
  if (!items) throw new InputError('expected OpenAI Agents / Responses items (function_call / function_call_output)');
  const c: JsonObject = isObject(v) ? v : {};
  const pre = path ? `${path}.` : '';
  const key = Array.isArray(v) ? null : CONTAINER_KEYS.find((k) => Array.isArray(c[k]));
  const entries: ItemEntry[] = items.map((item, i) => ({
    item,
    where: key ? `${pre}${key}[${i}]` : `${path}[${i}]`,
    line,
    at: null,
  }));
  const id =
    typeof c.session_id === 'string'
      ? c.session_id
      : typeof c.id === 'string'
        ? c.id
        : typeof c.conversation_id === 'string'
          ? c.conversation_id
          : contentId('openai-agents', items);
  return sessionsFromItems(
    entries,
    {
      idBase: id,
      source: typeof c.source === 'string' ? c.source : 'openai-agents',
      namespace,
      limits,
      now,
      outcome: outcomeOf(c) ?? 'unknown',
      reward: typeof c.reward === 'number' ? c.reward : null,
      agentId: typeof c.agent_id === 'string' ? c.agent_id : typeof c.agent === 'string' ? c.agent : null,
    },
    problems,
  );
}
