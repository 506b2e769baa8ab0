#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError } from '../../config/config.js';
import { BackendConfigError } from '../../llm/errors/backend-config-error.js';
import { announcedDbPath, configFromFlags } from './command-support.js';
import { openMemory, type Memory } from '../../memory.js';
import type { Skill } from '../../domain/types.js';
import type { SynthesisReport } from '../../pipeline/synthesize.js';
import { progressBar } from './progress.js';
import { skillJson } from '../shapes.js';
import { escapeControl } from '../../domain/untrusted-text.js';

/** Terminal output never carries raw control bytes from bad input (escape sequences, bells, bidi overrides). */
const writeErr = (s: string) => process.stderr.write(escapeControl(s));

const HELP = `skillsmith: procedural memory for LLM agents

Usage: skillsmith <command> [options]

Commands
  ingest FILE...              store sessions: JSONL interchange, OpenAI or Anthropic message logs, Claude Code
                              transcripts, Codex CLI rollouts, OpenAI Agents SDK / Responses items, LangChain /
                              LangSmith runs, OTLP GenAI spans, raw tau-bench results (--format; sessions
                              without an outcome are judged; a file that gives no session is an error)
  learn FILE...               ingest, then run a synthesis pass and show what was learned
  synthesize [--dry-run]      run a synthesis pass over the sessions added since the last one
  recall "GOAL" [--top-k N]   the skills a planner would get for this goal
  compile --sessions ID,ID | --cue "GOAL" [--facts ID,ID] [--commit]
                              distil one skill explicitly (dry run unless --commit)
  feedback NAME pass|fail|up|down|reward=R
                              a trial result, a thumbs up/down or a reward in [0,1]
  outcome SESSION success|failure
                              report a session's outcome: skills recalled for it get a trial
  facts add "TEXT" | facts list
                              semantic memories that compiled skills can rest on
  skills list                 every live skill, imported ones marked (add --all for superseded ones)
  skills show NAME            one skill's SKILL.md, track record and source sessions
  skills explain NAME         why a skill exists: parents, versions, supersede chain, trials, eta over time
  skills enable|disable NAME  allow or block a skill from recall (the row is kept)
  skills export --out DIR [--all]
                              write DIR/<name>/SKILL.md for every live learned skill; --all adds the imported
                              ones, each written back as its whole folder, byte for byte
  skills import DIR [--force] read every skill folder below DIR (dot-folders too), whole, into the external
                              corpus (never recalled until promoted); --force stores a different skill under
                              an imported name as its next version (else refused, exit 1)
  skills promote NAME         make an imported skill recallable
  skills forget NAME          delete a skill for good: SKILL.md versions, lineage, track record (an audit record stays)
  sessions forget ID...       delete sessions for good: goal, calls, results; skills learned from them keep a
                              forgotten-parent marker (an audit record names each by an opaque reference)
  serve [--host H] [--port N] [--token T] [--require-token]
                              REST API under /api and the dashboard at / (127.0.0.1:7700 by default)
  mcp [--http --port N]       MCP server over stdio (or streamable HTTP at /mcp)
  doctor                      check each configured back end (reachable, model, dimension, round trip); exit 1 if broken
  reembed [--dry-run]         re-embed every skill with the configured embedder and clear the cluster state
  migrate --from A --to B     copy a whole memory between SQLite and PostgreSQL (either way) into an empty
                              target, verified by row counts and checksums per table
  eval --train A --test B     replay evaluation: hit rate, step agreement, steps saved, false recall,
                              baselines (see "skillsmith eval --help")

Options
  --db PATH|URL      SQLite memory file or postgres://user@host:5432/db for a fleet (default: SKILLSMITH_DB, else
                     ./skillsmith.db when it exists, else skillsmith.db in the per-user data directory, e.g.
                     ~/.local/share/skillsmith/; named on stderr at start-up)
  --namespace NS     memory namespace (default "default")
  --config FILE      JSON configuration file (default: SKILLSMITH_CONFIG, else ./skillsmith.config.json when
                     present); SKILLSMITH_* variables override it (see README "Configuration")
  --format F         ingest format: auto | jsonl | openai | anthropic | otel | tau | claude-code | codex |
                     openai-agents | langchain (default auto: per file for transcripts, else per record)
  --judge J          outcome judge for sessions without one: rule | llm | off (default: capture.judge, rule)
  --json             machine-readable output (stable shapes, see README)
  --log-level L      debug | info | warn | error | silent (default warn)
  -h, --help         this text
`;

class UsageError extends Error {}

const COMMANDS = new Set(['eval', 'ingest', 'learn', 'synthesize', 'recall', 'skills', 'sessions', 'compile', 'feedback', 'outcome', 'facts']);

const options = {
  db: { type: 'string' },
  namespace: { type: 'string' },
  config: { type: 'string' },
  format: { type: 'string' },
  judge: { type: 'string' },
  json: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  'top-k': { type: 'string' },
  sessions: { type: 'string' },
  cue: { type: 'string' },
  facts: { type: 'string' },
  commit: { type: 'boolean' },
  session: { type: 'string' },
  // eval
  train: { type: 'string' },
  test: { type: 'string' },
  label: { type: 'string' },
  split: { type: 'string' },
  report: { type: 'string' },
  name: { type: 'string' },
  variants: { type: 'string' },
  limit: { type: 'string' },
  'no-replay': { type: 'boolean' },
  goals: { type: 'string' },
  // serve / mcp
  host: { type: 'string' },
  port: { type: 'string' },
  token: { type: 'string' },
  'require-token': { type: 'boolean' },
  http: { type: 'boolean' },
  details: { type: 'boolean' },
  out: { type: 'string' },
  all: { type: 'boolean' },
  force: { type: 'boolean' },
  'log-level': { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Flags = ReturnType<typeof parse>['values'];

function parse(argv: string[]) {
  return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
}

export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (e) {
    writeErr(`skillsmith: ${(e as Error).message}\nRun "skillsmith --help" for usage.\n`);
    return 2;
  }
  const { values: flags, positionals } = parsed;
  const [command, ...args] = positionals;
  if (command === 'eval') {
    // The evaluation uses its own temporary memories: it never opens (or creates) --db.
    const { evalCommand } = await import('./commands/eval.js');
    return evalCommand(args, flags);
  }
  if (flags.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (!command) {
    writeErr(HELP);
    return 2;
  }
  // doctor and reembed build their own back ends: a broken back end must not stop them from running.
  if (command === 'doctor') return (await import('./commands/doctor.js')).doctorCommand(args, flags);
  // serve and mcp open their own memory and keep running until stopped.
  if (command === 'serve') return (await import('./commands/serve.js')).serveCommand(args, flags);
  if (command === 'mcp') return (await import('./commands/mcp.js')).mcpCommand(args, flags);
  if (command === 'reembed') return (await import('./commands/reembed.js')).reembedCommand(args, flags);
  // migrate opens its two memories itself (and never --db).
  if (command === 'migrate') return (await import('./commands/migrate.js')).migrateCommand(args, flags);
  // An unknown command must not create a database on its way to failing.
  if (!COMMANDS.has(command)) {
    writeErr(`skillsmith: unknown command "${command}"\nRun "skillsmith --help" for usage.\n`);
    return 2;
  }
  let memory: Memory | null = null;
  try {
    memory = await openMemory({
      db: announcedDbPath(flags.db),
      namespace: flags.namespace,
      config: configFromFlags(flags),
      logLevel: (flags['log-level'] as never) ?? 'warn',
    });
    switch (command) {
      case 'ingest':
        return await ingest(memory, args, flags);
      case 'learn':
        return await learn(memory, args, flags);
      case 'synthesize':
        return await synth(memory, flags);
      case 'recall':
        return await recall(memory, args, flags);
      case 'skills':
        return await skills(memory, args, flags);
      case 'compile':
        return await compileCmd(memory, flags);
      case 'feedback':
        return await feedbackCmd(memory, args, flags);
      case 'outcome':
        return await outcomeCmd(memory, args, flags);
      case 'sessions':
        return await sessionsCmd(memory, args, flags);
      case 'facts':
        return await factsCmd(memory, args, flags);
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      writeErr(`skillsmith: ${e.message}\nRun "skillsmith --help" for usage.\n`);
      return 2;
    }
    if (e instanceof ConfigError || BackendConfigError.isInstance(e)) {
      writeErr(`skillsmith: ${e.message}\n`);
      return 2;
    }
    writeErr(`skillsmith: ${(e as Error).message}\n`);
    return 1;
  } finally {
    await memory?.close();
  }
}

const out = (s: string) => process.stdout.write(escapeControl(s.endsWith('\n') ? s : `${s}\n`));
// Output piped into `head` (or any reader that stops early) is not an error: stop quietly.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});
const printJson = (v: unknown) => out(JSON.stringify(v, null, 2));

async function ingestFiles(memory: Memory, files: string[], flags: Flags, command = 'ingest') {
  const cmd = await import('./commands/ingest.js');
  try {
    return await cmd.ingestFiles(memory, files, flags, command);
  } catch (e) {
    if (e instanceof cmd.IngestUsageError) throw new UsageError(e.message);
    throw e;
  }
}

async function ingest(memory: Memory, files: string[], flags: Flags): Promise<number> {
  const results = await ingestFiles(memory, files, flags);
  const problems = results.flatMap((r) => r.problems);
  if (flags.json) printJson(results);
  else {
    const { formatIngestResult } = await import('./commands/ingest.js');
    for (const r of results) for (const l of formatIngestResult(r)) out(l);
    reportProblems(problems);
  }
  return problems.length ? 1 : 0;
}

function reportProblems(problems: { file: string; line: number; reason: string }[]) {
  for (const p of problems) writeErr(`${p.file}:${p.line}: ${p.reason}\n`);
  if (problems.length) writeErr(`${problems.length} record(s) rejected; every valid record was stored.\n`);
}

async function learn(memory: Memory, files: string[], flags: Flags): Promise<number> {
  const results = await ingestFiles(memory, files, flags, 'learn');
  const problems = results.flatMap((r) => r.problems);
  const bar = flags.json ? null : progressBar('learning');
  const report = await memory.synthesize({ onProgress: bar ? (phase, d, t) => bar.update(phase, d, t) : undefined });
  bar?.done();
  const skills = await memory.listSkills();
  reportFallback(report);
  if (flags.json) {
    printJson({ ingest: results, synthesis: stableReport(report), skills: skills.map(skillJson) });
    return problems.length ? 1 : 0;
  }
  for (const r of results) out(`Ingested ${r.file}: ${r.inserted} new sessions, ${r.skipped} already present.`);
  reportProblems(problems);
  out(
    `Synthesis pass: ${report.stats.newSessions} new sessions in ${report.stats.clusters} clusters; ` +
      `${report.created.length} created, ${report.updated.length} updated, ${report.reinforced.length} reinforced, ` +
      `${report.superseded.length} superseded, ${report.skipped.length} clusters skipped (${report.stats.ms} ms).`,
  );
  out('');
  printSkillTable(skills);
  const example = await recallExample(memory, skills);
  if (example) {
    out('');
    out(`Recall example: the goal "${example.goal}"`);
    out(example.hits.length ? `  -> ${example.hits.map((h) => `${h.name} (similarity ${h.similarity.toFixed(2)})`).join(', ')}` : '  -> no skill');
    if (example.hits.length) {
      out('');
      out(memory.formatContext(example.hits.slice(0, 1)));
    }
  }
  out(`Export the SKILL.md files with: skillsmith skills export --out ./skills${flags.db ? ` --db ${flags.db}` : ''}`);
  return problems.length ? 1 : 0;
}

/** A recall example for `learn`: the goal of a stored session the first skill was learned from. */
async function recallExample(memory: Memory, skills: Skill[]) {
  const skill = skills.find((s) => s.corpus === 'internal' && s.sourceSessions.length);
  if (!skill) return null;
  const session = await memory.getSession(skill.sourceSessions[skill.sourceSessions.length - 1]);
  if (!session) return null;
  const goal = session.goal.length > 160 ? `${session.goal.slice(0, 157)}...` : session.goal;
  return { goal, hits: await memory.recall(session.goal) };
}

function printSkillTable(skills: Skill[]) {
  if (skills.length === 0) {
    out('No skills learned yet: a skill needs at least 3 similar successful sessions that follow the same procedure.');
    return;
  }
  out(`Learned skills (${skills.length}):`);
  const rows = skills.map((s) => [
    s.name,
    `${s.status}${s.enabled ? '' : ' (disabled)'}${s.corpus === 'external' ? ' [imported]' : ''}`,
    String(s.support),
    s.attemptCount ? `${Math.round((100 * s.successCount) / s.attemptCount)}% (${s.successCount}/${s.attemptCount})` : '-',
    s.toolSequence.join(' > '),
  ]);
  const head = ['name', 'status', 'support', 'success rate', 'tools'];
  const widths = head.map((h, i) => Math.min(48, Math.max(h.length, ...rows.map((r) => r[i].length))));
  const fmt = (r: string[]) => r.map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i]) : c)).join('  ');
  out(fmt(head));
  for (const r of rows) out(fmt(r));
}

function stableReport(r: SynthesisReport) {
  return { created: r.created, updated: r.updated, reinforced: r.reinforced, superseded: r.superseded, skipped: r.skipped, ...(r.fallback ? { fallback: r.fallback } : {}), stats: r.stats };
}

/** Said first and on stderr: a pass whose drafts came from the configured fallback, not the model. */
function reportFallback(r: SynthesisReport): void {
  if (r.fallback) writeErr(`skillsmith: the model distiller was unavailable, so this pass used ${r.fallback.to} (llm.fallback): ${r.fallback.reason}\n`);
}

async function synth(memory: Memory, flags: Flags): Promise<number> {
  const bar = flags.json ? null : progressBar('synthesis');
  const report = await memory.synthesize({ dryRun: !!flags['dry-run'], onProgress: bar ? (p, d, t) => bar.update(p, d, t) : undefined });
  bar?.done();
  reportFallback(report);
  if (flags.json) {
    printJson(stableReport(report));
    return 0;
  }
  const verb = flags['dry-run'] ? 'would be' : '';
  out(`${report.stats.newSessions} new sessions, ${report.stats.clusters} clusters, ${report.stats.dirtyClusters} to examine${flags['dry-run'] ? ' (dry run: nothing written)' : ''}.`);
  for (const s of report.created) out(`  created ${verb} ${s.name} ${s.version} (cluster ${s.cluster})`.replace(/ {2,}/g, ' '));
  for (const s of report.updated) out(`  updated ${verb} ${s.name} -> ${s.version}`.replace(/ {2,}/g, ' '));
  for (const s of report.reinforced) out(`  reinforced ${verb} ${s.name}`.replace(/ {2,}/g, ' '));
  for (const s of report.superseded) out(`  superseded ${verb} ${s.supersedes} by ${s.name} ${s.version}`.replace(/ {2,}/g, ' '));
  for (const s of report.skipped) out(`  skipped ${s.cluster}: ${s.reason}`);
  if (!report.created.length && !report.updated.length && !report.reinforced.length && !report.superseded.length && !report.skipped.length) {
    out('Nothing new to learn.');
  }
  return 0;
}

async function recall(memory: Memory, args: string[], flags: Flags): Promise<number> {
  const goal = args.join(' ').trim();
  if (!goal) throw new UsageError('recall needs a GOAL, e.g. skillsmith recall "cancel my order"');
  const topK = flags['top-k'] ? Number(flags['top-k']) : undefined;
  if (topK !== undefined && (!Number.isInteger(topK) || topK < 1)) throw new UsageError('--top-k must be a positive integer');
  const hits = await memory.recall(goal, { topK });
  if (flags.json) {
    printJson(hits.map((h) => ({ id: h.id, name: h.name, similarity: h.similarity, toolsRequired: h.toolsRequired, toolSequence: h.toolSequence, body: h.body })));
    return 0;
  }
  if (hits.length === 0) {
    out('No skill matches this goal.');
    return 0;
  }
  out(memory.formatContext(hits));
  out(`Tools to load: ${memory.toolsFor(hits).join(', ')}`);
  return 0;
}


async function skills(memory: Memory, args: string[], flags: Flags): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list': {
      const list = await memory.listSkills({ includeSuperseded: !!flags.all });
      if (flags.json) printJson(list.map(skillJson));
      else printSkillTable(list);
      return 0;
    }
    case 'show': {
      const skill = await memory.getSkill(need(rest[0], 'skills show NAME'));
      if (!skill) return notFound(rest[0]);
      if (flags.json) printJson({ ...skillJson(skill), skillMd: skill.skillMd });
      else {
        out(skill.skillMd);
        out(`status ${skill.status}, eta ${skill.eta.toFixed(2)}, utility ${skill.utility.toFixed(2)}, ${skill.successCount}/${skill.attemptCount} successful followers, ${skill.enabled ? 'enabled' : 'disabled'}`);
        out(`source sessions: ${skill.sourceSessions.join(', ') || '-'}`);
      }
      return 0;
    }
    case 'explain': {
      const ex = await memory.explain(need(rest[0], 'skills explain NAME'));
      if (!ex) return notFound(rest[0]);
      if (flags.json) {
        printJson(ex);
        return 0;
      }
      const k = ex.skill;
      out(`${k.name} ${k.version} (${k.kind}, ${k.corpus}) — ${k.status}${k.enabled ? '' : ', disabled'}, eta ${k.eta.toFixed(2)}, utility ${k.utility.toFixed(2)}`);
      out(`  ${k.description}`);
      out(`Learned from ${ex.parents.sessions.length} session(s)${ex.parents.facts.length ? ` and ${ex.parents.facts.length} fact(s)` : ''}; ${k.successCount}/${k.attemptCount} followers succeeded; ${k.trialsPassed}/${k.trialsAttempted} trials passed.`);
      for (const p of ex.parents.sessions) out(`  session ${p.id} [${p.outcome}, ${p.calls} calls, since v${p.addedInVersion}] ${p.goal.replace(/\s+/g, ' ').slice(0, 100)}`);
      for (const f of ex.parents.facts) out(`  fact ${f.id}: ${f.text}`);
      if (ex.parents.missing.length) out(`  (no longer stored: ${ex.parents.missing.join(', ')})`);
      if (ex.parents.forgotten) out(`  (${ex.parents.forgotten} parent session(s) forgotten at a person's request)`);
      out('Versions:');
      for (const v of ex.versions) out(`  ${v.version} ${v.reason} ${v.createdAt}: ${v.toolSequence.join(' > ')}`);
      if (ex.supersedeChain.length > 1) out(`Supersede chain: ${ex.supersedeChain.map((c) => `${c.name}@${c.version} (${c.status})`).join(' -> ')}`);
      out('Track record (eta, utility, status after each signal):');
      for (const t of ex.track) out(`  ${t.at} ${t.signal.padEnd(13)} eta ${t.eta.toFixed(2)} utility ${t.utility == null ? '-' : t.utility.toFixed(2)} ${t.status}`);
      return 0;
    }
    case 'forget': {
      const gone = await memory.forgetSkill(need(rest[0], 'skills forget NAME'), { actor: 'cli' });
      if (!gone) return notFound(rest[0]);
      if (flags.json) printJson({ forgotten: gone });
      else out(`${gone.name} forgotten (row, versions, lineage and track record deleted; an audit record remains)`);
      return 0;
    }
    case 'enable':
    case 'disable': {
      const skill = await memory.setEnabled(need(rest[0], `skills ${sub} NAME`), sub === 'enable');
      if (!skill) return notFound(rest[0]);
      if (flags.json) printJson(skillJson(skill));
      else out(`${skill.name} ${sub}d`);
      return 0;
    }
    case 'export': {
      const dir = need(flags.out ?? rest[0], 'skills export --out DIR');
      const res = await memory.exportSkills(dir, { includeExternal: !!flags.all });
      if (flags.json) printJson(res);
      else {
        out(`Wrote ${res.written.length} SKILL.md file(s) under ${res.dir}`);
        for (const w of res.written) out(`  ${w.path}`);
        for (const s of res.skipped) out(`  skipped ${s.name}: ${s.reason}`);
      }
      return 0;
    }
    case 'import': {
      const res = await memory.importSkills(need(rest[0], 'skills import DIR'), { force: !!flags.force });
      if (flags.json) printJson(res);
      else {
        out(`Imported ${res.imported.length} skill(s) into the external corpus (listed, never recalled until promoted).`);
        for (const i of res.imported) out(`  ${i.name} (${i.format}${i.version ? `, version ${i.version}` : ''}${i.files ? `, ${i.files} file(s) kept` : ''}${i.replaces ? `, replaces version ${i.replaces}` : ''})`);
        for (const s of res.skipped) out(`  skipped ${s.path}: ${s.reason}`);
        for (const w of res.warnings ?? []) writeErr(`${w.path}${w.line ? `:${w.line}` : ''}: ${w.reason}\n`);
      }
      // A skill that was refused (or a folder without any) is an error; one already imported is not.
      return res.skipped.some((s) => s.refused) ? 1 : 0;
    }
    case 'promote': {
      const skill = await memory.promote(need(rest[0], 'skills promote NAME'));
      if (flags.json) printJson(skillJson(skill));
      else out(`${skill.name} promoted: it can now be recalled.`);
      return 0;
    }
    default:
      throw new UsageError(`skills needs a subcommand: list, show, explain, enable, disable, export, import or promote`);
  }
}

const ids = (v: string | undefined) => (v ? v.split(',').map((x) => x.trim()).filter(Boolean) : undefined);

async function compileCmd(memory: Memory, flags: Flags): Promise<number> {
  if (!flags.sessions && !flags.cue && !flags.facts) throw new UsageError('usage: skillsmith compile --sessions ID,ID | --cue "GOAL" [--facts ID,ID] [--commit]');
  const res = await memory.compile({ sessions: ids(flags.sessions), cue: flags.cue, facts: ids(flags.facts), commit: !!flags.commit });
  if (flags.json) {
    printJson(res);
    return res.action === 'skip' ? 1 : 0;
  }
  if (res.action === 'skip') {
    writeErr(`skillsmith: no skill: ${res.reason}\n`);
    return 1;
  }
  out(res.dryRun ? `Dry run: this is the skill that would be ${res.action === 'add' ? 'written' : res.action + 'd'} (nothing was written; add --commit).` : `Committed: ${res.action} ${res.skill?.name}.`);
  if (res.duplicateOf) out(`It duplicates the existing skill ${res.duplicateOf.name} (${res.duplicateOf.id}): ${res.action}.`);
  out('');
  if (res.skillMd) out(res.skillMd);
  out(`Parents: ${res.parents.sessions.map((p) => `${p.id} (${p.outcome})`).join(', ') || '-'}${res.parents.facts.length ? `; facts ${res.parents.facts.map((f) => f.id).join(', ')}` : ''}`);
  return 0;
}

async function feedbackCmd(memory: Memory, args: string[], flags: Flags): Promise<number> {
  const [name, signal] = args;
  if (!name || !signal) throw new UsageError('usage: skillsmith feedback NAME pass|fail|up|down|reward=<0..1>');
  let res;
  try {
    res = await memory.feedback(name, signal, { sessionId: flags.session });
  } catch (e) {
    if (e instanceof RangeError) throw new UsageError(e.message);
    throw e;
  }
  if (flags.json) printJson({ before: skillJson(res.before), after: skillJson(res.after) });
  else out(`${res.after.name}: eta ${res.before.eta.toFixed(2)} -> ${res.after.eta.toFixed(2)}, utility ${res.after.utility.toFixed(2)}, ${res.before.status}${res.before.status !== res.after.status ? ` -> ${res.after.status}` : ''}`);
  return 0;
}

async function outcomeCmd(memory: Memory, args: string[], flags: Flags): Promise<number> {
  const [session, outcome] = args;
  if (!session || !['success', 'failure', 'unknown'].includes(outcome ?? '')) throw new UsageError('usage: skillsmith outcome SESSION success|failure');
  const res = await memory.reportOutcome(session, outcome as 'success' | 'failure');
  if (flags.json) printJson(res);
  else out(res.credited.length ? `Recorded; trial ${outcome === 'success' ? 'passed' : 'failed'} for: ${res.credited.join(', ')}` : 'Recorded; no recalled skill to credit.');
  return 0;
}

async function sessionsCmd(memory: Memory, args: string[], flags: Flags): Promise<number> {
  const [sub, ...ids] = args;
  if (sub !== 'forget' || ids.length === 0) throw new UsageError('usage: skillsmith sessions forget ID...');
  const forgotten: { id: string; ref: string; calls: number; skills: string[] }[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const gone = await memory.forgetSession(id, { actor: 'cli' });
    if (gone) forgotten.push({ id, ...gone });
    else missing.push(id);
  }
  if (flags.json) printJson({ forgotten, missing });
  else {
    for (const f of forgotten) out(`session ${f.id} forgotten (${f.calls} calls)${f.skills.length ? `; ${f.skills.join(', ')} keep a forgotten-parent marker` : ''}`);
    for (const id of missing) writeErr(`skillsmith: no session "${escapeControl(id)}"\n`);
  }
  return missing.length ? 1 : 0;
}

async function factsCmd(memory: Memory, args: string[], flags: Flags): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'add') {
    const { id } = await memory.addFact(need(rest.join(' ').trim() || undefined, 'facts add "TEXT"'));
    if (flags.json) printJson({ id });
    else out(`fact ${id} stored`);
    return 0;
  }
  if (sub === 'list') {
    const facts = await memory.listFacts();
    if (flags.json) printJson(facts);
    else for (const f of facts) out(`${f.id}  ${f.text}`);
    return 0;
  }
  throw new UsageError('facts needs a subcommand: add or list');
}

function need(v: string | undefined, usage: string): string {
  if (!v) throw new UsageError(`usage: skillsmith ${usage}`);
  return v;
}

function notFound(name: string | undefined): number {
  writeErr(`skillsmith: no skill named "${name}"\n`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    writeErr(`skillsmith: ${(e as Error).stack ?? e}\n`);
    process.exitCode = 1;
  },
);
