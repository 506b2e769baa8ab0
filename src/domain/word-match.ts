/**
 * Word overlap between a request and what a skill says it does (its name and description): the second
 * opinion recall asks once the embedding has found the candidates. An embedding blends every word of a
 * request; a planner choosing a skill reads its words ("cancel" is not "change"). Scored as the cosine of
 * the two bags of content words (lightly stemmed, function words dropped), so a request that uses the skill's
 * own verb and object scores high whatever else it says. Pure.
 */

/** Function words and courtesy that say nothing about a task. */
const STOP = new Set(
  'the a an and or to of in on for with you your i my me is are be been being that this it at as by from if but not do does did want wants would like can could will have has had was were so any all about into than then also they them their there what which when who how please hi hello hey thanks thank need needs just some more get got make sure am im ive id its yes no ok okay he she his her we us our one use user users asks ask request requests when steps step agents agent looks up worked kind procedure typical mention mentions'.split(
    ' ',
  ),
);

/**
 * "cancelled" -> "cancel", "orders" -> "order", "changing" -> "chang", "filling" -> "fill": enough to match
 * forms of a word (a request's with a skill's, or with a tool name's). A final e goes too, whatever came off
 * before it, so that a word's forms meet: "price", "prices" and "priced" give "pric", "change" and "changes"
 * "chang", "address" and "addresses" "address" (without it "prices" gave "pric" and "price" "price").
 */
export function stem(w: string): string {
  let s = w;
  if (s.length > 5 && s.endsWith('ing')) s = s.slice(0, -3);
  else if (s.length > 5 && s.endsWith('led')) s = s.slice(0, -3);
  else if (s.length > 4 && s.endsWith('ed')) s = s.slice(0, -2);
  else if (s.length > 4 && s.endsWith('es') && !s.endsWith('ses')) s = s.slice(0, -2);
  else if (s.length > 3 && s.endsWith('s') && !s.endsWith('ss')) s = s.slice(0, -1);
  return s.length > 3 && s.endsWith('e') ? s.slice(0, -1) : s;
}

/** The distinct content words of a text, stemmed (placeholders such as <id> and tool-name separators split). */
export function contentWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text
    .replace(/<[a-z_]+>/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/)) {
    if (raw.length < 2 || STOP.has(raw)) continue;
    out.add(stem(raw));
  }
  return out;
}

/**
 * Cosine of two bags of words (each word counted once): shared / sqrt(|a| * |b|); 0 when either is empty. `b`
 * may also be a skillWords string (distinct words joined by single spaces): see overlapScorer.
 */
export function wordOverlap(a: ReadonlySet<string>, b: ReadonlySet<string> | string): number {
  if (typeof b === 'string') return overlapScorer(a)(b);
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / Math.sqrt(a.size * b.size);
}

/**
 * wordOverlap of one request's words with skillWords strings, for recall, which scores every candidate on
 * every request: each of the request's few words is looked up in the string as a whole word, so a candidate
 * costs a handful of native substring searches and no split of its string. With `weights` (distinctiveWeights),
 * each word counts by its weight instead of 1.
 */
export function overlapScorer(request: ReadonlySet<string>, weights?: WordWeights): (skillWords: string) => number {
  if (request.size === 0) return () => 0;
  const needles = [...request];
  if (weights) return weightedScorer(needles, weights);
  return (words) => {
    if (words.length === 0) return 0;
    let size = 1;
    for (let i = words.indexOf(' '); i >= 0; i = words.indexOf(' ', i + 1)) size++;
    let shared = 0;
    for (const needle of needles) if (hasWord(words, needle)) shared++;
    return shared / Math.sqrt(request.size * size);
  };
}

/**
 * The overlap with each word weighted (a cosine of weighted bags): the words the request shares with a skill,
 * each counted by its squared weight, over the weighted sizes of both.
 */
function weightedScorer(needles: readonly string[], weights: WordWeights): (words: string) => number {
  const squares = needles.map((w) => weights.square(w));
  const requestSize = squares.reduce((a, b) => a + b, 0);
  return (words) => {
    if (words.length === 0 || requestSize === 0) return 0;
    let shared = 0;
    for (let i = 0; i < needles.length; i++) if (hasWord(words, needles[i])) shared += squares[i];
    return shared === 0 ? 0 : shared / Math.sqrt(requestSize * weights.size(words));
  };
}

/** Word weights for ordering a few skills against one request (distinctiveWeights). */
export interface WordWeights {
  /** A word's weight, squared. */
  square(word: string): number;
  /** The sum of the squared weights of a skillWords string's words. */
  size(skillWords: string): number;
}

/**
 * How much each word tells a few skills apart (their skillWords strings), for ordering them against one request:
 * ln((n + 1) / (k + 0.5)) for a word k of the n skills hold, so a word every one of them has ("fix", "problem")
 * counts little and a word one alone has ("mms") counts most; a word none of them holds counts 1, as every word
 * did before. Chosen on the tune halves (learn from the test half, query the tune half), against every word
 * counting 1: hit@1 on tau task statements 0.529 -> 0.541 and on first user messages 0.324 -> 0.366, BFCL 0.087 ->
 * 0.097, BFCL turns 0.249 -> 0.263, WorkBench unchanged (0.456). The same weights over every skill of the
 * namespace gave tau 0.541 / 0.380 but left BFCL and its turns where they were (0.087, 0.249), and recall would
 * need the whole vocabulary. Each string is split once, here.
 */
export function distinctiveWeights(skillWordStrings: readonly string[]): WordWeights {
  // Candidates often share one string (the copies of one procedure): each distinct string is split once and
  // counted as many times as it stands in the list, and weights and sizes are worked out when first asked for
  // (a candidate that shares no word with the request never needs its size). The figures are those of counting
  // every string and weighing every word up front.
  const times = new Map<string, number>();
  for (const s of skillWordStrings) times.set(s, (times.get(s) ?? 0) + 1);
  const held = new Map<string, number>();
  for (const [s, t] of times) for (const w of splitWords(s)) held.set(w, (held.get(w) ?? 0) + t);
  const n = skillWordStrings.length;
  const squares = new Map<string, number>();
  const square = (w: string) => {
    let q = squares.get(w);
    if (q === undefined) {
      const k = held.get(w);
      q = k === undefined ? 1 : Math.log((n + 1) / (k + 0.5)) ** 2;
      squares.set(w, q);
    }
    return q;
  };
  const sizes = new Map<string, number>();
  return {
    square,
    size: (s) => {
      let z = sizes.get(s);
      if (z === undefined) {
        z = splitWords(s).reduce((a, w) => a + square(w), 0);
        sizes.set(s, z);
      }
      return z;
    },
  };
}

/**
 * A skillWords string's words. Recall weighs the same few strings on every request (a skill's words change only
 * with its name or description), so the splits are kept, a bounded number of them.
 */
function splitWords(s: string): readonly string[] {
  let words = SPLITS.get(s);
  if (words === undefined) {
    if (SPLITS.size >= MAX_SPLITS) SPLITS.clear();
    words = s ? s.split(' ') : [];
    SPLITS.set(s, words);
  }
  return words;
}
const SPLITS = new Map<string, readonly string[]>();
const MAX_SPLITS = 4096;

/** Whether `word` stands in `words` (words joined by single spaces) as a whole word. */
function hasWord(words: string, word: string): boolean {
  const SPACE = 32;
  for (let at = words.indexOf(word); at >= 0; at = words.indexOf(word, at + 1)) {
    const end = at + word.length;
    if ((at === 0 || words.charCodeAt(at - 1) === SPACE) && (end === words.length || words.charCodeAt(end) === SPACE))
      return true;
  }
  return false;
}

/** skillWords of skill objects already seen (recall checks the words of each skill it serves). */
const wordsOfSkill = new WeakMap<object, { name: string; description: string; words: string }>();

/**
 * The words a skill is found by, from its name (hyphens as spaces) and its description: distinct stems, sorted
 * and joined by spaces (a compact form to keep for many skills; split it to compare).
 */
export function skillWords(skill: { name: string; description: string }): string {
  const seen = wordsOfSkill.get(skill);
  if (seen && seen.name === skill.name && seen.description === skill.description) return seen.words;
  const words = [...contentWords(`${skill.name.replace(/-/g, ' ')} ${skill.description}`)].sort().join(' ');
  wordsOfSkill.set(skill, { name: skill.name, description: skill.description, words });
  return words;
}
