/**
 * Names and descriptions a person (or a planner choosing by description) can read: a verb and its object
 * taken from what the cluster's users asked for, and a description that says what the procedure does and
 * when to use it. Built from the goals' distinctive words and the procedure's action, never by quoting one
 * persona's goal. Pure: word weights come in as a function.
 */

import { isCommandRunner, programWords } from './commands.js';
import { chooseActionTool, LOOKUP_VERBS, roleOf, TASK_VERBS, toolWordsOf } from './step-role.js';
import { functionWordsOf, languagesOf } from './function-words.js';
import { COMMON_TOOL_SHARE } from './term-stats.js';
import { stem } from './word-match.js';

/** Words that say something is broken: such goals are fixes. */
const PROBLEM =
  /\b(not working|isn'?t working|stopped working|unable|can'?t|cannot|trouble|problem|broken|error|fails?|failing|no service|slow)\b/i;

/**
 * "fix" or "release" as a noun, a thing the request names rather than an act it asks for: after a determiner,
 * with up to three words between that join no clause ("the currency rounding fix", "the 2.3.0 release", "the new
 * release section"; not "the test and fix it").
 */
const NAMED_FIX =
  /\b((?:the|a|an|this|that|these|those|my|your|our|their|its)\s+(?:(?!(?:and|or|then|to|please|so|but)\b)[a-z0-9.-]+\s+){0,3})(?:fix|release)\b/gi;

/** Words never used as the object of a name (too general, or grammar). */
const FILLER = new Set(
  'unable too ones off the and you your are for with that this have has not but can will would want wants wanted also any all from into them they their then than when what which who how its our out was were been being very just only some more most other such each both few may might must should could about after before over under again once here there why where while because does did doing done get got make made like know need needs one two three first last new able sure please thanks thank hello help fine okay yes hi hey sorry really pls plz thx ty asap btw ok lol still past hours days today tomorrow yesterday agent customer user assistant someone something anything everything way time name id number either neither whether also even ever never always already instead rather quite much many lot lots bit excellent good great bad poor fair best better worse old recent quick fast urgent important different same whole entire current original wrong right correct expensive cheap cheaper cheapest possible available otherwise another'.split(
    ' ',
  ),
);

/** Words of chat that say nothing about the task, among the users' own words (first messages). */
const CHAT_FILLER = new Set(
  'use used using had less thing things anymore back hope assist fun now well soon since though actually honestly pretty'.split(
    ' ',
  ),
);

export interface NamingInput {
  /** Goals of the sessions the skill is learned from (normalised: typed placeholders such as <id>). */
  goals: readonly string[];
  /** Cues (first user messages) of those sessions, when known. */
  cues: readonly string[];
  /** The procedure's required tools in order. */
  toolSequence: readonly string[];
  /**
   * The head of the command each of those steps runs (commandHead: `pg_dump`, `aws s3`), null for a step that runs
   * none: what names a command runner's procedure when its requests share no word a name can use.
   */
  commands?: readonly (string | null)[];
  /** How the description says each step that runs a command (commandPhrase: `npm run lint`), null for the others. */
  said?: readonly (string | null)[];
  /** How distinctive a tool is across the namespace (an IDF; higher = rarer): finds the action among the steps. */
  toolWeight?: (tool: string) => number;
  /**
   * The share of the namespace's sessions that call a tool: an acting tool most of them call (a coding agent's
   * Edit) says how the agent works, not what it was asked to do.
   */
  toolShare?: (tool: string) => number;
  /** The step that sets the procedure apart, when the caller already knows it (else chosen here). */
  actionTool?: string | null;
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
  /**
   * Words that tell this procedure from another of the same name, best first: what its other acting steps
   * do (fill-fuel-tank vs fill-fuel-tank-post-tweet). A name taken already takes the first free one.
   */
  qualifiers: string[][];
  /** The step the procedure leads to (its action), as named in the description. */
  actionTool: string | null;
}

/** The verb, object and description of a procedure from its sessions' words. */
export function wordSkill(input: NamingInput): SkillWording {
  // "find out why" asks a question; it is not a request to find something. Nor is a fix or a release the request
  // names ("note the fix in the changelog", "an entry for the 2.3.0 release") one it asks for.
  const texts = [...input.goals, ...input.cues].map((t) =>
    clean(t)
      .replace(/\bfind out\b/gi, 'learn')
      .replace(NAMED_FIX, '$1'),
  );
  const proper = properNouns(texts);
  // Words the requests write in capitals (MMS, APN): the title keeps them so.
  // A word the requests write in capitals and never otherwise (MMS, not the START of "start it in 'START' mode").
  const otherwise = new Set(texts.flatMap((t) => t.match(/\b[A-Za-z][a-z]+\b/g) ?? []).map((w) => w.toLowerCase()));
  const acronyms = new Set(
    texts
      .flatMap((t) => t.match(/\b[A-Z]{2,5}\b/g) ?? [])
      .map((w) => w.toLowerCase())
      .filter((w) => !otherwise.has(w)),
  );
  const docs = texts.map((t) => new Set(words(t).filter((w) => !proper.has(w))));
  const n = Math.max(1, docs.length);
  const df = new Map<string, number>();
  for (const d of docs) for (const w of d) df.set(w, (df.get(w) ?? 0) + 1);
  const stemDocs = docs.map((d) => new Set([...d].map(stem)));
  const stemShare = (w: string) => stemDocs.filter((d) => d.has(w)).length / n;

  const action =
    input.actionTool !== undefined && input.actionTool !== null
      ? input.actionTool
      : chooseActionTool(input.toolSequence, input.toolWeight ?? (() => 0), (w) => stemShare(stem(w)));
  const actionWords = action ? toolWordsOf(action) : [];
  const actionRole = action ? roleOf(action) : 'lookup';
  const actionVerb = actionRole === 'action' ? (actionWords[0] ?? null) : null;

  // The procedure's own vocabulary: the nouns of its tools' names (order, reservation, watchlist). A request
  // word that is also one of these is the task's object; other shared words (moods, dates, a persona's
  // story) only fill in where the tools say nothing.
  // A file editor's words (apply patch) are no task's object either.
  const vocabulary = new Set(
    input.toolSequence
      .filter((t) => roleOf(t) !== 'handoff' && !isCommandRunner(t) && !FILE_EDITOR.test(t))
      .flatMap((t) =>
        toolWordsOf(t)
          .filter((w, k) => k > 0 && !TOOL_FILLER.has(w) && !FILLER.has(w))
          .map(stem),
      ),
  );
  // Nouns most requests share (frequent here, rare across the namespace), never names, adverbs or participles.
  const ranked = [...df.entries()]
    .filter(
      ([w, c]) =>
        c / n >= 0.5 &&
        // Shared: in two requests at least, when there are two (one of two is one session's word).
        c >= Math.min(2, docs.length) &&
        !FILLER.has(w) &&
        !(TASK_VERBS as readonly string[]).includes(w) &&
        !/^.{2,}(ly|ing|ed)$/.test(w),
    )
    // Share squared: a word nearly every request uses (goals and users' own words alike) beats a rarer one.
    .map(([w, c]) => ({
      w,
      tool: vocabulary.has(stem(w)),
      score: (c / n) ** 2 * (1 + input.wordWeight(w)),
    }))
    // Tools that name nothing (a command runner's steps) leave the requests' words most of them share.
    .filter((r) => r.tool || (df.get(r.w) ?? 0) / n >= (vocabulary.size ? 0.75 : 0.5))
    .sort((a, b) => Number(b.tool) - Number(a.tool) || b.score - a.score || a.w.localeCompare(b.w));
  // The requests' words that name one of the tools' objects: the task's object. Other shared words (a
  // persona's mood, dates, story) name only what is broken in a fix ("no service").
  const nouns = ranked.filter((r) => r.tool).map((r) => r.w);
  const symptoms = [...ranked]
    .sort((a, b) => b.score * (b.tool ? 2 : 1) - a.score * (a.tool ? 2 : 1) || a.w.localeCompare(b.w))
    .map((r) => r.w);

  const { verb: asked, share } = sharedVerb(df, n);
  // Most requests, not one of two: "if it already exists, return an error" is an instruction, not a fault.
  const problem = texts.filter((t) => PROBLEM.test(t)).length / n > 0.5;
  // A step that does what the users asked for (a request to change answered by update_reservation_flights).
  const doing = (v: string) =>
    v === actionVerb
      ? action
      : (input.toolSequence.find((t) => roleOf(t) === 'action' && sameVerb(toolWordsOf(t)[0], v)) ??
        // A request to check or find answered by the lookup of that name (check_tire_pressure).
        (LOOKUP_VERBS.has(v) ? input.toolSequence.find((t) => toolWordsOf(t)[0] === v) : undefined) ??
        null);
  let verb: string;
  const askedByMost = !!asked && share >= 0.5;
  // The users' verb when a step does it; a fix when they report something broken; else what the acting step
  // does (a request worded every which way, or whose verb no step performs); a request that only ends with a
  // person is theirs to name, or an escalation.
  // A procedure in which no step acts only looks things up (and may hand over to a person): it checks or
  // escalates what was asked, it does not do it ("check-flight-change", not "change-flight").
  let asking: string | null = null;
  // Named by the users' verb over a generic tool: the tools (Grep: search file) name no object of the task either.
  let toolsNameNothing = false;
  // An acting tool most of the namespace's sessions call (Edit) names no task: the users' verb does (rename). Nor
  // does a coding agent's file editor, however few of its sessions edit: `apply_patch` says how, not what.
  const generic = !!action && ((input.toolShare?.(action) ?? 0) > COMMON_TOOL_SHARE || FILE_EDITOR.test(action));
  if (askedByMost && doing(asked!)) verb = asked!;
  // A request to fix something is a fix whatever step does it (an edit, a reset): no tool is named "fix".
  else if (problem || (askedByMost && asked === 'fix')) verb = 'fix';
  else if (actionVerb && generic && askedByMost && !LOOKUP_VERBS.has(asked!)) {
    verb = asked!;
    toolsNameNothing = true;
  } else if (actionVerb && FILE_EDITOR.test(action!)) {
    // A file editor's own words (apply patch) say how the files changed, not what the task is: an edit of what
    // the requests name (edit-version-changelog).
    verb = 'edit';
    toolsNameNothing = true;
  } else if (actionVerb) verb = actionVerb;
  else if (askedByMost && !LOOKUP_VERBS.has(asked!)) {
    verb = actionRole === 'handoff' ? 'escalate' : 'check';
    asking = NOMINAL[asked!] ?? asked!;
  } else if (askedByMost) verb = asked!;
  else if (actionRole === 'handoff') verb = 'escalate';
  // A procedure that only reads, asked for every which way: a verb of some requests that one of its steps does
  // (check_tire_pressure for "check"), else what its last step does when that says a task (grep: search, tail:
  // show), never the verb of one request of several that nothing does ("Post review, sort the lines").
  else if (asked && doing(asked)) verb = asked;
  // A coding agent's file reader (Read) says how it looked, not what: a check of what most requests name ("why CI
  // failed" read in the log and the test: check-ci, not read).
  else if (FILE_READER.test(action ?? '') && symptoms.length > 0) {
    verb = 'check';
    toolsNameNothing = true;
  } else if (actionWords[0] && READING_VERBS.has(actionWords[0])) verb = actionWords[0];
  else verb = asked ?? actionWords[0] ?? 'handle';

  // Object: the words of the step that does the asked thing (cancel_pending_order -> pending order), else
  // what the requests have in common (a fix names what is broken), else the action's own words.
  const step = verb === 'fix' ? null : doing(verb);
  const objectOf = (tool: string) => {
    // A command runner's name (Bash, run_shell) says how a step runs, never what it acts on; a file editor's
    // (apply_patch) how files change.
    if (isCommandRunner(tool) || FILE_EDITOR.test(tool)) return [];
    const ws = toolWordsOf(tool);
    // The first word of a step named by a verb is its verb, never its object (sort, get_order_details).
    const named = roleOf(tool) === 'action' || LOOKUP_VERBS.has(ws[0] ?? '');
    const own = ws.filter(
      (w, i) => !(i === 0 && (named || sameVerb(w, verb))) && w !== verb && !TOOL_FILLER.has(w) && w.length > 2,
    );
    // Words that say nothing in a request ("the customer wants") still name what a step acts on when they are
    // all it names (add_customer: customer).
    const telling = own.filter((w) => !FILLER.has(w));
    return telling.length || roleOf(tool) !== 'action' ? telling : own;
  };
  let object = step ? objectOf(step).slice(0, 3) : (verb === 'fix' ? brokenThing(texts, symptoms) : nouns).slice(0, 2);
  if (object.length === 0) object = nouns.slice(0, 2);
  // Else what the procedure looks at before it acts (get_order_details -> order), then the action's own words.
  const looked = [...input.toolSequence].reverse().find((t) => roleOf(t) === 'lookup' && objectOf(t).length > 0);
  if (object.length === 0 && looked && !toolsNameNothing) object = objectOf(looked).slice(0, 2);
  if (object.length === 0 && action && !toolsNameNothing) object = objectOf(action).slice(0, 3);
  // Last: what nearly every request mentions (a verb alone names no task).
  if (object.length === 0) object = symptoms.slice(0, 2);
  // Requests that share no word a name can use (written in Chinese or Russian, or worded every which way) leave a
  // procedure named by its command runner's verb the program it runs (run-pg-dump), not a bare "run". A verb the
  // users asked with ("rename") says the task already.
  if (object.length === 0 && action && isCommandRunner(action) && verb === actionWords[0])
    object = programWords(input.commands ?? []).filter((w) => w !== verb);
  // The action's object may be the verb itself (send_email for "email the forecast"): add what most requests share,
  // but not what another acting step acts on (a tweet posted and a tank filled are two tasks, not a "tweet tank").
  const otherActs = new Set(
    input.toolSequence
      .filter((t) => t !== step && roleOf(t) === 'action')
      .flatMap((t) => toolWordsOf(t).slice(1))
      .map(stem),
  );
  const extra = nouns.find(
    (w) =>
      vocabulary.has(stem(w)) &&
      !otherActs.has(stem(w)) &&
      (df.get(w) ?? 0) / n >= 0.75 &&
      !object.some((o) => stem(o) === stem(w)),
  );
  if (object.length === 1 && extra) object = [...object, extra];
  // The head noun as the requests say it (flights or flight); the words before it stay as the tool has them.
  if (object.length) object[object.length - 1] = surfaceForm(object[object.length - 1], df);
  // What was asked, after its object: check-flight-change, escalate-order-return.
  if (asking) object = [...object.slice(0, 1).map((w) => surfaceForm(singular(w), df)), asking];
  // A tool's words keep the tool's order (delivered order items); the requests' own words take theirs.
  const ordered =
    asking || (step && object.every((w) => objectOf(step).some((x) => stem(x) === stem(w))))
      ? object
      : inTextOrder(object, texts);
  const seen = new Set<string>();
  const nameWords = [verb, ...ordered].filter((w) => {
    const k = stem(w);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });

  // What users say, when their own words are known (first messages), else the goals: the description's
  // "typical requests mention", so that a planner matching on words finds it.
  const said = input.cues.length >= 2 ? input.cues.map(clean) : texts;
  const saidDocs = said.map((t) => new Set(words(t).filter((w) => !proper.has(w))));
  const saidShare = (w: string) => saidDocs.filter((d) => d.has(w)).length / Math.max(1, saidDocs.length);
  // The users' own words most of their first messages share, after the goals' ("make calls" when the task
  // statements only say "No Service").
  const usersOwn =
    said === texts || input.cues.length < 3
      ? []
      : [...new Set(saidDocs.flatMap((d) => [...d]))]
          .filter(
            (w) =>
              saidShare(w) >= 0.5 &&
              !FILLER.has(w) &&
              !CHAT_FILLER.has(w) &&
              !(TASK_VERBS as readonly string[]).includes(w) &&
              !/^.{2,}(ly|ing|ed)$/.test(w),
          )
          .sort((a, b) => saidShare(b) - saidShare(a) || a.localeCompare(b));
  // A typical word is said in several sessions' requests: at least three task statements, or three first
  // messages, say it. Not one request twice (its statement and its first message), not one task replayed twice:
  // a camera two runs of one persona wanted returned is no typical request.
  const saidIn = (sets: readonly Set<string>[]) => (w: string) => sets.filter((d) => d.has(w)).length;
  const inGoals = saidIn(docs.slice(0, input.goals.length));
  const inCues = saidIn(docs.slice(input.goals.length));
  const spread = (w: string) => inGoals(w) >= 3 || inCues(w) >= 3;
  const keywords = [...new Set([...ranked.map((r) => r.w), ...usersOwn])]
    .filter((w) => saidShare(w) >= 0.3 && spread(w))
    .filter((w) => !nameWords.some((x) => stem(x) === stem(w)))
    .slice(0, 5);
  const title = nameWords.map((w) => (acronyms.has(w) ? w.toUpperCase() : capitalise(w))).join(' ');
  const thingWords = nameWords.slice(1).map((w) => (acronyms.has(w) ? w.toUpperCase() : w));
  const thing = thingWords.join(' ') || 'request';
  const what = `${title}: ${summarizeSteps(input.toolSequence, objectOf, input.said ?? [])}.`;
  const when =
    verb === 'fix'
      ? ` Use when a user reports a problem with their ${thing}.`
      : asking
        ? ` Use when a user asks to ${asked} their ${thingWords.slice(0, -1).join(' ') || 'request'}: it looks up what that needs${actionRole === 'handoff' ? ' and hands the case to a person' : ' and answers'}, changing nothing itself.`
        : ` Use when a user asks to ${verb} ${VERB_PREPOSITION[verb] ?? ''}${toolsNameNothing && !thingWords.length ? 'something' : thing}.`;
  const mention = keywords.length ? ` Typical requests mention ${listJoin(keywords)}.` : '';
  return {
    nameWords,
    title,
    description: `${what}${when}${mention}`.replace(/[<>]/g, ''),
    keywords,
    actionTool: action,
    qualifiers: qualifiersOf(input, action, nameWords, keywords),
  };
}

/**
 * What the steps do, in a sentence: "looks up the customer and bills, then sends a payment request and resumes
 * the line (7 steps)". Tool names are the vocabulary; the lookups are summed up, the acting steps named.
 */
function summarizeSteps(
  sequence: readonly string[],
  objectOf: (tool: string) => string[],
  said: readonly (string | null)[],
): string {
  // A step that runs a command is said by the command (runs git diff), never by words its arguments gave the step
  // (a `git diff --stat package.json` was "looks up json").
  const commands = [...new Set(sequence.flatMap((_, i) => (said[i] ? [said[i]!] : [])))];
  const distinct = [...new Set(sequence.filter((_, i) => !said[i]))];
  const looked = [
    ...new Set(distinct.filter((t) => roleOf(t) === 'lookup').flatMap((t) => objectOf(t).slice(0, 2).join(' ') || [])),
  ];
  const acts = distinct
    .filter((t) => roleOf(t) !== 'lookup')
    .map((t) => {
      if (roleOf(t) === 'handoff') return 'hands over to a human agent';
      const [verb, ...rest] = toolWordsOf(t);
      const obj = rest.filter((w) => !TOOL_FILLER.has(w)).join(' ');
      return `${thirdPerson(verb)}${obj ? ` ${VERB_PREPOSITION[verb] ?? ''}${obj}` : ''}`;
    });
  const parts: string[] = [];
  if (looked.length) parts.push(`looks up ${listJoin(looked.slice(0, 4), 'and')}`);
  const doing = [...acts.slice(0, 4), ...(commands.length ? [`runs ${listJoin(commands.slice(0, 5), 'and')}`] : [])];
  if (doing.length) parts.push(`${parts.length ? 'then ' : ''}${listJoin(doing, 'and')}`);
  const summary = parts.join(', ') || 'a procedure learned from agents';
  return `${summary} ${stepCountClause(sequence.length)}`;
}

/** The clause a learned description says its procedure's length with: "(5 steps that worked for agents on ...)". */
function stepCountClause(steps: number): string {
  return `(${steps} step${steps === 1 ? '' : 's'} that worked for agents on this kind of request)`;
}

/** stepCountClause as written, any count. */
const STEP_COUNT_CLAUSE = /\((\d+) steps? that worked for agents on this kind of request\)/;

/** The step count a description's learned clause says (stepCountClause), or null when it has none. */
export function stepCountOf(description: string): number | null {
  const m = STEP_COUNT_CLAUSE.exec(description);
  return m ? Number(m[1]) : null;
}

/** The description with its learned clause saying `steps` steps (unchanged when it has no such clause). */
export function withStepCount(description: string, steps: number): string {
  return description.replace(STEP_COUNT_CLAUSE, () => stepCountClause(steps));
}

/** Whether two descriptions are the same words but for the step count their learned clauses say. */
export function sameWordingButSteps(a: string, b: string): boolean {
  return a === b || withStepCount(a, 0) === withStepCount(b, 0);
}

/** Verbs whose object takes a preposition: "replies to email", "subscribes to channel". */
const VERB_PREPOSITION: Readonly<Record<string, string>> = {
  reply: 'to ',
  respond: 'to ',
  subscribe: 'to ',
  unsubscribe: 'from ',
  comment: 'on ',
  vote: 'on ',
};

function thirdPerson(verb: string): string {
  if (/(s|sh|ch|x|z)$/.test(verb)) return `${verb}es`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

/**
 * Words a name can take on to tell it from another of the same name: what its other acting steps do, the rarer
 * in the namespace first, then what its lookups look at, then what most of its requests mention.
 */
function qualifiersOf(
  input: NamingInput,
  action: string | null,
  nameWords: readonly string[],
  keywords: readonly string[],
): string[][] {
  const weight = input.toolWeight ?? (() => 0);
  const used = new Set(nameWords.map(stem));
  const steps = [...new Set(input.toolSequence)].filter((t) => t !== action && roleOf(t) === 'action');
  steps.sort((a, b) => weight(b) - weight(a) || input.toolSequence.indexOf(a) - input.toolSequence.indexOf(b));
  const out: string[][] = [];
  for (const t of steps) {
    const words = toolWordsOf(t).filter((w) => !used.has(stem(w)) && !TOOL_FILLER.has(w) && w.length > 1);
    if (words.length && !out.some((q) => q.join(' ') === words.join(' '))) out.push(words);
  }
  // Then what its lookups look at, the last first (the most specific): a procedure that only looks things up
  // is told apart by them (check-flight-change-onestop, not check-flight-change-2).
  const lookups = [...new Set(input.toolSequence)].filter((t) => roleOf(t) === 'lookup').reverse();
  for (const t of lookups) {
    const words = toolWordsOf(t).filter(
      (w, i) =>
        !(i === 0 && LOOKUP_VERBS.has(w)) &&
        !used.has(stem(w)) &&
        !TOOL_FILLER.has(w) &&
        !FILLER.has(w) &&
        w.length > 1,
    );
    if (words.length && !out.some((q) => q.join(' ') === words.join(' '))) out.push(words);
  }
  // Last, what most of its requests mention (show-file-line for "display the last line"), before a number.
  for (const k of keywords) if (!used.has(stem(k)) && !out.some((q) => q.join(' ') === k)) out.push([k]);
  return out;
}

/** What the phrases around a problem name ("mobile data is not working", "unable to send MMS messages"). */
const BROKEN_SUBJECT =
  /\b([a-z]+)\s+([a-z]+)\s+(?:is|are|has|have|keeps|was)?\s*(?:been\s+)?(?:not working|isn'?t working|stopped working|not loading|(?:very\s+)?slow|broken|failing)\b/gi;
const BROKEN_ABILITY = /\b(?:unable to|can'?t|cannot|trouble)\s+([a-z]+)\s+([a-z]+)(?:\s+([a-z]+))?/gi;
const NOTHING = /\bno\s+([a-z]+)\b/gi;

/**
 * The object of a fix: the words the requests put next to the problem (mobile data, MMS messages, service),
 * those at least 30% of the requests share, in the order they say them; the shared nouns fill in.
 */
function brokenThing(texts: readonly string[], symptoms: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const t of texts) {
    const found = new Set<string>();
    for (const re of [BROKEN_SUBJECT, BROKEN_ABILITY, NOTHING]) {
      for (const m of t.matchAll(re))
        for (const w of m.slice(1)) {
          const x = w?.toLowerCase();
          if (
            x &&
            x.length >= 3 &&
            !FILLER.has(x) &&
            !(TASK_VERBS as readonly string[]).includes(x) &&
            !/^(is|are|was|been|has|have|keeps|my|your|the|to)$/.test(x)
          )
            found.add(x);
        }
    }
    for (const w of found) counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  const named = [...counts.entries()]
    .filter(([, c]) => c / Math.max(1, texts.length) >= 0.3 && c >= Math.min(2, texts.length))
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([w]) => w)
    .slice(0, 2);
  const out = [...named];
  for (const w of symptoms) if (out.length < 2 && !out.some((o) => stem(o) === stem(w))) out.push(w);
  return out;
}

/** Verbs of reading steps that say what a person asked for (not get, fetch, run: how a step reads). */
const READING_VERBS = new Set(
  'search show count find list check view display read verify describe compare estimate'.split(' '),
);

/** What a request to do something is called (a request to cancel asks for a cancellation). */
const NOMINAL: Readonly<Record<string, string>> = {
  cancel: 'cancellation',
  book: 'booking',
  modify: 'change',
  reschedule: 'rescheduling',
  pay: 'payment',
  buy: 'purchase',
  send: 'sending',
  restore: 'restoration',
  create: 'creation',
  delete: 'deletion',
  remove: 'removal',
};

/** Nouns of tool names that say nothing about the task (get_order_details -> order). */
const TOOL_FILLER = new Set(['details', 'detail', 'info', 'information', 'by', 'id', 'to', 'for', 'based', 'on']);

/** A plural noun's singular, the light way (flights -> flight, messages -> message; address stays). */
function singular(w: string): string {
  return w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w;
}

/** The form the requests use of a word (flight, not flights, when they say "my flight"). */
function surfaceForm(w: string, df: ReadonlyMap<string, number>): string {
  const other = w.endsWith('s') ? w.slice(0, -1) : `${w}s`;
  return (df.get(other) ?? 0) > (df.get(w) ?? 0) ? other : w;
}

/** The tools coding agents change files with (Claude Code's Edit and Write, Codex's apply_patch, str_replace editors). */
const FILE_EDITOR = /^(?:edit|multi_?edit|write|apply_?patch|str_replace\w*|edit_?file)$/i;
/** A coding agent's tool that reads a file (Claude Code's Read, Gemini CLI's read_file). */
const FILE_READER = /^(?:read|read_?file|read_?many_?files|view_?file)$/i;

/** The task verb most requests use (the more specific first on a tie), and the share of requests using it. */
function sharedVerb(df: Map<string, number>, n: number): { verb: string | null; share: number } {
  let verb: string | null = null;
  let share = 0;
  for (const v of TASK_VERBS) {
    const s = (df.get(v) ?? 0) / n;
    if (s > share + 1e-9) {
      verb = v;
      share = s;
    }
  }
  return { verb, share };
}

const VERB_GROUPS: readonly (readonly string[])[] = [
  ['change', 'update', 'modify', 'upgrade', 'downgrade', 'reschedule'],
  ['return', 'refund'],
  ['send', 'email', 'forward', 'reply', 'post', 'share'],
  ['find', 'search', 'check', 'list'],
  ['remove', 'delete', 'cancel'],
  ['buy', 'book', 'purchase'],
];

/** Words in the order the requests use them most often ("mobile data", not "data mobile"). */
function inTextOrder(chosen: readonly string[], texts: readonly string[]): string[] {
  if (chosen.length < 2) return [...chosen];
  const before = (a: string, b: string) => {
    let votes = 0;
    for (const t of texts) {
      const lower = ` ${t.normalize('NFC').toLowerCase()} `;
      const ia = lower.search(new RegExp(`[^\\p{L}\\p{M}]${a}[^\\p{L}\\p{M}]`, 'u'));
      const ib = lower.search(new RegExp(`[^\\p{L}\\p{M}]${b}[^\\p{L}\\p{M}]`, 'u'));
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
  for (const raw of texts) {
    const t = raw.normalize('NFC');
    // German writes every noun with a capital: there, a capital says nothing of a name.
    if (languagesOf(t.toLowerCase().split(/[^\p{L}\p{M}]+/u)).includes('de')) continue;
    const re = /[\p{L}\p{M}']+/gu;
    let m: RegExpExecArray | null;
    while ((m = re.exec(t))) {
      const w = m[0].toLowerCase().replace(/'s$/, '').replace(/'/g, '');
      if (!/^\p{Lu}/u.test(m[0])) {
        lower.add(w);
        continue;
      }
      // An acronym (MMS, APN) is a thing, not a name.
      if (m[0].length <= 5 && m[0] === m[0].toUpperCase() && /\p{Lu}{2}/u.test(m[0])) continue;
      // A sentence start, or a quoted label ('No Service', "Airplane Mode"): capitals there name nothing. Read only
      // for a word with a capital: the text before each word, for every word, made this quadratic in a long goal.
      const before = t.slice(0, m.index).trimEnd();
      const sentenceStart = before === '' || /[.!?:'"“‘¿¡]$/.test(before) || insideQuotes(before);
      if (!sentenceStart) capital.add(w);
    }
  }
  return new Set([...capital].filter((w) => !lower.has(w)));
}

/** Whether a text ending here is inside double (or curly) quotes. */
function insideQuotes(before: string): boolean {
  if (((before.match(/["“”]/g)?.length ?? 0) & 1) === 1) return true;
  // An opening single quote after a space, not closed since ('No Service').
  return /(^|[\s(])['‘][^'’]*$/.test(before);
}

/**
 * Lowercase words of a text in the Latin script, accents kept ("größe", "données": a name transliterates them, a
 * description quotes them), without typed placeholders, possessives and, in a German, French, Spanish or
 * Portuguese text, its function words ("eine", "und", "pour"). Words of other scripts can name no skill (a name is
 * ASCII, and Chinese has no spaces to find a word by): the tools' words name those procedures.
 */
function words(text: string): string[] {
  // Two letters written in capitals are a name (CI, PR, UI), not a function word.
  const initials = new Set((text.match(/\b[A-Z]{2}\b/g) ?? []).map((w) => w.toLowerCase()));
  const all = text
    .normalize('NFC')
    .toLowerCase()
    .split(/[^\p{L}\p{M}']+/u)
    .map((w) => w.replace(/'s$/, '').replace(/'/g, ''))
    .filter((w) => w.length >= 2 && LATIN_WORD.test(w));
  const dropped = functionWordsOf(all);
  return all.filter((w) => (w.length >= 3 || initials.has(w)) && !dropped.has(w));
}

/** A word written in the Latin script (accents and other marks allowed). */
const LATIN_WORD = /^[\p{sc=Latin}\p{M}]+$/u;

function clean(text: string): string {
  return text
    .replace(/<[a-z_]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function listJoin(xs: string[], last: 'or' | 'and' = 'or'): string {
  if (xs.length <= 1) return xs.join('');
  return `${xs.slice(0, -1).join(', ')} ${last} ${xs[xs.length - 1]}`;
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
