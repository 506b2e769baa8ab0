/**
 * The values a tool result holds, and where: a tolerant reader of JSON results (capture cuts them, so the text
 * often ends mid-value) that lists every string and number leaf with its dot path (`orders[]`,
 * `payment_methods.*.id`), and the origin of each argument value of a session: the earlier result in which that
 * exact value first appeared (or, for a text no field held whole, the text it is a piece of), or the user when no
 * earlier result held it. Pure.
 */
import { isMarker, isPersonalMarker, markersIn } from './redact.js';
import type { ToolCall } from './types.js';

/** One scalar of a result: its dot path (`[]` for any element of a list, `*` for an id used as a key) and value. */
export interface Leaf {
  path: string;
  value: string;
}

/**
 * Where an argument's value came from: a field of an earlier call's result, or the user. `part`: the value is a
 * piece of a text the result showed (the lines of a file a read printed, which an edit then replaces), not all of
 * a field.
 */
export type ValueSource = { tool: string; path: string; part?: true } | 'user';

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

/** A list a Python tool printed through numpy or pandas: `array(['a@b.com'], dtype=object)`. */
const PY_ARRAY = /^array\((?=\[)/;

function readUncached(text: string): ReadResult {
  const t = text.replace(PY_ARRAY, '');
  const inArray = t !== text;
  if (t === '') return { leaves: [], cut: false };
  if (t[0] !== '{' && t[0] !== '[' && t[0] !== '"' && !(t[0] === "'" && inArray)) {
    return { leaves: [{ path: '', value: text }], cut: false };
  }
  const out: Leaf[] = [];
  let whole: unknown;
  try {
    whole = JSON.parse(t);
  } catch {
    // Cut by capture, or a Python literal (a tool's dict printed with str()): the leaves before the cut or the end.
    const reader = new Reader(t, out);
    let done = false;
    try {
      reader.value('');
      done = true;
    } catch {
      // END_OF_TEXT where the text stops; a malformed escape stops the reading the same way.
    }
    return { leaves: out, cut: !(done && reader.atEnd(inArray)) && t[0] !== '"' };
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

/** Python's words for null, booleans and floats that are no number, as `str()` prints them in a result. */
const PY_WORDS = /^(true|false|null|None|True|False|nan|inf|-inf)\b/;

/**
 * A reader of JSON, and of the Python literals tools print (single quotes, None, True), that stops where the text
 * does, listing the leaves read so far.
 */
class Reader {
  private i = 0;
  constructor(
    private readonly s: string,
    private readonly out: Leaf[],
  ) {}

  /** Only spaces (and, after `array(`, the rest of its call) follow the value read. */
  atEnd(inCall: boolean): boolean {
    const rest = this.s.slice(this.i).trim();
    return rest === '' || (inCall && /^,\s*dtype=\w+\)$|^\)$/.test(rest));
  }

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
    else if (c === "'") this.out.push({ path, value: this.quoted() });
    else {
      const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(this.s.slice(this.i, this.i + 40));
      if (m && this.i + m[0].length < this.s.length) {
        this.out.push({ path, value: String(Number(m[0])) });
        this.i += m[0].length;
      } else {
        const w = PY_WORDS.exec(this.s.slice(this.i, this.i + 6));
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
      const q = this.s[this.i];
      if (q !== '"' && q !== "'") throw END_OF_TEXT;
      const key = q === '"' ? this.string() : this.quoted();
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

  /** A Python string in single quotes, its escapes undone (\\n, \\', \\\\, \\xNN, \\uNNNN). */
  private quoted(): string {
    let value = '';
    this.i++;
    while (this.i < this.s.length) {
      const c = this.s[this.i];
      if (c === "'") {
        this.i++;
        return value;
      }
      if (c !== '\\') {
        value += c;
        this.i++;
        continue;
      }
      const e = this.s[this.i + 1];
      if (e === undefined) break;
      const hex = e === 'x' ? 2 : e === 'u' ? 4 : 0;
      if (hex) {
        const code = this.s.slice(this.i + 2, this.i + 2 + hex);
        if (!/^[0-9a-fA-F]+$/.test(code) || code.length < hex) throw END_OF_TEXT;
        value += String.fromCharCode(Number.parseInt(code, 16));
        this.i += 2 + hex;
      } else {
        value += PY_ESCAPES[e] ?? e;
        this.i += 2;
      }
    }
    throw END_OF_TEXT;
  }
}

const PY_ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', '0': '\0' };

/** A JSON result that does not parse whole was cut by capture (`capture.resultChars`). */
export function isCut(result: string): boolean {
  return readResult(result).cut;
}

/** An argument value as the text it would have in a result (strings and numbers; nothing else is traced). */
function scalarText(v: unknown): string | null {
  if (typeof v === 'string') return v.length >= MIN_VALUE_LENGTH && !isMarker(v) ? v : null;
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

export const sourceKey = (s: ValueSource): string =>
  s === 'user' ? 'user' : `${s.tool}\u0000${s.path}${s.part ? '\u0000part' : ''}`;

/** Shortest value looked for inside a result's text: shorter ones occur in any text by chance. */
const MIN_PART_LENGTH = 8;

/** A line of a numbered file listing (`cat -n`, a coding agent's file read: "    12→text", "    12\ttext"). */
const NUMBERED_LINE = /^ *\d+(?:→|\t)/;

/**
 * The texts of a result that a value may be a piece of: a plain-text result, and each field of a JSON result that
 * holds several lines (a command's `output`). A numbered file listing reads as the file: without the numbers,
 * which no edit of it takes (its lines after the listing, a note the agent's tool added, stay as they are).
 */
function resultTexts(result: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  for (const leaf of resultLeaves(result)) {
    if (leaf.value.length < MIN_PART_LENGTH || (leaf.path !== '' && !leaf.value.includes('\n'))) continue;
    const text = NUMBERED_LINE.test(leaf.value)
      ? leaf.value
          .split('\n')
          .map((l) => l.replace(NUMBERED_LINE, ''))
          .join('\n')
      : leaf.value;
    out.push({ path: leaf.path, text });
  }
  return out;
}

/** Is the value a piece of the text (long enough to say so, and not all of it: that is a field's value)? */
const isPiece = (text: string, value: string): boolean =>
  value.length >= MIN_PART_LENGTH && text !== value && text.includes(value);

/**
 * Can a result hold a text a value is a piece of (resultTexts): a plain text, or a record or list one of whose fields
 * spans lines (a newline escaped in it). Most lookups answer records of one-line fields, which are not read for this.
 */
function mayHoldText(result: string): boolean {
  if (result.length < MIN_PART_LENGTH) return false;
  return !/^\s*[[{]/.test(result) || result.includes('\\n');
}

/** The results a session showed so far, each read for its texts only when a value is first looked for in them. */
type ShownTexts = { tool: string; result: string; texts?: { path: string; text: string }[] }[];

/** The first of these texts that holds the value as a piece of it. */
function partOf(shown: ShownTexts, value: string): ValueSource | null {
  if (value.length < MIN_PART_LENGTH) return null;
  for (const r of shown) {
    r.texts ??= resultTexts(r.result);
    const t = r.texts.find((x) => isPiece(x.text, value));
    if (t) return { tool: r.tool, path: t.path, part: true };
  }
  return null;
}

/**
 * For each call of a session (by position), where each argument's value came from: the field of the earlier
 * successful result in which the exact value first appeared, or `user` when it appeared first as an argument
 * (nothing the session read held it). After a result that capture cut, a value no visible part held has no
 * known origin (it may sit in the part that is gone) and is left out. An argument holding several values (a list
 * of item ids) takes the source most of them share. Arguments with no traceable value (short, boolean) are absent.
 */
export function argumentOrigins(
  calls: readonly ToolCall[],
  request = '',
): ReadonlyMap<number, ReadonlyMap<string, ValueSource>> {
  const known = ORIGINS.get(calls);
  if (known?.request === request) return known.origins;
  const origins = new Map(
    [...argumentHolders(calls, request)].map(([position, args]) => [
      position,
      new Map([...args].map(([arg, holders]) => [arg, holders[0]])),
    ]),
  );
  ORIGINS.set(calls, { request, origins });
  return origins;
}

/**
 * Every place each argument's value could have come from, the first appearance first: each earlier successful
 * result that held it (an email's recipient is in the search results and in the directory lookup after them),
 * or only `user`. A cluster agrees on the source most of its sessions share (consensus), which the first
 * appearance alone would leave to chance.
 */
export function argumentHolders(
  calls: readonly ToolCall[],
  request = '',
): ReadonlyMap<number, ReadonlyMap<string, readonly ValueSource[]>> {
  // A pass asks again for the same span (admission, evidence and the draft each build its consensus).
  const known = HOLDERS.get(calls);
  if (known?.request === request) return known.holders;
  const holders = holdersOf(calls, request);
  HOLDERS.set(calls, { request, holders });
  return holders;
}

/** Does the request name the value, as a whole word or phrase (any case)? */
function names(request: string, value: string): boolean {
  const text = request.toLowerCase();
  const v = value.toLowerCase();
  const word = /[A-Za-z0-9]/;
  for (let at = text.indexOf(v); at >= 0; at = text.indexOf(v, at + 1)) {
    if (!word.test(text[at - 1] ?? '') && !word.test(text[at + v.length] ?? '')) return true;
  }
  return false;
}

/** Per calls array, the last answer and the request it was for. */
const ORIGINS = new WeakMap<
  readonly ToolCall[],
  { request: string; origins: ReadonlyMap<number, ReadonlyMap<string, ValueSource>> }
>();
const HOLDERS = new WeakMap<
  readonly ToolCall[],
  { request: string; holders: ReadonlyMap<number, ReadonlyMap<string, readonly ValueSource[]>> }
>();

function holdersOf(calls: readonly ToolCall[], request: string): Map<number, Map<string, ValueSource[]>> {
  // Each value's holders in the order they appeared; `null` where a cut result may have hidden its origin.
  const seen = new Map<string, ValueSource[] | null>();
  const out = new Map<number, Map<string, ValueSource[]>>();
  // Once a result was cut, a value no visible part holds may sit in the part that is gone: its origin is unknown.
  let cut = false;
  // Redaction markers the results showed anywhere, and per marker the field of the latest result that held one, while
  // it is sure.
  const markersShown = new Set<string>();
  const lastShown = new Map<string, ValueSource>();
  // The texts earlier results showed, in order: a value no field held whole may be a piece of one of them.
  const texts: ShownTexts = [];
  for (const call of calls) {
    const sources = new Map<string, ValueSource[]>();
    for (const [arg, v] of Object.entries(call.args ?? {})) {
      // A redacted value (`[REDACTED:phone]`) stands for every value of its kind, and results are redacted alike.
      // When no earlier result showed a marker of its kind, none held the value: it is the user's, as any value that
      // appeared first as an argument (after a result capture cut, only if the request holds one). When results did,
      // it is the latest one's (the directory lookup made to find the address), if that one showed it in a single
      // field, no result was cut since, and the request holds none. Else unknown. A credential (`[REDACTED:api_key]`)
      // is never traced to a result: every redacted key reads the same, and an agent told to take one from a
      // lookup's field would pass whatever secret that field held.
      if (typeof v === 'string' && isMarker(v)) {
        const latest = lastShown.get(v);
        if (!markersShown.has(v)) {
          if (!cut || request.includes(v)) sources.set(arg, ['user']);
        } else if (latest && isPersonalMarker(v) && !request.includes(v)) sources.set(arg, [latest]);
        continue;
      }
      // Per source: how many of the argument's values it holds, and how early it first held one.
      const votes = new Map<string, { source: ValueSource; n: number; first: number }>();
      for (const value of argValues(v)) {
        // A value the request names is the user's, even after a cut result; else one a text showed is a piece of
        // that text (the lines a read printed, which the edit replaces).
        if (!seen.has(value)) {
          const part = partOf(texts, value);
          const named = (part || cut) && names(request, value);
          seen.set(value, part && !named ? [part] : cut && !named ? null : ['user']);
        }
        const holders = seen.get(value);
        if (!holders) continue;
        holders.forEach((source, rank) => {
          const key = sourceKey(source);
          const vote = votes.get(key) ?? { source, n: 0, first: rank };
          vote.n++;
          vote.first = Math.min(vote.first, rank);
          votes.set(key, vote);
        });
      }
      const ranked = [...votes.values()].sort((a, b) => b.n - a.n || a.first - b.first);
      if (ranked.length)
        sources.set(
          arg,
          ranked.map((r) => r.source),
        );
    }
    out.set(call.position, sources);
    if (!call.ok) continue;
    if (mayHoldText(call.result)) texts.push({ tool: call.tool, result: call.result });
    const whole = !isCut(call.result);
    if (!whole) cut = true;
    let fields: Map<string, Set<string>> | undefined;
    // The values this call was given: a result that repeats one (the order a lookup was asked for) is no origin.
    const given = new Set(Object.values(call.args ?? {}).flatMap(argValues));
    for (const leaf of valueLeaves(call.result)) {
      if (isMarker(leaf.value)) {
        fields ??= new Map();
        fields.set(leaf.value, (fields.get(leaf.value) ?? new Set()).add(leaf.path));
        continue;
      }
      if (leaf.value.length < MIN_VALUE_LENGTH) continue;
      const holders = seen.get(leaf.value);
      const source: ValueSource = { tool: call.tool, path: leaf.path };
      if (holders === undefined) seen.set(leaf.value, [source]);
      // A value the user gave first stays theirs; a result that echoes it, or what the call was given, is no origin.
      else if (
        holders &&
        holders[0] !== 'user' &&
        !given.has(leaf.value) &&
        !holders.some((h) => sourceKey(h) === sourceKey(source))
      ) {
        holders.push(source);
      }
    }
    // The latest result that showed a marker decides: in one field of a whole result (a directory lookup's answer),
    // or nowhere sure (inside a text, in two fields of one record, in a result cut short). A cut result also makes
    // every earlier holder unsure: the value may sit in the part that is gone.
    if (!whole) lastShown.clear();
    for (const m of markersIn(call.result)) {
      markersShown.add(m);
      const paths = fields?.get(m);
      if (whole && paths?.size === 1) lastShown.set(m, { tool: call.tool, path: [...paths][0] });
      else lastShown.delete(m);
    }
  }
  return out;
}

/** Longest line of a plain-text result that may be a value an argument took (a path a search listed). */
const MAX_LINE_VALUE = 300;

/**
 * The values a result offers later arguments: its leaves, and each line of a plain-text result on its own (the
 * files a search listed, one per line: an edit takes one of them, not the listing).
 */
function valueLeaves(result: string): readonly Leaf[] {
  const leaves = resultLeaves(result);
  const text = leaves.length === 1 && leaves[0].path === '' ? leaves[0].value : null;
  if (!text?.includes('\n')) return leaves;
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length >= MIN_VALUE_LENGTH && l.length <= MAX_LINE_VALUE && l !== text);
  return [...leaves, ...[...new Set(lines)].map((value) => ({ path: '', value }))];
}

/**
 * Does an earlier result of `source.tool` hold `value` at `source.path` (`part`: as a piece of the text there)?
 * (`user`: no earlier result holds it.)
 */
export function valueHeldBy(calls: readonly ToolCall[], before: number, value: unknown, source: ValueSource): boolean {
  const values = argValues(value);
  if (values.length === 0) return false;
  const earlier = calls.filter((c) => c.position < before && c.ok);
  if (source === 'user') {
    const held = new Set(earlier.flatMap((c) => valueLeaves(c.result).map((l) => l.value)));
    return values.every((v) => !held.has(v));
  }
  if (source.part)
    return earlier.some(
      (c) =>
        c.tool === source.tool &&
        resultTexts(c.result).some((t) => t.path === source.path && values.some((v) => isPiece(t.text, v))),
    );
  const held = new Set(
    earlier
      .filter((c) => c.tool === source.tool)
      .flatMap((c) => valueLeaves(c.result).filter((l) => l.path === source.path))
      .map((l) => l.value),
  );
  return values.some((v) => held.has(v));
}
