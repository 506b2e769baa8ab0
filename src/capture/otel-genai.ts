import type { Outcome, ToolCall } from '../domain/types.js';
import { contentText, isObject, parseArgs, resultText, type JsonObject } from './common.js';
import { type CaptureLimits, capText } from './normalized-jsonl.js';
import { askedForTools, callsFromChatSpans } from './otel-chat-calls.js';
import type { ParsedSession } from './types.js';
import { InputError } from '../errors/input-error.js';

/**
 * OpenTelemetry GenAI spans exported as OTLP JSON (`{"resourceSpans": [...]}`, one export request per line as
 * the collector's file exporter writes them, or one pretty-printed document). Follows the GenAI semantic
 * conventions:
 *
 * - an agent invocation span (`gen_ai.operation.name` = `invoke_agent`, span name `invoke_agent <agent>`) is
 *   one session; its tool execution spans (`execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id`,
 *   `gen_ai.tool.call.arguments` / `gen_ai.tool.call.result` when content capture is on) are its calls: every
 *   `execute_tool` span whose nearest agent ancestor it is (children of `chat` spans too), by start time;
 * - a call failed when its span status is ERROR or it has `error.type`; the error text is the status
 *   message, `error.type`, or the `exception` event's message; duration and time come from the span;
 * - the goal is `skillsmith.goal` when the source names one, else the first user message of
 *   `gen_ai.input.messages` (agent span, else its first model call), of the older `gen_ai.prompt` attribute
 *   or event, or of the flattened `gen_ai.prompt.<n>.*` attributes;
 * - the outcome is `skillsmith.outcome` (or `skillsmith.success`, `skillsmith.reward`) when present; an agent
 *   span with status ERROR is a failure; otherwise the outcome is unknown (the judge decides).
 *
 * OpenInference spans (`openinference.span.kind` AGENT / TOOL with `tool.name`, `input.value`,
 * `output.value`) are read the same way. A trace with tool spans and no agent span is one session when a goal
 * can be found in it. Spans of one trace may be spread over several lines: sessions are built once the whole
 * file has been read.
 */

export interface OtelSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  start: bigint | null;
  end: bigint | null;
  attrs: Map<string, unknown>;
  events: { name: string; time: bigint | null; attrs: Map<string, unknown> }[];
  statusError: boolean;
  statusMessage: string | null;
  /** Where the span was read: line and JSON path. */
  line: number;
  path: string;
  order: number;
}

export interface OtelProblem {
  line: number;
  path: string;
  reason: string;
}

export function isOtlpTraces(v: unknown): v is JsonObject {
  return isObject(v) && (Array.isArray(v.resourceSpans) || Array.isArray(v.resource_spans));
}

const ERROR_CODES = new Set<unknown>([2, '2', 'STATUS_CODE_ERROR', 'ERROR', 'Error']);

/** Decodes an OTLP `AnyValue`. */
export function anyValue(v: unknown, where: string): unknown {
  if (!isObject(v)) return v ?? null; // tolerate plain JSON values from lenient exporters
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) {
    const n = Number(v.intValue);
    if (!Number.isFinite(n)) throw new InputError(`${where}.intValue: not an integer`);
    return n;
  }
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('bytesValue' in v) return v.bytesValue;
  if ('arrayValue' in v) {
    const values = isObject(v.arrayValue) && Array.isArray(v.arrayValue.values) ? v.arrayValue.values : [];
    return values.map((x, i) => anyValue(x, `${where}.arrayValue.values[${i}]`));
  }
  if ('kvlistValue' in v) {
    const values = isObject(v.kvlistValue) && Array.isArray(v.kvlistValue.values) ? v.kvlistValue.values : [];
    return Object.fromEntries(attributes(values, `${where}.kvlistValue.values`));
  }
  return null; // an empty AnyValue
}

function attributes(list: unknown, where: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (list == null) return out;
  if (!Array.isArray(list)) throw new InputError(`${where}: must be an array of {key, value}`);
  list.forEach((kv, i) => {
    if (!isObject(kv) || typeof kv.key !== 'string') throw new InputError(`${where}[${i}].key: missing`);
    out.set(kv.key, anyValue(kv.value, `${where}[${i}].value`));
  });
  return out;
}

function nanos(v: unknown, where: string): bigint | null {
  if (v == null || v === '') return null;
  try {
    if (typeof v === 'number') return BigInt(Math.round(v));
    if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
  } catch {
    /* fall through */
  }
  throw new InputError(`${where}: not a time in Unix nanoseconds`);
}

const isoOf = (ns: bigint | null) => (ns == null ? null : new Date(Number(ns / 1_000_000n)).toISOString());

/** Gathers spans from OTLP records; sessions are built when the whole input has been read. */
export class OtelCollector {
  readonly spans: OtelSpan[] = [];
  readonly problems: OtelProblem[] = [];

  /** Reads one OTLP export request. A bad span is reported with its JSON path and skipped; the others are kept. */
  add(doc: JsonObject, line: number, basePath: string): number {
    const pre = basePath ? `${basePath}.` : '';
    const rsKey = Array.isArray(doc.resourceSpans) ? 'resourceSpans' : 'resource_spans';
    let count = 0;
    (doc[rsKey] as unknown[]).forEach((rs, i) => {
      const rsPath = `${pre}${rsKey}[${i}]`;
      if (!isObject(rs)) {
        this.problems.push({ line, path: rsPath, reason: `${rsPath}: not an object` });
        return;
      }
      const ssKey = Array.isArray(rs.scopeSpans)
        ? 'scopeSpans'
        : Array.isArray(rs.scope_spans)
          ? 'scope_spans'
          : 'instrumentationLibrarySpans';
      const scopes = rs[ssKey];
      if (!Array.isArray(scopes)) {
        this.problems.push({ line, path: rsPath, reason: `${rsPath}.scopeSpans: missing` });
        return;
      }
      scopes.forEach((ss, j) => {
        const ssPath = `${rsPath}.${ssKey}[${j}]`;
        if (!isObject(ss) || !Array.isArray(ss.spans)) {
          this.problems.push({ line, path: ssPath, reason: `${ssPath}.spans: missing` });
          return;
        }
        ss.spans.forEach((raw, k) => {
          const path = `${ssPath}.spans[${k}]`;
          try {
            this.spans.push(readSpan(raw, line, path, this.spans.length));
            count++;
          } catch (e) {
            this.problems.push({ line, path, reason: (e as Error).message });
          }
        });
      });
    });
    return count;
  }

  /** One session per agent invocation (or per agent-less trace with tool spans), in file order. */
  build(
    namespace: string,
    limits: CaptureLimits,
    now: string,
  ): { sessions: (ParsedSession & { line: number; path: string })[]; problems: OtelProblem[]; notes: OtelProblem[] } {
    const notes: OtelProblem[] = [];
    const problems = [...this.problems];
    const byKey = new Map<string, OtelSpan>();
    for (const s of this.spans) byKey.set(`${s.traceId}/${s.spanId}`, s);
    const parentOf = (s: OtelSpan) => (s.parentSpanId ? byKey.get(`${s.traceId}/${s.parentSpanId}`) : undefined);
    const nearestAgent = (s: OtelSpan): OtelSpan | null => {
      const seen = new Set<OtelSpan>();
      for (let p = parentOf(s); p && !seen.has(p); p = parentOf(p)) {
        seen.add(p);
        if (opOf(p) === 'invoke_agent') return p;
      }
      return null;
    };

    const agents = this.spans.filter((s) => opOf(s) === 'invoke_agent');
    const toolsOf = new Map<OtelSpan | string, OtelSpan[]>();
    const descendants = new Map<OtelSpan, OtelSpan[]>();
    for (const s of this.spans) {
      const agent = nearestAgent(s);
      if (agent) {
        let d = descendants.get(agent);
        if (!d) descendants.set(agent, (d = []));
        d.push(s);
      }
      if (opOf(s) !== 'execute_tool') continue;
      let owner: OtelSpan | string | null = agent;
      if (!owner) {
        // A broken parent chain: the trace's only agent span, else the trace itself.
        const inTrace = agents.filter((a) => a.traceId === s.traceId);
        owner = inTrace.length === 1 ? inTrace[0] : inTrace.length === 0 ? s.traceId : null;
        if (owner === null) {
          problems.push({
            line: s.line,
            path: s.path,
            reason: `${s.path}: execute_tool span ${s.spanId} has no agent ancestor in trace ${s.traceId}, which has several agent spans: call skipped`,
          });
          continue;
        }
      }
      let list = toolsOf.get(owner);
      if (!list) toolsOf.set(owner, (list = []));
      list.push(s);
    }

    const sessions: (ParsedSession & { line: number; path: string })[] = [];
    const build = (
      root: OtelSpan | null,
      traceId: string,
      tools: OtelSpan[],
      related: OtelSpan[],
      origin: OtelSpan,
    ) => {
      try {
        const { missing, ...built } = this.session(root, traceId, tools, related, namespace, limits, now);
        sessions.push({ ...built, line: origin.line, path: origin.path });
        if (missing.length)
          notes.push({
            line: origin.line,
            path: origin.path,
            reason: `${origin.path}: ${built.session.calls.length} call(s) stored with tool name, order, status and timing; not recorded in the spans: ${missing.join(', ')} (message content capture is off: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true records them)`,
          });
      } catch (e) {
        problems.push({ line: origin.line, path: origin.path, reason: `${origin.path}: ${(e as Error).message}` });
      }
    };
    for (const a of agents) build(a, a.traceId, toolsOf.get(a) ?? [], descendants.get(a) ?? [], a);
    for (const [owner, tools] of toolsOf) {
      if (typeof owner !== 'string') continue;
      const related = this.spans.filter((s) => s.traceId === owner);
      build(null, owner, tools, related, tools[0]);
    }
    // Traces with neither agent nor tool spans: a model client's chat spans, whose tool calls (if any) live in
    // their messages. One session per trace.
    const traced = new Set([
      ...agents.map((a) => a.traceId),
      ...[...toolsOf.keys()].filter((k): k is string => typeof k === 'string'),
    ]);
    const chatOnly = new Map<string, OtelSpan[]>();
    for (const s of this.spans) {
      if (traced.has(s.traceId) || !MODEL_OPS.has(opOf(s) ?? '')) continue;
      let list = chatOnly.get(s.traceId);
      if (!list) chatOnly.set(s.traceId, (list = []));
      list.push(s);
    }
    for (const [traceId, models] of chatOnly)
      build(
        null,
        traceId,
        [],
        this.spans.filter((s) => s.traceId === traceId),
        models[0],
      );
    sessions.sort((x, y) => x.line - y.line || (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
    return { sessions, problems, notes };
  }

  private session(
    root: OtelSpan | null,
    traceId: string,
    tools: OtelSpan[],
    related: OtelSpan[],
    namespace: string,
    limits: CaptureLimits,
    now: string,
  ): ParsedSession & { missing: string[] } {
    const ordered = [...tools].sort((a, b) => cmpTime(a.start, b.start) || a.order - b.order);
    if (ordered.length > limits.maxCallsPerSession)
      throw new InputError(
        `${ordered.length} calls exceed the limit of ${limits.maxCallsPerSession} per session (capture.maxCallsPerSession)`,
      );
    const models = related
      .filter((s) => MODEL_OPS.has(opOf(s) ?? ''))
      .sort((a, b) => cmpTime(a.start, b.start) || a.order - b.order);
    let calls: ToolCall[] = ordered.map((s, position) => toCall(s, position, limits));
    if (calls.length === 0 && models.length) {
      calls = callsFromChatSpans(models, limits, (s) => isoOf((s as OtelSpan).start));
      if (calls.length > limits.maxCallsPerSession)
        throw new InputError(
          `${calls.length} calls exceed the limit of ${limits.maxCallsPerSession} per session (capture.maxCallsPerSession)`,
        );
      const asking = models.filter(askedForTools).length;
      if (calls.length === 0 && asking > 0) {
        throw new InputError(
          `${models.length} chat span(s), ${asking} finishing with tool_calls, but no tool call is recorded (no execute_tool span, no tool_call in gen_ai.output.messages or gen_ai.completion.<n>.tool_calls): turn on message content capture (e.g. OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, or TRACELOOP_TRACE_CONTENT=true)`,
        );
      }
    }

    const named = root ? root.attrs.get('skillsmith.goal') : undefined;
    let goal = typeof named === 'string' && named.trim() ? named : null;
    for (const s of [...(root ? [root] : []), ...models, ...related]) {
      if (goal) break;
      goal = firstUserText(s);
    }
    const attr = (k: string) => {
      const v = root?.attrs.get(k);
      return typeof v === 'string' && v ? v : null;
    };
    const agentName = attr('gen_ai.agent.name') ?? attr('gen_ai.agent.id');
    // Content capture off: the tool spans still say which tools ran, in what order, how they ended and how
    // long they took. An agent run (an agent span, or model calls around the tools) is stored under a goal that
    // names its tools and says the request was not recorded; the caller names what is missing. (Bare tool spans
    // with neither agent nor model spans nor a goal stay an error: nothing says what they were for.)
    const missing: string[] = [];
    if (!goal && ordered.length && (root || models.length)) {
      const tools = [...new Set(calls.map((c) => c.tool))];
      const named = tools.slice(0, 5).join(', ') + (tools.length > 5 ? ', ...' : '');
      goal = `${agentName ?? 'agent'} run calling ${named} (goal not recorded)`;
      missing.push('goal');
      if (ordered.every((s) => !hasArgs(s))) missing.push('arguments');
      if (ordered.every((s) => !hasResult(s))) missing.push('results');
    }
    if (!goal)
      throw new InputError(
        `${root ? `agent span ${root.spanId}` : `trace ${traceId}`}: no goal (no skillsmith.goal attribute and no user message in gen_ai.input.messages or gen_ai.prompt)`,
      );

    const lastToolEnd = ordered.reduce<bigint | null>(
      (m, s) => (s.end != null && (m == null || s.end > m) ? s.end : m),
      null,
    );
    let finalAnswer = root ? lastAssistantText(root) : null;
    if (!finalAnswer) {
      for (const s of [...models].reverse()) {
        if (lastToolEnd != null && s.start != null && s.start < lastToolEnd) break;
        finalAnswer = lastAssistantText(s);
        if (finalAnswer) break;
      }
    }

    let outcome: Outcome = 'unknown';
    const named2 = root?.attrs.get('skillsmith.outcome');
    const success = root?.attrs.get('skillsmith.success');
    if (named2 === 'success' || named2 === 'failure' || named2 === 'unknown') outcome = named2;
    else if (typeof success === 'boolean') outcome = success ? 'success' : 'failure';
    else if (root?.statusError) outcome = 'failure';
    const rewardAttr = root?.attrs.get('skillsmith.reward');
    const reward = typeof rewardAttr === 'number' && rewardAttr >= 0 && rewardAttr <= 1 ? rewardAttr : null;

    const sessionAttr = attr('skillsmith.session_id');
    const first = root ?? ordered[0] ?? models[0];
    const lastModelEnd = models.reduce<bigint | null>(
      (m, s) => (s.end != null && (m == null || s.end > m) ? s.end : m),
      null,
    );
    return {
      session: {
        id: sessionAttr ?? (root ? `otel:${root.traceId}:${root.spanId}` : `otel:${traceId}`),
        namespace,
        goal,
        outcome,
        reward,
        agentId: agentName,
        source: 'otel',
        startedAt: isoOf(first.start) ?? now,
        endedAt: isoOf(root ? root.end : (lastToolEnd ?? lastModelEnd)),
        labels: {
          format: 'otel',
          trace_id: traceId,
          ...(root ? { span_id: root.spanId } : {}),
          ...(attr('gen_ai.conversation.id') ? { conversation_id: attr('gen_ai.conversation.id') } : {}),
          ...(attr('gen_ai.request.model') ? { model: attr('gen_ai.request.model') } : {}),
          ...((attr('gen_ai.provider.name') ?? attr('gen_ai.system'))
            ? { provider: attr('gen_ai.provider.name') ?? attr('gen_ai.system') }
            : {}),
          ...(missing.length ? { not_recorded: missing.join(',') } : {}),
        },
        calls,
        outcomeSource: 'reported',
      },
      finalAnswer,
      missing,
    };
  }
}

const MODEL_OPS = new Set(['chat', 'text_completion', 'generate_content']);

function cmpTime(a: bigint | null, b: bigint | null): number {
  if (a == null || b == null) return 0;
  return a < b ? -1 : a > b ? 1 : 0;
}

function readSpan(raw: unknown, line: number, path: string, order: number): OtelSpan {
  if (!isObject(raw)) throw new InputError(`${path}: not an object`);
  const id = (k: string) => {
    const v = raw[k] ?? raw[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];
    return typeof v === 'string' && v ? v : null;
  };
  const traceId = id('traceId');
  const spanId = id('spanId');
  if (!traceId) throw new InputError(`${path}.traceId: missing`);
  if (!spanId) throw new InputError(`${path}.spanId: missing`);
  const status = isObject(raw.status) ? raw.status : {};
  const events = Array.isArray(raw.events) ? raw.events : [];
  return {
    traceId,
    spanId,
    parentSpanId: id('parentSpanId'),
    name: typeof raw.name === 'string' ? raw.name : '',
    start: nanos(raw.startTimeUnixNano ?? raw.start_time_unix_nano, `${path}.startTimeUnixNano`),
    end: nanos(raw.endTimeUnixNano ?? raw.end_time_unix_nano, `${path}.endTimeUnixNano`),
    attrs: attributes(raw.attributes, `${path}.attributes`),
    events: events.map((e, i) => {
      const where = `${path}.events[${i}]`;
      if (!isObject(e)) throw new InputError(`${where}: not an object`);
      return {
        name: typeof e.name === 'string' ? e.name : '',
        time: nanos(e.timeUnixNano, `${where}.timeUnixNano`),
        attrs: attributes(e.attributes, `${where}.attributes`),
      };
    }),
    statusError: ERROR_CODES.has(status.code),
    statusMessage: typeof status.message === 'string' && status.message ? status.message : null,
    line,
    path,
    order,
  };
}

/** The GenAI operation of a span: the attribute, else the span-name prefix, else the OpenInference kind. */
export function opOf(s: OtelSpan): string | null {
  const op = s.attrs.get('gen_ai.operation.name');
  if (typeof op === 'string' && op) return op;
  const prefix = /^(invoke_agent|execute_tool|chat|text_completion|generate_content|create_agent|embeddings)\b/.exec(
    s.name,
  );
  if (prefix) return prefix[1];
  // OpenLLMetry names its spans `openai.chat` and says the request type in `llm.request.type`.
  const reqType = s.attrs.get('llm.request.type');
  if (reqType === 'chat') return 'chat';
  if (reqType === 'completion') return 'text_completion';
  const kind = s.attrs.get('openinference.span.kind');
  if (kind === 'AGENT') return 'invoke_agent';
  if (kind === 'TOOL') return 'execute_tool';
  if (kind === 'LLM') return 'chat';
  return null;
}

function toCall(s: OtelSpan, position: number, limits: CaptureLimits): ToolCall {
  const nameAttr = s.attrs.get('gen_ai.tool.name') ?? s.attrs.get('tool.name');
  const tool = typeof nameAttr === 'string' && nameAttr ? nameAttr : s.name.replace(/^execute_tool\s+/, '').trim();
  if (!tool) throw new InputError(`${s.path}: execute_tool span without gen_ai.tool.name`);
  const rawArgs =
    s.attrs.get('gen_ai.tool.call.arguments') ?? s.attrs.get('tool.parameters') ?? s.attrs.get('input.value');
  let args: Record<string, unknown>;
  try {
    args = parseArgs(rawArgs, 'gen_ai.tool.call.arguments');
  } catch {
    // Arguments captured as plain text rather than JSON: keep the text.
    args = { input: String(rawArgs) };
  }
  const rawResult = s.attrs.get('gen_ai.tool.call.result') ?? s.attrs.get('output.value');
  const exception = s.events.find((e) => e.name === 'exception');
  const errorType = s.attrs.get('error.type');
  const failed = s.statusError || (typeof errorType === 'string' && errorType !== '');
  const excMessage = exception?.attrs.get('exception.message');
  const error = failed
    ? String(
        s.statusMessage ??
          (typeof excMessage === 'string' ? excMessage : null) ??
          (typeof errorType === 'string' ? errorType : 'error'),
      )
    : null;
  return {
    position,
    tool,
    args,
    result: capText(rawResult == null ? '' : resultText(rawResult), limits.resultChars),
    ok: !failed,
    error: error === null ? null : capText(error, 500),
    durationMs: s.start != null && s.end != null && s.end >= s.start ? Number(s.end - s.start) / 1e6 : null,
    at: isoOf(s.start),
  };
}

/** Messages in any of the shapes the conventions used over time. */
function messagesOf(v: unknown): unknown[] | null {
  let x = v;
  if (typeof x === 'string') {
    const t = x.trim();
    if (!t.startsWith('[') && !t.startsWith('{')) return null;
    try {
      x = JSON.parse(t);
    } catch {
      return null;
    }
  }
  if (Array.isArray(x)) return x;
  if (isObject(x) && Array.isArray(x.messages)) return x.messages;
  return null;
}

function messageText(m: unknown): string {
  if (!isObject(m)) return typeof m === 'string' ? m : '';
  if (Array.isArray(m.parts))
    return contentText(m.parts.filter((p) => isObject(p) && (p.type === 'text' || p.type == null)));
  const msg = isObject(m.message) ? m.message : m; // gen_ai.choice style {message: {...}}
  return contentText(msg.content);
}

function firstUserText(s: OtelSpan): string | null {
  const sources: unknown[] = [s.attrs.get('gen_ai.input.messages'), s.attrs.get('gen_ai.prompt')];
  for (const e of s.events) sources.push(e.attrs.get('gen_ai.input.messages'), e.attrs.get('gen_ai.prompt'));
  for (const src of sources) {
    for (const m of messagesOf(src) ?? []) {
      if (isObject(m) && m.role === 'user') {
        const t = messageText(m).trim();
        if (t) return t;
      }
    }
  }
  for (const e of s.events) {
    if (e.name === 'gen_ai.user.message') {
      const c = e.attrs.get('content');
      if (typeof c === 'string' && c.trim()) return c;
    }
  }
  // OpenLLMetry flattens prompts: gen_ai.prompt.<n>.role / .content.
  for (let i = 0; s.attrs.has(`gen_ai.prompt.${i}.content`) || s.attrs.has(`gen_ai.prompt.${i}.role`); i++) {
    const c = s.attrs.get(`gen_ai.prompt.${i}.content`);
    if (s.attrs.get(`gen_ai.prompt.${i}.role`) === 'user' && typeof c === 'string' && c.trim()) return c;
  }
  if (opOf(s) === 'invoke_agent' && s.attrs.get('openinference.span.kind') === 'AGENT') {
    const v = s.attrs.get('input.value');
    if (typeof v === 'string' && v.trim()) return v;
  }
  return null;
}

function lastAssistantText(s: OtelSpan): string | null {
  const sources: unknown[] = [s.attrs.get('gen_ai.output.messages'), s.attrs.get('gen_ai.completion')];
  for (const e of s.events) sources.push(e.attrs.get('gen_ai.output.messages'), e.attrs.get('gen_ai.completion'));
  for (const src of sources) {
    const list = messagesOf(src);
    if (!list) continue;
    for (const m of [...list].reverse()) {
      if (!isObject(m)) continue;
      const role = m.role ?? (isObject(m.message) ? m.message.role : 'assistant');
      if (role !== 'assistant') continue;
      const hasCall = Array.isArray(m.parts) && m.parts.some((p) => isObject(p) && p.type === 'tool_call');
      const t = messageText(m).trim();
      if (t && !hasCall) return t;
    }
  }
  for (let i = 9; i >= 0; i--) {
    const c = s.attrs.get(`gen_ai.completion.${i}.content`);
    if (typeof c === 'string' && c.trim()) return c;
  }
  if (s.attrs.get('openinference.span.kind') === 'AGENT') {
    const v = s.attrs.get('output.value');
    if (typeof v === 'string' && v.trim()) return v;
  }
  return null;
}

function hasArgs(s: OtelSpan): boolean {
  return ['gen_ai.tool.call.arguments', 'tool.parameters', 'input.value'].some((k) => s.attrs.get(k) != null);
}

function hasResult(s: OtelSpan): boolean {
  return ['gen_ai.tool.call.result', 'output.value'].some((k) => s.attrs.get(k) != null);
}
