/**
 * The values a tool result holds, and where: a tolerant reader of JSON results (capture cuts them, so the text
 * often ends mid-value) that lists every string and number leaf with its dot path (`orders[]`,
 * `payment_methods.*.id`), and the origin of each argument value of a session: the earlier result in which that
 * exact value first appeared, or the user when no earlier result held it. Pure.
 */
import type { ToolCall } from './types.js';

/** One scalar of a result: its dot path (`[]` for any element of a list, `*` for an id used as a key) and value. */
export interface Leaf {
  path: string;
  value: string;
}

/** Where an argument's value came from: a field of an earlier call's result, or the user. */
export type ValueSource = { tool: string; path: string } | 'user';

/** A key that is an id (`credit_card_4421486`, `#W2890441`) is no field name: every session has another. */
const ID_KEY = /\d.*\d.*\d/;

/** Short values (`1`, `no`) occur everywhere by chance: they say nothing about where a value came from. */
const MIN_VALUE_LENGTH = 3;

/** What one result holds: its leaves, and whether it is JSON that capture cut. */
interface ReadResult {
  leaves: readonly Leaf[];
  cut: boolean;
}

/**
 * Results already read, by their text: a pass reads each result for argument origins, the main path's "Done"
 * and branch conditions, and the same lookup results recur across a cluster. Cleared when full.
 */
const READ = new Map<string, ReadResult>();
const READ_LIMIT = 8192;

function readResult(text: string): ReadResult {
  const known = READ.get(text);
  if (known) return known;
  const read = readUncached(text.trim());
  if (READ.size >= READ_LIMIT) READ.clear();
  READ.set(text, read);
  return read;
}

function readUncached(t: string): ReadResult {
  if (t === '') return { leaves: [], cut: false };
  if (t[0] !== '{' && t[0] !== '[' && t[0] !== '"') return { leaves: [{ path: '', value: t }], cut: false };
  const out: Leaf[] = [];
  let whole: unknown;
  try {
    whole = JSON.parse(t);
  } catch {
    // Cut by capture (or not JSON after all): the leaves before the cut.
    try {
      new Reader(t, out).value('');
    } catch {
      // END_OF_TEXT where the text stops; a malformed escape stops the reading the same way.
    }
    return { leaves: out, cut: t[0] !== '"' };
  }
  walk(whole, '', out);
  return { leaves: out, cut: false };
}

/** The leaves of a parsed JSON value, as the tolerant reader lists them for the same text. */
function walk(v: unknown, path: string, out: Leaf[]): void {
  if (typeof v === 'string') out.push({ path, value: v });
  else if (typeof v === 'number') out.push({ path, value: String(v) });
  else if (Array.isArray(v)) for (const x of v) walk(x, `${path}[]`, out);
  else if (v && typeof v === 'object')
    for (const [key, x] of Object.entries(v)) {
      const name = ID_KEY.test(key) ? '*' : key;
      walk(x, path ? `${path}.${name}` : name, out);
    }
}

/**
 * Every string and number leaf of a JSON text, with its path, in document order. A text cut in the middle
 * gives the leaves read before the cut; a text that is not JSON at all is one leaf at path `` (the whole result,
 * trimmed), as a plain-text result such as a user id is. The list is shared: do not change it.
 */
export function resultLeaves(text: string): readonly Leaf[] {
  return readResult(text).leaves;
}

/** Thrown (not an Error: no stack to build) where the text ends before the value does. */
const END_OF_TEXT = Symbol('end of text');

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/** A reader of JSON that stops where the text does, listing the leaves read so far. */
class Reader {
  private i = 0;
  constructor(
    private readonly s: string,
    private readonly out: Leaf[],
  ) {}

  private ws() {
    while (this.i < this.s.length && isSpace(this.s.charCodeAt(this.i))) this.i++;
    if (this.i >= this.s.length) throw END_OF_TEXT;
  }

  value(path: string): void {
    this.ws();
    const c = this.s[this.i];
    if (c === '{') this.object(path);
    else if (c === '[') this.array(path);
    else if (c === '"') this.out.push({ path, value: this.string() });
    else {
      const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(this.s.slice(this.i, this.i + 40));
      if (m && this.i + m[0].length < this.s.length) {
        this.out.push({ path, value: String(Number(m[0])) });
        this.i += m[0].length;
      } else {
        const w = /^(true|false|null)/.exec(this.s.slice(this.i, this.i + 5));
        if (!w) throw END_OF_TEXT; // a cut number, or not JSON after all: stop here
        this.i += w[0].length;
      }
    }
  }

  private object(path: string) {
    this.i++;
    for (;;) {
      this.ws();
      if (this.s[this.i] === '}') {
        this.i++;
        return;
      }
      if (this.s[this.i] === ',') {
        this.i++;
        continue;
      }
      if (this.s[this.i] !== '"') throw END_OF_TEXT;
      const key = this.string();
      this.ws();
      if (this.s[this.i] !== ':') throw END_OF_TEXT;
      this.i++;
      const name = ID_KEY.test(key) ? '*' : key;
      this.value(path ? `${path}.${name}` : name);
    }
  }

  private array(path: string) {
    this.i++;
    for (;;) {
      this.ws();
      if (this.s[this.i] === ']') {
        this.i++;
        return;
      }
      if (this.s[this.i] === ',') {
        this.i++;
        continue;
      }
      this.value(`${path}[]`);
    }
  }

  private string(): string {
    const start = this.i;
    let escaped = false;
    this.i++;
    while (this.i < this.s.length) {
      const c = this.s.charCodeAt(this.i);
      if (c === 92) {
        escaped = true;
        this.i += 2;
      } else if (c === 34) {
        this.i++;
        return escaped ? (JSON.parse(this.s.slice(start, this.i)) as string) : this.s.slice(start + 1, this.i - 1);
      } else this.i++;
    }
    throw END_OF_TEXT;
  }
}

/** A JSON result that does not parse whole was cut by capture (`capture.resultChars`). */
export function isCut(result: string): boolean {
  return readResult(result).cut;
}

/** An argument value as the text it would have in a result (strings and numbers; nothing else is traced). */
function scalarText(v: unknown): string | null {
  if (typeof v === 'string') return v.length >= MIN_VALUE_LENGTH ? v : null;
  if (typeof v === 'number' && Number.isFinite(v)) {
    const s = String(v);
    return s.length >= MIN_VALUE_LENGTH ? s : null;
  }
  return null;
}

/** The traceable values of one argument: itself, or the scalars of a list or object it holds. */
function argValues(v: unknown): string[] {
  const own = scalarText(v);
  if (own != null) return [own];
  if (Array.isArray(v)) return v.flatMap(argValues);
  if (v && typeof v === 'object') return Object.values(v).flatMap(argValues);
  return [];
}

export const sourceKey = (s: ValueSource): string => (s === 'user' ? 'user' : `${s.tool}\u0000${s.path}`);

/**
 * For each call of a session (by position), where each argument's value came from: the field of the earlier
 * successful result in which the exact value first appeared, or `user` when it appeared first as an argument
 * (nothing the session read held it). After a result that capture cut, a value no visible part held has no
 * known origin (it may sit in the part that is gone) and is left out. An argument holding several values (a list
 * of item ids) takes the source most of them share. Arguments with no traceable value (short, boolean) are absent.
 */
export function argumentOrigins(calls: readonly ToolCall[]): ReadonlyMap<number, ReadonlyMap<string, ValueSource>> {
  // A pass asks again for the same span (admission, evidence and the draft each build its consensus).
  let known = ORIGINS.get(calls);
  if (!known) ORIGINS.set(calls, (known = originsOf(calls)));
  return known;
}

const ORIGINS = new WeakMap<readonly ToolCall[], ReadonlyMap<number, ReadonlyMap<string, ValueSource>>>();

function originsOf(calls: readonly ToolCall[]): Map<number, Map<string, ValueSource>> {
  const seen = new Map<string, ValueSource | null>();
  const out = new Map<number, Map<string, ValueSource>>();
  // Once a result was cut, a value no visible part holds may sit in the part that is gone: its origin is unknown.
  let cut = false;
  for (const call of calls) {
    const sources = new Map<string, ValueSource>();
    for (const [arg, v] of Object.entries(call.args ?? {})) {
      const votes = new Map<string, { source: ValueSource; n: number }>();
      for (const value of argValues(v)) {
        if (!seen.has(value)) seen.set(value, cut ? null : 'user');
        const source = seen.get(value);
        if (!source) continue;
        const key = sourceKey(source);
        const vote = votes.get(key) ?? { source, n: 0 };
        vote.n++;
        votes.set(key, vote);
      }
      const best = [...votes.values()].sort((a, b) => b.n - a.n)[0];
      if (best) sources.set(arg, best.source);
    }
    out.set(call.position, sources);
    if (!call.ok) continue;
    if (isCut(call.result)) cut = true;
    for (const leaf of resultLeaves(call.result)) {
      if (leaf.value.length < MIN_VALUE_LENGTH || seen.has(leaf.value)) continue;
      seen.set(leaf.value, { tool: call.tool, path: leaf.path });
    }
  }
  return out;
}

/** Does an earlier result of `source.tool` hold `value` at `source.path`? (`user`: no earlier result holds it.) */
export function valueHeldBy(calls: readonly ToolCall[], before: number, value: unknown, source: ValueSource): boolean {
  const values = argValues(value);
  if (values.length === 0) return false;
  const earlier = calls.filter((c) => c.position < before && c.ok);
  if (source === 'user') {
    const held = new Set(earlier.flatMap((c) => resultLeaves(c.result).map((l) => l.value)));
    return values.every((v) => !held.has(v));
  }
  const held = new Set(
    earlier
      .filter((c) => c.tool === source.tool)
      .flatMap((c) => resultLeaves(c.result).filter((l) => l.path === source.path))
      .map((l) => l.value),
  );
  return values.some((v) => held.has(v));
}
