import type { ReaderReport } from './types.js';
import type { Outcome, ToolCall } from '../domain/types.js';
import { contentText, isObject, resultText, type JsonObject } from './common.js';
import { capText, type CaptureLimits } from './normalized-jsonl.js';
import type { BuiltSession } from './openai-agents.js';
import { InputError } from '../errors/input-error.js';

/**
 * LangChain / LangSmith run exports: run objects `{id, name, run_type, inputs, outputs, error, start_time,
 * end_time, parent_run_id, trace_id, child_runs}` (`run_type` chain / llm / chat_model / tool / retriever /
 * prompt / parser), nested through `child_runs` or flat with `parent_run_id` (one run per JSONL line, or a JSON
 * array, as `client.list_runs()` returns them).
 *
 * - Each root run (no parent in the file) is one session; its calls are its `tool` (and `retriever`) runs at
 *   any depth, ordered by start time. Args are the tool run's `inputs` (a JSON `input` string is parsed);
 *   the result is `outputs.output` (a ToolMessage's content when serialised); `error` fails the call.
 * - The goal is the root's `inputs.input` / `question` / `query`, else the first human message of its
 *   `inputs.messages` (LangGraph state, `[role, text]` pairs, or serialised HumanMessage objects).
 * - Outcome: a root run with an `error` is a failure; `outputs.outcome` / `feedback_stats` are not read
 *   (labels); otherwise unknown (the judge decides).
 */

export function isLangChainRun(v: unknown): v is JsonObject {
  return (
    isObject(v) &&
    typeof v.run_type === 'string' &&
    ('inputs' in v || 'child_runs' in v) &&
    (typeof v.id === 'string' || typeof v.name === 'string')
  );
}

export function isLangChainRunList(v: unknown): v is JsonObject[] {
  return Array.isArray(v) && v.length > 0 && v.every(isLangChainRun);
}

interface Run {
  raw: JsonObject;
  id: string;
  parent: string | null;
  type: string;
  start: number;
  line: number;
  path: string;
  order: number;
}

/** Gathers runs from every record of a file; sessions are built once the whole file has been read. */
export class LangChainCollector {
  readonly runs: Run[] = [];

  add(v: JsonObject, line: number, path: string, parent: string | null = null): void {
    const id = typeof v.id === 'string' ? v.id : `${path || 'run'}@${line}`;
    const start = Date.parse(typeof v.start_time === 'string' ? v.start_time : '');
    this.runs.push({
      raw: v,
      id,
      parent: typeof v.parent_run_id === 'string' ? v.parent_run_id : parent,
      type: v.run_type as string,
      start: Number.isFinite(start) ? start : NaN,
      line,
      path,
      order: this.runs.length,
    });
    if (Array.isArray(v.child_runs)) {
      v.child_runs.forEach((c, i) => {
        if (isLangChainRun(c)) this.add(c, line, `${path ? `${path}.` : ''}child_runs[${i}]`, id);
      });
    }
  }

  build(namespace: string, limits: CaptureLimits, now: string, problems: ReaderReport[]): BuiltSession[] {
    const byId = new Map(this.runs.map((r) => [r.id, r]));
    const rootOf = (r: Run): Run => {
      const seen = new Set<Run>();
      let cur = r;
      while (cur.parent && byId.has(cur.parent) && !seen.has(cur)) {
        seen.add(cur);
        cur = byId.get(cur.parent)!;
      }
      return cur;
    };
    const groups = new Map<Run, Run[]>();
    for (const r of this.runs) {
      const root = rootOf(r);
      let g = groups.get(root);
      if (!g) groups.set(root, (g = []));
      if (r !== root) g.push(r);
    }
    const out: BuiltSession[] = [];
    for (const [root, members] of groups) {
      try {
        out.push(this.session(root, members, namespace, limits, now));
      } catch (e) {
        problems.push({
          line: root.line,
          path: root.path,
          reason: `${root.path ? `${root.path}: ` : ''}run ${root.id}: ${(e as Error).message}`,
        });
      }
    }
    return out.sort((a, b) => a.line - b.line);
  }

  private session(root: Run, members: Run[], namespace: string, limits: CaptureLimits, now: string): BuiltSession {
    const tools = members
      .filter((r) => r.type === 'tool' || r.type === 'retriever')
      .sort(
        (a, b) => (Number.isFinite(a.start) && Number.isFinite(b.start) ? a.start - b.start : 0) || a.order - b.order,
      );
    if (tools.length > limits.maxCallsPerSession)
      throw new InputError(
        `${tools.length} calls exceed the limit of ${limits.maxCallsPerSession} per session (capture.maxCallsPerSession)`,
      );
    const calls = tools.map((r, position) => toCall(r, position, limits));
    const goal =
      goalOf(root.raw.inputs) ??
      members
        .filter((r) => r.type === 'llm' || r.type === 'chat_model')
        .map((r) => goalOf(r.raw.inputs))
        .find((g) => g) ??
      null;
    if (!goal)
      throw new InputError('no goal (no inputs.input / question / query and no human message in inputs.messages)');
    const failed = typeof root.raw.error === 'string' && root.raw.error.length > 0;
    const outcome: Outcome = failed ? 'failure' : 'unknown';
    const str = (k: string) => (typeof root.raw[k] === 'string' ? (root.raw[k] as string) : null);
    return {
      line: root.line,
      finalAnswer: answerOf(root.raw.outputs),
      session: {
        id: `langchain:${root.id}`,
        namespace,
        goal,
        outcome,
        reward: null,
        agentId: typeof root.raw.name === 'string' ? root.raw.name : null,
        source: 'langchain',
        startedAt: str('start_time') ?? now,
        endedAt: str('end_time'),
        labels: {
          format: 'langchain',
          run_id: root.id,
          ...(str('trace_id') ? { trace_id: str('trace_id') } : {}),
          ...(str('session_name') ? { project: str('session_name') } : {}),
        },
        calls,
        outcomeSource: 'reported',
      },
    };
  }
}

function toCall(r: Run, position: number, limits: CaptureLimits): ToolCall {
  const inputs = isObject(r.raw.inputs) ? r.raw.inputs : {};
  let args: Record<string, unknown> = inputs;
  // A tool's single `input` is often the JSON of its arguments, or a plain string.
  if (Object.keys(inputs).length === 1 && typeof inputs.input === 'string') {
    const t = inputs.input.trim();
    try {
      const parsed = t.startsWith('{') ? (JSON.parse(t) as unknown) : null;
      args = isObject(parsed) ? parsed : { input: inputs.input };
    } catch {
      args = { input: inputs.input };
    }
  }
  const outputs = isObject(r.raw.outputs) ? r.raw.outputs : null;
  const rawOut = outputs
    ? 'output' in outputs
      ? outputs.output
      : 'documents' in outputs
        ? outputs.documents
        : outputs
    : null;
  const result = messageContent(rawOut);
  const error = typeof r.raw.error === 'string' && r.raw.error ? r.raw.error : null;
  const status =
    isObject(rawOut) && isObject(rawOut.kwargs) ? rawOut.kwargs.status : isObject(rawOut) ? rawOut.status : null;
  const failed = error !== null || status === 'error';
  const start = Date.parse(typeof r.raw.start_time === 'string' ? r.raw.start_time : '');
  const end = Date.parse(typeof r.raw.end_time === 'string' ? r.raw.end_time : '');
  return {
    position,
    tool: typeof r.raw.name === 'string' && r.raw.name ? r.raw.name : r.type,
    args,
    result: capText(result, limits.resultChars),
    ok: !failed,
    error: failed ? capText(error ?? result, 500) : null,
    durationMs: Number.isFinite(start) && Number.isFinite(end) && end >= start ? end - start : null,
    at: Number.isFinite(start) ? new Date(start).toISOString() : null,
  };
}

/** Text of a LangChain message in any of its saved shapes (plain, `[role, text]`, serialised). */
function messageContent(m: unknown): string {
  if (m == null) return '';
  if (typeof m === 'string') return m;
  if (Array.isArray(m) && m.length === 2 && typeof m[0] === 'string' && typeof m[1] === 'string') return m[1];
  if (isObject(m) && isObject(m.kwargs) && 'content' in m.kwargs) return contentText(m.kwargs.content);
  if (isObject(m) && 'content' in m && (typeof m.type === 'string' || typeof m.role === 'string'))
    return contentText(m.content);
  return resultText(m);
}

function roleOf(m: unknown): string | null {
  if (Array.isArray(m) && typeof m[0] === 'string') return m[0];
  if (!isObject(m)) return null;
  if (Array.isArray(m.id) && typeof m.id[m.id.length - 1] === 'string')
    return (m.id[m.id.length - 1] as string).replace(/Message(Chunk)?$/, '').toLowerCase();
  const r = m.type ?? m.role;
  return typeof r === 'string' ? r : null;
}

function goalOf(inputs: unknown): string | null {
  if (!isObject(inputs)) return typeof inputs === 'string' && inputs.trim() ? inputs : null;
  for (const k of ['input', 'question', 'query', 'task', 'prompt']) {
    const v = inputs[k];
    if (typeof v === 'string' && v.trim()) return v;
  }
  let messages: unknown = inputs.messages;
  // Chat model runs hold a list of message lists.
  if (Array.isArray(messages) && messages.length && Array.isArray(messages[0]) && !(typeof messages[0][0] === 'string'))
    messages = messages[0];
  if (Array.isArray(messages)) {
    for (const m of messages) {
      const role = roleOf(m);
      if (role === 'human' || role === 'user') {
        const t = messageContent(m).trim();
        if (t) return t;
      }
    }
  }
  return null;
}

function answerOf(outputs: unknown): string | null {
  if (!isObject(outputs)) return null;
  if (typeof outputs.output === 'string' && outputs.output.trim()) return outputs.output;
  if (Array.isArray(outputs.messages)) {
    for (const m of [...outputs.messages].reverse()) {
      const role = roleOf(m);
      if (role === 'ai' || role === 'assistant') {
        const t = messageContent(m).trim();
        if (t) return t;
      }
    }
  }
  return null;
}
