/**
 * The mean goal direction of a namespace. Goals of one domain share a lot of vocabulary (persona phrasing,
 * the same entities), so raw similarities between any two of them are high; removing each vector's projection
 * on the mean direction (as SIF removes its common component) leaves what tells tasks apart.
 */
export class GoalMean {
  constructor(
    readonly sum: Float32Array,
    public count: number,
  ) {}

  static empty(dims: number): GoalMean {
    return new GoalMean(new Float32Array(dims), 0);
  }

  static fromJSON(text: string | null, dims: number): GoalMean {
    if (!text) return GoalMean.empty(dims);
    const parsed = JSON.parse(text) as { count: number; sum: number[] };
    if (parsed.sum.length !== dims) return GoalMean.empty(dims);
    return new GoalMean(Float32Array.from(parsed.sum), parsed.count);
  }

  toJSON(): string {
    return JSON.stringify({ count: this.count, sum: Array.from(this.sum, (x) => Math.round(x * 1e5) / 1e5) });
  }

  add(v: Float32Array): void {
    for (let i = 0; i < this.sum.length; i++) this.sum[i] += v[i];
    this.count++;
  }

  /**
   * Takes back a vector that was added (a forgotten session's goal): the sum without it, exact but for the rounding
   * `toJSON` stores the sum with; the mean of no vector is the zero sum.
   */
  remove(v: Float32Array): void {
    if (this.count === 0) return;
    this.count--;
    if (this.count === 0) this.sum.fill(0);
    else for (let i = 0; i < this.sum.length; i++) this.sum[i] -= v[i];
  }

  /**
   * How much the mean can be trusted to be what every goal shares, in [0, 1): count / (count + k). A
   * namespace of a handful of goals (one task, three runs) has a mean that is that task itself; removing it
   * would remove the very thing recall must match.
   */
  trust(k = 50): number {
    return this.count / (this.count + k);
  }

  /** Unit mean direction, or null when there is none yet. */
  direction(): Float32Array | null {
    let n = 0;
    for (let i = 0; i < this.sum.length; i++) n += this.sum[i] * this.sum[i];
    if (n === 0 || this.count < 2) return null;
    const out = new Float32Array(this.sum.length);
    const inv = 1 / Math.sqrt(n);
    for (let i = 0; i < out.length; i++) out[i] = this.sum[i] * inv;
    return out;
  }
}

/** v minus `strength` times its projection on the unit direction d, renormalised (a new vector). */
export function removeDirection(v: Float32Array, d: Float32Array | null, strength = 1): Float32Array {
  const out = Float32Array.from(v);
  if (d) {
    let p = 0;
    for (let i = 0; i < v.length; i++) p += v[i] * d[i];
    for (let i = 0; i < v.length; i++) out[i] -= strength * p * d[i];
  }
  let n = 0;
  for (let i = 0; i < out.length; i++) n += out[i] * out[i];
  if (n > 0) {
    const inv = 1 / Math.sqrt(n);
    for (let i = 0; i < out.length; i++) out[i] *= inv;
  }
  return out;
}
