import { categoricalFields, separatingCondition } from './branches.js';
import { commandOf, constantOutput, representativeCommand, stepKey } from './commands.js';
import { constantFields, goalStep, mainPathIndices } from './main-path.js';
import { argumentHolders, type Leaf, sourceKey, type ValueSource } from './result-values.js';
import { lcsAlignment, sequenceF1 } from './sequence.js';
import { holdsPersonalData } from './personal-data.js';
import { roleOf } from './step-role.js';
import type { ArgumentSource, ProcedureStep, Span, ToolCall } from './types.js';
import { InputError } from '../errors/input-error.js';

export interface ConsensusRules {
  /** Steps in at least this fraction of spans are required. */
  requiredSupport: number;
  /** Steps in fewer than this fraction are dropped; between the two they are conditional. */
  conditionalSupport: number;
  /** Cap on the spans compared pairwise to find the medoid (keeps big clusters linear). */
  medoidSample?: number;
  /**
   * `whole`: align the paths as the sessions took them (no cut at the goal call, a step one session took may
   * stay): what admission compares sessions with to tell who followed the procedure. Default `main`.
   */
  path?: 'main' | 'whole';
  /**
   * Only the steps' tools, order, support and commands, for comparing sessions with the procedure (admission,
   * evidence): no argument is traced to its source, no step's condition or goal outcome is read, so no result is
   * read for them.
   */
  stepsOnly?: boolean;
}

export interface Consensus {
  steps: ProcedureStep[];
  /** The medoid span's session id: the most representative path. */
  medoidSessionId: string;
  /**
   * The state-changing call the sessions' main paths end at, and the outcome fields its results showed every
   * time (`status` `cancelled`); null when no session acts.
   */
  goal: { tool: string; shows: Leaf[] } | null;
}

/**
 * One collapsed step of one span: the tool, the key it aligns on (the tool, and for a command line its head:
 * see commands.ts) and the calls it covers (a repeated lookup is one step).
 */
interface Group {
  tool: string;
  key: string;
  calls: ToolCall[];
}

function groups(span: Span): Group[] {
  const out: Group[] = [];
  for (const c of span.calls) {
    const key = stepKey(c);
    const last = out[out.length - 1];
    if (last && last.key === key) last.calls.push(c);
    else out.push({ tool: c.tool, key, calls: [c] });
  }
  return collapseCycles(out);
}

/**
 * A pair of steps done over and over (Read then Edit, for each file a search found) is the pair once, each step
 * covering its calls: a procedure says to repeat it, not how many times one session did.
 */
function collapseCycles(gs: readonly Group[]): Group[] {
  const out: Group[] = [];
  let i = 0;
  while (i < gs.length) {
    const a = gs[i];
    const b = gs[i + 1];
    if (!b || a.key === b.key || gs[i + 2]?.key !== a.key || gs[i + 3]?.key !== b.key) {
      out.push(a);
      i++;
      continue;
    }
    const first = { ...a, calls: [...a.calls] };
    const second = { ...b, calls: [...b.calls] };
    let j = i + 2;
    for (; gs[j]?.key === a.key && gs[j + 1]?.key === b.key; j += 2) {
      first.calls.push(...gs[j].calls);
      second.calls.push(...gs[j + 1].calls);
    }
    out.push(first, second);
    i = j;
  }
  return out;
}

/**
 * Aligns the spans' main paths into a consensus. Each span is cut after its last state-changing call (see
 * main-path.ts: a look-up or a hand-off after it is not the procedure); the medoid path
 * (highest total LCS agreement with the others) is the backbone; each of its steps is kept when enough spans
 * align to it, steps that the medoid lacks but many spans share are inserted where they occur, and a step only
 * one session took (a side trip, a retry) is never kept when there are several. Argument sources are traced by
 * value (result-values.ts) and agreed across the spans. Deterministic for a given input order.
 */
export function buildConsensus(spans: Span[], rules: ConsensusRules): Consensus {
  if (spans.length === 0) throw new InputError('buildConsensus: a consensus needs at least one span, got none');
  const whole = rules.path === 'whole';
  const full = spans.map(groups);
  const grouped = whole ? full : full.map((g) => mainPathIndices(g.map((x) => x.tool)).map((i) => g[i]));
  const seqs = grouped.map((g) => g.map((x) => x.key));
  const n = spans.length;
  // Where each argument value came from: read from every result of every span, so only for a procedure to write.
  const origins = rules.stepsOnly ? null : spans.map((s) => argumentHolders(s.calls, s.request));
  /** A step must be shared: with several sessions, one session's step is a side trip. */
  const shared = (count: number) => whole || n < 2 || count >= 2;

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
  const inserts = new Map<string, { key: string; anchor: number; spans: Map<number, Group>; order: number[] }>();
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
      if (!entry) inserts.set(key, (entry = { key: seqs[s][j], anchor, spans: new Map(), order: [] }));
      if (!entry.spans.has(s)) {
        entry.spans.set(s, grouped[s][j]);
        entry.order.push(j / Math.max(1, seqs[s].length));
      }
    }
  }

  // A slot's tool is that of any call aligned to it: calls of one step key share their tool.
  const toolOf = (byspan: (Group | undefined)[]) => byspan.find((g) => g !== undefined)!.tool;
  type Slot = { key: number; step: string; tool: string; byspan: (Group | undefined)[]; support: number };
  const slots: Slot[] = [];
  backbone.forEach((step, p) => {
    const count = aligned[p].filter(Boolean).length;
    if (shared(count)) slots.push({ key: p, step, tool: toolOf(aligned[p]), byspan: aligned[p], support: count / n });
  });
  for (const e of inserts.values()) {
    const support = e.spans.size / n;
    if (support < rules.conditionalSupport || !shared(e.spans.size)) continue;
    const byspan: (Group | undefined)[] = new Array(n);
    for (const [s, g] of e.spans) byspan[s] = g;
    const meanPos = e.order.reduce((a, b) => a + b, 0) / e.order.length;
    slots.push({ key: e.anchor + 0.5 + meanPos / 10, step: e.key, tool: toolOf(byspan), byspan, support });
  }
  slots.sort((a, b) => a.key - b.key || a.step.localeCompare(b.step));

  // A hand-off after the fix is the procedure's end only where the hand-off is how this task gets done (sessions that
  // changed nothing and handed the user on: the task's answer when the fix is not theirs to make) and most sessions
  // ended so. Otherwise it is how some runs went after the task was done, not a step to take.
  const lastAct = slots.reduce((at, s, i) => (roleOf(s.tool) === 'action' ? i : at), -1);
  const handedOn = grouped.filter(
    (g) => g.length > 0 && roleOf(g[g.length - 1].tool) === 'handoff' && !g.some((x) => roleOf(x.tool) === 'action'),
  ).length;
  const handOffEnds = handedOn >= Math.min(2, n);
  const kept = slots.filter(
    (s, i) =>
      s.support >= rules.conditionalSupport &&
      !(
        !whole &&
        lastAct >= 0 &&
        i > lastAct &&
        roleOf(s.tool) === 'handoff' &&
        (s.support < rules.requiredSupport || !handOffEnds)
      ),
  );
  // Never drop below the steps the spans agree on; if nothing reaches the bar, the medoid path is the procedure.
  const chosen =
    kept.length > 0
      ? kept
      : slots.length > 0
        ? slots.filter((s) => s.key === Math.floor(s.key))
        : backbone.map((step, p) => ({
            key: p,
            step,
            tool: grouped[medoid][p].tool,
            byspan: aligned[p],
            support: 1 / n,
          }));
  // A step's condition is read from what the checks before it showed, plain text included (a status line).
  const read = { text: true, all: true };
  const categorical = whole || rules.stepsOnly ? null : categoricalFields(spans, read);
  const steps: ProcedureStep[] = chosen.map((slot, idx) => {
    const previous = chosen.slice(0, idx).map((s) => s.tool);
    const conditional = slot.support < rules.requiredSupport;
    // A step some sessions skipped is kept with the condition under which the others took it, when what they had
    // seen before it says so (an optional step is written only with one; a required one is asked only when it
    // changes something: a lookup some skipped does no harm): the sessions that took it as they were just before
    // it, against everything the others saw.
    const asked = conditional || (slot.support < 1 && roleOf(slot.tool) === 'action');
    const when =
      asked && categorical
        ? separatingCondition(
            spans.flatMap((span, s) => {
              const first = slot.byspan[s]?.calls[0];
              return first ? [{ ...span, calls: span.calls.slice(0, Math.max(0, span.calls.indexOf(first))) }] : [];
            }),
            spans.filter((_, s) => !slot.byspan[s]),
            previous,
            categorical,
            { ...read, about: slot.tool },
          )
        : null;
    const written = writtenByAgent(slot.byspan, spans, origins);
    const sameAs = written.written ? givenBefore(slot.byspan, spans, previous, written.written) : [];
    const command = representativeCommand(
      slot.byspan.flatMap((g) => {
        const c = g ? commandOf(g.calls[0]) : null;
        return c === null ? [] : [c];
      }),
    );
    // What the step's command printed every time (`systemctl is-active nginx` -> `active`).
    const prints = command
      ? constantOutput(slot.byspan.flatMap((g) => (g ? [g.calls[g.calls.length - 1].result ?? ''] : [])))
      : null;
    // What a state-changing call's result showed every time it worked: the check after it.
    const shows =
      command || rules.stepsOnly || roleOf(slot.tool) !== 'action'
        ? []
        : constantFields(slot.byspan.flatMap((g) => (g ? lastResult(g.calls) : [])));
    return {
      tool: slot.tool,
      ...(slot.step !== slot.tool ? { key: slot.step } : {}),
      ...(command ? { command: prints ? { ...command, prints } : command } : {}),
      support: round(slot.support),
      conditional,
      ...repeatedOver(slot.byspan),
      ...eachOf(slot.byspan),
      ...(origins
        ? argumentRoles(slot.byspan, origins, previous, new Set(written.written))
        : { parameters: [], dataFlow: [] }),
      ...written,
      ...(sameAs.length ? { sameAs } : {}),
      ...(when ? { when } : {}),
      ...(shows.length ? { shows } : {}),
    };
  });
  const collapsed = collapseSteps(
    steps,
    chosen.map((slot) => slot.step),
  );
  const goalTool = whole ? null : (goalStep(collapsed)?.tool ?? null);
  // What the goal call's results showed, in the sessions whose main path ends at it (a hand-off after it aside).
  const goal = goalTool
    ? {
        tool: goalTool,
        shows: rules.stepsOnly
          ? []
          : constantFields(
              grouped.flatMap((g) => {
                const own = roleOf(g[g.length - 1]?.tool ?? '') === 'handoff' ? g.slice(0, -1) : g;
                const last = own[own.length - 1];
                return last?.tool === goalTool ? [last.calls[last.calls.length - 1].result] : [];
              }),
            ),
      }
    : null;
  return { steps: collapsed, medoidSessionId: spans[medoid].sessionId, goal };
}

/**
 * 1 when a source's field has the argument's name (`bills[].bill_id` for `bill_id`) or is the whole result (a lookup
 * that answers the id itself), else 0 (`bill_ids[]`, a list of ids).
 */
function namedAs(source: ValueSource, arg: string): number {
  if (source === 'user') return 0;
  if (source.path === '') return 1;
  const field = source.path.split('.').pop() ?? '';
  return field.replace(/\[\]$/, '') === arg ? 1 : 0;
}

/** The result of the last call that worked, if any did. */
function lastResult(calls: readonly ToolCall[]): string[] {
  for (let i = calls.length - 1; i >= 0; i--) if (calls[i].ok !== false) return [calls[i].result ?? ''];
  return [];
}

/**
 * Which of the arguments the agent chose (`args`) took the value an earlier step of the procedure was given: per
 * session, the latest call before this step whose tool is an earlier step's and which was passed the same value
 * (under any argument); kept when one such (tool, argument) holds in at least two sessions and in more than half of
 * those that passed it (the file a read opened is the file the edit changes).
 */
function givenBefore(
  byspan: (Group | undefined)[],
  spans: readonly Span[],
  previous: readonly string[],
  args: readonly string[],
): { arg: string; tool: string; fromArg: string }[] {
  const earlier = new Set(previous);
  const out: { arg: string; tool: string; fromArg: string }[] = [];
  for (const arg of args) {
    let passed = 0;
    const votes = new Map<string, { tool: string; fromArg: string; n: number }>();
    byspan.forEach((g, s) => {
      const call = g?.calls[0];
      const value = call?.args?.[arg];
      if (!call || typeof value !== 'string' || !value) return;
      passed++;
      const before = spans[s].calls.slice(0, spans[s].calls.indexOf(call));
      for (let i = before.length - 1; i >= 0; i--) {
        const c = before[i];
        if (!earlier.has(c.tool)) continue;
        const from = Object.entries(c.args ?? {}).find(([, v]) => v === value)?.[0];
        if (from === undefined) continue;
        const key = `${c.tool}\u0000${from}`;
        const vote = votes.get(key) ?? { tool: c.tool, fromArg: from, n: 0 };
        vote.n++;
        votes.set(key, vote);
        break;
      }
    });
    const [best] = [...votes.values()].sort((a, b) => b.n - a.n);
    if (best && best.n >= 2 && best.n * 2 > passed) out.push({ arg, tool: best.tool, fromArg: best.fromArg });
  }
  return out;
}

/**
 * Arguments whose every value is one the agent wrote or chose for the case, that no request and no earlier result
 * holds: a text of several lines (a patch, a file's new content), a line of code or a sentence, a file it went to.
 * Never something the user gave; nor the lines an edit replaces, which the read before it printed.
 */
function writtenByAgent(
  byspan: (Group | undefined)[],
  spans: readonly Span[],
  origins: ReadonlyMap<number, ReadonlyMap<string, readonly ValueSource[]>>[] | null,
): { written: string[] } | Record<string, never> {
  const values = new Map<string, string[]>();
  byspan.forEach((g, s) => {
    const request = spans[s].request ?? '';
    for (const c of g?.calls ?? [])
      for (const [arg, v] of Object.entries(c.args ?? {})) {
        const list = values.get(arg) ?? [];
        const traced =
          origins?.[s]
            .get(c.position)
            ?.get(arg)
            ?.some((h) => h !== 'user') ?? false;
        list.push(typeof v === 'string' && !traced && agentsOwn(v, request) ? v : '');
        values.set(arg, list);
      }
  });
  const written = [...values.entries()]
    .filter(([, list]) => list.every((v) => v !== ''))
    .map(([arg]) => arg)
    .sort();
  return written.length ? { written } : {};
}

/** Characters of code or of a quoted setting (`"version": "1.4.1"`, `Math.round(cents)`), not of a name. */
const CODE_CHARS = /["(){}[\];=<>]/;

/** Four words and more, or two: a sentence, or (with code characters) a line of code. */
const FOUR_WORDS = /\S\s+\S+\s+\S+\s+\S/;
const TWO_WORDS = /\S\s+\S/;

/** An absolute path to a file in a folder: `/home/dana/app/src/x.ts`, `/Users/dana/My App/x.ts`, `C:\\app\\x.ts`. */
const ABSOLUTE_PATH = /^(?:\/|[A-Za-z]:\\)(?:[^\n/\\]+[/\\])+[^\n/\\]*[^\s/\\]$/;

/**
 * Is an argument value one the agent wrote or chose, not one the user gave: a text of several lines, code or a
 * sentence (several words with code among them, or four words and more), or an absolute file path whose file
 * the request does not name, that the request does not hold? A name, an id or an address is the user's.
 */
function agentsOwn(value: string, request: string): boolean {
  // The shape first (most values are ids and names): the request is searched only for a text the agent may own.
  let shaped: boolean;
  if (value.includes('\n')) shaped = true;
  else if (ABSOLUTE_PATH.test(value)) {
    const file = value.split(/[/\\]/).pop()!.toLowerCase();
    shaped = !request.toLowerCase().includes(file);
  } else shaped = FOUR_WORDS.test(value) || (TWO_WORDS.test(value) && CODE_CHARS.test(value));
  return shaped && !request.includes(value);
}

/** Longest file path a step names. */
const MAX_EACH_PATH = 120;

/**
 * The files a repeated step went through, when every session that took it went through the same ones (at least
 * two sessions, two files): absolute paths, shown relative to the folder they all share, so no home folder or
 * user name reaches the skill. Quoted only when every part is a plain file name.
 */
function eachOf(byspan: (Group | undefined)[]): { each: { arg: string; values: string[] } } | Record<string, never> {
  const present = byspan.filter((g): g is Group => !!g);
  if (present.length < 2) return {};
  const args = new Set(present.flatMap((g) => g.calls.flatMap((c) => Object.keys(c.args ?? {}))));
  for (const arg of [...args].sort()) {
    const lists = present.map((g) => [...new Set(g.calls.map((c) => c.args?.[arg]))]);
    const first = lists[0];
    const key = (l: unknown[]) => JSON.stringify([...l].map(String).sort());
    if (first.length < 2 || !lists.every((l) => key(l) === key(first))) continue;
    if (!first.every((v) => typeof v === 'string' && /^\/[\w.\-/@+]+$/.test(v) && !v.includes('..'))) continue;
    const paths = first as string[];
    const dirs = paths.map((p) => p.split('/').slice(0, -1));
    let common = 0;
    while (dirs.every((d) => common < d.length && d[common] === dirs[0][common])) common++;
    const values = paths.map((p) => p.split('/').slice(common).join('/'));
    if (values.some((v) => v === '' || v.length > MAX_EACH_PATH)) continue;
    return { each: { arg, values } };
  }
  return {};
}

function isRepeated(byspan: (Group | undefined)[]): boolean {
  const present = byspan.filter((g): g is Group => !!g);
  return present.length > 0 && present.filter((g) => g.calls.length > 1).length * 2 >= present.length;
}

/**
 * Whether the step is a run of one call, and if so what the run goes over: the argument whose value changed between
 * its calls in most of the runs (one order after another: `order_id`), the first by name on a tie.
 */
function repeatedOver(byspan: (Group | undefined)[]): { repeated: boolean; over?: string } {
  if (!isRepeated(byspan)) return { repeated: false };
  const runs = byspan.filter((g): g is Group => !!g && g.calls.length > 1);
  const votes = new Map<string, number>();
  for (const g of runs) {
    const varied = new Set<string>();
    const first = g.calls[0].args ?? {};
    for (const c of g.calls.slice(1))
      for (const [arg, v] of Object.entries(c.args ?? {}))
        if (JSON.stringify(v) !== JSON.stringify(first[arg])) varied.add(arg);
    for (const arg of varied) votes.set(arg, (votes.get(arg) ?? 0) + 1);
  }
  const [best] = [...votes.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return best && best[1] * 2 > runs.length ? { repeated: true, over: best[0] } : { repeated: true };
}

/** Two adjacent slots of the same step (an insertion next to its twin) are one step. */
function collapseSteps(steps: ProcedureStep[], keys: readonly string[]): ProcedureStep[] {
  const out: ProcedureStep[] = [];
  steps.forEach((s, i) => {
    const last = out[out.length - 1];
    if (last && keys[i - 1] === keys[i]) {
      last.support = Math.max(last.support, s.support);
      last.conditional = last.conditional && s.conditional;
      last.repeated = true;
    } else out.push({ ...s });
  });
  return out;
}

/**
 * Arguments whose values differ across spans are parameters. Each argument's source is where its value came
 * from in each span (argumentHolders: every earlier result that held the value, found by value), agreed across
 * the spans: the source most spans share, the earlier one of two that all share, when more than half of the
 * spans that pass the argument have it and, for a result, its tool is an earlier step.
 */
function argumentRoles(
  byspan: (Group | undefined)[],
  origins: ReadonlyMap<number, ReadonlyMap<string, readonly ValueSource[]>>[],
  previousTools: string[],
  written: ReadonlySet<string>,
) {
  const values = new Map<string, Set<string>>();
  const votes = new Map<string, Map<string, { source: ValueSource; n: number; ranks: number }>>();
  const passed = new Map<string, number>();
  // Spans that pass each argument at this step, and spans that take the step at all.
  const spansWith = new Map<string, number>();
  let spansWithStep = 0;
  byspan.forEach((g, s) => {
    if (!g) return;
    spansWithStep++;
    const counted = new Set<string>();
    const seen = new Set<string>();
    for (const call of g.calls) {
      for (const [arg, v] of Object.entries(call.args ?? {})) {
        const text = typeof v === 'string' ? v : JSON.stringify(v);
        let set = values.get(arg);
        if (!set) values.set(arg, (set = new Set()));
        set.add(text);
        if (!seen.has(arg)) {
          seen.add(arg);
          spansWith.set(arg, (spansWith.get(arg) ?? 0) + 1);
        }
        // One vote per span for each place that held the value: the first call of a repeated step says where.
        const holders = origins[s].get(call.position)?.get(arg);
        if (!holders?.length || counted.has(arg)) continue;
        counted.add(arg);
        passed.set(arg, (passed.get(arg) ?? 0) + 1);
        let m = votes.get(arg);
        if (!m) votes.set(arg, (m = new Map()));
        holders.forEach((source, rank) => {
          const key = sourceKey(source);
          const vote = m.get(key) ?? { source, n: 0, ranks: 0 };
          vote.n++;
          vote.ranks += rank;
          m.set(key, vote);
        });
      }
    }
  });
  const parameters = [...values.entries()]
    .filter(([, set]) => set.size > 1)
    .map(([arg]) => arg)
    .sort();
  const sources: ArgumentSource[] = [];
  for (const [arg, m] of [...votes.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
    // Of places that held the value equally often, the field named as the argument is (`bills[].bill_id` over the
    // customer's list `bill_ids[]`: the bill was picked from the bills), then the first to hold it.
    const [best] = [...m.values()].sort(
      (a, b) =>
        b.n - a.n ||
        namedAs(b.source, arg) - namedAs(a.source, arg) ||
        a.ranks - b.ranks ||
        sourceKey(a.source).localeCompare(sourceKey(b.source)),
    );
    // The usual case, not a coincidence in one session.
    if (best.n * 2 <= (passed.get(arg) ?? 0)) continue;
    // What the agent wrote (a patch, a line of code) is never the user's, though no earlier result held it.
    if (best.source === 'user') {
      if (!written.has(arg)) sources.push({ arg, from: 'user' });
    } else if (previousTools.includes(best.source.tool))
      sources.push({
        arg,
        from: 'result',
        tool: best.source.tool,
        path: best.source.path,
        ...(best.source.part ? { part: true as const } : {}),
      });
  }
  const dataFlow = sources.flatMap((f) =>
    f.from === 'result'
      ? [{ arg: f.arg, fromTool: f.tool, path: f.path, ...(f.part ? { part: true as const } : {}) }]
      : [],
  );
  // Arguments every session passed with one value, that no earlier result supplied: a setting the procedure
  // always uses (`mode` "4g_5g_preferred"), or the same person's data replayed (a phone number), which is
  // named but never quoted.
  const fromResult = new Set(dataFlow.map((f) => f.arg));
  const fixed = [...values.entries()]
    .filter(
      ([arg, set]) =>
        set.size === 1 &&
        !fromResult.has(arg) &&
        (spansWith.get(arg) ?? 0) >= 2 &&
        (spansWith.get(arg) ?? 0) * 2 > spansWithStep,
    )
    .map(([arg, set]) => {
      const value = [...set][0];
      return isSetting(arg, value) ? { arg, value } : { arg };
    })
    .sort((a, b) => a.arg.localeCompare(b.arg));
  // Arguments the sessions set to one of a few words, each value passed in at least two of them (a value one session
  // passed is no choice of the task), that no earlier result supplied: what the tool accepts there (`reason` "no
  // longer needed" or "ordered by mistake").
  const spansPassing = (arg: string, value: string) =>
    byspan.filter((g) => g?.calls.some((c) => c.args?.[arg] === value)).length;
  const choices = [...values.entries()]
    .filter(
      ([arg, set]) =>
        set.size >= 2 &&
        set.size <= MAX_CHOICES &&
        !fromResult.has(arg) &&
        [...set].every((v) => isChoice(arg, v)) &&
        [...set].every((v) => spansPassing(arg, v) >= 2),
    )
    .map(([arg, set]) => ({ arg, values: [...set].sort() }))
    .sort((a, b) => a.arg.localeCompare(b.arg));
  return {
    parameters,
    dataFlow,
    sources,
    ...(fixed.length ? { fixed } : {}),
    ...(choices.length ? { choices } : {}),
  };
}

/** At most this many values make a choice; more is data (a date, a city), not a vocabulary. */
const MAX_CHOICES = 3;

/** A value of a choice: a setting, or a few lowercase words one space apart ("no longer needed"). */
function isChoice(arg: string, value: string): boolean {
  return isSetting(arg, value.replace(/ /g, '_'));
}

/**
 * A value a procedure sets, safe to quote in a skill: one lowercase word or a few joined by `_`, `-` or `.`
 * ("4g_5g_preferred", "storage", "dark-mode"), short, no run of three digits (ids, amounts, phone numbers), for
 * an argument whose name is not a person's or an account's data. JSON values (numbers, objects) are not.
 */
export function isSetting(arg: string, value: string): boolean {
  return (
    !holdsPersonalData(arg) &&
    value.length <= 32 &&
    /^[a-z0-9]+(?:[._-][a-z0-9]+)*$/.test(value) &&
    /[a-z]/.test(value) &&
    !/\d{3}/.test(value) &&
    !/^(true|false|null)$/.test(value)
  );
}

const round = (x: number) => Math.round(x * 100) / 100;
