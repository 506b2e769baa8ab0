/**
 * A tool more than this share of a namespace's sessions call is common: it serves every kind of task (a coding
 * agent's Read and Edit) and tells none apart.
 */
export const COMMON_TOOL_SHARE = 0.5;

/**
 * Document frequencies of terms (tools, goal words) across a namespace, kept incrementally across passes,
 * giving an IDF-style weight: terms every session shares weigh little, distinctive ones a lot.
 */
export class TermStats {
  constructor(
    private readonly df: Map<string, number> = new Map(),
    private docs = 0,
  ) {}

  static fromJSON(text: string | null): TermStats {
    if (!text) return new TermStats();
    const parsed = JSON.parse(text) as { docs: number; df: [string, number][] };
    return new TermStats(new Map(parsed.df), parsed.docs);
  }

  toJSON(): string {
    return JSON.stringify({ docs: this.docs, df: [...this.df.entries()] });
  }

  get documents(): number {
    return this.docs;
  }

  addDocument(terms: Iterable<string>): void {
    this.docs++;
    for (const t of new Set(terms)) this.df.set(t, (this.df.get(t) ?? 0) + 1);
  }

  /** Takes back a document that was added (a forgotten session): a term no document holds any more is dropped. */
  removeDocument(terms: Iterable<string>): void {
    if (this.docs === 0) return;
    this.docs--;
    for (const t of new Set(terms)) {
      const d = (this.df.get(t) ?? 0) - 1;
      if (d > 0) this.df.set(t, d);
      else this.df.delete(t);
    }
  }

  /** The share of the documents that hold the term (0 when there are none). */
  share(term: string): number {
    return this.docs === 0 ? 0 : (this.df.get(term) ?? 0) / this.docs;
  }

  /**
   * Smoothed IDF, always > 0: a term every document holds still counts (log 2), so three sessions that all
   * call the same tools are alike by their tools, not blank; rarer terms weigh more.
   */
  weight(term: string): number {
    const d = this.df.get(term) ?? 0;
    return Math.log(1 + (1 + this.docs) / (1 + d));
  }
}
