/**
 * `skillsmith ingest [--format auto|jsonl|openai|anthropic|otel|tau|claude-code|codex|gemini|openai-agents|langchain|langchain-messages|ai-sdk|pydantic-ai|autogen]
 * [--judge rule|llm|off] [--dry-run] [--json] FILE|DIR...`
 * (also the ingest half of `learn`). Every valid record is stored; each bad one is named as
 * `file:line: reason` (with its JSON path) and the exit code is 1. Auto-detection says what it chose, per
 * file, and per record when a file mixes formats. Notes (lines of kinds this version does not read, parts a
 * log did not record) are said under the file and do not change the exit code. `--dry-run` reads and
 * prints what would be stored without opening the memory at all.
 */
import { existsSync, statSync } from 'node:fs';
import { closeLog, type LogLines, type LogStream } from '../../../capture/read-log.js';
import { InputError } from '../../../errors/input-error.js';
import { escapeControl } from '../../../domain/untrusted-text.js';
import { describeFormats, type DryRunResult, dryRunSummary, prepareCapture, readLog } from '../../../capture/ingest.js';
import { holdsNothingYet, type IngestProblem } from '../../../capture/parse-file.js';
import { INGEST_FORMATS, isIngestFormat, type IngestFormat } from '../../../capture/types.js';
import type { IngestResult } from '../../../app/types.js';
import type { Memory } from '../../../app/memory.js';
import { UsageError, type Command, MEMORY_FLAGS } from '../command.js';
import { type CommandFlags, configFromFlags } from '../command-support.js';
import { inputFiles, STDIN } from '../input-files.js';
import { hookTranscript, readStdin } from '../options.js';
import { keepFirst } from '../../../support/text.js';

/** Bad --format, --judge or no FILE: a usage error (exit 2); the one UsageError class under its old name. */
export { UsageError as IngestUsageError };
const IngestUsageError = UsageError;

export interface IngestFlags {
  format?: string;
  judge?: string;
  json?: boolean;
  'dry-run'?: boolean;
  /** The file is the transcript a hook names on stdin (Claude Code's `transcript_path`); nothing on stdout. */
  hook?: boolean;
}

export const JUDGE_MODES = ['rule', 'llm', 'off'] as const;
export type JudgeMode = (typeof JUDGE_MODES)[number];

/** Validates --format and --judge; throws IngestUsageError (exit 2) with what is allowed. */
export function ingestOptions(flags: IngestFlags): { format: IngestFormat; judge?: JudgeMode } {
  const format = flags.format ?? 'auto';
  if (!isIngestFormat(format))
    throw new IngestUsageError(`--format must be one of ${INGEST_FORMATS.join(', ')}, not "${format}"`);
  if (flags.judge !== undefined && !(JUDGE_MODES as readonly string[]).includes(flags.judge)) {
    throw new IngestUsageError(`--judge must be one of ${JUDGE_MODES.join(', ')}, not "${flags.judge}"`);
  }
  return { format, judge: flags.judge as JudgeMode | undefined };
}

/** What `ingest` and `learn` were asked to read: the files (folders expanded) and the options, checked. */
export interface IngestInputs {
  paths: string[];
  /**
   * finished: the logs are whole, their last tasks complete (a file, a session that ended), unlike the transcript
   * `ingest --hook` reads after each reply, whose last task may go on.
   */
  opts: { format: IngestFormat; judge?: JudgeMode; finished: boolean };
  /** The transcript a hook named: read from where the last hook run for it ended (memory.ingestTranscript). */
  hook?: boolean;
}

/**
 * Checks the flags and expands the paths (IngestUsageError, exit 2, when either is wrong), before any memory
 * is opened: a usage error (no FILE, a path that is not there, a folder without a log, a bad --format) leaves
 * no database file behind where `--db` pointed.
 */
export function ingestInputs(
  files: string[],
  flags: IngestFlags,
  command = 'ingest',
  notes: string[] = [],
  stdin: () => string = readStdin,
): IngestInputs {
  if (flags.hook)
    return {
      paths: hookFiles(files, command, stdin),
      opts: { ...ingestOptions(flags), finished: command !== 'ingest' },
      hook: true,
    };
  if (files.length === 0) throw new IngestUsageError(`${command} needs at least one FILE`);
  const opts = { ...ingestOptions(flags), finished: true };
  return { paths: inputFiles(files, command, notes), opts };
}

/**
 * With --hook, the file to read: the transcript the hook input on stdin names (then no FILE is given). A transcript
 * not written yet is nothing to read; a folder is no transcript.
 */
function hookFiles(files: string[], command: string, stdin: () => string): string[] {
  if (files.length)
    throw new IngestUsageError(`${command} --hook reads the transcript named on stdin: give no FILE with it`);
  const input = hookTranscript(stdin());
  if ('problem' in input)
    throw new IngestUsageError(
      `${command} --hook: ${input.problem}; a Claude Code hook hands over a JSON object with transcript_path`,
    );
  if (!existsSync(input.path)) return [];
  if (statSync(input.path).isDirectory())
    throw new IngestUsageError(`${command} --hook: ${input.path} is a folder; a hook names one transcript file`);
  return [input.path];
}

/** Reads a FILE (JSONL line by line, as it is parsed), or standard input for `-`. */
const readInput = (file: string) => readLog(file === STDIN ? 0 : file);
/** The name `-` (standard input) has in problems and notes. */
const inputName = (file: string) => (file === STDIN ? 'stdin' : file);

/**
 * Ingests each file in turn, `-` from standard input (the results of `memory.ingestText`, in order); the transcript
 * a hook named, from where the last hook run for it ended (`memory.ingestTranscript`). A file that cannot be read
 * (larger than a log may be, a gzip that does not decompress, no permission, gone since the folder was listed) is a
 * problem of that file, and the files after it are still read: one bad file in `~/.claude/projects` does not keep
 * the others out.
 */
export async function ingestFiles(
  memory: Pick<Memory, 'ingestText' | 'ingestTranscript'>,
  inputs: IngestInputs,
): Promise<IngestResult[]> {
  const results: IngestResult[] = [];
  for (const f of inputs.paths) {
    if (inputs.hook && f !== STDIN) {
      results.push(await ingestHooked(memory, f, inputs.opts));
      continue;
    }
    const read = await readEach(f);
    results.push(
      'problem' in read
        ? unreadResult(inputName(f), read.problem)
        : await whileRead(read.text, f, unreadResult, () =>
            memory.ingestText(read.text, { ...inputs.opts, name: inputName(f) }),
          ),
    );
  }
  return results;
}

/** A hook's transcript, read on from its mark; one that cannot be read is a problem of its own, as in readEach. */
async function ingestHooked(
  memory: Pick<Memory, 'ingestTranscript'>,
  file: string,
  opts: IngestInputs['opts'],
): Promise<IngestResult> {
  try {
    return await memory.ingestTranscript(file, opts);
  } catch (e) {
    const problem = unreadable(file, e);
    if (!problem) throw e;
    return unreadResult(file, problem);
  }
}

/** A file's text, or why it cannot be read (unreadable); any other error is thrown. */
async function readEach(file: string): Promise<{ text: string | LogLines | LogStream } | { problem: IngestProblem }> {
  try {
    return { text: await readInput(file) };
  } catch (e) {
    const problem = unreadable(inputName(file), e);
    if (!problem) throw e;
    return { problem };
  }
}

/**
 * What `use` makes of a log readEach opened, which is closed after. A log read as it comes (standard input, a gzip
 * log) may fail to read after its start (a gzip cut short, a read error): that is a problem of its file, as one at
 * its start is (`unread` says it); any other error is thrown.
 */
async function whileRead<T>(
  log: string | LogLines | LogStream,
  file: string,
  unread: (name: string, problem: IngestProblem) => T,
  use: () => Promise<T>,
): Promise<T> {
  try {
    return await use();
  } catch (e) {
    const problem =
      typeof log !== 'string' && 'failure' in log && log.failure === e ? unreadable(inputName(file), e) : null;
    if (!problem) throw e;
    return unread(inputName(file), problem);
  } finally {
    closeLog(log);
  }
}

/**
 * Why a log could not be read, as a problem of its own file (line 1, like every whole-file problem), or null for
 * an error that is not about the file. read-log.ts's own errors name the file first; that name is left to `file`.
 */
export function unreadable(name: string, e: unknown): IngestProblem | null {
  if (InputError.isInstance(e)) {
    const message = (e as Error).message;
    return { file: name, line: 1, reason: message.startsWith(`${name}: `) ? message.slice(name.length + 2) : message };
  }
  // A file system call's error (open, read, stat): not a store's or a network's (ECONNREFUSED from a database).
  const { code, syscall } = (e ?? {}) as NodeJS.ErrnoException;
  if (typeof code !== 'string' || !FILE_CALLS.has(syscall ?? '')) return null;
  const why = FILE_ERRORS[code] ?? (e as Error).message;
  return { file: name, line: 1, reason: `cannot be read (${why}): nothing was read from it` };
}

const FILE_CALLS = new Set(['open', 'read', 'stat', 'fstat', 'lstat', 'close']);
const FILE_ERRORS: Record<string, string> = {
  ENOENT: 'it no longer exists',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'it is a directory',
  EIO: 'an input/output error',
};

/** What ingest says of a file it could not read: nothing stored, its one problem. */
function unreadResult(file: string, problem: IngestProblem): IngestResult {
  return { file, format: 'unread', inserted: 0, skipped: 0, problems: [problem] };
}

interface Detailed {
  formats?: Record<string, number>;
  detected?: boolean;
  records?: { line: number; path: string; format: string; sessionId: string }[];
  judged?: { judge: string; judged: number; success: number; failure: number; unknown: number } | null;
}

/** The human summary of one file: stored / present, the format chosen, per-record formats when mixed, the judge. */
export function formatIngestResult(r: IngestResult): string[] {
  const d = r as IngestResult & Detailed;
  const how = d.formats
    ? describeFormats({ format: r.format as never, formats: d.formats, detected: d.detected ?? true })
    : r.format;
  if (r.format === 'unread') return [`${r.file}: not read (below)`];
  const lines = [`${r.file}: ${sessions(r.inserted)} stored${grownText(r)}, ${r.skipped} already present (${how})`];
  if (r.format === 'mixed' && d.records) {
    for (const rec of d.records)
      lines.push(`  line ${rec.line}${rec.path ? ` ${rec.path}` : ''}: ${rec.format} -> ${rec.sessionId}`);
  }
  if (d.judged && d.judged.judged > 0) {
    lines.push(
      `  ${d.judged.judged} session(s) without an outcome judged by ${d.judged.judge}: ${d.judged.success} success, ${d.judged.failure} failure, ${d.judged.unknown} left unknown`,
    );
  }
  lines.push(...formatNotes(r.notes ?? []));
  return lines;
}

/** `1 session`, `2 new sessions`. */
export function sessions(n: number, adjective = ''): string {
  return `${n} ${adjective ? `${adjective} ` : ''}session${n === 1 ? '' : 's'}`;
}

/** `, 1 grown (...)` after what a file stored, when it grew stored sessions; else nothing. */
export function grownText(r: Pick<IngestResult, 'grown'>): string {
  return r.grown ? `, ${r.grown} grown (stored before their task ended)` : '';
}

/** Notes under a file's summary: `  note: line 1: reason`. */
export function formatNotes(notes: IngestProblem[]): string[] {
  return notes.map((n) => `  note: line ${n.line}: ${n.reason}`);
}

/**
 * `file:line: reason` per problem on stderr, then a one-line total: what else was stored, or that nothing was (a
 * file with nothing to store rejected no record but itself).
 */
export function formatProblems(problems: IngestResult['problems'], results: IngestResult[]): string[] {
  const lines = problems.map((p) => `${p.file}:${p.line}: ${p.reason}`);
  const kept = results.reduce((n, r) => n + r.inserted + (r.grown ?? 0) + r.skipped, 0);
  if (problems.length)
    lines.push(
      kept
        ? `${problems.length} record(s) rejected; every valid record was stored.`
        : `${problems.length} problem(s); nothing was stored.`,
    );
  return lines;
}

/** The whole `ingest` command; returns the exit code (IngestUsageError for bad usage: exit 2). */
export async function ingestCommand(
  memory:
    | Pick<Memory, 'ingestFile' | 'ingestText' | 'ingestTranscript'>
    | (() => Promise<Pick<Memory, 'ingestFile' | 'ingestText' | 'ingestTranscript'>>),
  files: string[],
  flags: IngestFlags,
  io: { out: (s: string) => void; err: (s: string) => void } = {
    out: (s) => process.stdout.write(`${escapeControl(s)}\n`),
    err: (s) => process.stderr.write(`${escapeControl(s)}\n`),
  },
): Promise<number> {
  const notes: string[] = [];
  const inputs = ingestInputs(files, flags, 'ingest', notes);
  const results = await ingestFiles(typeof memory === 'function' ? await memory() : memory, inputs);
  const problems = results.flatMap((r) => r.problems);
  if (flags.json) io.out(JSON.stringify(results, null, 2));
  else if (flags.hook) for (const l of formatProblems(hookProblems(problems), results)) io.err(l);
  else {
    for (const n of notes) io.out(`note: ${n}`);
    for (const r of results) for (const l of formatIngestResult(r)) io.out(l);
    for (const l of formatProblems(problems, results)) io.err(l);
  }
  return (flags.hook ? hookProblems(problems) : problems).length ? 1 : 0;
}

/** The problems a hook says: a transcript with nothing to store yet (the session has just begun) is none. */
export function hookProblems<P extends { reason: string }>(problems: P[]): P[] {
  return problems.filter((p) => !holdsNothingYet(p));
}

/** Reads each file as `ingest` would (format, limits, capture privacy of the configuration); stores nothing. */
async function dryRunFiles(
  files: string[],
  flags: IngestFlags & CommandFlags,
  notes: string[],
): Promise<DryRunResult[]> {
  const { paths, opts } = ingestInputs(files, flags, 'ingest', notes);
  const { format } = opts;
  const config = configFromFlags(flags);
  const out: DryRunResult[] = [];
  for (const file of paths) {
    const read = await readEach(file);
    if ('problem' in read) {
      out.push(unreadDryRun(inputName(file), read.problem));
      continue;
    }
    const dry = await whileRead(read.text, file, unreadDryRun, async () => {
      const { parsed } = await prepareCapture(read.text, {
        file: inputName(file),
        namespace: config.namespace,
        format,
        now: new Date().toISOString(),
        resultChars: config.capture.resultChars,
        maxRecordBytes: config.capture.maxRecordBytes,
        maxCallsPerSession: config.capture.maxCallsPerSession,
        privacy: config.capture.privacy,
        judge: null,
      });
      return dryRunSummary(inputName(file), parsed);
    });
    out.push(dry);
  }
  return out;
}

const clip = (t: string, n: number) => {
  const one = t.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${keepFirst(one, n - 3)}...` : one;
};

/** What a dry run says of a file it could not read. */
function unreadDryRun(file: string, problem: IngestProblem): DryRunResult {
  const none = { sessions: [], calls: 0, notes: [], unread: {}, formats: {} };
  return { file, dryRun: true, format: 'unread', detected: false, ...none, problems: [problem] };
}

/** The human account of a dry run: per file, the sessions with their calls, then the notes. */
function formatDryRun(r: DryRunResult): string[] {
  if (r.format === 'unread') return [`${r.file}: not read (below)`];
  const how = describeFormats({ format: r.format as never, formats: r.formats, detected: r.detected });
  const lines = [
    `${r.file}: dry run, nothing stored: ${r.sessions.length} session(s) with ${r.calls} tool call(s) would be stored (${how})`,
  ];
  for (const s of r.sessions) {
    const tools = s.tools.slice(0, 12).join(', ') + (s.tools.length > 12 ? `, ... (${s.tools.length - 12} more)` : '');
    lines.push(
      `  line ${s.line}: ${s.id}: ${s.calls} call(s)${s.failedCalls ? `, ${s.failedCalls} failed` : ''}; goal "${clip(s.goal, 80)}"`,
    );
    if (tools) lines.push(`    ${tools}`);
  }
  lines.push(...formatNotes(r.notes));
  return lines;
}

/** `ingest --dry-run`: what would be stored, on stdout; problems on stderr; exit 1 when any record is bad. */
export async function dryRunCommand(
  files: string[],
  flags: IngestFlags & CommandFlags,
  io: { out: (s: string) => void; err: (s: string) => void } = {
    out: (s) => process.stdout.write(`${escapeControl(s)}\n`),
    err: (s) => process.stderr.write(`${escapeControl(s)}\n`),
  },
): Promise<number> {
  const notes: string[] = [];
  const results = await dryRunFiles(files, flags, notes);
  const problems = results.flatMap((r) => r.problems);
  if (flags.json) io.out(JSON.stringify(results, null, 2));
  else {
    for (const n of notes) io.out(`note: ${n}`);
    for (const r of results) for (const l of formatDryRun(r)) io.out(l);
    for (const l of problems.map((p) => `${p.file}:${p.line}: ${p.reason}`)) io.err(l);
    if (problems.length) io.err(`${problems.length} record(s) would be rejected.`);
  }
  return problems.length ? 1 : 0;
}

/** `skillsmith ingest FILE|DIR...`: every valid record stored, each bad one named (exit 1), bad usage exit 2. */
export const command: Command = {
  name: 'ingest',
  flags: [...MEMORY_FLAGS, 'format', 'judge', 'dry-run', 'hook', 'json'],
  help: `  ingest FILE|DIR...          store sessions: JSONL interchange, OpenAI or Anthropic message logs (and gateway
                              logs of model calls, such as LiteLLM's), Claude Code transcripts, Codex CLI rollouts,
                              Gemini CLI sessions, Gemini API contents and Google ADK sessions, OpenAI Agents SDK
                              (Python and JavaScript) items and run states, Responses API objects, Vercel AI SDK
                              chats, Pydantic AI and AutoGen histories, LangChain messages and LangGraph threads,
                              LangChain / LangSmith runs, OTLP GenAI spans, raw tau-bench results (--format;
                              sessions without an outcome are judged; requests without a tool call are not stored,
                              said in a note; a file that gives nothing else is an error);
                              a DIR: every .jsonl and .json file below it; - reads standard input; --dry-run
                              prints what would be stored, storing nothing; --hook: the transcript a Claude Code or
                              Gemini CLI hook names on stdin (transcript_path), printing nothing unless a record
                              is rejected; a Claude Code transcript is read from the task the last run ended in`,
  // --dry-run never opens (or creates) the memory; otherwise the memory of the global flags, once the
  // arguments are known to be good.
  opens: 'self',
  run: async (files, { flags, memory }) =>
    flags['dry-run'] ? dryRunCommand(files, flags) : ingestCommand(memory, files, flags),
};
