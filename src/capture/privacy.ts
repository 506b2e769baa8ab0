import { createHmac } from 'node:crypto';
import { redactCapture, redactProse, redactText, redactValue } from '../domain/redact.js';

export { redactCapture } from '../domain/redact.js';
import { protectId } from '../domain/protect-id.js';
import type { Session, ToolCall } from '../domain/types.js';
import { type FieldMode, type PrivacyConfig, type PrivacyConfigInput, privacyConfigSchema } from './capture-config.js';
import { capText } from './normalized-jsonl.js';

/**
 * Privacy at capture time (SPEC "Evidence", "Trust boundary"): what reaches the store. The same policy is
 * applied to ingested files and to instrumented tools. Defaults: goals, arguments, results and errors are
 * redacted; results are capped after redaction, so a secret is never cut in half and half-stored.
 */
export type PrivacyPolicy = PrivacyConfig;

/** The policy with every default filled in; throws a zod error naming the bad key. */
export function resolvePrivacy(input: PrivacyConfigInput | PrivacyPolicy = {}): PrivacyPolicy {
  return privacyConfigSchema.parse(input);
}

export interface EffectiveToolPolicy {
  args: FieldMode;
  results: FieldMode;
  allowArgs?: string[];
  denyArgs?: string[];
}

const globCache = new Map<string, RegExp>();

/** `*` matches any run of characters, `?` one character; everything else is literal. */
export function globMatch(pattern: string, name: string): boolean {
  if (!pattern.includes('*') && !pattern.includes('?')) return pattern === name;
  let re = globCache.get(pattern);
  if (!re) {
    const src = pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.');
    globCache.set(pattern, (re = new RegExp(`^${src}$`)));
  }
  return re.test(name);
}

/** What the policy says for one tool: deny list, then allow list, then the first matching per-tool rule. */
export function toolPolicy(policy: PrivacyPolicy, tool: string): EffectiveToolPolicy {
  if (policy.denyTools.some((p) => globMatch(p, tool))) return { args: 'drop', results: 'drop' };
  if (policy.allowTools && !policy.allowTools.some((p) => globMatch(p, tool))) return { args: 'drop', results: 'drop' };
  const key = Object.keys(policy.tools).find((p) => globMatch(p, tool));
  const rule = key ? policy.tools[key] : undefined;
  return {
    args: rule?.args ?? policy.args,
    results: rule?.results ?? policy.results,
    allowArgs: rule?.allowArgs,
    denyArgs: rule?.denyArgs,
  };
}

// ── text and values ──────────────────────────────────────────────────────

const MARKER = /\[REDACTED:([a-z_]+)\]/g;
/** Personal data is pseudonymised by `hash`; credentials always become plain markers. */
const HASHED_KINDS = new Set(['email', 'phone', 'card', 'national_id', 'bank_account']);

function hashOf(salt: string, kind: string, value: string): string {
  return createHmac('sha256', salt || 'skillsmith')
    .update(`${kind}\u0000${value}`)
    .digest('hex')
    .slice(0, 10);
}

/**
 * `redactText`, with personal data replaced by `[HASH:<kind>:<hmac>]` instead of a plain marker. The redacted
 * text is aligned with the original (the text between markers is unchanged by redaction) to find what each
 * marker replaced; where that fails, the plain marker stays (never the value).
 */
export function hashText(text: string, salt: string): string {
  const redacted = redactText(text);
  const markers = [...redacted.matchAll(MARKER)];
  if (markers.length === 0) return redacted;
  // redacted = L0 M1 L1 ... Mn Ln and text = L0 R1 L1 ... Rn Ln: find each region Ri that marker Mi replaced.
  const literalAfter = (i: number) =>
    redacted.slice(
      markers[i].index + markers[i][0].length,
      i + 1 < markers.length ? markers[i + 1].index : redacted.length,
    );
  const first = redacted.slice(0, markers[0].index);
  if (!text.startsWith(first)) return redacted;
  let out = first;
  let start: number | null = first.length; // start of the current region in `text`, null when unknown
  let cursor = first.length; // nothing before this in `text` is part of a later region
  for (let i = 0; i < markers.length; i++) {
    const [marker, kind] = markers[i];
    const literal = literalAfter(i);
    const last = i + 1 === markers.length;
    let end: number | null;
    if (last) end = text.endsWith(literal) ? text.length - literal.length : -1;
    else if (literal.length === 0)
      end = null; // two adjacent markers: the boundary between them is unknown
    else end = text.indexOf(literal, cursor + 1);
    if (end !== null && end < cursor) return redacted;
    const value = start !== null && end !== null ? text.slice(start, end) : null;
    out +=
      value !== null && HASHED_KINDS.has(kind!) && value !== marker
        ? `[HASH:${kind}:${hashOf(salt, kind!, value)}]`
        : marker;
    out += literal;
    if (end === null) {
      start = null;
    } else {
      cursor = end + literal.length;
      start = cursor;
    }
  }
  return out;
}

function deepStrings(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === 'string') return f(v);
  if (Array.isArray(v)) return v.map((x) => deepStrings(x, f));
  if (v === null || typeof v !== 'object' || !isPlainObject(v)) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deepStrings(x, f)]));
}

function protectText(text: string, mode: FieldMode, salt: string): string {
  switch (mode) {
    case 'keep':
      return text;
    case 'drop':
      return '';
    case 'hash':
      return redactProse(hashText(text, salt));
    default:
      return redactCapture(text);
  }
}

const PLAIN_MARKER = /^\[REDACTED:([a-z_]+)\]$/;

/** Deep `hash`: like `redactValue`, with personal data hashed (see `hashText`). */
function hashValue(v: unknown, salt: string): unknown {
  if (typeof v === 'string') return hashText(v, salt);
  if (Array.isArray(v)) return v.map((x) => hashValue(x, salt));
  if (v === null || typeof v !== 'object' || !isPlainObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(v)) {
    const primitive = value === null || typeof value !== 'object';
    // Ask redactValue whether the key alone makes the value a secret or a phone number.
    const probe = redactValue({ [key]: primitive ? value : 'placeholder' }) as Record<string, unknown>;
    const probed = Object.values(probe)[0];
    const byKey =
      typeof probed === 'string' &&
      PLAIN_MARKER.test(probed) &&
      !(typeof value === 'string' && redactText(value) === probed);
    const k = hashText(key, salt);
    if (byKey) {
      const kind = PLAIN_MARKER.exec(probed as string)![1];
      out[k] = HASHED_KINDS.has(kind)
        ? `[HASH:${kind}:${hashOf(salt, kind, typeof value === 'string' ? value : JSON.stringify(value))}]`
        : probed;
    } else out[k] = hashValue(value, salt);
  }
  return out;
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function dropKeys(v: unknown, deny: Set<string>): unknown {
  if (Array.isArray(v)) return v.map((x) => dropKeys(x, deny));
  if (v === null || typeof v !== 'object' || !isPlainObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (!deny.has(k)) out[k] = dropKeys(x, deny);
  return out;
}

/** A JSON-safe copy of arguments: class instances, functions, cycles and bigints never reach the store raw. */
export function jsonSafe(v: unknown): unknown {
  try {
    const seen = new WeakSet<object>();
    const text = JSON.stringify(v, (_k, x) => {
      if (typeof x === 'bigint') return x.toString();
      if (typeof x === 'function' || typeof x === 'symbol') return undefined;
      if (x && typeof x === 'object') {
        if (seen.has(x)) return '[circular]';
        seen.add(x);
      }
      return x;
    });
    return text === undefined ? null : JSON.parse(text);
  } catch {
    return String(v);
  }
}

// ── the public steps ─────────────────────────────────────────────────────

export function protectArgs(
  policy: PrivacyPolicy,
  tool: string,
  args: Record<string, unknown>,
): Record<string, unknown> {
  const rule = toolPolicy(policy, tool);
  if (rule.args === 'drop') return {};
  let v: Record<string, unknown> = args ?? {};
  if (rule.allowArgs) {
    const allow = new Set(rule.allowArgs);
    v = Object.fromEntries(Object.entries(v).filter(([k]) => allow.has(k)));
  }
  if (rule.denyArgs?.length) v = dropKeys(v, new Set(rule.denyArgs)) as Record<string, unknown>;
  if (rule.args === 'keep') return v;
  if (rule.args === 'hash') return deepStrings(hashValue(v, policy.salt), redactProse) as Record<string, unknown>;
  return redactValue(v, redactCapture) as Record<string, unknown>;
}

/**
 * A result summary: protected, then capped at `cap` characters. Very long results are cut (far beyond the
 * cap) before redaction to bound the work; the cut lands outside what is kept.
 */
export function protectResult(policy: PrivacyPolicy, tool: string, text: string, cap: number): string {
  const mode = toolPolicy(policy, tool).results;
  if (mode === 'drop') return '';
  const pre = text.length > 4 * cap + 4096 ? text.slice(0, 4 * cap + 4096) : text;
  return capText(protectText(pre, mode, policy.salt), cap);
}

/** Error texts follow the result mode (a dropped result keeps only the fact that the call failed). */
export function protectError(policy: PrivacyPolicy, tool: string, error: string | null, cap = 500): string | null {
  if (error == null) return null;
  const mode = toolPolicy(policy, tool).results;
  if (mode === 'drop') return 'error (details dropped by the privacy policy)';
  const pre = error.length > 4 * cap + 4096 ? error.slice(0, 4 * cap + 4096) : error;
  return capText(protectText(pre, mode, policy.salt), cap);
}

export function protectGoal(policy: PrivacyPolicy, goal: string): string {
  return policy.goal === 'keep' ? goal : redactCapture(goal);
}

export function protectCall(policy: PrivacyPolicy, call: ToolCall, cap: number): ToolCall {
  return {
    ...call,
    // A tool name is a key too: one that holds a secret is stored as a keyed hash (the policy used the name).
    tool: protectId(policy, call.tool, 'tool'),
    args: protectArgs(policy, call.tool, call.args ?? {}),
    result: protectResult(policy, call.tool, call.result ?? '', cap),
    error: protectError(policy, call.tool, call.error),
  };
}

export { protectId };

/** A time as given when it reads as one, else redacted like any other text (it is a free string in a file). */
function protectTime(value: string): string {
  return !Number.isNaN(Date.parse(value)) && value.length <= 64 ? value : redactCapture(value).slice(0, 64);
}

/** The whole session through the policy: goal, every call, and the labels (redacted unless goals are kept). */
export function protectSession<S extends Session>(session: S, policy: PrivacyPolicy, resultChars: number): S {
  return {
    ...session,
    id: protectId(policy, session.id, 'sid'),
    agentId: protectId(policy, session.agentId, 'agent'),
    source: protectId(policy, session.source, 'source'),
    goal: protectGoal(policy, session.goal),
    ...(session.cue ? { cue: protectGoal(policy, session.cue) } : {}),
    startedAt: protectTime(session.startedAt),
    endedAt: session.endedAt == null ? session.endedAt : protectTime(session.endedAt),
    calls: session.calls.map((c) => {
      const call = protectCall(policy, c, resultChars);
      return call.at == null ? call : { ...call, at: protectTime(call.at) };
    }),
    labels: protectLabels(policy, session.labels),
  };
}

/** A session's free-form labels as they may be stored: every string redacted (unless goals are kept as given). */
export function protectLabels<L extends Session['labels']>(policy: PrivacyPolicy, labels: L): L {
  return labels && policy.goal !== 'keep' ? (redactValue(labels, redactLabelText) as L) : labels;
}

// Label values repeat from session to session (an agent's model, a domain, a ticket text): each distinct
// string is redacted once and its redacted form remembered. The memo is bounded (strings of up to 8,192
// characters, 4 million characters in all) and forgets everything when full. It holds the texts as given, as
// the sessions being ingested do, in this process's memory only: nothing of it is written or logged.
const LABEL_MEMO_CHARS = 4_000_000;
const LABEL_MEMO_TEXT_CHARS = 8_192;
const labelMemo = new Map<string, string>();
let labelMemoChars = 0;

/** `redactCapture` for a label value (the same rules, the same output), remembered per distinct string. */
function redactLabelText(text: string): string {
  const known = labelMemo.get(text);
  if (known !== undefined) return known;
  const out = redactCapture(text);
  if (text.length <= LABEL_MEMO_TEXT_CHARS) {
    if (labelMemoChars + text.length > LABEL_MEMO_CHARS) {
      labelMemo.clear();
      labelMemoChars = 0;
    }
    labelMemo.set(text, out);
    labelMemoChars += text.length;
  }
  return out;
}
