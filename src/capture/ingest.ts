import type { PrivacyConfig, PrivacyConfigInput } from './capture-config.js';
import { type JudgeReport, judgeSessions, type OutcomeJudge } from './judge.js';
import {
  type IngestProblem,
  type ParseOptions,
  type ParsedFile,
  parseCaptureStream,
  parseCaptureText,
  readsLineByLine,
} from './parse-file.js';
import { type LogLines, LogStream, openLog, openLogRange } from './read-log.js';
import { resolvePrivacy } from './privacy.js';
import type { IngestFormat } from './types.js';

/**
 * The capture side of `ingest`, in one call: parse (detecting the format per record), apply the capture-time
 * privacy policy, and judge the sessions whose source gave no outcome. The caller stores the sessions.
 */
export interface PrepareCaptureOptions {
  file: string;
  namespace: string;
  format?: IngestFormat;
  now: string;
  resultChars: number;
  maxRecordBytes: number;
  maxCallsPerSession: number;
  /** Capture privacy (default: redact everything sensitive). */
  privacy?: PrivacyConfigInput | PrivacyConfig;
  /** The outcome judge; without one, sessions without an outcome stay unknown. */
  judge?: OutcomeJudge | null;
  /** A transcript read in pieces as it grows (parse-file.ts ParseOptions.resume). */
  resume?: ParseOptions['resume'];
}

export interface PreparedCapture {
  parsed: ParsedFile;
  /** What the judge decided (null when no judge ran). */
  judgement: JudgeReport | null;
}

/**
 * A log file (or standard input, fd 0) to ingest: JSONL read line by line as it is parsed, whatever its size (a file
 * at its offsets; standard input, a pipe or a gzip log once, in order, as its bytes come); a JSON document read whole
 * (read-log.ts openLog). The caller closes it (read-log.ts closeLog).
 */
export function readLog(file: string | number): Promise<string | LogLines | LogStream> {
  return openLog(file, readsLineByLine);
}

/**
 * Bytes `start` to `end` of an open transcript (what a hook reads: from its mark, or all of it): JSONL read line by
 * line as it is parsed, any other text whole (read-log.ts openLogRange).
 */
export function readLogPart(fd: number, name: string, start: number, end: number): string | LogLines {
  return openLogRange(fd, name, start, end, readsLineByLine);
}

export async function prepareCapture(
  text: string | LogLines | LogStream,
  opts: PrepareCaptureOptions,
): Promise<PreparedCapture> {
  const options: ParseOptions = {
    file: opts.file,
    namespace: opts.namespace,
    format: opts.format ?? 'auto',
    maxRecordBytes: opts.maxRecordBytes,
    resultChars: opts.resultChars,
    maxCallsPerSession: opts.maxCallsPerSession,
    now: opts.now,
    privacy: resolvePrivacy(opts.privacy ?? {}),
    ...(opts.resume ? { resume: opts.resume } : {}),
  };
  const parsed = text instanceof LogStream ? await parseCaptureStream(text, options) : parseCaptureText(text, options);
  const judgement = opts.judge
    ? await judgeSessions(
        parsed.sessions,
        parsed.records.map((r) => r.finalAnswer),
        opts.judge,
      )
    : null;
  return { parsed, judgement };
}

/** What a dry run reports of one file (`ingest --dry-run --json`, REST `POST /api/ingest?dryRun=true`). */
export interface DryRunResult {
  file: string;
  dryRun: true;
  format: string;
  detected: boolean;
  formats: ParsedFile['formats'];
  /**
   * The sessions that would be stored, as capture privacy leaves them. `stored`, where the memory was read (REST and
   * the dashboard; `ingest --dry-run` never opens it): what storing would do with each, `new`, `grow` (a stored copy
   * of it ended earlier), `present` (stored already) or `conflict` (another session holds its id).
   */
  sessions: {
    id: string;
    line: number;
    goal: string;
    calls: number;
    tools: string[];
    failedCalls: number;
    stored?: 'new' | 'grow' | 'present' | 'conflict';
  }[];
  calls: number;
  problems: IngestProblem[];
  notes: IngestProblem[];
  unread: Record<string, number>;
}

/** What would be stored from a parsed file, and what was read past or rejected. */
export function dryRunSummary(file: string, parsed: ParsedFile): DryRunResult {
  const sessions = parsed.sessions.map((s, i) => ({
    id: s.id,
    line: parsed.records[i]?.line ?? 1,
    goal: s.goal,
    calls: s.calls.length,
    tools: s.calls.map((c) => c.tool),
    failedCalls: s.calls.filter((c) => !c.ok).length,
  }));
  return {
    file,
    dryRun: true,
    format: parsed.format,
    detected: parsed.detected,
    formats: parsed.formats,
    sessions,
    calls: sessions.reduce((n, s) => n + s.calls, 0),
    problems: parsed.problems,
    notes: parsed.notes,
    unread: parsed.unread,
  };
}

/** One line per file saying what was detected: `jsonl`, or `mixed: openai 2, anthropic 1`. */
export function describeFormats(parsed: Pick<ParsedFile, 'format' | 'formats' | 'detected'>): string {
  const how = parsed.detected ? 'auto-detected' : 'as given';
  if (parsed.format !== 'mixed') return `${parsed.format}, ${how}`;
  const parts = Object.entries(parsed.formats).map(([f, n]) => `${f} ${n}`);
  return `mixed: ${parts.join(', ')}, ${how} per record`;
}
