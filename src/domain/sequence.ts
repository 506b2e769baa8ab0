/** Order-aware agreement between tool sequences, by longest common subsequence. */

export function lcsLength(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  let prev = new Uint16Array(b.length + 1);
  let cur = new Uint16Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], cur[j - 1]);
    }
    [prev, cur] = [cur, prev];
    cur.fill(0);
  }
  return prev[b.length];
}

/** Pairs of indices (i in a, j in b) of one longest common subsequence, in order. */
export function lcsAlignment(a: readonly string[], b: readonly string[]): [number, number][] {
  const n = a.length;
  const m = b.length;
  const t: Uint16Array[] = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      t[i][j] = a[i] === b[j] ? t[i + 1][j + 1] + 1 : Math.max(t[i + 1][j], t[i][j + 1]);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if (t[i + 1][j] >= t[i][j + 1]) i++;
    else j++;
  }
  return pairs;
}

/** F1 of the LCS: precision over `predicted`, recall over `actual`. 0 when either is empty. */
export function sequenceF1(predicted: readonly string[], actual: readonly string[]): number {
  const l = lcsLength(predicted, actual);
  if (l === 0) return 0;
  const p = l / predicted.length;
  const r = l / actual.length;
  return (2 * p * r) / (p + r);
}

/** Collapses immediate repeats (`a a b a` -> `a b a`): a repeated lookup is one step of a procedure. */
export function collapseRepeats(seq: readonly string[]): string[] {
  const out: string[] = [];
  for (const s of seq) if (out[out.length - 1] !== s) out.push(s);
  return out;
}

/**
 * A path as a procedure reads it: repeats collapsed (collapseRepeats), and a pair of steps done over and over
 * (Read then Edit, for each of six files) once, as the consensus writes it (consensus.ts: collapseCycles). Compared
 * by the length of what they share, a session that went through more files than the others would otherwise differ
 * from the procedure by its length alone.
 */
export function procedurePath(seq: readonly string[]): string[] {
  const steps = collapseRepeats(seq);
  const out: string[] = [];
  let i = 0;
  while (i < steps.length) {
    const [a, b] = [steps[i], steps[i + 1]];
    if (b === undefined || steps[i + 2] !== a || steps[i + 3] !== b) {
      out.push(a);
      i++;
      continue;
    }
    out.push(a, b);
    i += 2;
    while (steps[i] === a && steps[i + 1] === b) i += 2;
  }
  return out;
}
