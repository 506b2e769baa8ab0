// Cutting text to a length without cutting a character in two. JavaScript strings count UTF-16 code units, and a
// character outside the Basic Multilingual Plane (an emoji, a rarer Chinese or Japanese character such as 𠮷) takes
// two of them: a cut between the two leaves half a character, which a SQLite file or a UTF-8 reader stores as
// U+FFFD (shown as �).

/** Whether the code unit at `i` is the first half of a surrogate pair. */
function highSurrogateAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff;
}

/** At most the first `max` code units of `text`: one fewer when the last would be half a character. */
export function keepFirst(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = Math.max(0, max);
  return text.slice(0, end > 0 && highSurrogateAt(text, end - 1) ? end - 1 : end);
}

/** At most the last `max` code units of `text`: one fewer when the first would be half a character. */
export function keepLast(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  const start = text.length - max;
  return text.slice(highSurrogateAt(text, start - 1) ? start + 1 : start);
}
