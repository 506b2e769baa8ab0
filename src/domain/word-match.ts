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
 * forms of a word (a request's with a skill's, or with a tool name's).
 */
export function stem(w: string): string {
  if (w.length > 5 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length > 5 && w.endsWith('led')) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith('ed')) return w.slice(0, -2);
  if (w.length > 4 && w.endsWith('es') && !w.endsWith('ses')) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
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
 * costs a handful of native substring searches and no split of its string.
 */
export function overlapScorer(request: ReadonlySet<string>): (skillWords: string) => number {
  if (request.size === 0) return () => 0;
  const needles = [...request];
  return (words) => {
    if (words.length === 0) return 0;
    let size = 1;
    for (let i = words.indexOf(' '); i >= 0; i = words.indexOf(' ', i + 1)) size++;
    let shared = 0;
    for (const needle of needles) if (hasWord(words, needle)) shared++;
    return shared / Math.sqrt(request.size * size);
  };
}

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
