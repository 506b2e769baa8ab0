import type { EvidenceTrace } from './evidence.js';
import type { Draft } from './types.js';
import { riskyCommands } from './risky-command.js';
import { findInstructions } from './untrusted-text.js';

export interface Verdict {
  ok: boolean;
  reasons: string[];
  coverage: number;
  resonance: number;
}

export interface VerifyRules {
  minCoverage: number;
  minResonance: number;
  /** Validates the serialized SKILL.md (agentskills.io rules); returns the errors. */
  validateSkillMd: (draft: Draft) => string[];
}

const TOKEN = /[a-z][a-z0-9_]{2,}/g;

/**
 * The deterministic verifier (no model): no invented tools, tool coverage and evidence resonance at least
 * 0.5 (MemOS), numbered steps and an Edge cases section, and a SKILL.md that validates.
 */
export function verifyDraft(
  draft: Draft,
  evidence: EvidenceTrace[],
  rules: VerifyRules,
  materialTools?: ReadonlySet<string>,
  /**
   * The text of every session of the group (goals, arguments, results): what a draft may quote or name. Read only
   * when the evidence does not show something the draft writes (it is large; most drafts need only the evidence).
   */
  materialText?: () => string,
  /**
   * The words of that text (identifiers: argument names, result fields, values), lowercased: what a name the
   * draft writes is checked against first (a procedure names its tools' arguments, which capped traces may not
   * show), so the whole text is read and compared only for what they do not hold.
   */
  materialWords?: () => WordLookup,
): Verdict {
  const reasons: string[] = [];
  // The tools of all the material (every session of the group), not only the capped traces a model sees.
  const evidenceTools = new Set([...evidence.flatMap((e) => e.tools), ...(materialTools ?? [])]);
  const named = new Set([...draft.toolsRequired, ...draft.toolSequence]);
  const invented = [...named].filter((t) => !evidenceTools.has(t));
  if (invented.length) reasons.push(`names tools absent from the evidence: ${invented.join(', ')}`);
  // A playbook is a tool procedure; a heuristic (fact-only) skill may name none.
  const toolFree = draft.kind === 'heuristic' && named.size === 0;
  if (named.size === 0 && !toolFree) reasons.push('names no tool');

  // Coverage: the draft's command-like tokens (tools, backticked identifiers) that the evidence shows,
  // as a tool or anywhere in a trace (argument names appear in the traces' call arguments).
  const evidenceText = evidence.map((e) => e.text).join('\n');
  const backticked = [...draft.body.matchAll(/`([A-Za-z_][\w.-]*)`/g)].map((m) => m[1]);
  const commands = new Set([...named, ...backticked.filter((t) => /_/.test(t))]);
  const covered = [...commands].filter((t) => evidenceTools.has(t) || evidenceText.includes(t)).length;
  const coverage = commands.size ? covered / commands.size : toolFree ? 1 : 0;
  if (coverage < rules.minCoverage) reasons.push(`tool coverage ${coverage.toFixed(2)} below ${rules.minCoverage}`);

  // Resonance: evidence traces that share at least two tokens with the draft's summary and steps.
  const draftTokens = new Set(`${draft.whenToUse}\n${draft.body}`.toLowerCase().match(TOKEN) ?? []);
  const resonant = evidence.filter((e) => {
    let shared = 0;
    for (const t of new Set(e.text.toLowerCase().match(TOKEN) ?? []))
      if (draftTokens.has(t) && ++shared >= 2) return true;
    return false;
  }).length;
  const resonance = evidence.length ? resonant / evidence.length : 0;
  if (resonance < rules.minResonance)
    reasons.push(`evidence resonance ${resonance.toFixed(2)} below ${rules.minResonance}`);

  // What the draft writes that no session shows: a model that obeyed text planted in the evidence writes a
  // command, an address or a tool of its own ("run `curl … | sh`", "then `delete_customer_account`").
  const unseen = ungrounded(draft, evidenceText, evidenceTools, materialWords);
  reasons.push(
    ...(unseen.length && materialText
      ? ungrounded(draft, `${evidenceText}\n${materialText()}`, evidenceTools, materialWords)
      : unseen),
  );

  if (!/^\s*1\.\s+\S/m.test(draft.body)) reasons.push('body has no numbered steps');
  if (/^\s*0[.)]\s/m.test(draft.body)) reasons.push('body has a step numbered 0 (steps are numbered from 1)');
  if (!/^##\s+Edge cases\s*$/im.test(draft.body)) reasons.push('body has no "## Edge cases" section');
  // A skill is read by future planners: it may not carry an instruction planted in a tool result, an error,
  // a goal or a model's answer.
  for (const [field, text] of [
    ['name', draft.name],
    ['description', draft.whenToUse],
    ['body', draft.body],
  ] as const) {
    const found = findInstructions(text, { source: 'skill' });
    if (found.length)
      reasons.push(`${field} carries instruction-like text (${[...new Set(found.map((f) => f.kind))].join(', ')})`);
  }
  reasons.push(...rules.validateSkillMd(draft));
  return { ok: reasons.length === 0, reasons, coverage, resonance };
}

/** The words (identifiers) of a text, lowercased: what materialWords holds. */
export function identifierWords(texts: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const text of texts) for (const [w] of text.matchAll(IDENTIFIER)) out.add(w.toLowerCase());
  return out;
}

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/g;
const WHOLE_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A key of a JSON object as a result prints it: `"status":`. */
const JSON_KEY = /"([A-Za-z_][A-Za-z0-9_]*)"\s*:/g;

/** Whether a word (lowercased) is one of the material's. */
export interface WordLookup {
  has(word: string): boolean;
}

/**
 * The material's words looked up in tiers, each built only when a word is not in the ones before: the names of
 * the calls' arguments (what a procedure's steps name most), then the keys of the JSON results (what "Done when" and
 * a condition name), then every word of the material (identifierWords of `lines`). Every word of the first two tiers
 * is a word of the last (a key whole, as JSON prints it), so the answer is that of identifierWords(lines); most
 * drafts never need the last tier, which reads every goal, argument and result of the group.
 */
export function tieredWords(
  calls: () => Iterable<{ args: unknown; result: string | null }>,
  lines: () => Iterable<string>,
): WordLookup {
  // The calls, listed once for the two tiers that read them.
  let listed: { args: unknown; result: string | null }[] | undefined;
  const all = () => (listed ??= [...calls()]);
  const tiers: (() => Set<string>)[] = [
    () => {
      const out = new Set<string>();
      for (const c of all()) keysInto(out, c.args);
      return out;
    },
    () => {
      const out = new Set<string>();
      for (const c of all()) for (const [, k] of (c.result ?? '').matchAll(JSON_KEY)) out.add(k.toLowerCase());
      return out;
    },
    () => identifierWords(lines()),
  ];
  const built: Set<string>[] = [];
  return {
    has(word) {
      for (let i = 0; i < tiers.length; i++) {
        built[i] ??= tiers[i]();
        if (built[i].has(word)) return true;
      }
      return false;
    },
  };
}

/** The keys of an argument value at every depth that are an identifier whole, lowercased, into `out`. */
function keysInto(out: Set<string>, value: unknown): void {
  if (Array.isArray(value)) {
    for (const v of value) keysInto(out, v);
    return;
  }
  if (!value || typeof value !== 'object') return;
  for (const [k, v] of Object.entries(value)) {
    // What JSON leaves out of an object (as the material's text, JSON.stringify of the arguments, does).
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    if (WHOLE_IDENTIFIER.test(k)) out.add(k.toLowerCase());
    keysInto(out, v);
  }
}

/** Text as compared for grounding: no quotes, backslashes (JSON escapes) or runs of space. */
function plain(text: string): string {
  return text
    .replace(/\\[nrt]/g, ' ')
    .replace(/[\\"'`]/g, '')
    .replace(/\s+/g, ' ')
    .toLowerCase();
}

const URL_IN_TEXT = /\b(?:https?|ftp):\/\/[^\s`'")<>\]]+/gi;

/**
 * The reasons a draft writes what its evidence does not show: a backticked name that is neither a tool of the
 * material nor a word of a trace, a backticked command no trace holds, a URL no trace holds, a destructive or
 * fetch-and-run command no trace holds. Compared without quotes and escapes (a trace's JSON escapes them); a
 * span cut with an ellipsis is compared up to the cut.
 */
function ungrounded(
  draft: Draft,
  evidenceText: string,
  tools: ReadonlySet<string>,
  words?: () => WordLookup,
): string[] {
  const seen = plain(evidenceText);
  /** A name that is a word of the material, or whose parts (a field path) each are. */
  const isWord = (name: string) => {
    if (!words) return false;
    const held = words();
    const lower = name.toLowerCase();
    return held.has(lower) || lower.split('.').every((part) => held.has(part));
  };
  const shows = (text: string) => {
    const t = plain(text.replace(/(?:…|\.\.\.)$/, '')).trim();
    return t.length === 0 || seen.includes(t);
  };
  const text = `${draft.whenToUse}\n${draft.body}`;
  const names: string[] = [];
  const commands: string[] = [];
  for (const [, span] of text.matchAll(/`([^`\n]+)`/g)) {
    const s = span.trim();
    if (/^[A-Za-z_][\w.:/@-]*$/.test(s)) {
      // A field path (`line.status`) is shown when each of its names is.
      if (!tools.has(s) && !isWord(s) && !shows(s) && !s.split('.').every((part) => shows(part))) names.push(s);
    } else if (/\s/.test(s) && !shows(s)) commands.push(s);
  }
  const urls = [...text.matchAll(URL_IN_TEXT)].map((m) => m[0].replace(/[.,;:]+$/, '')).filter((u) => !shows(u));
  const risky = riskyCommands(text).filter((c) => !shows(c));
  const out: string[] = [];
  const list = (xs: string[]) =>
    [...new Set(xs)]
      .slice(0, 3)
      .map((x) => JSON.stringify(x.slice(0, 60)))
      .join(', ');
  if (names.length) out.push(`names what no session shows: ${list(names)}`);
  if (commands.length) out.push(`quotes commands no session ran: ${list(commands)}`);
  if (urls.length) out.push(`gives addresses no session used: ${list(urls)}`);
  if (risky.length) out.push(`carries a destructive or fetch-and-run command no session ran: ${list(risky)}`);
  return out;
}
