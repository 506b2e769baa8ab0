/**
 * Branches on what the lookups show. Two procedures may share their lookups and part at the state-changing
 * call: a return on an order that turns out to be pending is a cancellation. When a value in a shared lookup's
 * result separates their sessions cleanly (the sessions of one saw it, those of the other did not: an order's
 * `status`, a reservation's `cabin`), a skill branches on it toward the other's path. The condition is mined
 * from the sessions' results, never from the goal words. Pure.
 */
import { sectionLines, sectionText } from './body-sections.js';
import { isPersonalField } from './personal-data.js';
import { type Leaf, resultLeaves } from './result-values.js';
import { isVerb, roleOf, toolWordsOf } from './step-role.js';
import { contentWords, stem } from './word-match.js';
import type { BranchCondition, Span, ToolCall } from './types.js';

export type { BranchCondition } from './types.js';

export interface Branch {
  when: BranchCondition;
  /** The whole path an agent follows when the condition holds. */
  toolSequence: string[];
}

/** At most this many branches a skill, the default ("otherwise") path included. */
export const MAX_BRANCHES = 3;
/** A condition names a few values of a categorical field, never an id, a date or a name. */
const MAX_CONDITION_VALUES = 3;
const MAX_FIELD_VALUES = 6;
const MAX_VALUE_LENGTH = 30;
/**
 * Distinct observations (records looked up, and the values they showed) of each side that must show the field for
 * it to separate them on the evidence; on the group's side, per value of the condition. Two: benchmark worlds
 * hold few records (tau2's telecom tasks look up lines L1001-L1003, suspended in some tasks and not in others),
 * and replays of one task still count once.
 */
const MIN_EVIDENCE = 2;
/**
 * Share of the group's spans showing the field in which it shows one of the condition's values: a few sessions of
 * the group that saw another value (and did the same) follow the default path, which a rule need not cover; the
 * rest of the sessions must never show a condition value (a rule that fires must send the agent the right way).
 */
const MIN_COVERAGE = 0.8;

/**
 * The calls of `tool` a decision is read from: its successful calls before the session's first state-changing
 * call (what the agent had seen when it acted), or all of them when nothing changed anything. One tool may look up
 * records of several kinds (tau2's `get_details_by_id` reads a line, a plan, a device or a bill): each counts.
 */
function decisiveCalls<C extends Pick<ToolCall, 'tool' | 'ok'>>(calls: readonly C[], tool: string, all = false): C[] {
  return beforeActing(calls, all).filter((c) => c.ok && c.tool === tool);
}

/** The calls before the first successful state-changing one (all of them when none, or with `all`). */
function beforeActing<C extends Pick<ToolCall, 'tool' | 'ok'>>(calls: readonly C[], all = false): readonly C[] {
  const act = all ? -1 : calls.findIndex((c) => c.ok && roleOf(c.tool) === 'action');
  return act < 0 ? calls : calls.slice(0, act);
}

/** Key of a text field in the maps below: set apart from JSON paths, which never hold this character. */
const TEXT_MARK = '\u0001';
/** A `Key: value` line of a plain-text result: a short key of words (`Airplane Mode`, `Status Bar`). */
const TEXT_LINE = /^([A-Za-z][A-Za-z0-9 ()'/_-]{0,40}?):[ \t]+(\S.*)$/;
/** A whole one-line text is a value up to this long ("Data Saver mode is ON (limits data usage)."). */
const MAX_TEXT_LENGTH = 60;

/**
 * The fields of a plain-text result, as the tool printed them: each `Key: value` line's key with its value, or
 * its ` | `-separated parts (a status bar's `✈️ Airplane Mode`, `🔋 80%`); a one-line text with no such key is
 * one field at path `` (`inactive`, "VPN is turned OFF."). A JSON result, or a longer text, has none.
 */
export function textFields(result: string | null | undefined): Leaf[] {
  if (!result || result.length > MAX_PRINT_LENGTH) return [];
  const leaves = resultLeaves(result);
  if (leaves.length !== 1 || leaves[0].path !== '') return [];
  const text = leaves[0].value;
  // Most plain results are a word or an id (a user id, `inactive`): no key to look for.
  const lines = text.includes(':') ? text.split('\n').map((l) => l.trim()) : [text];
  const out: Leaf[] = [];
  for (const line of lines) {
    const m = line && TEXT_LINE.exec(line);
    if (!m) continue;
    for (const part of m[2].split(' | ')) if (part.trim()) out.push({ path: m[1].trim(), value: part.trim() });
  }
  if (out.length === 0 && text.length <= MAX_TEXT_LENGTH && !text.includes('\n')) out.push({ path: '', value: text });
  return out;
}

/** A status a check prints is short: a longer text (a log, a listing, a file) is read for no field. */
const MAX_PRINT_LENGTH = 2000;

/** What one call showed that a condition may name: its JSON leaves, and with `text`, a plain text's fields. */
function observed(result: string | null | undefined, text: boolean): Observed[] {
  const out: Observed[] = [];
  const leaves = resultLeaves(result ?? '');
  for (const leaf of leaves) {
    if (leaf.path === '' || leaf.path.includes('*')) continue;
    if (leaf.value.length > MAX_VALUE_LENGTH || /\d{3}/.test(leaf.value) || isPersonalField(leaf.path)) continue;
    out.push({ key: leaf.path, value: leaf.value });
  }
  // Only a plain-text result (one leaf, the whole text) has text fields.
  if (text && leaves.length === 1 && leaves[0].path === '')
    for (const f of textFields(result))
      if (!/\d{3}/.test(f.value) && !/\d{3}/.test(f.path) && !isPersonalField(f.path))
        out.push({ key: TEXT_MARK + f.path, value: f.value });
  return out;
}

type Observed = { key: string; value: string };

/**
 * observed() of one call's result, kept with the call: a consensus asks for each step that some sessions skipped,
 * and reads the same calls (the whole spans, and the same spans cut before each step) again every time.
 */
const OBSERVED = new WeakMap<object, Observed[]>();
const OBSERVED_WITH_TEXT = new WeakMap<object, Observed[]>();

function observedIn(call: Pick<ToolCall, 'result'>, text: boolean): Observed[] {
  const cache = text ? OBSERVED_WITH_TEXT : OBSERVED;
  let out = cache.get(call);
  if (!out) cache.set(call, (out = observed(call.result, text)));
  return out;
}

/** A condition on the field a key of `shown` names. */
function conditionOn(tool: string, key: string, values: string[]): BranchCondition {
  return key.startsWith(TEXT_MARK)
    ? { tool, path: key.slice(TEXT_MARK.length), in: values, text: true }
    : { tool, path: key, in: values };
}

/** What the decisive calls of `tool` were asked (their arguments): which records were looked up. */
function lookedUp(span: Span, tool: string, all = false): string {
  // A check that takes no arguments (a device's status) reads the state it prints: that is its record.
  return JSON.stringify(
    decisiveCalls(span.calls, tool, all).map((c) => (Object.keys(c.args ?? {}).length ? c.args : (c.result ?? null))),
  );
}

/**
 * Per lookup tool, and per field, the categorical values its decisive calls showed in one span (with `text`, a
 * plain-text result's fields too, keyed apart); with `all`, every call of it in the span counts. One pass over
 * the span's calls.
 */
function shownByTool(span: Span, text = false, all = false): Map<string, Map<string, Set<string>>> {
  const out = new Map<string, Map<string, Set<string>>>();
  for (const call of beforeActing(span.calls, all)) {
    if (!call.ok) continue;
    let fields = out.get(call.tool);
    if (!fields) {
      if (roleOf(call.tool) !== 'lookup') continue;
      out.set(call.tool, (fields = new Map()));
    }
    for (const { key, value } of observedIn(call, text)) {
      let set = fields.get(key);
      if (!set) fields.set(key, (set = new Set()));
      set.add(value);
    }
  }
  return out;
}

const NOTHING_SHOWN: ReadonlyMap<string, Set<string>> = new Map();

/**
 * Does a session's own result of `when.tool` show one of `when.in` at `when.path`? Read from its decisive calls:
 * those before the session's first state-changing call. A condition on the agent's tools (`available`) holds when
 * the session called `when.tool`.
 */
export function conditionHolds(when: BranchCondition, calls: readonly Pick<ToolCall, 'tool' | 'ok' | 'result'>[]) {
  // A session's agent could call a tool when it did, whatever the call returned.
  if (when.available) return calls.some((c) => c.tool === when.tool);
  return shownIn(when, decisiveCalls(calls, when.tool));
}

/** Does any successful call of `when.tool` among `calls` show one of `when.in` at `when.path`? */
export function shownIn(when: BranchCondition, calls: readonly Pick<ToolCall, 'tool' | 'ok' | 'result'>[]): boolean {
  const wanted = new Set(when.in);
  return calls.some(
    (call) =>
      call.ok &&
      call.tool === when.tool &&
      (when.text ? textFields(call.result) : resultLeaves(call.result)).some(
        (l) => l.path === when.path && wanted.has(l.value),
      ),
  );
}

/** The path to follow in a session: the first branch whose condition its own results meet, else the default. */
export function resolveBranches(
  skill: { toolSequence: readonly string[]; branches?: readonly Branch[] | null },
  calls: readonly Pick<ToolCall, 'tool' | 'ok' | 'result'>[],
): readonly string[] {
  for (const b of skill.branches ?? []) if (conditionHolds(b.when, calls)) return b.toolSequence;
  return skill.toolSequence;
}

/**
 * What a condition may be read from. `text`: plain-text results' fields too (a step's condition; never a
 * branch's). `all`: every call of a lookup in the spans given, not only those before the first state change (a
 * step's condition, read from the calls before that step).
 */
export interface ReadOptions {
  text?: boolean;
  all?: boolean;
  /**
   * The tool of the step the condition is for: a text field is named only when it is about that step, sharing a
   * word with its tool name besides the verb (`toggle_airplane_mode` and "Airplane Mode: ON"). A status print
   * shows many things at once, and in a few sessions one of them goes with any step (a benchmark's faults come
   * together); the field that names the step's object is the one the agent looked at.
   */
  about?: string;
}

/** Does a text field (its key, or a one-line text itself) share a word with `tool`'s name besides its verb? */
function isAbout(tool: string, key: string, values: readonly string[]): boolean {
  const object = new Set(
    toolWordsOf(tool)
      .filter((w) => !isVerb(w))
      .map(stem),
  );
  const said = contentWords(key || values.join(' '));
  return [...said].some((w) => object.has(w));
}

/**
 * The condition that separates `group` from `rest`: a field of one of `tools` (lookups both sides' procedures
 * call) as the sessions saw it before acting, with categorical values (a few across all spans, and at most half
 * as many as the observations of it), shown by at least half of the group's spans. Its values are those the
 * group showed in at least MIN_EVIDENCE distinct observations and the rest never showed; they must cover
 * MIN_COVERAGE of the group's spans that show the field, and the rest must show it in MIN_EVIDENCE observations
 * too (a result cut before the field says nothing; replays of one task are one observation). Fewest values
 * first, then the widest coverage, then the shallowest field, then by name. `opts` (ReadOptions) widens what is
 * read for a step's condition: plain text, and every call of the spans given (the caller cuts them).
 */
export function separatingCondition(
  group: readonly Span[],
  rest: readonly Span[],
  tools: readonly string[],
  categorical: (tool: string, path: string) => boolean = () => true,
  opts: ReadOptions = {},
): BranchCondition | null {
  const lookups = [...new Set(tools)].filter((t) => roleOf(t) === 'lookup');
  const { text = false, all: allCalls = false } = opts;
  let best: { when: BranchCondition; coverage: number; depth: number } | null = null;
  const gShown = lookups.length ? group.map((s) => shownByTool(s, text, allCalls)) : [];
  const rShown = lookups.length ? rest.map((s) => shownByTool(s, text, allCalls)) : [];
  for (const tool of lookups.sort()) {
    const g = gShown.map((m) => m.get(tool) ?? NOTHING_SHOWN);
    const r = rShown.map((m) => m.get(tool) ?? NOTHING_SHOWN);
    // Each distinct record read as a short number: an argless check's record is the text it printed.
    const ids = new Map<string, number>();
    const idOf = (record: string) => {
      let id = ids.get(record);
      if (id === undefined) ids.set(record, (id = ids.size));
      return id;
    };
    const gRecords = group.map((s) => idOf(lookedUp(s, tool, allCalls)));
    const rRecords = rest.map((s) => idOf(lookedUp(s, tool, allCalls)));
    const paths = [...new Set(g.flatMap((m) => [...m.keys()]))].sort();
    for (const path of paths) {
      // A value of one element of a list (one item's options) is not a property of what was looked up.
      if (path.includes('[]') || !categorical(tool, path)) continue;
      const gs = g.filter((m) => m.has(path));
      const rs = r.filter((m) => m.has(path));
      if (gs.length * 2 < g.length) continue;
      const all = new Set([...gs, ...rs].flatMap((m) => [...m.get(path)!]));
      if (all.size > MAX_FIELD_VALUES) continue;
      // Evidence counts observations (the records looked up and what they showed), not sessions: replays of one
      // task look the same record up and see the same thing again.
      const observations = (maps: typeof g, records: number[]) =>
        maps.flatMap((m, i) => {
          const values = m.get(path);
          return values ? [{ values, key: `${records[i]}=${[...values].sort()}` }] : [];
        });
      const inGroup = observations(g, gRecords);
      const inRest = observations(r, rRecords);
      // A category recurs: at most half as many values as observations. A field each record has its own value of
      // (an airport, a booking code) parts any two sets of records and is no rule; a status the same record
      // shows differently from task to task is one.
      if (all.size * 2 > new Set([...inGroup, ...inRest].map((o) => o.key)).size) continue;
      if (new Set(inRest.map((o) => o.key)).size < MIN_EVIDENCE) continue;
      const seenByRest = new Set(rs.flatMap((m) => [...m.get(path)!]));
      // Each value on the evidence of distinct observations: an airport two replays of one booking showed is no rule.
      const evidence = (v: string) => new Set(inGroup.filter((o) => o.values.has(v)).map((o) => o.key)).size;
      const values = [...all].filter((v) => !seenByRest.has(v) && evidence(v) >= MIN_EVIDENCE);
      if (values.length === 0 || values.length > MAX_CONDITION_VALUES) continue;
      if (opts.about && path.startsWith(TEXT_MARK) && !isAbout(opts.about, path.slice(TEXT_MARK.length), values))
        continue;
      const holds = (m: ReadonlyMap<string, Set<string>>) => m.has(path) && values.some((v) => m.get(path)!.has(v));
      const coverage = gs.filter(holds).length / gs.length;
      if (coverage < MIN_COVERAGE) continue;
      const when = conditionOn(tool, path, values.sort());
      const depth = path.split(/[.[]/).length;
      const better =
        !best ||
        values.length < best.when.in.length ||
        (values.length === best.when.in.length &&
          (coverage > best.coverage || (coverage === best.coverage && depth < best.depth)));
      if (better) best = { when, coverage, depth };
    }
  }
  return best?.when ?? null;
}

/**
 * Which fields of which lookups are categorical across a set of sessions (a status, a cabin class; not a city, a
 * name or an airport): at most MAX_FIELD_VALUES distinct values, each value seen on average in at least
 * three sessions. Only such a field can carry a condition: a value a few repeated sessions share by chance
 * (the same customer's city) is no rule.
 */
export function categoricalFields(
  spans: readonly Span[],
  opts: ReadOptions = {},
): (tool: string, path: string) => boolean {
  const seen = new Map<string, { values: Set<string>; sessions: number }>();
  for (const span of spans) {
    for (const [tool, fields] of shownByTool(span, opts.text, opts.all)) {
      for (const [path, values] of fields) {
        const key = `${tool}\u0000${path}`;
        const e = seen.get(key) ?? { values: new Set<string>(), sessions: 0 };
        for (const v of values) e.values.add(v);
        e.sessions++;
        seen.set(key, e);
      }
    }
  }
  return (tool, path) => {
    const e = seen.get(`${tool}\u0000${path}`);
    return !!e && e.values.size <= MAX_FIELD_VALUES && e.sessions >= 3 * e.values.size;
  };
}

/** How a branch is written in a SKILL.md body: plain words that read back into the structured field. */
export function branchLine(b: Branch, quote: (value: string) => string): string {
  const path = b.toolSequence.map((t) => `\`${t}\``).join(' > ');
  if (b.when.available) return `- If you can call \`${b.when.tool}\` yourself, follow: ${path}.`;
  const values = `[${b.when.in.map(quote).join(', ')}]`;
  return `- If \`${b.when.tool}\` shows \`${b.when.path}\` in ${values}, follow: ${path}.`;
}

const BRANCH_LINE = /^- If `([^`]+)` shows `([^`]+)` in (\[.*\]), follow: ((?:`[^`]+`(?: > )?)+)\.$/;
const TOOLSET_LINE = /^- If you can call `([^`]+)` yourself, follow: ((?:`[^`]+`(?: > )?)+)\.$/;

/** The tools of a branch line's path (`a` > `b`). */
function pathTools(path: string): string[] {
  return [...path.matchAll(/`([^`]+)`/g)].map((x) => x[1]);
}

/** The branch one line of a `## Branches` section states, or null when it states none. */
function branchOfLine(line: string): Branch | null {
  const toolset = TOOLSET_LINE.exec(line);
  if (toolset)
    return { when: { tool: toolset[1], path: '', in: [], available: true }, toolSequence: pathTools(toolset[2]) };
  const m = BRANCH_LINE.exec(line);
  if (!m) return null;
  let values: unknown;
  try {
    values = JSON.parse(m[3]);
  } catch {
    return null;
  }
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) return null;
  return { when: { tool: m[1], path: m[2], in: values }, toolSequence: pathTools(m[4]) };
}

/** The branches a body states (its `## Branches` section), as written by branchLine; none when it has none. */
export function branchesOf(body: string): Branch[] {
  // Recall calls this per served skill: a body without the section (most) costs one search, not a split.
  if (!body.includes('Branches')) return [];
  const lines = body.split('\n');
  const start = lines.findIndex((l) => /^##\s+Branches\s*$/.test(l));
  if (start < 0) return [];
  const out: Branch[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,6}\s/.test(line)) break;
    const branch = branchOfLine(line.trim());
    if (branch) out.push(branch);
  }
  return out.slice(0, MAX_BRANCHES - 1);
}

/** The heading of the steps a branch on the agent's tools states under its skill's branches. */
const TOOLSET_STEPS = /^##\s+Steps if you can call `([^`]+)` yourself\s*$/;

/** The text of a body's `## Done when` section, on one line ('' when it has none). */
export function doneOf(body: string): string {
  return sectionText(body, 'Done when');
}

/** The numbered steps of a body's `## Steps` section. */
export function stepsOf(body: string): string[] {
  return sectionLines(body, 'Steps').filter((l) => /^\d+\.\s/.test(l));
}

/** The lines of a body's sections on the agent's tools (heading and steps), by index: what an agent without them skips. */
function toolsetStepLines(lines: readonly string[], tool?: string): Set<number> {
  const out = new Set<number>();
  for (let i = 0; i < lines.length; i++) {
    const m = TOOLSET_STEPS.exec(lines[i]);
    if (!m || (tool !== undefined && m[1] !== tool)) continue;
    out.add(i);
    for (let j = i + 1; j < lines.length && !/^#{1,6}\s/.test(lines[j]); j++) out.add(j);
  }
  return out;
}

/** A body without its sections of steps for a branch on the agent's tools (`tool`'s only, when given). */
export function withoutToolsetSteps(body: string, tool?: string): string {
  // The context pack asks this of every skill it renders: most have no such section.
  if (!body.includes('Steps if you can call')) return body;
  const lines = body.split('\n');
  const drop = toolsetStepLines(lines, tool);
  if (drop.size === 0) return body;
  return lines
    .filter((_, i) => !drop.has(i))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n');
}

/**
 * A body with the steps of a branch on the agent's tools, under `## Steps if you can call `tool` yourself`, and
 * when it is done that way (`done`), right after its `## Branches` section (else before `## Done when`, else at the
 * end); an earlier such section for that tool is replaced. No steps: the body without one.
 */
export function withToolsetSteps(body: string, tool: string, steps: readonly string[], done = ''): string {
  const lines = withoutToolsetSteps(body, tool).split('\n');
  if (steps.length === 0) return lines.join('\n');
  const finish = done ? ['', `Done when, this way: ${done}`] : [];
  const section = [`## Steps if you can call \`${tool}\` yourself`, '', ...steps, ...finish, ''];
  const branches = lines.findIndex((l) => /^##\s+Branches\s*$/.test(l));
  let at = -1;
  if (branches >= 0) {
    at = branches + 1;
    while (at < lines.length && !/^#{1,6}\s/.test(lines[at])) at++;
  } else at = lines.findIndex((l) => /^##\s+Done when\s*$/.test(l));
  if (at < 0 || at >= lines.length) return [...lines, '', ...section].join('\n').replace(/\n{3,}/g, '\n\n');
  lines.splice(at, 0, ...section);
  return lines.join('\n').replace(/\n{3,}/g, '\n\n');
}

/** The branches a body states on the agent's tools (`available`): the distil step's, which the branch stage keeps. */
export function toolsetBranchesOf(body: string): Branch[] {
  return branchesOf(body).filter((b) => b.when.available);
}

/**
 * A body with its `## Branches` section set to `branches` (where it was, else before `## Done when`, else at the
 * end), or without one when there are none. Values are quoted by `quote` (redacted, as data).
 */
export function withBranches(body: string, branches: readonly Branch[], quote: (value: string) => string): string {
  const lines = body.split('\n');
  const start = lines.findIndex((l) => /^##\s+Branches\s*$/.test(l));
  if (start >= 0) {
    let end = start + 1;
    while (end < lines.length && !/^#{1,6}\s/.test(lines[end])) end++;
    lines.splice(start, end - start);
  }
  if (branches.length === 0) return lines.join('\n');
  const at = start >= 0 ? start : lines.findIndex((l) => /^##\s+Done when\s*$/.test(l));
  const section = [
    '## Branches',
    '',
    branches.some((b) => b.when.available)
      ? 'Decided by the tools you have and what a lookup shows, not by the words of the request; the first that holds:'
      : 'Decided by what a lookup shows, not by the words of the request; the first that holds:',
    ...branches.map((b) => branchLine(b, quote)),
    '- Otherwise: follow the steps above.',
    '',
  ];
  // Where it was, else before `## Done when`, else at the end.
  if (at >= 0) lines.splice(at, 0, ...section);
  else lines.push('', ...section);
  return lines.join('\n').replace(/\n{3,}/g, '\n\n');
}

/**
 * A body for an agent that has only some tools: each branch whose path calls a tool `has` rejects is replaced by a
 * line saying that, when its condition holds, this procedure needs that tool, so the agent does not follow the
 * main path where the sessions took another; a branch for agents that can call a tool this one lacks (`available`)
 * is not its path, and goes (with the section, when no branch is left). Returns the body and the branches kept
 * (the body unchanged when all are).
 */
export function branchesFor(body: string, has: (tool: string) => boolean): { body: string; branches: Branch[] } {
  const all = branchesOf(body);
  const lacking = (b: Branch) =>
    (b.when.available ? [b.when.tool, ...b.toolSequence] : b.toolSequence).filter((t) => !has(t));
  if (all.every((b) => lacking(b).length === 0)) return { body, branches: all };
  const lines = body.split('\n');
  const start = lines.findIndex((l) => /^##\s+Branches\s*$/.test(l));
  const dropSteps: string[] = [];
  let end = start + 1;
  for (; end < lines.length && !/^#{1,6}\s/.test(lines[end]); end++) {
    const branch = branchOfLine(lines[end].trim());
    if (!branch) continue;
    const missing = [...new Set(lacking(branch))];
    if (missing.length === 0) continue;
    if (branch.when.available) {
      lines.splice(end--, 1);
      dropSteps.push(branch.when.tool);
      continue;
    }
    const m = BRANCH_LINE.exec(lines[end].trim())!;
    const needs = missing.map((t) => `\`${t}\``).join(', ');
    lines[end] =
      `- If \`${m[1]}\` shows \`${m[2]}\` in ${m[3]}, the sessions went on with ${needs}, which ` +
      `${missing.length === 1 ? 'is' : 'are'} not among your tools: this procedure does not fit; do not follow the steps above.`;
  }
  const kept = all.filter((b) => lacking(b).length === 0);
  // No branch left, and no line saying one does not fit: the section says nothing.
  if (!lines.slice(start + 1, end).some((l) => l.trim().startsWith('- If '))) lines.splice(start, end - start);
  // The steps of a branch the agent cannot take go with it.
  const out = dropSteps.reduce((text, tool) => withoutToolsetSteps(text, tool), lines.join('\n'));
  return { body: out.replace(/\n{3,}/g, '\n\n'), branches: kept };
}
