/**
 * `skillsmith eval --train A.jsonl --test B.jsonl [--label meta.family] [--split tune|test] [--json] [--report DIR]`
 * The replay evaluation (src/eval/): learns from A on a fresh temporary memory and scores recall on the
 * successful sessions of B, against baselines and other engine configurations. Labels are read for scoring only.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { loadConfig, type SkillsmithConfigInput } from '../../../config/config.js';
import { configFileInput, mergeConfig } from '../../../config/sources.js';
import { exitCodeOf, UsageError as EvalUsageError } from '../../../errors/index.js';
import { checkReport } from '../../../eval/consistency.js';
import {
  loadEvalFile,
  otherSplit,
  selectSplit,
  validateLabelPath,
  type EvalSession,
  type SplitName,
} from '../../../eval/dataset.js';
import { runEval, type EvalReport } from '../../../eval/harness.js';
import { formatEvalMarkdown, formatEvalText } from '../../../eval/report.js';
import { EVAL_VARIANTS, variantByName, type EvalVariant } from '../../../eval/variants.js';
import { progressBar } from '../progress.js';
import { errorCodeOf } from '../../shapes.js';
import { errorLine } from '../output.js';
import type { Command } from '../command.js';
import { mustBeFile } from '../input-files.js';

export interface EvalFlags {
  json?: boolean;
  /** Training file (or the first positional). */
  train?: string;
  /** Test file (or the second positional). */
  test?: string;
  /** Label path for scoring, default meta.family. */
  label?: string;
  /** Write DIR/eval-<name>.json and DIR/eval-<name>.md. */
  report?: string;
  /** Report name (default derived from the file names). */
  name?: string;
  /** tune | test: evaluate on that half of --test, learning from the other half of --train. */
  split?: string;
  /** Recall top-k (default 2). */
  'top-k'?: string;
  /** Comma-separated subset of the compared systems (default: all). */
  variants?: string;
  /** Keep only the first N sessions of each side (after --split): quick runs and CI slices. */
  limit?: string;
  /** Skip the fourth-attempt replay. */
  'no-replay'?: boolean;
  /** Per-query rows in the JSON report. */
  details?: boolean;
  /** A JSON configuration file under every compared system. */
  config?: string;
  /** task (default): the engine sees the goal and, as a cue, the first user message; first-user-message: it sees only the latter. */
  goals?: string;
  help?: boolean;
}

export const EVAL_USAGE = `Usage: skillsmith eval --train A.jsonl --test B.jsonl [options]

Learns from A on a fresh temporary memory, then recalls for every successful session of B (with its goal,
and with meta.first_user_message when present) and scores hit rate, step agreement, steps saved, false
recall and coverage against baselines (no memory, most frequent sequence, oracle) and other engine
configurations; plus the "fourth attempt" replay of B.

Options
  --label PATH        label used for scoring only (default meta.family)
  --split tune|test   test on that half of B, learn from the other half of A (src/eval/split.ts)
  --top-k N           recall top-k (default 2)
  --variants A,B      systems to compare (default all: ${EVAL_VARIANTS.map((v) => v.name).join(', ')})
  --limit N           keep the first N sessions of each side (quick runs)
  --no-replay         skip the fourth-attempt replay
  --details           per-query rows in the JSON report
  --config FILE       JSON configuration under every system (cooldownMs is always 0)
  --goals task|first-user-message
                      task (default): sessions keep their goal, with meta.first_user_message as a cue;
                      first-user-message: the engine learns and is queried with first user messages only
  --report DIR        write DIR/eval-<name>.json and DIR/eval-<name>.md
  --name NAME         report name (default from the file names)
  --json              print the report as one JSON object
`;

/** Runs the evaluation; returns the exit code (0 ok, 1 inconsistent report or failure, 2 usage). */
export async function evalCommand(args: string[], flags: EvalFlags): Promise<number> {
  const out = (s: string) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`);
  const err = (s: string) => process.stderr.write(s.endsWith('\n') ? s : `${s}\n`);
  if (flags.help) {
    out(EVAL_USAGE);
    return 0;
  }
  let bar: ReturnType<typeof progressBar> | null = null;
  try {
    const opts = parseEvalFlags(args, flags);
    mustBeFile(opts.trainFile, '--train');
    mustBeFile(opts.testFile, '--test');
    const trainFile = loadEvalFile(opts.trainFile, { label: opts.label });
    const testFile = trainFile.file === opts.testFile ? trainFile : loadEvalFile(opts.testFile, { label: opts.label });
    for (const p of [...trainFile.problems, ...(testFile === trainFile ? [] : testFile.problems)])
      err(`${p.file}:${p.line}: ${p.reason} (skipped)`);
    const pick = (sessions: EvalSession[], split: SplitName | 'all') => {
      const chosen = selectSplit(sessions, split);
      return opts.limit ? chosen.slice(0, opts.limit) : chosen;
    };
    const trainSplit = opts.split ? otherSplit(opts.split) : 'all';
    const testSplit = opts.split ?? 'all';
    const asGoals = (sessions: EvalSession[]) =>
      opts.goals === 'task' ? sessions : sessions.map(firstUserMessageAsGoal);
    const train = asGoals(pick(trainFile.sessions, trainSplit));
    const test = asGoals(pick(testFile.sessions, testSplit));
    if (train.length === 0)
      throw new EvalUsageError(
        `no training sessions in ${opts.trainFile}${opts.split ? ` (${trainSplit} split)` : ''}`,
      );
    if (test.length === 0)
      throw new EvalUsageError(`no test sessions in ${opts.testFile}${opts.split ? ` (${testSplit} split)` : ''}`);
    if (!test.some((s) => s.kind != null))
      err(`warning: no test session has a label at ${opts.label}; every hit rate will be 0`);

    bar = progressBar('eval');
    const report = await runEval({
      name: opts.name ?? defaultName(opts.trainFile, trainSplit, opts.testFile, testSplit),
      command: commandLine(flags, opts),
      label: opts.label,
      train: { file: displayPath(opts.trainFile), split: trainSplit, sessions: train },
      test: { file: displayPath(opts.testFile), split: testSplit, sessions: test },
      topK: opts.topK,
      variants: opts.variants,
      baseConfig: opts.baseConfig,
      replay: !flags['no-replay'],
      details: !!flags.details,
      onProgress: (phase, done, total) => bar?.update(phase, done, total),
    });
    bar.done();
    bar = null;

    if (flags.json) out(JSON.stringify(report, null, 2));
    else out(formatEvalText(report));
    if (flags.report) {
      const files = writeEvalReport(report, flags.report);
      (flags.json ? err : out)(`Report written: ${files.join(', ')}`);
    }
    const problems = checkReport(report);
    for (const p of problems) err(`eval: inconsistent report: ${p}`);
    return problems.length ? 1 : 0;
  } catch (e) {
    bar?.done();
    // With --json, one line of JSON (`errorLine`) instead.
    if (flags.json) err(errorLine((e as Error).message, errorCodeOf(e), { json: true }));
    else {
      err(`skillsmith eval: ${(e as Error).message}`);
      if (EvalUsageError.isInstance(e)) err('Run "skillsmith eval --help" for usage.');
    }
    return exitCodeOf(e);
  }
}

interface ParsedEvalFlags {
  trainFile: string;
  testFile: string;
  label: string;
  split: SplitName | null;
  topK: number;
  limit: number | null;
  name: string | null;
  variants: EvalVariant[];
  baseConfig: SkillsmithConfigInput;
  goals: 'task' | 'first-user-message';
}

function parseEvalFlags(args: string[], flags: EvalFlags): ParsedEvalFlags {
  const trainFile = flags.train ?? args[0];
  const testFile = flags.test ?? (flags.train ? args[0] : args[1]);
  if (!trainFile || !testFile) throw new EvalUsageError('eval needs --train FILE and --test FILE');
  const label = flags.label ?? 'meta.family';
  try {
    validateLabelPath(label);
  } catch (e) {
    throw new EvalUsageError((e as Error).message);
  }
  if (flags.split !== undefined && flags.split !== 'tune' && flags.split !== 'test')
    throw new EvalUsageError(`--split must be tune or test, not "${flags.split}"`);
  const topK = flags['top-k'] === undefined ? 2 : Number(flags['top-k']);
  if (!Number.isInteger(topK) || topK < 1) throw new EvalUsageError('--top-k must be a positive integer');
  const limit = flags.limit === undefined ? null : Number(flags.limit);
  if (limit !== null && (!Number.isInteger(limit) || limit < 1))
    throw new EvalUsageError('--limit must be a positive integer');
  const names = flags.variants
    ? flags.variants
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : EVAL_VARIANTS.map((v) => v.name);
  const variants = names.map((n) => {
    const v = variantByName(n);
    if (!v)
      throw new EvalUsageError(
        `unknown system "${n}" in --variants (known: ${EVAL_VARIANTS.map((x) => x.name).join(', ')})`,
      );
    return v;
  });
  if (variants.length === 0) throw new EvalUsageError('--variants names no system');
  if (flags.name !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$/.test(flags.name))
    throw new EvalUsageError('--name must be letters, digits, ".", "_" or "-" (it becomes a file name)');
  if (flags.goals !== undefined && flags.goals !== 'task' && flags.goals !== 'first-user-message')
    throw new EvalUsageError(`--goals must be task or first-user-message, not "${flags.goals}"`);
  const goals = (flags.goals ?? 'task') as ParsedEvalFlags['goals'];
  const baseConfig: SkillsmithConfigInput = configFileInput(flags.config);
  for (const v of variants) loadConfig(mergeConfig(baseConfig, v.config)); // fail fast on a bad key
  return {
    trainFile: resolve(trainFile),
    testFile: resolve(testFile),
    label,
    split: (flags.split as SplitName | undefined) ?? null,
    topK,
    limit,
    name: flags.name ?? null,
    variants,
    baseConfig,
    goals,
  };
}

/** The flags that shape the numbers, as a command line that reproduces them (output flags left out). */
function commandLine(flags: EvalFlags, opts: ParsedEvalFlags): string {
  const parts = ['skillsmith eval', `--train ${displayPath(opts.trainFile)}`, `--test ${displayPath(opts.testFile)}`];
  if (flags.label) parts.push(`--label ${flags.label}`);
  if (opts.split) parts.push(`--split ${opts.split}`);
  if (flags['top-k']) parts.push(`--top-k ${opts.topK}`);
  if (flags.variants) parts.push(`--variants ${opts.variants.map((v) => v.name).join(',')}`);
  if (opts.limit) parts.push(`--limit ${opts.limit}`);
  if (flags['no-replay']) parts.push('--no-replay');
  if (flags.config) parts.push(`--config ${flags.config}`);
  if (opts.goals !== 'task') parts.push(`--goals ${opts.goals}`);
  if (flags.name) parts.push(`--name ${flags.name}`);
  return parts.join(' ');
}

/** The file as given relative to the working directory, so reports do not carry machine-specific paths. */
function displayPath(file: string): string {
  return relative(process.cwd(), file) || file;
}

export function defaultName(trainFile: string, trainSplit: string, testFile: string, testSplit: string): string {
  const stem = (f: string) => basename(f).replace(/\.(jsonl|json)$/i, '');
  const part = (f: string, s: string) => `${stem(f)}${s === 'all' ? '' : `-${s}`}`;
  const raw =
    trainFile === testFile && trainSplit !== 'all'
      ? `${stem(testFile)}-${testSplit}`
      : `${part(trainFile, trainSplit)}-to-${part(testFile, testSplit)}`;
  return (
    raw
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'run'
  );
}

/** Writes DIR/eval-<name>.json (the report) and DIR/eval-<name>.md; returns the paths. */
export function writeEvalReport(report: EvalReport, dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const json = join(dir, `eval-${report.name}.json`);
  const md = join(dir, `eval-${report.name}.md`);
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(md, formatEvalMarkdown(report));
  return [json, md];
}

/** The session as the agent saw it: the first user message is the goal, and there is no separate cue. */
function firstUserMessageAsGoal(s: EvalSession): EvalSession {
  if (s.firstUserMessage == null) return { ...s, session: { ...s.session, cue: null } };
  return { ...s, session: { ...s.session, goal: s.firstUserMessage, cue: null } };
}

/** `skillsmith eval`: its own temporary memories (never --db), its own --help. */
export const command: Command = {
  name: 'eval',
  flags: [
    'config',
    'train',
    'test',
    'label',
    'split',
    'top-k',
    'variants',
    'limit',
    'no-replay',
    'details',
    'goals',
    'report',
    'name',
    'json',
  ],
  help: `  eval --train A --test B     replay evaluation: hit rate, step agreement, steps saved, false recall,
                              baselines (see "skillsmith eval --help")`,
  opens: 'self',
  ownHelp: true,
  run: (args, { flags }) => evalCommand(args, flags),
};
