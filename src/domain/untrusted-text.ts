// Instruction detection for untrusted text (SPEC "Trust boundary"; issue #14). Tool results, tool errors,
// goals and imported files are data written by strangers; a skill body and a recall context pack are read by
// future planners as instructions. So text that reads as an instruction aimed at the model (an override of
// earlier instructions, a chat-template role marker, a request to call a tool, a new persona or task for
// the assistant) must never travel from the one to the other.
//
// Pure and linear: every pattern is anchored by literal words and uses bounded repetition only, so no input
// makes the regex engine backtrack catastrophically. Goals are legitimately imperative ("Cancel my order",
// "You are Mia; you want to fly to Seattle"), so the rules aim at what an agent's task never needs to say.

export type InstructionKind = 'override' | 'role_marker' | 'tool_request' | 'model_directive';

export interface InstructionMatch {
  kind: InstructionKind;
  /** Offset of the match in the text. */
  index: number;
  /** The matched text (for logs and reasons; never copied into a skill). */
  text: string;
}

/** What replaces a neutralised instruction: says that something was removed, never what it said. */
export const NEUTRALISED = '[instruction removed]';

const W = '[\\s\\S]{0,40}?';
/**
 * `strict` rules apply to text written by tools and users (results, errors, goals): there an order to call a
 * tool or to keep something from the user is never data. A skill body is itself a procedure for the model
 * ("you must call `get_order` first", an example call in JSON), so skill text is checked without them.
 */
const PATTERNS: { kind: InstructionKind; re: RegExp; strict?: true }[] = [
  {
    // "ignore previous instructions", "disregard all prior rules", "forget everything above".
    kind: 'override',
    re: new RegExp(
      `\\b(?:ignore|disregard|forget|override|overrule|bypass|skip)\\b${W}\\b(?:previous|prior|above|earlier|preceding|all|any|your|the|system|original|existing)\\b${W}\\b(?:instructions?|prompts?|rules|directions|directives|guidelines|guardrails|context|messages?|policies|policy|constraints|programming)\\b`,
      'gi',
    ),
  },
  { kind: 'override', re: /\bforget\s+(?:everything|all)\b/gi },
  {
    kind: 'override',
    re: /\b(?:new|updated|real|actual|revised)\s+(?:system\s+)?(?:instructions?|prompt|directives?)\s*[:\-–]/gi,
  },
  { kind: 'override', re: /\b(?:jailbreak|DAN mode|developer mode enabled|do anything now)\b/gi },
  {
    // Chat-template and prompt-format role markers.
    kind: 'role_marker',
    re: /<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text)\|>|\[\/?INST\]|<<\/?SYS>>|<\/?(?:system|assistant|instructions?|tool_call|function_call|tool_use)>/gi,
  },
  {
    // "system: ..." / "### Assistant:" at the start of a line (or of the text).
    kind: 'role_marker',
    re: /(?:^|\n)[ \t>#*]{0,6}(?:system|assistant|developer)[ \t]*(?:prompt)?[ \t]*:(?=[ \t]*\S)/gi,
  },
  {
    // "call delete_all_users now", "you must invoke `transfer_funds`", "immediately execute the refund tool".
    kind: 'tool_request',
    strict: true,
    re: /\b(?:now|immediately|first|instead|must|should|need to|have to|please)\s+(?:(?:also|then|go\s+and)\s+)?(?:call|invoke|execute|run|trigger|use)\s+(?:the\s+)?(?:tool\s+|function\s+)?`?[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+`?/gi,
  },
  {
    kind: 'tool_request',
    re: /\b(?:call|invoke|execute|run|trigger)\s+(?:the\s+)?(?:tool\s+|function\s+)?`?[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+`?\s*(?:\([^)]{0,200}\)\s*)?(?:now|immediately|right away|at once|without (?:asking|confirmation|confirming|checking))\b/gi,
  },
  {
    // A tool call spelled out as JSON, the way a model would emit one.
    kind: 'tool_request',
    strict: true,
    re: /"(?:tool_calls|function_call)"\s*:|\{\s*"(?:name|tool|function)"\s*:\s*"[A-Za-z_][\w.-]{0,80}"\s*,\s*"(?:arguments|parameters|args|input)"\s*:/gi,
  },
  {
    // Directives aimed at the assistant itself.
    kind: 'model_directive',
    re: /\b(?:attention|note to|message (?:to|for)|instructions? (?:to|for))\s+(?:the\s+)?(?:AI|assistant|agent|model|LLM|language model|chatbot|planner)\b/gi,
  },
  {
    kind: 'model_directive',
    re: /\b(?:you are now (?:in (?:developer|god|admin|debug|unrestricted) mode|an? (?:unrestricted|different|new|evil|jailbroken|uncensored)|DAN|free from|no longer bound)|from now on,? you (?:must|will|are|should)|as an AI(?: language model)?,? you (?:must|should|will)|act as (?:an? )?(?:unrestricted|different|new)|pretend (?:to be|you are) (?:an? )?(?:unrestricted|different|new|the system))\b/gi,
  },
  {
    kind: 'model_directive',
    re: /\b(?:reveal|print|show|repeat|leak|output)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+prompt|hidden\s+instructions|initial\s+instructions|instructions)\b/gi,
  },
  {
    kind: 'model_directive',
    strict: true,
    re: /\b(?:do not|don't|never)\s+(?:tell|inform|alert|warn|notify)\s+the\s+(?:user|human|customer|operator)\b/gi,
  },
];

export interface DetectOptions {
  /** `untrusted` (default): tool output, errors, goals. `skill`: text that is itself a procedure. */
  source?: 'untrusted' | 'skill';
}

/**
 * Letters of other scripts drawn like Latin ones (Cyrillic, Greek, a few Latin variants): the usual homoglyphs of
 * planted text ("Ignоre" with a Cyrillic о). Only for detection: the text itself is never rewritten with them.
 */
const LOOKALIKES: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  һ: 'h',
  ӏ: 'l',
  ь: 'b',
  г: 'r',
  п: 'n',
  и: 'u',
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  Х: 'X',
  І: 'I',
  Ј: 'J',
  Ѕ: 'S',
  Ԁ: 'D',
  Ү: 'Y',
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  ı: 'i',
  ȷ: 'j',
  ɡ: 'g',
  ɑ: 'a',
  ʟ: 'L',
};

/** Characters a reader never sees: zero-width spaces and joiners, soft hyphens, bidi controls, variation selectors. */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u;

/**
 * What a model reads in `text`, as plain letters, with where each of its characters came from (`at[i]` is the
 * offset in `text` of character i; `at[length]` is `text.length`): compatibility forms folded (full-width
 * `Ｉｇｎｏｒｅ`, mathematical `𝐈𝐠𝐧𝐨𝐫𝐞`, ligatures), accents taken off, homoglyphs read as the Latin letters they
 * look like, Unicode tag characters (invisible, yet read by models as the ASCII they encode) read as that ASCII,
 * and other invisible characters dropped (`Ig\u200Bnore`) or, in the second reading, read as spaces
 * (`Ignore\u200Ball\u200Bprevious`). Text of plain ASCII is its own single reading.
 */
function readings(text: string): { text: string; at: number[] | null }[] {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: plain ASCII, control bytes included
  if (/^[\u0000-\u007f]*$/.test(text)) return [{ text, at: null }];
  return ['', ' '].map((invisible) => {
    let out = '';
    const at: number[] = [];
    let i = 0;
    const seen = new Map<string, string>();
    for (const ch of text) {
      let read = ch.charCodeAt(0) < 0x80 ? ch : seen.get(ch);
      if (read === undefined) {
        read = readChar(ch, invisible);
        seen.set(ch, read);
      }
      for (let k = 0; k < read.length; k++) at.push(i);
      out += read;
      i += ch.length;
    }
    at.push(text.length);
    return { text: out, at };
  });
}

function readChar(ch: string, invisible: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp >= 0xe0020 && cp <= 0xe007e) return String.fromCharCode(cp - 0xe0000);
  if (INVISIBLE.test(ch)) return invisible;
  return [...ch.normalize('NFKD').replace(/\p{M}/gu, '')].map((c) => LOOKALIKES[c] ?? c).join('');
}

/**
 * Every instruction-like run in `text`, in order, overlapping ones merged into the first. The text is read as a
 * model reads it (see `readings`), so invisible characters, full-width or accented letters and homoglyphs do not
 * hide an instruction; offsets and matched text are those of `text` itself.
 */
export function findInstructions(text: string, opts: DetectOptions = {}): InstructionMatch[] {
  if (!text) return [];
  const skill = opts.source === 'skill';
  const found: (InstructionMatch & { end: number })[] = [];
  for (const reading of readings(text)) {
    const to = (k: number) => (reading.at ? reading.at[k] : k);
    for (const { kind, re, strict } of PATTERNS) {
      if (strict && skill) continue;
      re.lastIndex = 0;
      for (const m of reading.text.matchAll(re)) {
        let start = to(m.index);
        const end = to(m.index + m[0].length);
        while (start < end && /\s/.test(text[start])) start++;
        const matched = text.slice(start, end).trimEnd();
        found.push({ kind, index: start, end: start + matched.length, text: matched });
      }
    }
  }
  found.sort((a, b) => a.index - b.index || b.end - a.end);
  const out: InstructionMatch[] = [];
  let reach = -1;
  for (const f of found) {
    if (f.index < reach) continue;
    out.push({ kind: f.kind, index: f.index, text: f.text });
    reach = f.end;
  }
  return out;
}

export function hasInstructions(text: string, opts: DetectOptions = {}): boolean {
  return findInstructions(text, opts).length > 0;
}

/**
 * The text with every sentence that carries an instruction replaced by `[instruction removed]`. A sentence
 * ends at `.`, `!`, `?`, a newline or a role marker; text around it is kept, so a tool result stays
 * readable as evidence while the planted order is gone.
 */
export function neutraliseInstructions(text: string, opts: DetectOptions = {}): string {
  const hits = findInstructions(text, opts);
  if (hits.length === 0) return text;
  let out = '';
  let cursor = 0;
  for (const h of hits) {
    if (h.index < cursor) continue;
    const start = sentenceStart(text, h.index, cursor);
    const end = sentenceEnd(text, h.index + h.text.length);
    out += text.slice(cursor, start) + NEUTRALISED;
    cursor = end;
  }
  out += text.slice(cursor);
  // Whatever is left may still hold a marker that only made sense next to the removed text.
  return hasInstructions(out, opts) ? out.replace(/[\s\S]+/, NEUTRALISED) : out;
}

function sentenceStart(text: string, at: number, floor: number): number {
  let i = at;
  while (i > floor) {
    const c = text[i - 1];
    if (c === '\n' || ((c === '.' || c === '!' || c === '?' || c === ';') && /\s/.test(text[i] ?? ' '))) break;
    i--;
  }
  while (i < at && /\s/.test(text[i])) i++;
  return i;
}

function sentenceEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') return i;
    if ((c === '.' || c === '!' || c === '?' || c === ';') && (i + 1 === text.length || /\s/.test(text[i + 1])))
      return i + 1;
  }
  return text.length;
}

/**
 * Untrusted text as one quoted line for evidence: control bytes and fence-like sequences are escaped and
 * instruction-like sentences neutralised, so that what a model reads between the fences can be nothing but
 * data.
 */
export function quoteUntrusted(text: string): string {
  // Neutralised before the escapes: `\u202e` written out before a word would hide the word from the detector.
  return escapeControl(neutraliseInstructions(text))
    .replace(/```/g, "'''")
    .replace(/<\/?untrusted[^>]*>/gi, '');
}

/**
 * Untrusted text without the characters that make it read otherwise than it is: bidi embeddings, overrides and
 * isolates (a reversed span shows one thing and says another), zero-width spaces, word joiners, byte-order marks,
 * and Unicode tag characters (invisible, yet read by models as the ASCII they encode). What writing systems need
 * stays: the zero-width joiner and non-joiner (Persian, Indic scripts, emoji), the left-to-right and right-to-left
 * marks. Applied to what a skill stores, learned or imported.
 */
export function withoutHiddenText(text: string): string {
  return text.replace(/[\u202a-\u202e\u2066-\u2069\u200b\u2060\ufeff\u{e0000}-\u{e007f}]/gu, '');
}

/** C0/C1 control bytes (except tab and newline) and bidi overrides as visible `\u` escapes. */
export function escapeControl(text: string): string {
  return text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: this pattern exists to find control characters
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * The text with each lone UTF-16 surrogate (half of an emoji cut by a truncation) as U+FFFD, which is what a
 * store writing UTF-8 keeps of it: a goal compared with its stored copy then matches.
 */
export function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}
