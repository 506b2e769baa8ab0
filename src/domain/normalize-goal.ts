// Goal normalisation before embedding (SPEC "Embed"): the entities of a goal (ids, numbers, emails, dates,
// quoted strings) say nothing about the kind of task, so they become typed placeholders and two goals that
// differ only in their entities embed alike. Pure, deterministic, one pass per precompiled regex, in an
// order where the specific shapes (url, email, date, phone) are taken before the generic token pass.

const URL = /\b(?:(?:https?|ftp):\/\/|www\.)[^\s<>"'`()[\]{}]+/gi;
const EMAIL = /(?<![\w.%+-])[\w.%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}(?![\w-])/g;
// Double, backtick and curly quotes only: single quotes are mostly apostrophes ("don't", "the users' ...").
const QUOTED = /"[^"\n]{0,200}"|`[^`\n]{0,200}`|“[^”\n]{0,200}”/g;

// Lowercase "may" and "march" are verbs, so only their capitalised forms are months.
const MONTH =
  '(?:[Jj]anuary|[Ff]ebruary|March|[Aa]pril|May|[Jj]une|[Jj]uly|[Aa]ugust|[Ss]eptember|[Oo]ctober|[Nn]ovember|' +
  '[Dd]ecember|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\\.?';
const DAY = '(?:[12]\\d|3[01]|0?[1-9])(?:st|nd|rd|th)?';
const DATE = new RegExp(
  [
    '\\b\\d{4}-\\d{1,2}-\\d{1,2}(?:T\\d{1,2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?(?:Z|[+-]\\d{2}:?\\d{2})?)?(?![\\w-])',
    '\\b\\d{1,2}/\\d{1,2}/(?:\\d{4}|\\d{2})\\b',
    '\\b\\d{4}/\\d{1,2}/\\d{1,2}\\b',
    `\\b${MONTH}\\s+${DAY}\\b(?:,?\\s+\\d{4}\\b)?`,
    `\\b${DAY}\\s+(?:of\\s+)?${MONTH}(?:,?\\s+\\d{4}\\b)?(?![\\w])`,
    `\\b${MONTH}\\s+\\d{4}\\b`,
  ].join('|'),
  'g',
);
const TIME = /\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\b\.?)?(?![\w:])|\b\d{1,2}\s?[AaPp]\.?[Mm]\b\.?/g;
const MONEY = new RegExp(
  '[$€£¥]\\s?\\d+(?:,\\d{3})*(?:\\.\\d+)?(?:\\s?(?:[kKmM]|bn|million|billion|thousand)\\b)?' +
    '|\\b\\d+(?:,\\d{3})*(?:\\.\\d+)?\\s?(?:USD|EUR|GBP|dollars?|euros?|bucks|cents?)\\b',
  'g',
);
const PHONE =
  /(?<![\w.+-])(?:\+?1[ .-])?(?:\(\d{3}\)\s?|\d{3}([ .-]))\d{3}[ .-]\d{4}(?![\w]|[.-]\d)|(?<![\w+])\+\d{1,3}(?:[ .-]?\(\d{1,4}\))?(?:[ .-]\d{1,5}){1,5}(?![\w]|[.-]\d)/g;
const GROUPED_NUMBER = /(?<![\w.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w]|[.,]\d)/g;
/** Words, optionally `#`-prefixed, joined by `-` or `.`: each becomes a placeholder or stays. */
const TOKEN = /#?[A-Za-z0-9_]+(?:[-.][A-Za-z0-9_]+)*/g;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Capture-time privacy markers (`[REDACTED:email]`, `[HASH:phone:1f0c9a2b]`) are entities too. */
const MARKER = /\[(?:REDACTED|HASH):([a-z_]+)(?::[0-9a-f]+)?\]/g;
const markerPlaceholder = (_m: string, kind: string) =>
  kind === 'email' ? '<email>' : kind === 'phone' ? '<phone>' : kind === 'card' ? '<id>' : '<secret>';

/** Replaces entities with `<email> <url> <date> <time> <money> <phone> <id> <num> <str>`; keeps words. */
export function normalizeGoal(text: string): string {
  // Each pattern runs only on text that holds the character it cannot match without (most goals have no
  // email, url or quote): the same result, a third of the regex work on long goals.
  let t = text;
  if (t.includes('[')) t = t.replace(MARKER, markerPlaceholder);
  if (t.includes('://') || /www\./i.test(t))
    t = t.replace(URL, (m) => {
      // Sentence punctuation after a URL is not part of it.
      const tail = /[.,;:!?]+$/.exec(m)?.[0] ?? '';
      return `<url>${tail}`;
    });
  if (t.includes('@')) t = t.replace(EMAIL, '<email>');
  if (/["`“]/.test(t)) t = t.replace(QUOTED, '<str>');
  // Dates, times, money, phones, numbers and identifiers all hold a digit.
  if (/\d/.test(t))
    t = t
      .replace(DATE, '<date>')
      .replace(TIME, '<time>')
      .replace(MONEY, '<money>')
      .replace(PHONE, (m) => (m.startsWith('+') && m.replace(/\D/g, '').length < 8 ? m : '<phone>'))
      .replace(GROUPED_NUMBER, '<num>')
      .replace(TOKEN, token);
  return t.replace(/\s+/g, ' ').trim();
}

function token(t: string): string {
  if (!/\d/.test(t)) return t;
  if (t.startsWith('#') || UUID.test(t)) return '<id>';
  return t.split('-').map(part).join('-');
}

/** One hyphen-free piece of a token that holds a digit. */
function part(p: string): string {
  if (!/\d/.test(p)) return p;
  if (/^\d+(?:\.\d+)*$/.test(p)) return '<num>';
  // Ordinals read as words; two-character names (i9, 5G, 4K) are product terms, not identifiers.
  if (/^\d+(?:st|nd|rd|th)$/i.test(p) || p.length <= 2) return p;
  // A number with a unit keeps the unit: 256GB -> <num>GB, 10x -> <num>x.
  const unit = /^\d+(?:\.\d+)?([A-Za-z]{1,3})$/.exec(p);
  if (unit) return `<num>${unit[1]}`;
  // Letters mixed with digits: mia_li_3668, XEWRD9, HAT069, W8665881, 0x1f, v1.2.
  return '<id>';
}

/** A quoted label of one to four plain words ("No Service", “Airplane Mode”): what a screen or a user calls a thing. */
const QUOTED_LABEL =
  /"([A-Za-z][A-Za-z'-]*(?: [A-Za-z][A-Za-z'-]*){0,3})"|“([A-Za-z][A-Za-z'-]*(?: [A-Za-z][A-Za-z'-]*){0,3})”/g;

/**
 * The text with its quoted labels unquoted, so that their words stay words: normalizeGoal makes any quoted
 * string a placeholder, right for ids and dictated messages, but a user who quotes what the phone shows
 * ("No Service") names the problem there. Other quoted strings (with digits, dots, more than four words) keep
 * their quotes. Pure.
 */
export function unquoteLabels(text: string): string {
  if (!/["“]/.test(text)) return text;
  return text.replace(
    QUOTED_LABEL,
    (_m, straight: string | undefined, curly: string | undefined) => straight ?? curly ?? '',
  );
}
