import { tooFewSessions } from '../../../domain/admit.js';
import { branchesOf } from '../../../domain/branches.js';
import { PassLockedError } from '../../../errors/index.js';
import { sameProcedureVersion } from '../../../domain/reconcile.js';
import type { Skill } from '../../../domain/types.js';
import type { SynthesisReport } from '../../../pipeline/synthesize.js';
import type { Memory } from '../../../app/memory.js';
import { MAX_TEXT_CHARS } from '../../../app/recall-only.js';
import { keptEditLines, openLines, retentionLines, revisedLines, skillJson, stableReport } from '../../shapes.js';
import { type Command, MEMORY_FLAGS } from '../command.js';
import { type CommandFlags, dbPathFromFlags, memoryFlagsText } from '../command-support.js';
import type { IngestProblem } from '../../../capture/parse-file.js';
import type { IngestResult } from '../../../app/types.js';
import { errorLine, lookAlikeLines, out, printJson, printSkillTable, reportFallback, writeErr } from '../output.js';
import { progressBar } from '../progress.js';
import { formatNotes, formatProblems, grownText, hookProblems, ingestFiles, ingestInputs, sessions } from './ingest.js';
import { keepFirst } from '../../../support/text.js';

/** `skillsmith learn FILE|DIR...`: ingest, then a synthesis pass, the skills learned and a recall example. */
export const command: Command = {
  name: 'learn',
  flags: [...MEMORY_FLAGS, 'format', 'judge', 'hook', 'try', 'json'],
  help: `  learn FILE|DIR... [--try GOAL]
                              ingest, then run a synthesis pass and show what was learned; --try: then
                              what recall returns for GOAL (default: a goal it learned from); --hook: the
                              transcript a Claude Code or Gemini CLI hook names on stdin, learned from quietly`,
  // The memory opens once the arguments are known to be good (a missing path creates no database file).
  opens: 'self',
  async run(files, { flags, memory: open }) {
    const notes: string[] = [];
    const inputs = ingestInputs(files, flags, 'learn', notes);
    const memory = await open();
    const skillsBefore = (await memory.skills.list()).length;
    const sessionsBefore = await memory.sessions.count();
    const results = await ingestFiles(memory, inputs);
    const problems = results.flatMap((r) => r.problems);
    // A hook (Claude Code's Stop or SessionEnd) learns quietly: only a rejected record is said, on stderr. While
    // another pass runs (another session's hook), the sessions wait, stored, for the next pass.
    if (flags.hook) {
      await memory.synthesize().catch((e) => {
        if (!PassLockedError.isInstance(e)) throw e;
      });
      for (const l of formatProblems(hookProblems(problems), results)) writeErr(`${l}\n`);
      return hookProblems(problems).length ? 1 : 0;
    }
    const bar = flags.json ? null : progressBar('learning');
    let report: SynthesisReport;
    try {
      report = await memory.synthesize({ onProgress: bar ? (phase, d, t) => bar.update(phase, d, t) : undefined });
    } catch (e) {
      // Another process's pass holds the namespace: what this run stored is said all the same, and waits for the
      // next pass (exit 1: nothing was learned from it yet).
      bar?.done();
      if (PassLockedError.isInstance(e)) return passNotStarted(results, problems, notes, flags, e.message);
      // Any other failure (a model down, an embedder changed): what was stored is said before the error, so a
      // person does not ingest it again to be safe.
      if (!flags.json) {
        printIngested(results, problems, notes);
        out(
          'The learning pass failed (below): these sessions are stored, and the next pass learns from them (skillsmith synthesize).',
        );
      }
      throw e;
    }
    bar?.done();
    const skills = await memory.skills.list();
    reportFallback(report);
    if (flags.json) {
      printJson({ ingest: results, synthesis: stableReport(report), skills: skills.map(skillJson) });
      return problems.length ? 1 : 0;
    }
    printIngested(results, problems, notes);
    out(passSummary(report, memory.config.synthesis.minOccurrences));
    for (const line of [
      ...keptEditLines(report),
      ...revisedLines(report),
      ...openLines(report),
      ...retentionLines(report),
    ])
      out(line);
    for (const line of lookAlikeLines(report, memoryFlagsText(flags))) out(line);
    const alreadyPresent = results.reduce((n, r) => n + r.skipped, 0);
    // Sessions given twice in this run (one file and a copy of it) are not a memory from earlier runs.
    if (sessionsBefore === 0 && skillsBefore === 0 && alreadyPresent > 0) {
      out('');
      out(`${sessions(alreadyPresent, '')} given more than once in these files: each is stored once.`);
    } else if (sessionsBefore > 0 || skillsBefore > 0) {
      const where = dbPathFromFlags(flags);
      const pg = /^postgres(ql)?:/i.test(where);
      out('');
      out(
        `This reused an existing memory (${pg ? 'the PostgreSQL database named' : where}): it already held ` +
          `${alreadyPresent} of these sessions and ${skillsBefore} skill(s) from earlier runs, listed below with ` +
          `what this run added. To start from an empty memory, ${pg ? 'add --db with another database URL' : `add --db ./new-memory.db (a file that does not exist yet), or delete ${where}`}.`,
      );
    }
    out('');
    printSkillTable(skills, memory.config.synthesis.minOccurrences);
    printBranches(skills);
    const example = flags.try ? await recallFor(memory, flags.try, 'a request') : await recallExample(memory, skills);
    if (example) {
      out('');
      out(`Recall example: ${example.what} "${example.goal}"`);
      out(
        example.hits.length
          ? `  -> ${example.hits.map((h) => `${h.name} (similarity ${h.similarity.toFixed(2)})`).join(', ')}`
          : '  -> no skill',
      );
      if (example.hits.length) {
        out('');
        out(memory.formatContext(example.hits.slice(0, 1)));
      }
    }
    if (skills.length)
      out(`Export the SKILL.md files with: npx skillsmith skills export --out ./skills${memoryFlagsText(flags)}`);
    return problems.length ? 1 : 0;
  },
};

/** What each file stored, its notes, and the records it rejected (on stderr). */
function printIngested(results: IngestResult[], problems: IngestProblem[], notes: readonly string[]) {
  for (const n of notes) out(`note: ${n}`);
  for (const r of results) {
    out(`Ingested ${r.file}: ${sessions(r.inserted, 'new')}${grownText(r)}, ${r.skipped} already present.`);
    for (const line of formatNotes(r.notes ?? [])) out(line);
  }
  for (const l of formatProblems(problems, results)) writeErr(`${l}\n`);
}

/**
 * `learn` when another process's pass holds the namespace: the ingest is said as always (with --json, `synthesis`
 * is null), then why no pass ran and how the stored sessions get learned (with --json as one line of JSON, code
 * PASS_LOCKED); exit 1.
 */
function passNotStarted(
  results: IngestResult[],
  problems: IngestProblem[],
  notes: readonly string[],
  flags: CommandFlags,
  why: string,
): number {
  if (flags.json) printJson({ ingest: results, synthesis: null, skills: null });
  else printIngested(results, problems, notes);
  const stored = results.reduce((n, r) => n + r.inserted, 0);
  const next = stored
    ? `The ${sessions(stored, 'new')} this run stored wait for the next pass: run skillsmith synthesize${memoryFlagsText(flags)} once it is done.`
    : 'Nothing new was stored.';
  process.stderr.write(errorLine(`${why}. ${next}`, PassLockedError.code, { json: flags.json }));
  return 1;
}

/**
 * The skills whose procedure branches on what a lookup shows or on the agent's tools, one line a branch (nothing
 * when none does).
 */
function printBranches(skills: readonly Skill[]) {
  const branching = skills.flatMap((s) => branchesOf(s.body).map((b) => ({ name: s.name, ...b })));
  if (branching.length === 0) return;
  out('');
  out('Branches (decided by what a lookup shows, or by the tools an agent has, learned from the sessions):');
  for (const b of branching)
    out(
      b.when.available
        ? `  ${b.name}: if the agent can call ${b.when.tool}, follow ${b.toolSequence.join(' > ')}`
        : `  ${b.name}: if ${b.when.tool} shows ${b.when.path} in ${JSON.stringify(b.when.in)}, follow ${b.toolSequence.join(' > ')}`,
    );
}

/**
 * A recall example for `learn` without --try: the goal of a stored session the first skill was learned from,
 * said to be one (its similarity is near 1 because the skill was learned from it, which says little).
 */
async function recallExample(memory: Memory, skills: Skill[]) {
  const skill = skills.find((s) => s.corpus === 'internal' && s.sourceSessions.length);
  if (!skill) return null;
  const session = await memory.sessions.get(skill.sourceSessions[skill.sourceSessions.length - 1]);
  if (!session) return null;
  // A goal may be longer than a request recall takes (a pasted log): its beginning is the example.
  return recallFor(memory, keepFirst(session.goal, MAX_TEXT_CHARS), 'a goal it learned from,');
}

async function recallFor(memory: Memory, goal: string, what: string) {
  const shown = goal.length > 160 ? `${keepFirst(goal, 157)}...` : goal;
  return { what, goal: shown, hits: await memory.recall(goal) };
}

/** " (5 with the same procedure, ...)": the updates that only re-stamped a skill (a patch version). */
/**
 * The pass in one line. A cluster that reinforced a skill this same pass created is said with the created ones
 * (a fresh memory reads "6 created (1 from two clusters)", not "1 reinforced"); clusters that were too small to
 * learn from are said as such, the others skipped with where their reasons are.
 */
function passSummary(report: SynthesisReport, minOccurrences: number): string {
  const created = new Set(report.created.map((c) => c.id));
  const twice = report.reinforced.filter((r) => created.has(r.id)).length;
  const small = report.skipped.filter((s) => tooFewSessions(s.reason)).length;
  const other = report.skipped.length - small;
  const skipped = [
    ...(small
      ? [`${small} cluster(s) with under ${minOccurrences} successful sessions, too few to learn from yet`]
      : []),
    ...(other ? [`${other} cluster(s) skipped (learn --json gives the reasons)`] : []),
  ];
  return (
    `Synthesis pass: ${sessions(report.stats.newSessions, 'new')} in ${report.stats.clusters} clusters; ` +
    `${report.created.length} created${twice ? ` (${twice} from two clusters)` : ''}, ` +
    `${report.updated.length} updated${sameText(report)}, ${report.reinforced.length - twice} reinforced, ` +
    `${report.superseded.length} superseded${skipped.length ? `; ${skipped.join(', ')}` : ''} (${report.stats.ms} ms).`
  );
}

function sameText(report: { updated: { version: string }[] }): string {
  const n = report.updated.filter((u) => sameProcedureVersion(u.version)).length;
  return n ? ` (${n === report.updated.length ? 'each' : n} with the same procedure, written by this release)` : '';
}
