/**
 * The known name a mistyped one most likely meant: `--topk` -> `top-k`, `recal` -> `recall`. Case and
 * dashes are ignored first (so `topk`, `top_k` and `TopK` all find `top-k`); otherwise the candidate within a
 * small edit distance (one edit for short names, a third of the length for longer ones), nearest first, ties
 * to the earlier candidate. Undefined when nothing is close enough to be a fair guess.
 */
export function nearestName(typed: string, candidates: readonly string[]): string | undefined {
  const bare = (s: string) => s.toLowerCase().replace(/[-_]/g, '');
  const want = bare(typed);
  if (want.length === 0) return undefined;
  const exact = candidates.find((c) => bare(c) === want);
  if (exact !== undefined) return exact;
  const limit = Math.max(1, Math.floor(want.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const c of candidates) {
    const d = editDistance(want, bare(c));
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/** Edits (insert, delete, substitute, swap of two neighbours) that turn a into b. */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array(rows * cols).fill(0);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[(i - 1) * cols + j] + 1, d[i * cols + j - 1] + 1, d[(i - 1) * cols + j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[(i - 2) * cols + j - 2] + 1);
      d[i * cols + j] = v;
    }
  }
  return d[rows * cols - 1];
}
