// Small text helpers shared by the SKILL.md modules. Lengths are counted in Unicode code points, the way
// the agentskills.io reference validator (Python `len`) counts them.

/** Number of Unicode code points in `text` (a surrogate pair counts once). */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * Cuts `text` to at most `max` code points, preferring to end at a whitespace boundary; a single word longer
 * than `max` is cut hard. Trailing whitespace of the result is removed.
 */
export function capAtWordBoundary(text: string, max: number): string {
  const points = Array.from(text);
  if (points.length <= max) return text;
  // Look at one extra code point: if it is whitespace, the cut falls exactly on a boundary.
  const window = points.slice(0, max + 1);
  let cut = -1;
  for (let i = window.length - 1; i > 0; i--) {
    if (/\s/.test(window[i] ?? '')) {
      cut = i;
      break;
    }
  }
  const kept = cut > 0 ? window.slice(0, cut) : points.slice(0, max);
  return kept.join('').trimEnd();
}

/** Replaces every run of whitespace with one space and trims both ends. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
