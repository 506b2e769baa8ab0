import { collapseRepeats, lcsAlignment, sequenceF1 } from './sequence.js';
import type { ProcedureStep, Span, ToolCall } from './types.js';

export interface ConsensusRules {
  /** Steps in at least this fraction of spans are required. */
  requiredSupport: number;
  /** Steps in fewer than this fraction are dropped; between the two they are conditional. */
  conditionalSupport: number;
  /** Cap on the spans compared pairwise to find the medoid (keeps big clusters linear). */
  medoidSample?: number;
}

export interface Consensus {
  steps: ProcedureStep[];
  /** The medoid span's session id: the most representative path. */
  medoidSessionId: string;
}

/** One collapsed step of one span: the tool and the calls it covers (a repeated lookup is one step). */
interface Group {
  tool: string;
  calls: ToolCall[];
}

function groups(span: Span): Group[] {
  const out: Group[] = [];
  for (const c of span.calls) {
    const last = out[out.length - 1];
    if (last && last.tool === c.tool) last.calls.push(c);
    else out.push({ tool: c.tool, calls: [c] });
  }
  return out;
}

/**
 * Aligns the spans' tool sequences into a consensus: the medoid path (highest total LCS agreement with the
 * others) is the backbone; each of its steps is kept when enough spans align to it, and steps that the
 * medoid lacks but many spans share are inserted where they occur. Deterministic for a given input order.
 */
export function buildConsensus(spans: Span[], rules: ConsensusRules): Consensus {
  if (spans.length === 0) throw new Error('buildConsensus needs at least one span');
  const grouped = spans.map(groups);
  const seqs = grouped.map((g) => g.map((x) => x.tool));
  const n = spans.length;

  const sample = Math.min(n, rules.medoidSample ?? 40);
  let medoid = 0;
  let best = -1;
  for (let i = 0; i < sample; i++) {
    let score = 0;
    for (let j = 0; j < sample; j++) if (i !== j) score += sequenceF1(seqs[i], seqs[j]);
    // Prefer the shorter path on ties: a procedure should not carry detours.
    if (score > best + 1e-9 || (Math.abs(score - best) <= 1e-9 && seqs[i].length < seqs[medoid].length)) {
      best = score;
      medoid = i;
    }
  }
  const backbone = seqs[medoid];

  // aligned[p] = per span, the group aligned to backbone position p (or undefined).
  const aligned: (Group | undefined)[][] = backbone.map(() => new Array(n));
  // Insertions: tool + anchor (last aligned backbone position before it, -1 at the start) -> spans.
  const inserts = new Map<string, { tool: string; anchor: number; spans: Map<number, Group>; order: number[] }>();
  for (let s = 0; s < n; s++) {
    const pairs = lcsAlignment(backbone, seqs[s]);
    const matchedJ = new Map<number, number>();
    for (const [i, j] of pairs) {
      aligned[i][s] = grouped[s][j];
      matchedJ.set(j, i);
    }
    let anchor = -1;
    for (let j = 0; j < seqs[s].length; j++) {
      const hit = matchedJ.get(j);
      if (hit !== undefined) {
        anchor = hit;
        continue;
      }
      const key = `${anchor}\u0000${seqs[s][j]}`;
      let entry = inserts.get(key);
      if (!entry) inserts.set(key, (entry = { tool: seqs[s][j], anchor, spans: new Map(), order: [] }));
      if (!entry.spans.has(s)) {
        entry.spans.set(s, grouped[s][j]);
        entry.order.push(j / Math.max(1, seqs[s].length));
      }
    }
  }

  type Slot = { key: number; tool: string; byspan: (Group | undefined)[]; support: number };
  const slots: Slot[] = [];
  backbone.forEach((tool, p) => {
    const support = aligned[p].filter(Boolean).length / n;
    slots.push({ key: p, tool, byspan: aligned[p], support });
  });
  for (const e of inserts.values()) {
    const support = e.spans.size / n;
    if (support < rules.conditionalSupport) continue;
    const byspan: (Group | undefined)[] = new Array(n);
    for (const [s, g] of e.spans) byspan[s] = g;
    const meanPos = e.order.reduce((a, b) => a + b, 0) / e.order.length;
    slots.push({ key: e.anchor + 0.5 + meanPos / 10, tool: e.tool, byspan, support });
  }
  slots.sort((a, b) => a.key - b.key || a.tool.localeCompare(b.tool));

  const kept = slots.filter((s) => s.support >= rules.conditionalSupport);
  // Never drop below the steps the spans agree on; if nothing reaches the bar, the medoid path is the procedure.
  const chosen = kept.length > 0 ? kept : slots.filter((s) => s.key === Math.floor(s.key));
  const steps: ProcedureStep[] = chosen.map((slot, idx) => {
    const previous = chosen.slice(0, idx).map((s) => s.tool);
    return {
      tool: slot.tool,
      support: round(slot.support),
      conditional: slot.support < rules.requiredSupport,
      repeated: isRepeated(slot.byspan),
      ...argumentRoles(slot.byspan, spans, previous),
    };
  });
  return { steps: collapseSteps(steps), medoidSessionId: spans[medoid].sessionId };
}

function isRepeated(byspan: (Group | undefined)[]): boolean {
  const present = byspan.filter((g): g is Group => !!g);
  return present.length > 0 && present.filter((g) => g.calls.length > 1).length * 2 >= present.length;
}

/** Two adjacent slots of the same tool (an insertion next to its twin) are one step. */
function collapseSteps(steps: ProcedureStep[]): ProcedureStep[] {
  const seq = collapseRepeats(steps.map((s) => s.tool));
  if (seq.length === steps.length) return steps;
  const out: ProcedureStep[] = [];
  for (const s of steps) {
    const last = out[out.length - 1];
    if (last && last.tool === s.tool) {
      last.support = Math.max(last.support, s.support);
      last.conditional = last.conditional && s.conditional;
      last.repeated = true;
    } else out.push({ ...s });
  }
  return out;
}

/**
 * Arguments whose values differ across spans are parameters; an argument whose value appeared in the
 * result of an earlier call of the same session is data flow from that call's tool.
 */
function argumentRoles(byspan: (Group | undefined)[], spans: Span[], previousTools: string[]) {
  const values = new Map<string, Set<string>>();
  const flows = new Map<string, Map<string, number>>();
  byspan.forEach((g, s) => {
    if (!g) return;
    for (const call of g.calls) {
      for (const [arg, v] of Object.entries(call.args ?? {})) {
        const text = typeof v === 'string' ? v : JSON.stringify(v);
        let set = values.get(arg);
        if (!set) values.set(arg, (set = new Set()));
        set.add(text);
        if (text.length < 3) continue;
        const earlier = spans[s].calls.filter((c) => c.position < call.position && c.result.includes(text));
        const source = earlier[earlier.length - 1];
        if (source && previousTools.includes(source.tool)) {
          let m = flows.get(arg);
          if (!m) flows.set(arg, (m = new Map()));
          m.set(source.tool, (m.get(source.tool) ?? 0) + 1);
        }
      }
    }
  });
  const present = byspan.filter(Boolean).length;
  const parameters = [...values.entries()]
    .filter(([, set]) => set.size > 1)
    .map(([arg]) => arg)
    .sort();
  const dataFlow = [...flows.entries()]
    .map(([arg, m]) => {
      const [fromTool, count] = [...m.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
      return { arg, fromTool, count };
    })
    // Data flow must be the usual case, not a coincidence in one session.
    .filter((f) => f.count >= Math.max(1, Math.ceil(present / 2)))
    .map(({ arg, fromTool }) => ({ arg, fromTool }))
    .sort((a, b) => a.arg.localeCompare(b.arg));
  return { parameters, dataFlow };
}

const round = (x: number) => Math.round(x * 100) / 100;
