/**
 * Names and descriptions a person (or a planner choosing by description) can read: a verb and its object
 * taken from what the cluster's users asked for, and a description that says what the procedure does and
 * when to use it. Built from the goals' distinctive words and the procedure's action, never by quoting one
 * persona's goal. Pure: word weights come in as a function.
 */

/** Verbs that name a task. Their order breaks ties: earlier ones are the more specific. */
const TASK_VERBS = [
  'exchange',
  'return',
  'refund',
  'cancel',
  'book',
  'reschedule',
  'upgrade',
  'downgrade',
  'change',
  'modify',
  'update',
  'transfer',
  'send',
  'schedule',
  'pay',
  'buy',
  'track',
  'reset',
  'restore',
  'fix',
  'enable',
  'disable',
  'activate',
  'renew',
  'add',
  'remove',
  'delete',
  'create',
  'move',
  'copy',
  'rename',
  'post',
  'share',
  'search',
  'find',
  'compare',
  'check',
  'list',
  'report',
  'calculate',
  'forward',
  'reply',
  'summarise',
  'summarize',
  'plan',
  'open',
] as const;

/** Words that say something is broken: such goals are fixes. */
const PROBLEM =
  /\b(not working|isn'?t working|stopped working|unable|can'?t|cannot|trouble|problem|broken|error|fails?|failing|no service|slow)\b/i;

/** Words never used as the object of a name (too general, or grammar). */
const FILLER = new Set(
  'the and you your are for with that this have has not but can will would want wants wanted also any all from into them they their then than when what which who how its our out was were been being very just only some more most other such each both few may might must should could about after before over under again once here there why where while because does did doing done get got make made like know need needs one two three first last new able sure please thanks thank hello help fine okay yes hi hey sorry really still past hours days today tomorrow yesterday agent customer user assistant someone something anything everything way time name id number either neither whether also even ever never always already instead rather quite much many lot lots bit excellent good great bad poor fair best better worse old recent quick fast urgent important different same whole entire current original wrong right correct expensive cheap cheaper cheapest possible available otherwise another'.split(
    ' ',
  ),
);

export interface NamingInput {
  /** Goals of the sessions the skill is learned from (normalised: typed placeholders such as <id>). */
  goals: readonly string[];
  /** Cues (first user messages) of those sessions, when known. */
  cues: readonly string[];
  /** The procedure's required tools in order, and the one that sets it apart (its action). */
  toolSequence: readonly string[];
  actionTool: string | null;
  /** How distinctive a goal word is across the namespace (an IDF; higher = rarer). */
  wordWeight: (word: string) => number;
}

export interface SkillWording {
  /** Lowercase words of the name, verb first, e.g. ['exchange', 'delivered', 'order']. */
  nameWords: string[];
  /** Title for the body, e.g. "Exchange Delivered Order Items". */
  title: string;
  /** agentskills-style description: what it does, then when to use it. */
  description: string;
  /** The distinctive request words the description mentions. */
  keywords: string[];
}

/** The verb, object and description of a procedure from its sessions' words. */
export function wordSkill(input: NamingInput): SkillWording {
  // "find out why" asks a question; it is not a request to find something.
  const texts = [...input.goals, ...input.cues].map((t) => clean(t).replace(/\bfind out\b/gi, 'learn'));
  const proper = properNouns(texts);
  const docs = texts.map((t) => new Set(words(t).filter((w) => !proper.has(w))));
  const n = Math.max(1, docs.length);
  const df = new Map<string, number>();
  for (const d of docs) for (const w of d) df.set(w, (df.get(w) ?? 0) + 1);

  const toolWords = toolWordsOf(input.actionTool ?? input.toolSequence[input.toolSequence.length - 1] ?? '');
  let verb = chooseVerb(df, n, toolWords, texts);

  // Object: the goals' most characteristic words (frequent here, rare across the namespace), nouns of the
  // request rather than names, backed by the action tool's own words.
  const ranked = [...df.entries()]
    .filter(([w, c]) => c / n >= 0.25 && w !== verb && !FILLER.has(w) && !(TASK_VERBS as readonly string[]).includes(w))
    // Share squared: a word nearly every request uses (goals and users' own words alike) beats a rarer one.
    .map(([w, c]) => ({ w, score: (c / n) ** 2 * (1 + input.wordWeight(w)) * (toolWords.includes(w) ? 1.5 : 1) }))
    .sort((a, b) => b.score - a.score || a.w.localeCompare(b.w));
  const keywords = ranked
    .filter((r) => (df.get(r.w) ?? 0) / n >= 0.5 && !/^.{4,}(ly|ing|ed)$/.test(r.w))
    .slice(0, 4)
    .map((r) => r.w);
  const toolVerb = toolWords.find((w) => (TASK_VERBS as readonly string[]).includes(w)) ?? null;
  const toolObject = toolWords.filter(
    (w, i) =>
      !(i === toolWords.indexOf(toolVerb ?? '') && w === toolVerb) && w !== verb && !FILLER.has(w) && w.length > 2,
  );
  // The action's own object when it does what the users asked (cancel + cancel_pending_order -> pending
  // order); the requests' common words otherwise (a fix, or an action such as an escalation that is not the task).
  // Nouns rather than adverbs and participles ("absolutely", "showing", "placed").
  const common = ranked.filter((r) => (df.get(r.w) ?? 0) / n >= 0.5 && !/^.{4,}(ly|ing|ed)$/.test(r.w)).map((r) => r.w);
  // Else the object of another step that does what was asked (an exchange that ends with a follow-up change).
  const matching =
    input.toolSequence
      .map(toolWordsOf)
      .find((ws) => ws.length > 1 && sameVerb(ws[0], verb))
      ?.slice(1)
      .filter((w) => w !== verb && !FILLER.has(w) && w.length > 2) ?? [];
  // A handful of requests share their persona's words, not the task's: there the action names the skill.
  if (
    verb !== 'fix' &&
    toolVerb &&
    !sameVerb(toolVerb, verb) &&
    matching.length === 0 &&
    toolObject.length > 0 &&
    n < 5
  )
    verb = toolVerb;
  const fromTool = verb !== 'fix' && toolObject.length > 0 && (toolVerb === null || sameVerb(toolVerb, verb));
  let object = fromTool
    ? toolObject.slice(0, 3)
    : verb !== 'fix' && matching.length
      ? matching.slice(0, 3)
      : common.slice(0, 2);
  // The action's object may be the verb itself (send_email for "email the forecast"): the requests' words then.
  if (object.length === 0) object = common.slice(0, 2);
  if (object.length === 0) object = toolObject.slice(0, 3);
  // A one-word object of the action (send_email) takes the word nearly every request shares (weather).
  const shared = common.find((w) => (df.get(w) ?? 0) / n >= 0.75 && !object.includes(w));
  if (object.length === 1 && shared) object = [...object, shared];
  const ordered = inTextOrder(object, texts);
  const nameWords = [...new Set([verb, ...ordered])];

  const title = nameWords.map(capitalise).join(' ');
  const thing = ordered.join(' ') || 'request';
  const steps = input.toolSequence.length;
  const first = input.toolSequence[0];
  const route =
    input.actionTool && first && first !== input.actionTool ? `, from \`${first}\` to \`${input.actionTool}\`` : '';
  const what = `${title}: the ${steps}-step procedure that worked for agents on this kind of request${route}.`;
  const when =
    verb === 'fix'
      ? ` Use when a user reports that their ${thing} is not working.`
      : ` Use when a user asks to ${verb} ${thing}.`;
  const mention = keywords.length ? ` Typical requests mention ${listJoin(keywords)}.` : '';
  return { nameWords, title, description: `${what}${when}${mention}`.replace(/[<>]/g, ''), keywords };
}

function chooseVerb(df: Map<string, number>, n: number, toolWords: string[], texts: string[]): string {
  // A task verb most of the requests use, the more specific first on a tie.
  let best: string | null = null;
  let bestShare = 0;
  for (const v of TASK_VERBS) {
    const share = (df.get(v) ?? 0) / n;
    if (share > bestShare + 1e-9) {
      best = v;
      bestShare = share;
    }
  }
  // A verb most requests share names the task.
  if (best && bestShare >= 0.5) return best;
  // Requests that describe something broken are fixes, whatever tool ended them.
  if (texts.filter((t) => PROBLEM.test(t)).length / Math.max(1, texts.length) >= 0.5) return 'fix';
  // The action tool's verb (cancel_pending_order -> cancel).
  // Requests worded every which way: the action says what is done (send_invite -> send).
  const toolVerb = toolWords.find((w) => (TASK_VERBS as readonly string[]).includes(w));
  if (toolVerb) return toolVerb;
  if (best && bestShare >= 0.3) return best;
  if (best) return best;
  return toolWords[0] ?? 'handle';
}

const VERB_GROUPS: readonly (readonly string[])[] = [
  ['change', 'update', 'modify', 'upgrade', 'downgrade', 'reschedule'],
  ['return', 'refund'],
  ['send', 'email', 'forward', 'reply', 'post', 'share'],
  ['find', 'search', 'check', 'list'],
  ['remove', 'delete', 'cancel'],
  ['buy', 'book'],
];

/** The words of a tool name: cancel_pending_order, cancelPendingOrder -> cancel, pending, order. */
function toolWordsOf(tool: string): string[] {
  return tool
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[^a-zA-Z]+/)
    .map((w) => w.toLowerCase())
    .filter(Boolean);
}

/** Words in the order the requests use them most often ("mobile data", not "data mobile"). */
function inTextOrder(chosen: readonly string[], texts: readonly string[]): string[] {
  if (chosen.length < 2) return [...chosen];
  const before = (a: string, b: string) => {
    let votes = 0;
    for (const t of texts) {
      const lower = ` ${t.toLowerCase()} `;
      const ia = lower.search(new RegExp(`[^a-z]${a}[^a-z]`));
      const ib = lower.search(new RegExp(`[^a-z]${b}[^a-z]`));
      if (ia >= 0 && ib >= 0) votes += ia < ib ? 1 : -1;
    }
    return votes;
  };
  return [...chosen].sort((a, b) => -before(a, b) || chosen.indexOf(a) - chosen.indexOf(b));
}

/** Two verbs that name the same kind of act (a request to change answered by an update). */
function sameVerb(a: string, b: string): boolean {
  return a === b || VERB_GROUPS.some((g) => g.includes(a) && g.includes(b));
}

/**
 * Words written with a capital inside a sentence (and never in lower case): names of people, places and
 * products, which must never name a skill.
 */
function properNouns(texts: readonly string[]): Set<string> {
  const capital = new Set<string>();
  const lower = new Set<string>();
  for (const t of texts) {
    const re = /[A-Za-z']+/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(t))) {
      const w = m[0].toLowerCase().replace(/'s$/, '').replace(/'/g, '');
      const before = t.slice(0, m.index).trimEnd();
      const sentenceStart = before === '' || /[.!?:]$/.test(before);
      if (/^[A-Z]/.test(m[0])) {
        if (!sentenceStart) capital.add(w);
      } else lower.add(w);
    }
  }
  return new Set([...capital].filter((w) => !lower.has(w)));
}

/** Lowercase words of a text, without typed placeholders and possessives. */
function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z']+/)
    .map((w) => w.replace(/'s$/, '').replace(/'/g, ''))
    .filter((w) => w.length >= 3);
}

function clean(text: string): string {
  return text
    .replace(/<[a-z_]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function listJoin(xs: string[]): string {
  if (xs.length <= 1) return xs.join('');
  return `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** `base`, or `base-2`, `base-3`, ...: the first name not in `taken`, never over the 64-character name limit. */
export function uniqueName(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) {
    const suffix = `-${i}`;
    const candidate = `${base.slice(0, 64 - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}
