/**
 * A line diff of two texts (two versions of a SKILL.md): the longest common subsequence of their lines, said as
 * hunks of changed lines with a few unchanged lines around them, as `diff -u` does. Pure; texts of a few hundred
 * lines (a SKILL.md stays well under 500) cost a table of their lines' product.
 */

export interface DiffLine {
  /** ` ` unchanged, `-` only in the old text, `+` only in the new one. */
  op: ' ' | '-' | '+';
  text: string;
}

export interface DiffHunk {
  /** First line of the hunk in the old and the new text (1-based), and how many lines of each it holds. */
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: DiffLine[];
}

/** Every line of both texts in order, each marked unchanged, removed or added. */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  // Common prefix and suffix first: versions of one skill differ in a few places.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  // lcs[i][j]: the longest common subsequence of midA[i..] and midB[j..].
  const lcs = Array.from({ length: midA.length + 1 }, () => new Uint32Array(midB.length + 1));
  for (let i = midA.length - 1; i >= 0; i--)
    for (let j = midB.length - 1; j >= 0; j--)
      lcs[i][j] = midA[i] === midB[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out: DiffLine[] = a.slice(0, head).map((text) => ({ op: ' ', text }));
  let i = 0;
  let j = 0;
  while (i < midA.length || j < midB.length) {
    if (i < midA.length && j < midB.length && midA[i] === midB[j]) {
      out.push({ op: ' ', text: midA[i] });
      i++;
      j++;
    } else if (i < midA.length && (j >= midB.length || lcs[i + 1][j] >= lcs[i][j + 1])) {
      // Removed lines before added ones, as diff -u says a change.
      out.push({ op: '-', text: midA[i++] });
    } else {
      out.push({ op: '+', text: midB[j++] });
    }
  }
  for (const text of a.slice(a.length - tail)) out.push({ op: ' ', text });
  return out;
}

/** The changed lines with `context` unchanged lines on each side; hunks closer than that are one. None: equal. */
export function diffHunks(before: string, after: string, context = 3): DiffHunk[] {
  const lines = diffLines(before, after);
  const changed = lines.flatMap((l, k) => (l.op === ' ' ? [] : [k]));
  const hunks: DiffHunk[] = [];
  let k = 0;
  while (k < changed.length) {
    const start = Math.max(0, changed[k] - context);
    let end = changed[k];
    // Take in every change whose context touches this hunk's.
    while (k + 1 < changed.length && changed[k + 1] - end <= 2 * context) end = changed[++k];
    k++;
    const stop = Math.min(lines.length, end + context + 1);
    // Line numbers where the hunk starts: the lines of each text before it.
    let oldStart = 1;
    let newStart = 1;
    for (const l of lines.slice(0, start)) {
      if (l.op !== '+') oldStart++;
      if (l.op !== '-') newStart++;
    }
    const body = lines.slice(start, stop);
    hunks.push({
      oldStart,
      oldLines: body.filter((l) => l.op !== '+').length,
      newStart,
      newLines: body.filter((l) => l.op !== '-').length,
      lines: body,
    });
  }
  return hunks;
}

/** Hunks as `diff -u` prints them, under `--- FROM` and `+++ TO` headers; empty when there are none. */
export function formatUnified(hunks: readonly DiffHunk[], from: string, to: string): string {
  if (hunks.length === 0) return '';
  return [
    `--- ${from}`,
    `+++ ${to}`,
    ...hunks.flatMap((h) => [
      `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`,
      ...h.lines.map((l) => `${l.op}${l.text}`),
    ]),
  ].join('\n');
}

/** Two texts compared and printed as `diff -u` does (`context` unchanged lines around each change). */
export function unifiedDiff(before: string, after: string, from: string, to: string, context = 3): string {
  return formatUnified(diffHunks(before, after, context), from, to);
}
