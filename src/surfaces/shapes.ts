/** The JSON shapes every surface (CLI --json, REST, MCP) shows: one definition, so they cannot drift. */
import { branchesOf } from '../domain/branches.js';
import { sameProcedureVersion } from '../domain/reconcile.js';
import { renamedText } from '../domain/standing.js';
import { stillOpen } from '../domain/open-session.js';
import type { OutcomeSource, Session, Skill } from '../domain/types.js';
import type { NearestSkill, RecalledSkill } from '../pipeline/recall.js';
import type { SynthesisReport } from '../pipeline/synthesize.js';
import type { Memory } from '../app/memory.js';
import type { SessionRecall } from '../app/types.js';
import { noSkillNamed as sayNoSkillNamed } from '../domain/skill-rename.js';
import { busyStoreText, unreachableStoreText } from '../app/store-errors.js';
import { httpStatusOf } from '../errors/error-codes.js';
import { HttpError } from '../errors/http-error.js';
import { SkillsmithError } from '../errors/skillsmith-error.js';

/** A skill as every surface shows it: the stable shape of `skills list --json` (README "Stable JSON shapes"). */
export function skillJson(s: Skill) {
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    status: s.status,
    enabled: s.enabled,
    version: s.version,
    kind: s.kind,
    corpus: s.corpus,
    toolsRequired: s.toolsRequired,
    toolSequence: s.toolSequence,
    branches: branchesOf(s.body),
    successCount: s.successCount,
    attemptCount: s.attemptCount,
    support: s.support,
    eta: s.eta,
    utility: s.utility,
    // Its track record since it was learned: trials that count, passed, and how many of them the outcome judge gave
    // (lifecycle.judgedTrials) rather than a reported outcome.
    trialsAttempted: s.trialsAttempted,
    trialsPassed: s.trialsPassed,
    judgedTrials: s.judgedTrials ?? 0,
    sourceSessions: s.sourceSessions,
    supersededBy: s.supersededBy,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    lastUsedAt: s.lastUsedAt,
  };
}

/**
 * A skill in a list an agent reads (MCP `list_skills`): skillJson with the number of its source sessions instead
 * of their ids. A skill of a busy memory has hundreds, and a tool answer lands in a model's context; the ids stay
 * a read away (the REST skill, `skills list --json`).
 */
export function skillSummaryJson(s: Skill) {
  const { sourceSessions, ...rest } = skillJson(s);
  return { ...rest, sourceSessionCount: sourceSessions.length };
}

/** A recalled skill as `recall --json` shows it: the main path and, where the procedure branches, its branches. */
export function recalledJson(h: RecalledSkill) {
  return {
    id: h.id,
    name: h.name,
    similarity: h.similarity,
    toolsRequired: h.toolsRequired,
    toolSequence: h.toolSequence,
    branches: h.branches,
    body: h.body,
  };
}

/** A page of stored sessions (REST `GET /api/sessions`, `sessions list`): its default size and the most it holds. */
export const SESSION_PAGE = { size: 50, max: 200 } as const;

/** A session without its calls (list views): how many calls and which tools. */
export function sessionSummary(s: Session) {
  return {
    id: s.id,
    goal: s.goal,
    outcome: s.outcome,
    /**
     * `reported` by the log, a person or a pipeline; `judged` by the outcome judge; null while the session is open and
     * nobody has given an outcome (it has not ended, and its `unknown` is no one's report).
     */
    outcomeSource: outcomeSourceOf(s),
    reward: s.reward,
    agentId: s.agentId,
    source: s.source,
    startedAt: s.startedAt,
    endedAt: s.endedAt,
    callCount: s.calls.length,
    tools: [...new Set(s.calls.map((c) => c.tool))],
  };
}

/** Where a session's outcome came from, as `sessionSummary` says it (null: open, and no outcome given yet). */
export function outcomeSourceOf(s: Pick<Session, 'outcome' | 'outcomeSource' | 'endedAt'>): OutcomeSource | null {
  if (s.outcomeSource === 'judged') return 'judged';
  return stillOpen(s) ? null : 'reported';
}

/**
 * A session with every tool call (the provenance page), and the skills recalled for it (what its reported outcome
 * credits: `{skill, similarity, at}` in the order they were served).
 */
export function sessionJson(s: Session, recalled: readonly SessionRecall[] = []) {
  return { ...sessionSummary(s), labels: s.labels ?? null, calls: s.calls, recalled };
}

/** What a lookup by a name that found no skill says, with the name the skill it meant has now (skill-rename.ts). */
export async function noSkillNamed(memory: Pick<Memory, 'skills'>, name: string): Promise<string> {
  return sayNoSkillNamed(name, await memory.skills.nowKnownAs(name));
}

/** The JSON shape of a synthesis report (stable key order): `synthesize --json`, `POST /api/synthesize`. */
export function stableReport(r: SynthesisReport) {
  return {
    created: r.created,
    updated: r.updated,
    reinforced: r.reinforced,
    superseded: r.superseded,
    skipped: r.skipped,
    ...(r.lookAlike ? { lookAlike: r.lookAlike } : {}),
    ...(r.fallback ? { fallback: r.fallback } : {}),
    ...(r.retention ? { retention: r.retention } : {}),
    ...(r.revised ? { revised: r.revised } : {}),
    ...(r.open ? { open: r.open } : {}),
    stats: r.stats,
  };
}

/**
 * A synthesis pass said in words (`skillsmith synthesize`, MCP's synthesize): the counts, then a
 * line per skill written, reinforced or superseded (by name and version), and the clusters skipped.
 */
export async function synthesisLines(report: SynthesisReport, memory: Memory): Promise<string[]> {
  const verb = report.stats.dryRun ? 'would be' : '';
  const line = (text: string) => text.replace(/(\S) {2,}/g, '$1 ');
  const lines = [
    `${report.stats.newSessions} new sessions, ${report.stats.clusters} clusters, ${report.stats.dirtyClusters} to examine${report.stats.dryRun ? ' (dry run: nothing written)' : ''}.`,
  ];
  for (const s of report.created) lines.push(line(`  created ${verb} ${s.name} ${s.version} (cluster ${s.cluster})`));
  for (const s of report.updated)
    lines.push(
      line(
        `  updated ${verb} ${s.name} -> ${s.version}${sameProcedureVersion(s.version) ? ' (same procedure, written by this release)' : ''}`,
      ),
    );
  // A skill several groups of sessions reinforced is one line, with how many.
  const reinforced = new Map<string, number>();
  for (const s of report.reinforced) reinforced.set(s.name, (reinforced.get(s.name) ?? 0) + 1);
  for (const [name, groups] of reinforced)
    lines.push(line(`  reinforced ${verb} ${name}${groups > 1 ? ` (by ${groups} groups of sessions)` : ''}`));
  for (const s of report.superseded) {
    // The skill it replaced, by its name (and version): an id says nothing to the person reading.
    const old = await memory.skills.get(s.supersedes);
    const was = old ? `${old.name} ${old.version}` : s.supersedes;
    // A renamed tool is what made them one: said, so the person knows why the old one went.
    lines.push(line(`  superseded ${verb} ${was} by ${s.name} ${s.version}${renamedText(s.renamed)}`));
  }
  lines.push(...keptEditLines(report), ...revisedLines(report), ...openLines(report), ...retentionLines(report));
  // Clusters a pass examined a moment ago wait out their cooldown: one line, saying when to ask again.
  const cooling = report.skipped.filter((s) => s.reason.startsWith('cooldown:'));
  for (const s of report.skipped) if (!cooling.includes(s)) lines.push(`  skipped ${s.cluster}: ${s.reason}`);
  if (cooling.length) {
    const wait = Math.ceil(memory.config.synthesis.cooldownMs / 1000);
    lines.push(
      `  skipped ${cooling.length === 1 ? `cluster ${cooling[0]!.cluster}` : `${cooling.length} clusters`}: distilled less than ${wait} s ago (synthesis.cooldownMs); run synthesize again after that to examine ${cooling.length === 1 ? 'it' : 'them'}`,
    );
  }
  return lines;
}

/** The skills whose sources were reported failed after they were learned (stages/revoke.ts), a line each. */
export function revisedLines(report: SynthesisReport): string[] {
  const verb = report.stats.dryRun ? 'would leave' : 'left';
  return (report.revised ?? []).map(
    (r) =>
      `  ${r.revoked} session${r.revoked === 1 ? '' : 's'} reported failed after ${r.name} was learned from ${r.revoked === 1 ? 'it' : 'them'} ${verb} its sources${r.retired ? `; retired: ${r.retired.replace(/^.*?: /, '')}` : ''}`,
  );
}

/** The sessions still open that a pass left out of the clusters it distilled, in a line; none when there were none. */
export function openLines(report: Pick<SynthesisReport, 'open'>): string[] {
  if (!report.open) return [];
  const { sessions, clusters } = report.open;
  return [
    `  left out ${sessions} session${sessions === 1 ? '' : 's'} still open (not ended, no outcome yet) in ${clusters} cluster${clusters === 1 ? '' : 's'}: ${sessions === 1 ? 'it counts' : 'they count'} once ${sessions === 1 ? 'it ends' : 'they end'}, when a pass distils ${clusters === 1 ? 'the cluster' : 'those clusters'} again`,
  ];
}

/** What retention (`capture.retentionDays`) forgot after a pass, in a line; none when it forgot and kept nothing. */
export function retentionLines(report: SynthesisReport): string[] {
  if (!report.retention) return [];
  const { before, sessions, undated } = report.retention;
  return [
    `  retention (capture.retentionDays): ${sessions} session${sessions === 1 ? '' : 's'} that ended (or, still open, were last active) before ${before} forgotten${undated ? `; ${undated} kept, their stored time reads as no date` : ''}`,
  ];
}

/**
 * The skills a person edited whose sessions, distilled again by this pass, now suggest another procedure: the pass
 * kept the person's text, and says so once per skill, with the procedure and how to hand the skill back.
 */
export function keptEditLines(report: SynthesisReport): string[] {
  const said = new Map<string, string[]>();
  for (const s of report.reinforced) if (s.keptEdit && s.suggests) said.set(s.name, s.suggests);
  return [...said].map(
    ([name, tools]) =>
      `  kept ${name} as a person edited it; its sessions now suggest another procedure: ${tools.join(' > ')} (skills show ${name}; skills edit ${name} --revert hands it back to the learner)`,
  );
}

/** Whether a pass wrote, reinforced and skipped nothing ("Nothing new to learn."). */
export function learnedNothing(r: SynthesisReport): boolean {
  return (
    !r.created.length &&
    !r.updated.length &&
    !r.reinforced.length &&
    !r.superseded.length &&
    !r.skipped.length &&
    !r.revised?.length
  );
}

/** Why nothing was recalled, for a person: the nearest skill and the threshold it missed, when there is one. */
export function noMatch(nearest: NearestSkill | null): string {
  if (!nearest) return 'No skill matches this goal.';
  // Two decimals, or as many as it takes to tell the score from the threshold it missed (0.397, not 0.40).
  let digits = 2;
  while (digits < 6 && nearest.similarity.toFixed(digits) === nearest.threshold.toFixed(digits)) digits++;
  const score = (x: number) => x.toFixed(digits);
  const why =
    `No skill matches this goal. The nearest, ${nearest.name}, scores ${score(nearest.similarity)}, under the ` +
    `recall threshold ${score(nearest.threshold)}`;
  if (!nearest.wordsOnly) return `${why} (thresholds.recall).`;
  // A request in another language: the embedded embedder knows the meaning of English words only.
  return (
    `${why} (thresholds.recall, lowered for a goal compared by its words alone: ${nearest.wordsOnly.embedder} knows ` +
    "the meaning of English words, and of none of this goal's). Only skills learned from requests that share its " +
    'words can match it; for recall by meaning, across languages too, configure a multilingual embedder (README ' +
    '"Goals in other languages").'
  );
}

/**
 * The code of an error that has none of its own (a request the HTTP layer refused, an uncoded failure), by its REST
 * status. With the codes of src/errors/error-codes.ts and STORE_UNREACHABLE / STORE_BUSY, these are every code an
 * error carries on any surface (README "Recording from any language (REST)").
 */
const STATUS_CODES: Readonly<Record<number, string>> = Object.freeze({
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'BODY_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE',
  503: 'UNAVAILABLE',
});

/** The code of an error answer with this REST status and no code of its own (`INTERNAL` for any other). */
export function statusCode(status: number): string {
  return STATUS_CODES[status] ?? 'INTERNAL';
}

/**
 * The stable code every surface gives beside an error's words, to branch on without reading them (REST's `code`,
 * an MCP tool error's, `--json`'s on stderr): STORE_UNREACHABLE for a memory whose database cannot be reached,
 * STORE_BUSY for a SQLite file another process holds; a coded error its own (SESSION_STATE and PASS_LOCKED are both
 * 409, one asks for a new session, the other for the same request later); a request the HTTP layer refused, or an
 * error without a code, that of its REST status.
 */
export function errorCodeOf(e: unknown): string {
  if (unreachableStoreText(e)) return 'STORE_UNREACHABLE';
  if (busyStoreText(e)) return 'STORE_BUSY';
  const coded = SkillsmithError.isInstance(e) && !HttpError.isInstance(e) && e.code !== SkillsmithError.code;
  return coded ? e.code : statusCode(httpStatusOf(e));
}
