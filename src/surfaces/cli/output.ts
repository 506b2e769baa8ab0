import { busyStoreText } from '../../app/store-errors.js';
import { escapeControl } from '../../domain/untrusted-text.js';
import type { Skill } from '../../domain/types.js';
import type { SynthesisReport } from '../../pipeline/synthesize.js';
import { exitCodeOf } from '../../errors/error-codes.js';
import { UsageError } from './command.js';
import { keepFirst } from '../../support/text.js';
import { errorCodeOf } from '../shapes.js';

/** Terminal output never carries raw control bytes from bad input (escape sequences, bells, bidi overrides). */
export const writeErr = (s: string) => process.stderr.write(escapeControl(s));

/** A line of terminal output as `out` writes it: control bytes escaped, one newline at the end. */
export const outText = (s: string) => escapeControl(s.endsWith('\n') ? s : `${s}\n`);

export const out = (s: string) => process.stdout.write(outText(s));

export const jsonText = (v: unknown) => outText(JSON.stringify(v, null, 2));

export const printJson = (v: unknown) => out(JSON.stringify(v, null, 2));

/**
 * What a command threw, said on stderr, as an exit code: it follows the error's code (src/errors/error-codes.ts).
 * `json` (the command line has --json): said as one line of JSON, `errorLine`.
 */
export function exitCode(e: unknown, json = false): number {
  const { stderr, code } = errorOutcome(e, json);
  process.stderr.write(stderr);
  return code;
}

/** What `exitCode` says and returns for an error, without saying it. */
export function errorOutcome(e: unknown, json = false): { stderr: string; code: number } {
  // SQLite's own words ("database is locked") say neither who holds it nor what to do.
  const busy = busyStoreText(e);
  const message = busy ? `${busy}: run the command again once that write is done` : (e as Error).message;
  const hint = UsageError.isInstance(e) ? 'Run "skillsmith --help" for usage.' : '';
  return { stderr: errorLine(message, errorCodeOf(e), { json, hint }), code: exitCodeOf(e) };
}

/**
 * An error as stderr says it: `skillsmith: MESSAGE` and the hint on a line of its own, or, for a command line with
 * --json, one line of JSON `{"error": MESSAGE, "code": CODE}` (REST's error body; the hint is for a person). Control
 * bytes escaped either way.
 */
export function errorLine(message: string, code: string, opts: { json?: unknown; hint?: string }): string {
  if (opts.json) return outText(JSON.stringify({ error: message, code }));
  return escapeControl(`skillsmith: ${message}\n${opts.hint ? `${opts.hint}\n` : ''}`);
}

/** The skills as a table; none: how many sessions a skill needs (`minOccurrences`, as this memory is configured). */
export function printSkillTable(skills: Skill[], minOccurrences: number) {
  if (skills.length === 0) {
    out(
      `No skills learned yet: a skill needs at least ${minOccurrences} similar successful sessions that follow the same procedure ` +
        '(synthesis.minOccurrences), and a synthesis pass after them.',
    );
    return;
  }
  out(`Learned skills (${skills.length}):`);
  const nameOf = new Map(skills.map((s) => [s.id, s.name]));
  const rows = skills.map((s) => [
    s.name,
    // A superseded skill (listed with --all) keeps the status it had; what matters now is what replaced it.
    `${s.supersededBy ? `superseded by ${nameOf.get(s.supersededBy) ?? s.supersededBy}` : s.status}${s.enabled ? '' : ' (disabled)'}${s.corpus === 'external' ? ' [imported]' : ''}`,
    String(s.support),
    s.attemptCount
      ? `${Math.round((100 * s.successCount) / s.attemptCount)}% (${s.successCount}/${s.attemptCount})`
      : '-',
    // Its track record since it was learned (the trials that set its status), beside the evidence it was learned on.
    // How many of them the outcome judge gave rather than a reported outcome (lifecycle.judgedTrials).
    s.trialsAttempted
      ? `${s.trialsPassed}/${s.trialsAttempted} passed${s.judgedTrials ? ` (${s.judgedTrials} judged)` : ''}`
      : '-',
    s.toolSequence.join(' > '),
  ]);
  const head = ['name', 'status', 'support', 'success rate', 'trials', 'tools'];
  const widths = head.map((h, i) => Math.min(48, Math.max(h.length, ...rows.map((r) => r[i].length))));
  const fmt = (r: string[]) => r.map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i]) : c)).join('  ');
  out(fmt(head));
  for (const r of rows) out(fmt(r));
}

/** A value as one word of a POSIX shell command line: as it is when nothing in it is special, else quoted. */
export function shellWord(v: string): string {
  return /^[\w@%+=:,./#-]+$/.test(v) && !v.startsWith('#') ? v : `'${v.replace(/'/g, `'\\''`)}'`;
}

/** Whitespace runs as one space, cut at `max` characters with an ellipsis. */
export function oneLine(text: string, max = Infinity): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${keepFirst(t, max - 1)}…` : t;
}

/** Longest goal a look-alike hint quotes, and how many it quotes. */
const HINT_GOAL = 80;
const HINT_GOALS = 5;

/**
 * Each look-alike group of a pass (sessions that ran the same steps, too few alike in words to group): who they are
 * and the command that learns them as one skill. `where` repeats the memory flags the user gave (memoryFlagsText).
 */
export function lookAlikeLines(report: Pick<SynthesisReport, 'lookAlike'>, where: string): string[] {
  const lines: string[] = [];
  for (const g of report.lookAlike ?? []) {
    const steps = g.steps.map((s) => `\`${s.command ?? s.tool}\``).join(', ');
    lines.push(
      '',
      `Alike, not yet one skill: ${g.sessions.length} sessions ran the same steps (${steps}), asked for in words too far apart to group:`,
      ...g.goals.slice(0, HINT_GOALS).map((goal) => `  ${JSON.stringify(oneLine(goal, HINT_GOAL))}`),
      ...(g.goals.length > HINT_GOALS ? [`  and ${g.goals.length - HINT_GOALS} more`] : []),
      `If they are one task, learn it with: npx skillsmith compile --sessions ${shellWord(g.sessions.join(','))} --commit${where}`,
    );
  }
  return lines;
}

/** Said first and on stderr: a pass whose drafts came from the configured fallback, not the model. */
export function reportFallback(r: SynthesisReport): void {
  if (r.fallback)
    writeErr(
      `skillsmith: the model distiller was unavailable, so this pass used ${r.fallback.to} (llm.fallback): ${r.fallback.reason}\n`,
    );
}

/** A comma-separated list of ids (`--sessions a,b`), or undefined. */
export const ids = (v: string | undefined) =>
  v
    ? v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
    : undefined;
