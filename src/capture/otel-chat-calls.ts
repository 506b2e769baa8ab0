import type { ToolCall } from '../domain/types.js';
import { contentText, ERROR_RESULT, isObject, parseArgs, resultText } from './common.js';
import { capText, type CaptureLimits } from './normalized-jsonl.js';

/**
 * Tool calls that live only in the messages of model (chat) spans, as instrumentations of model clients emit
 * them when there is no agent framework to open `execute_tool` spans:
 *
 * - GenAI semantic conventions (1.37+): `gen_ai.input.messages` / `gen_ai.output.messages` JSON, messages
 *   `{role, parts}` with `{type: "tool_call", id, name, arguments}` parts and, in a later chat's input,
 *   `{role: "tool", parts: [{type: "tool_call_response", id, response}]}`; OpenAI-shaped messages
 *   (`tool_calls` with `function`, `role: "tool"` with `tool_call_id`) in the same attributes are read too;
 * - OpenLLMetry (`@traceloop/instrumentation-openai`): flattened attributes `gen_ai.completion.<n>.tool_calls.<m>.
 *   {id, name, arguments}`, replayed history in `gen_ai.prompt.<n>.tool_calls.<m>.*`, and results as
 *   `gen_ai.prompt.<n>.role = tool` with `.tool_call_id` and `.content`.
 *
 * A call is known by its id (replayed history repeats it in every later chat); its result is the first tool
 * message that answers that id. A result that reads as an error fails the call.
 */

interface Msg {
  role: string;
  calls: { id: string | null; name: string; args: unknown }[];
  responses: { id: string | null; text: string }[];
}

export interface ChatSpanLike {
  attrs: Map<string, unknown>;
  events: { name: string; attrs: Map<string, unknown> }[];
  start: bigint | null;
}

function parseJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (!t.startsWith('[') && !t.startsWith('{')) return null;
  try {
    return JSON.parse(t);
  } catch {
    return null;
  }
}

function toMsgs(v: unknown): Msg[] {
  let x = parseJson(v);
  if (isObject(x) && Array.isArray(x.messages)) x = x.messages;
  if (!Array.isArray(x)) return [];
  const out: Msg[] = [];
  for (const raw of x) {
    if (!isObject(raw)) continue;
    const m = isObject(raw.message) ? raw.message : raw;
    const role = typeof m.role === 'string' ? m.role : 'assistant';
    const msg: Msg = { role, calls: [], responses: [] };
    if (Array.isArray(m.parts)) {
      for (const p of m.parts) {
        if (!isObject(p)) continue;
        if (p.type === 'tool_call' && typeof p.name === 'string')
          msg.calls.push({ id: typeof p.id === 'string' ? p.id : null, name: p.name, args: p.arguments });
        if (p.type === 'tool_call_response')
          msg.responses.push({
            id: typeof p.id === 'string' ? p.id : null,
            text: resultText(p.response ?? p.result ?? ''),
          });
      }
    }
    if (Array.isArray(m.tool_calls)) {
      for (const tc of m.tool_calls) {
        if (!isObject(tc)) continue;
        const fn = isObject(tc.function) ? tc.function : tc;
        if (typeof fn.name === 'string')
          msg.calls.push({ id: typeof tc.id === 'string' ? tc.id : null, name: fn.name, args: fn.arguments });
      }
    }
    if (role === 'tool' && typeof m.tool_call_id === 'string')
      msg.responses.push({ id: m.tool_call_id, text: contentText(m.content) });
    out.push(msg);
  }
  return out;
}

/** The flattened `<prefix>.<n>.*` messages of OpenLLMetry. */
function flattened(attrs: Map<string, unknown>, prefix: string): Msg[] {
  const out: Msg[] = [];
  for (let i = 0; i < 10_000; i++) {
    const p = `${prefix}.${i}`;
    const has = [...attrs.keys()].some((k) => k.startsWith(`${p}.`));
    if (!has) break;
    const role = attrs.get(`${p}.role`);
    const msg: Msg = { role: typeof role === 'string' ? role : 'assistant', calls: [], responses: [] };
    for (let j = 0; attrs.has(`${p}.tool_calls.${j}.name`); j++) {
      const id = attrs.get(`${p}.tool_calls.${j}.id`);
      msg.calls.push({
        id: typeof id === 'string' ? id : null,
        name: String(attrs.get(`${p}.tool_calls.${j}.name`)),
        args: attrs.get(`${p}.tool_calls.${j}.arguments`),
      });
    }
    // The oldest OpenLLMetry form: one function_call per completion.
    if (attrs.has(`${p}.function_call.name`))
      msg.calls.push({
        id: null,
        name: String(attrs.get(`${p}.function_call.name`)),
        args: attrs.get(`${p}.function_call.arguments`),
      });
    const toolId = attrs.get(`${p}.tool_call_id`);
    if (msg.role === 'tool') {
      const c = attrs.get(`${p}.content`);
      msg.responses.push({
        id: typeof toolId === 'string' ? toolId : null,
        text: typeof c === 'string' ? c : resultText(c ?? ''),
      });
    }
    out.push(msg);
  }
  return out;
}

function messagesOfSpan(s: ChatSpanLike): Msg[] {
  const input = [
    ...toMsgs(s.attrs.get('gen_ai.input.messages')),
    ...toMsgs(s.attrs.get('gen_ai.prompt')),
    ...flattened(s.attrs, 'gen_ai.prompt'),
  ];
  const output = [
    ...toMsgs(s.attrs.get('gen_ai.output.messages')),
    ...toMsgs(s.attrs.get('gen_ai.completion')),
    ...flattened(s.attrs, 'gen_ai.completion'),
  ];
  for (const e of s.events) {
    input.push(...toMsgs(e.attrs.get('gen_ai.input.messages')));
    output.push(...toMsgs(e.attrs.get('gen_ai.output.messages')));
  }
  return [...input, ...output];
}

/** Whether a model span asked for tools without saying which (content capture off): worth telling the user. */
export function askedForTools(s: ChatSpanLike): boolean {
  const fr = s.attrs.get('gen_ai.response.finish_reasons');
  const list = Array.isArray(fr) ? fr : typeof fr === 'string' ? [fr] : [];
  const flat = [...s.attrs.entries()].some(
    ([k, v]) => /^gen_ai\.completion\.\d+\.finish_reason$/.test(k) && (v === 'tool_calls' || v === 'function_call'),
  );
  return flat || list.some((x) => x === 'tool_calls' || x === 'tool_call' || x === 'function_call');
}

/** The calls of a conversation told only through its chat spans (ordered by start), with their results. */
export function callsFromChatSpans(
  spans: ChatSpanLike[],
  limits: CaptureLimits,
  at: (s: ChatSpanLike) => string | null,
): ToolCall[] {
  const calls: ToolCall[] = [];
  const byId = new Map<string, ToolCall>();
  const answered = new Set<ToolCall>();
  const seenNoId = new Set<string>();
  for (const s of spans) {
    for (const m of messagesOfSpan(s)) {
      for (const c of m.calls) {
        if (c.id && byId.has(c.id)) continue;
        let args: Record<string, unknown>;
        try {
          args = parseArgs(c.args, 'arguments');
        } catch {
          args = { input: String(c.args) };
        }
        if (!c.id) {
          const key = `${c.name}\u0000${JSON.stringify(args)}`;
          if (seenNoId.has(key)) continue;
          seenNoId.add(key);
        }
        const call: ToolCall = {
          position: calls.length,
          tool: c.name,
          args,
          result: '',
          ok: true,
          error: null,
          durationMs: null,
          at: at(s),
        };
        calls.push(call);
        if (c.id) byId.set(c.id, call);
      }
      for (const r of m.responses) {
        const call = r.id ? byId.get(r.id) : calls.find((c) => !answered.has(c));
        if (!call || answered.has(call)) continue;
        answered.add(call);
        call.result = capText(r.text, limits.resultChars);
        if (ERROR_RESULT.test(r.text)) {
          call.ok = false;
          call.error = capText(r.text, 500);
        }
      }
    }
  }
  return calls;
}
