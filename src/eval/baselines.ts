/**
 * Baselines for the replay evaluation, so the engine's numbers mean something:
 *  - none: no memory, nothing is ever recalled;
 *  - most-frequent: the single most frequent essential tool sequence of the successful training sessions,
 *    "recalled" for every goal (its kind is the majority kind of the sessions that used it);
 *  - oracle: knows the task kind and recalls the consensus procedure (required steps) of that kind's
 *    successful training sessions, built by the engine's own aligner: an upper bound for step agreement and
 *    steps saved.
 */
import { buildConsensus } from '../domain/consensus.js';
import { collapseRepeats, sequenceF1 } from '../domain/sequence.js';
import type { Session, Span } from '../domain/types.js';
import { DEFAULT_THINK_TOOLS, essentialSequence, majorityLabel, type QueryOutcome } from './metrics.js';

export interface LabelledSession {
  session: Session;
  /** Task kind, for scoring only. */
  kind: string | null;
}

export interface FrequentSequence {
  sequence: string[];
  /** Successful training sessions whose essential sequence is exactly this one. */
  count: number;
  /** Majority kind of those sessions. */
  kind: string | null;
  kindShare: number;
}

export const BASELINE_NAMES = ['none', 'most-frequent', 'oracle'] as const;
export type BaselineName = (typeof BASELINE_NAMES)[number];

/**
 * The most frequent essential sequence of the successful sessions. Ties go to the sequence that agrees most
 * with all the others (mean LCS F1), then the shorter, then the one that sorts first. Null without material.
 */
export function mostFrequentSequence(
  train: readonly LabelledSession[],
  thinkTools: readonly string[] = DEFAULT_THINK_TOOLS,
): FrequentSequence | null {
  const groups = new Map<string, { sequence: string[]; kinds: (string | null)[] }>();
  const all: string[][] = [];
  for (const { session, kind } of train) {
    if (session.outcome !== 'success') continue;
    const sequence = essentialSequence(session.calls, thinkTools);
    if (sequence.length === 0) continue;
    all.push(sequence);
    const key = sequence.join('\u0000');
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { sequence, kinds: [] }));
    g.kinds.push(kind);
  }
  if (groups.size === 0) return null;
  const top = Math.max(...[...groups.values()].map((g) => g.kinds.length));
  const tied = [...groups.entries()].filter(([, g]) => g.kinds.length === top);
  const centrality = (seq: string[]) => all.reduce((acc, other) => acc + sequenceF1(seq, other), 0) / all.length;
  const ranked = tied
    .map(([key, g]) => ({ key, g, c: tied.length > 1 ? centrality(g.sequence) : 0 }))
    .sort(
      (a, b) => b.c - a.c || a.g.sequence.length - b.g.sequence.length || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    );
  const best = ranked[0].g;
  const majority = majorityLabel(best.kinds);
  return { sequence: best.sequence, count: best.kinds.length, kind: majority.label, kindShare: majority.share };
}

/**
 * Per kind, the consensus procedure of its successful training sessions, aligned exactly as the engine
 * aligns a cluster (same rules), but over the true kind instead of a learned cluster and with no admission
 * bar: what a perfect clusterer that learns every kind would hand back. The procedure is the consensus's
 * required steps (present in at least `requiredSupport` of the sessions); conditional steps are left out,
 * which on the tau traces gives the oracle its best step agreement and steps saved (checked against the
 * full consensus and the medoid path), so it stays an upper bound.
 */
export function oracleProcedures(
  train: readonly LabelledSession[],
  rules: { requiredSupport: number; conditionalSupport: number; thinkTools?: readonly string[] },
): Map<string, string[]> {
  const think = new Set(rules.thinkTools ?? DEFAULT_THINK_TOOLS);
  const byKind = new Map<string, Span[]>();
  for (const { session, kind } of train) {
    if (kind == null || session.outcome !== 'success') continue;
    const calls = session.calls.filter((c) => c.ok && !think.has(c.tool));
    if (calls.length === 0) continue;
    const span: Span = {
      sessionId: session.id,
      start: calls[0].position,
      end: calls[calls.length - 1].position + 1,
      calls,
    };
    let list = byKind.get(kind);
    if (!list) byKind.set(kind, (list = []));
    list.push(span);
  }
  const out = new Map<string, string[]>();
  for (const kind of [...byKind.keys()].sort()) {
    const consensus = buildConsensus(byKind.get(kind)!, {
      requiredSupport: rules.requiredSupport,
      conditionalSupport: rules.conditionalSupport,
    });
    const required = consensus.steps.filter((s) => !s.conditional).map((s) => s.tool);
    out.set(kind, required.length ? collapseRepeats(required) : consensus.steps.map((s) => s.tool));
  }
  return out;
}

/** What a query would get from a baseline. */
export function baselineRecall(
  name: BaselineName,
  query: Pick<QueryOutcome, 'kind'>,
  data: { frequent: FrequentSequence | null; oracle: ReadonlyMap<string, string[]> },
): QueryOutcome['recalled'] {
  switch (name) {
    case 'none':
      return [];
    case 'most-frequent':
      return data.frequent ? [{ kind: data.frequent.kind, toolSequence: data.frequent.sequence }] : [];
    case 'oracle': {
      const seq = query.kind != null ? data.oracle.get(query.kind) : undefined;
      return seq ? [{ kind: query.kind, toolSequence: seq }] : [];
    }
  }
}

/** What a baseline recalls for a goal from outside the training domains (the number of procedures). */
export function baselineFalseRecall(name: BaselineName, data: { frequent: FrequentSequence | null }): number {
  // The most-frequent baseline recalls its sequence whatever the goal; the oracle knows there is no kind.
  return name === 'most-frequent' && data.frequent ? 1 : 0;
}
