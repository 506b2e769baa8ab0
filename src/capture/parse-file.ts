import { aiSdkMessagesOf, aiSdkNotes, fromAiSdk } from './ai-sdk.js';
import { fromPydanticAi, pydanticMessagesOf } from './pydantic-ai.js';
import { autogenMessagesOf, fromAutogen } from './autogen.js';
import { fromLangChainMessages, langchainMessagesOf } from './langchain-messages.js';
import { anthropicSessions, hasAnthropicMarkers } from './anthropic-messages.js';
import { answeredByExit } from '../domain/commands.js';
import { clipLongStrings, depthReason, exceedsDepth, jsonSyntaxReason } from '../domain/json-limits.js';
import { countUnread, isObject, type JsonObject, type Unread } from './common.js';
import { type CaptureLimits, fromNormalized, normalizedSessionSchema } from './normalized-jsonl.js';
import { hasOpenAiMarkers, isOpenAiConversation, openAiSessions } from './openai-messages.js';
import { isOtlpTraces, OtelCollector } from './otel-genai.js';
import {
  type ClaudeCodeResume,
  claudeCodeShape,
  DETECT_SAMPLE,
  fromClaudeCode,
  isClaudeCodeLine,
  slimClaudeCodeLine,
} from './claude-code.js';
import type { LogHead, LogLines, LogRow, LogStream } from './read-log.js';
import {
  belongsToCodexRollout,
  type CodexResume,
  fromCodexRollout,
  isCodexRollout,
  isCodexRolloutLine,
  slimCodexLine,
  type StreamLine,
} from './codex-rollout.js';
import {
  fromGeminiCli,
  fromGeminiContents,
  type GeminiResume,
  isGeminiCliLine,
  isGeminiCliLog,
  isGeminiContents,
  isGeminiPromptLog,
  isGeminiSession,
  slimGeminiLine,
} from './gemini.js';
import {
  type BuiltSession,
  fromAgentsHistory,
  historyNotes,
  isAgentsHistory,
  isResponseObjectList,
} from './openai-agents.js';
import { isLangChainRun, isLangChainRunList, LangChainCollector } from './langchain-runs.js';
import { isItemList } from './responses-items.js';
import { type PrivacyPolicy, protectGoal, protectId, protectSession } from './privacy.js';
import { taskBase } from '../domain/recall-tasks.js';
import { supersededSnapshots } from './snapshots.js';
import { exchangeConversation } from './exchanges.js';
import {
  fromTau2Simulation,
  fromTauBench,
  isTau2Results,
  isTau2Simulation,
  isTauBenchResult,
  isTauRecord,
  tau2TaskIndex,
} from './tau-raw.js';
import type {
  CapturedSession,
  ContentNames,
  DetectedFormat,
  IngestFormat,
  ParsedSession,
  ReaderReport,
  RecordInfo,
} from './types.js';
import { InputError } from '../errors/input-error.js';
import { toolNameProblem } from '../domain/tool-name.js';

/** A record up to this many times the byte limit is read and its long texts cut; a larger one is refused. */
const OVERSIZE_FACTOR = 16;

export type { DetectedFormat, IngestFormat } from './types.js';

export interface IngestProblem {
  file: string;
  /** 1-based line number (for a whole-file JSON document: 1). */
  line: number;
  /** JSON path of the bad record or field inside the line or document, when there is one. */
  path?: string;
  reason: string;
}

export interface ParsedRecord extends RecordInfo {
  /** The agent's final text answer, for the outcome judge (not stored). */
  finalAnswer: string | null;
  /** The names of a task named by its content (ParsedSession.contentNames). */
  contentNames?: ContentNames;
  /** The log ends in the middle of the task (ParsedSession.unfinished). */
  unfinished?: true;
}

export interface ParsedFile {
  /** The format of the file's records, or `mixed` when auto-detection found several. */
  format: DetectedFormat | 'mixed';
  /** Whether the format was detected (`--format auto`) or given. */
  detected: boolean;
  /** Sessions per detected format. */
  formats: Partial<Record<DetectedFormat, number>>;
  sessions: CapturedSession[];
  /**
   * One per session, in the same order: the id of the agent's session it is a task of, as stored (`ID` for `ID#2`;
   * a recall a hook made under it is given to the task it served).
   */
  bases: string[];
  /** One per session, in the same order: where it was read and as what. */
  records: ParsedRecord[];
  problems: IngestProblem[];
  /**
   * What the reader wants the person to know without it being an error (the exit code stays 0): lines of
   * kinds it does not read, parts a log did not record.
   */
  notes: IngestProblem[];
  /** Lines of a known format that were read past, by kind (e.g. Claude Code `progress`). */
  unread: Record<string, number>;
}

export interface ParseOptions extends CaptureLimits {
  file: string;
  namespace: string;
  format: IngestFormat;
  maxRecordBytes: number;
  now?: string;
  /** Capture-time privacy; when set, every session goes through it (results are capped after redaction). */
  privacy?: PrivacyPolicy;
  /**
   * A transcript read in pieces as it grows (a hook's runs): the number in the file of the text's first line, and the
   * checkpoints in and out of the reader of each transcript format read so (claude-code.ts, codex-rollout.ts,
   * gemini.ts). Read on from a checkpoint, a text whose sessions are all left out is no problem: the file before it
   * held some.
   */
  resume?: { firstLine: number; claudeCode: ClaudeCodeResume; codex?: CodexResume; gemini?: GeminiResume };
}

/**
 * Parses a capture file: JSONL (one record per line) or one JSON document (an array of records or messages,
 * or one pretty-printed record). A record is a normalized session (`steps`), an OpenAI or Anthropic
 * conversation (`messages`), a raw tau-bench / tau2-bench result, or an OTLP JSON trace export. With
 * `format: 'auto'` every record is detected on its own, so a file may mix shapes; `records` says what each one
 * was read as. A transcript (one event per line) is read as a whole file: the lines of another log in it, or a
 * transcript after records, are one problem per stretch, naming where it starts (strayLines). Every bad record is
 * reported with its line, JSON path and reason; the valid ones are kept. The text may be a file read line by line
 * (LogLines, for JSONL: readsLineByLine), never held whole; what is read from it is what is read from its text.
 */
export function parseCaptureText(input: string | LogLines, opts: ParseOptions): ParsedFile {
  const steps = parseSteps(input, opts);
  let step = steps.next();
  if (typeof input !== 'string')
    for (const row of input.rows()) {
      if (step.done) break;
      step = steps.next(row);
    }
  while (!step.done) step = steps.next(null);
  return step.value;
}

/**
 * parseCaptureText of a log read once as its bytes come (read-log.ts LogStream: standard input, a pipe, a gzip log as
 * it is decompressed), JSONL that readsLineByLine judged so on its start: its rows are parsed as they come, as a
 * file's are, and what a file that gave nothing is checked for is kept of its start as it passes (BodyHead).
 */
export async function parseCaptureStream(input: LogStream, opts: ParseOptions): Promise<ParsedFile> {
  const steps = parseSteps({ head: (chars) => input.head(chars) }, opts);
  let step = steps.next();
  for await (const row of input.stream()) {
    if (step.done) break;
    step = steps.next(row);
  }
  while (!step.done) step = steps.next(null);
  return step.value;
}

/**
 * The parse of parseCaptureText, whose caller hands it the rows of a log read line by line one at a time (each `next`
 * one, then null at the end): a file's rows read in turn, or a stream's as they come. `source` is the log's start
 * (its first characters), and, for a file, its rows again from the first (what the checks of a file that gave no
 * session read); a stream's are kept as they pass.
 */
function* parseSteps(
  input: string | { head(chars: number): string; rows?(): Iterable<LogRow> },
  opts: ParseOptions,
): Generator<void, ParsedFile, LogRow | null> {
  // A log read line by line (read-log.ts LogLines or LogStream, chosen by readsLineByLine) is never held whole: JSONL.
  const text = typeof input === 'string' ? input : null;
  const source = typeof input === 'string' ? null : input;
  const now = opts.now ?? new Date().toISOString();
  const problems: IngestProblem[] = [];
  const out: ParsedSession[] = [];
  const records: ParsedRecord[] = [];
  const otel = new OtelCollector();
  const langchain = new LangChainCollector();
  const streamProblems: ReaderReport[] = [];
  const notes: IngestProblem[] = [];
  const unread: Unread = new Map();
  /** Commands the log called failed whose exit status 1 was their answer, by head (`grep`, `npm outdated`). */
  const answered = new Map<string, number>();
  // With a privacy policy, parsers keep whole results: they are redacted first and capped after.
  const limits: CaptureLimits = {
    resultChars: opts.privacy ? Number.MAX_SAFE_INTEGER : opts.resultChars,
    maxCallsPerSession: opts.maxCallsPerSession,
  };
  let sawDocumentArray = false;
  // The format the first record was read as: what a file that gave no session says it was.
  let readAs: DetectedFormat | null = null;

  const trimmed = text === null ? '' : text.replace(/^\uFEFF/, '').trimStart();
  let handled = false;
  // Not text at all (an image, an archive, a database file): one problem, not a line of noise per line.
  const binary = binaryContent(text ?? source!.head(BINARY_PROBE));
  if (binary) {
    problems.push({ file: opts.file, line: 1, reason: binary });
    handled = true;
  }
  // A whole-file JSON document (array of messages, or array of records) rather than JSONL.
  if (trimmed.startsWith('[')) {
    try {
      const parsed = JSON.parse(trimmed) as unknown;
      handled = true;
      sawDocumentArray = true;
      // A list of logged model calls: each one's conversation.
      const doc = Array.isArray(parsed) ? parsed.map(asConversation) : parsed;
      if (
        isOpenAiConversation(doc) ||
        !Array.isArray(doc) ||
        isGeminiPromptLog(doc) ||
        isGeminiContents(doc) ||
        (opts.format === 'auto' ? isAgentsHistory(doc) : opts.format === 'openai-agents') ||
        // A message list is one conversation, whichever format was asked for (another one's list is named below).
        messageListFormat(doc) !== null ||
        isMessageListFormat(opts.format)
      )
        addRecord(doc, 1, '');
      else {
        const later = supersededSnapshots(doc.map(conversationOf));
        doc.forEach((item, i) => {
          if (!later.has(i)) addRecord(item, 1, `[${i}]`);
        });
        noteSnapshots(later.size);
      }
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
      // Not one document: line-by-line parsing reports the broken lines, unless it is one broken document.
      handled = brokenDocument(e);
    }
  }

  // One pretty-printed JSON object (a session, a conversation, a results file, an OTLP export) rather than JSONL.
  if (!handled && trimmed.startsWith('{') && trimmed.includes('\n')) {
    if (!firstLineIsJson()) {
      try {
        const doc = JSON.parse(trimmed) as unknown;
        handled = true;
        addRecord(asConversation(doc), 1, '');
      } catch (e) {
        if (!(e instanceof SyntaxError)) throw e;
        handled = brokenDocument(e);
      }
    }
  }

  const body = source === null ? null : new BodyHead(source.rows ? () => source.rows!() : null);
  if (!handled) {
    const lines: StreamLine[] = [];
    const firstLine = opts.resume?.firstLine ?? 1;
    // Read line by line, the lines of a Claude Code transcript or a Codex CLI rollout keep only what their reader reads.
    const slim = source ? new Slimmer(opts) : null;
    if (text !== null) {
      const rows = text.split('\n');
      rows.forEach((raw, i) => {
        readRow(raw, -1, i, i === rows.length - 1);
      });
    } else {
      let i = 0;
      for (let row = yield; row !== null; row = yield) {
        body!.add(row);
        readRow(row.text, row.bytes, i++, row.last);
      }
    }

    // A last line with no newline after it may be one a writer has not finished (a transcript a hook reads while
    // its agent writes it): if it is not JSON yet, the problem says so (a hook reads it on its next run).
    function readRow(raw: string | null, rawBytes: number, i: number, last: boolean): void {
      const lineNo = i + firstLine;
      if (raw === null) {
        // Longer than a string holds (read line by line: a whole read refuses the file).
        problems.push({
          file: opts.file,
          line: lineNo,
          reason: `record is ${rawBytes} bytes, over the ${opts.maxRecordBytes}-byte limit`,
        });
        return;
      }
      const line = raw.trim();
      if (!line) return;
      // Of the text as decoded (a byte that is not UTF-8 counts as the 3 of U+FFFD), as a whole read counts them.
      const bytes = Buffer.byteLength(line);
      // Over the limit, and not so far over that reading it is a risk: its long texts are cut (below).
      if (bytes > opts.maxRecordBytes * OVERSIZE_FACTOR) {
        problems.push({
          file: opts.file,
          line: lineNo,
          reason: `record is ${bytes} bytes, over the ${opts.maxRecordBytes}-byte limit`,
        });
        return;
      }
      let value: unknown;
      try {
        value = JSON.parse(line.replace(/^\uFEFF/, ''));
      } catch (e) {
        const reason = last ? UNFINISHED_LINE : `not valid JSON (${jsonSyntaxReason((e as Error).message)})`;
        problems.push({ file: opts.file, line: lineNo, reason });
        return;
      }
      if (exceedsDepth(value)) {
        problem(lineNo, '', depthReason('record'));
        return;
      }
      if (bytes > opts.maxRecordBytes) {
        // A file an agent wrote, a log it read: the record keeps its shape, its long texts cut as results are.
        const clipped = clipLongStrings(value, opts.resultChars);
        if (Buffer.byteLength(JSON.stringify(clipped.value)) > opts.maxRecordBytes) {
          problems.push({
            file: opts.file,
            line: lineNo,
            reason: `record is ${bytes} bytes, over the ${opts.maxRecordBytes}-byte limit`,
          });
          return;
        }
        value = clipped.value;
        notes.push({
          file: opts.file,
          line: lineNo,
          reason: `record is ${bytes} bytes, over the ${opts.maxRecordBytes}-byte limit: its ${clipped.cut} longest text(s) were cut to ${opts.resultChars} characters`,
        });
      }
      const read = { value: asConversation(value), line: lineNo };
      lines.push(read);
      slim?.add(read, lines);
    }
    // Transcript formats spread one conversation over many lines (one event or item per line): the whole file
    // is read as one transcript. Every other JSONL holds one record per line.
    const stream = opts.format === 'auto' ? detectStream(lines) : STREAM_FORMATS.has(opts.format) ? opts.format : null;
    // Lines of another log in the file (two logs written into one, a transcript appended to records): never read
    // as this one's, never dropped unsaid. Each stretch of them is one problem at the line where it starts.
    const { own, strays } = strayLines(lines, stream);
    if (stream) {
      const from = out.length;
      addStream(stream, own);
      leaveUnjudged(from);
    } else {
      const later = supersededSnapshots(own.map((l) => conversationOf(l.value)));
      own.forEach((l, i) => {
        if (!later.has(i)) addRecord(l.value, l.line, '');
      });
      noteSnapshots(later.size);
    }
    for (const run of strays) problems.push({ file: opts.file, line: run.from, reason: strayReason(run, stream) });
  }

  if (langchain.runs.length) {
    const built = langchain.build(opts.namespace, limits, now, streamProblems);
    for (const s of built) push(s, s.line, '', 'langchain');
  }
  let requestsLeftOut = 0;
  for (const p of streamProblems.splice(0))
    if (p.note) {
      requestsLeftOut += p.requestsLeftOut ?? 0;
      // A note may quote what the person asked: it is redacted as the goals are.
      notes.push({
        file: opts.file,
        line: p.line,
        ...(p.path ? { path: p.path } : {}),
        reason: opts.privacy ? protectGoal(opts.privacy, p.reason) : p.reason,
      });
    } else problem(p.line, p.path, p.reason);

  if (otel.spans.length || otel.problems.length) {
    const built = otel.build(opts.namespace, limits, now);
    for (const p of built.problems) problems.push({ file: opts.file, line: p.line, path: p.path, reason: p.reason });
    for (const n of built.notes) notes.push({ file: opts.file, line: n.line, path: n.path, reason: n.reason });
    for (const s of built.sessions) push(s, s.line, s.path, 'otel');
  }

  // A file whose requests were all left out (no tool call yet) said so in a note: that is no error.
  const readOn = !!(opts.resume?.claudeCode.from || opts.resume?.codex?.from || opts.resume?.gemini?.from);
  if ((out.length || !requestsLeftOut) && !readOn)
    problems.push(...emptiness(text !== null ? wholeBody(text) : body!.body(), out, records, problems, opts.file));
  problems.sort((a, b) => a.line - b.line);

  const formats: Partial<Record<DetectedFormat, number>> = {};
  for (const r of records) formats[r.format] = (formats[r.format] ?? 0) + 1;
  const kinds = Object.keys(formats) as DetectedFormat[];
  const fallback: DetectedFormat =
    opts.format !== 'auto'
      ? opts.format
      : (readAs ??
        (otel.spans.length ? 'otel' : langchain.runs.length ? 'langchain' : sawDocumentArray ? 'openai' : 'jsonl'));
  const format = kinds.length > 1 ? 'mixed' : (kinds[0] ?? fallback);
  const sessions = out.map((p) =>
    opts.privacy ? protectSession(p.session, opts.privacy, opts.resultChars) : p.session,
  );
  // The id of the agent's session each task belongs to, kept as its first task's id is (a hashed task id says none).
  const bases = out.map((p) => {
    const base = taskBase(p.session.id);
    return opts.privacy ? protectId(opts.privacy, base, 'sid') : base;
  });
  if (unread.size) notes.push({ file: opts.file, line: 1, reason: unreadNote(unread, UNREAD_UNIT[format] ?? 'line') });
  if (answered.size) notes.push({ file: opts.file, line: 1, reason: answeredNote(answered) });
  notes.sort((a, b) => a.line - b.line);
  const unreadCounts = Object.fromEntries([...unread].sort((a, b) => b[1] - a[1]));
  return {
    format,
    detected: opts.format === 'auto',
    formats,
    sessions,
    bases,
    records,
    problems,
    notes,
    unread: unreadCounts,
  };

  function push(p: ParsedSession, line: number, path: string, format: DetectedFormat) {
    // A name no tool-calling API gives a tool would break the procedure it reaches: the session is refused.
    for (const [i, c] of p.session.calls.entries()) {
      const wrong = toolNameProblem(c.tool);
      if (wrong === null) continue;
      problem(line, path, `call ${i + 1} of the session: ${wrong}; the session is not stored`);
      return;
    }
    // A search that found nothing, a diff that found a difference: the log's error, the command's answer.
    for (const c of p.session.calls) {
      const head = answeredByExit(c);
      if (head === null) continue;
      c.ok = true;
      c.error = null;
      answered.set(head, (answered.get(head) ?? 0) + 1);
    }
    out.push(p);
    records.push({
      line,
      path,
      format,
      sessionId: p.session.id,
      finalAnswer: p.finalAnswer,
      ...(p.contentNames ? { contentNames: p.contentNames } : {}),
      ...(p.unfinished ? { unfinished: true as const } : {}),
    });
  }

  /**
   * A transcript's task with a line that could not be read (broken JSON, a record over the limits, a result whose
   * call is missing) may lack a step: it is stored, but not judged (its outcome stays unknown, `judged`, so the
   * judge passes it over and no pass learns from it as a success), and a note says so. A last line still being
   * written is not one: the task grows when the hook reads the file again.
   */
  function leaveUnjudged(from: number) {
    const broken = [
      ...problems.filter((p) => p.reason !== UNFINISHED_LINE).map((p) => p.line),
      ...streamProblems.filter((p) => !p.note).map((p) => p.line),
    ].sort((a, b) => a - b);
    if (!broken.length) return;
    const tasks = out
      .slice(from)
      .map((p, k) => ({ p, line: records[from + k].line }))
      .sort((a, b) => a.line - b.line);
    tasks.forEach(({ p, line }, k) => {
      const next = tasks[k + 1]?.line ?? Number.POSITIVE_INFINITY;
      const start = k === 0 ? 1 : line;
      const hit = broken.find((b) => b >= start && b < next);
      if (hit === undefined || p.session.outcome !== 'unknown') return;
      p.session.outcomeSource = 'judged';
      notes.push({
        file: opts.file,
        line,
        reason: `the task that starts here has a line that could not be read (line ${hit}), so a step may be missing: it is not judged (its outcome stays unknown), and no pass learns from it as a success; ingest the file again once it is whole, and the stored task is made whole`,
      });
    });
  }

  function problem(line: number, path: string, reason: string) {
    problems.push({
      file: opts.file,
      line,
      ...(path ? { path } : {}),
      reason: path && !reason.startsWith(path) ? `${path}: ${reason}` : reason,
    });
  }

  /**
   * A document spread over several lines (its first line is no JSON value alone) that does not parse is one error
   * at the place the parser stopped, not one per line. Returns whether it was one.
   */
  function brokenDocument(e: SyntaxError): boolean {
    if (firstLineIsJson()) return false;
    const at = Number(/position (\d+)/.exec(e.message)?.[1] ?? Number.NaN);
    // The parser counts from the first character of the document; the file may open with blank lines (a document is
    // read whole: text is there).
    const body = (text ?? '').replace(/^\uFEFF/, '');
    const upTo = Number.isFinite(at) ? body.slice(0, body.length - trimmed.length + at) : '';
    const line = (upTo.match(/\n/g)?.length ?? 0) + 1;
    const column = upTo.length - upTo.lastIndexOf('\n');
    problems.push({
      file: opts.file,
      line,
      reason: `not valid JSON${Number.isFinite(at) ? ` (column ${column})` : ''}: ${jsonSyntaxReason(e.message)}; the file is one JSON document, so nothing in it was read`,
    });
    return true;
  }

  /** Whether the file's first line is a JSON value on its own (JSONL), rather than the start of one document. */
  function firstLineIsJson(): boolean {
    const end = trimmed.indexOf('\n');
    try {
      JSON.parse(trimmed.slice(0, end < 0 ? trimmed.length : end).trim());
      return true;
    } catch {
      return false;
    }
  }

  /** Records left out as earlier snapshots of a later one are said once, as a note. */
  function noteSnapshots(count: number) {
    if (count)
      notes.push({
        file: opts.file,
        line: 1,
        reason: `${count.toLocaleString('en-US')} record(s) were earlier snapshots of a later record (the same conversation with fewer messages): each conversation was read once, at its fullest`,
      });
  }

  function pushBuilt(list: BuiltSession[], path: string, format: DetectedFormat) {
    for (const { line, ...b } of list) push(b, line, path, format);
  }

  function noteHistory(value: unknown, line: number, path: string, before: number) {
    noteWhatIsMissing(historyNotes(value), line, path, before);
  }

  /** Notes on what a log did not record, said once its sessions are in. */
  function noteWhatIsMissing(reasons: string[], line: number, path: string, before: number) {
    if (out.length === before) return;
    for (const reason of reasons)
      notes.push({ file: opts.file, line, ...(path ? { path } : {}), reason: path ? `${path}: ${reason}` : reason });
  }

  function addStream(format: DetectedFormat, lines: StreamLine[]) {
    readAs = readAs ?? format;
    if (format === 'claude-code') {
      const shape = claudeCodeShape(lines);
      if (shape === 'no-messages') {
        const kinds = new Map<string, number>();
        for (const l of lines) countUnread(kinds, isObject(l.value) ? l.value.type : null);
        streamProblems.push({
          line: lines[0]?.line ?? 1,
          path: '',
          reason: `${NO_MESSAGES}: nothing to store (${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')})`,
        });
      } else if (shape === null)
        streamProblems.push({
          line: lines[0]?.line ?? 1,
          path: '',
          reason: 'expected a Claude Code transcript (lines with type user/assistant, message, sessionId, uuid)',
        });
      else {
        const before = streamProblems.length;
        const built = fromClaudeCode(
          lines,
          opts.namespace,
          limits,
          now,
          streamProblems,
          unread,
          opts.resume?.claudeCode,
        );
        // Only context so far (a resumed or cleared session's caveat and command lines): no request yet.
        if (!built.length && streamProblems.length === before)
          streamProblems.push({ line: lines[0]?.line ?? 1, path: '', reason: `${NO_REQUEST}: nothing to store` });
        pushBuilt(built, '', 'claude-code');
      }
    } else if (format === 'codex') {
      if (!isCodexRollout(lines))
        streamProblems.push({
          line: lines[0]?.line ?? 1,
          path: '',
          reason:
            'expected a Codex CLI rollout (lines {timestamp, type: session_meta | response_item | event_msg, payload})',
        });
      else
        pushBuilt(
          fromCodexRollout(lines, opts.file, opts.namespace, limits, now, streamProblems, unread, opts.resume?.codex),
          '',
          'codex',
        );
    } else if (format === 'gemini') {
      // A session log; else (with --format gemini) one session document or contents list per line.
      if (isGeminiCliLog(lines))
        pushBuilt(
          fromGeminiCli(lines, opts.file, opts.namespace, limits, now, streamProblems, unread, opts.resume?.gemini),
          '',
          'gemini',
        );
      else for (const l of lines) addRecord(l.value, l.line, '');
    } else if (isMessageListFormat(format)) {
      // One message per line: one conversation; else (with --format) one conversation per line.
      const reader = MESSAGE_LISTS[format];
      const values = lines.map((l) => l.value);
      if (lines.length > 1 && reader.messagesOf(values)) {
        const before = out.length;
        const lineOf = (i: number) => lines[i].line;
        const at = { namespace: opts.namespace, limits, now, line: lines[0].line, path: '', problems: streamProblems };
        pushBuilt(reader.read(values, { ...at, unread, lineOf }), '', format);
        noteWhatIsMissing(reader.notes(values), lines[0].line, '', before);
      } else for (const l of lines) addRecord(l.value, l.line, '');
    } else if (format === 'openai-agents') {
      if (lines.length === 1) return addRecord(lines[0].value, lines[0].line, '');
      const before = out.length;
      pushBuilt(sessionsFromLines(lines), '', 'openai-agents');
      noteHistory(
        lines.map((l) => l.value),
        lines[0].line,
        '',
        before,
      );
    }
  }

  function sessionsFromLines(lines: StreamLine[]): BuiltSession[] {
    // One Responses item (or Response object) per line: one history, each item keeping its own line number.
    const values = lines.map((l) => l.value);
    const built = fromAgentsHistory(values, opts.namespace, limits, now, 1, '', streamProblems, unread);
    const lineOf = (path: string) => lines[Number(/^\[(\d+)\]/.exec(path)?.[1] ?? 0)]?.line ?? 1;
    for (const p of streamProblems) if (p.line === 1 && /^\[\d+\]/.test(p.path)) p.line = lineOf(p.path);
    return built;
  }

  function addRecord(value: unknown, line: number, path: string) {
    // Untrusted depth and size are refused before any recursive code (redaction, zod, JSON.stringify) runs:
    // the record costs only itself.
    if (exceedsDepth(value)) return problem(line, path, depthReason('record'));
    if (path) {
      const bytes = Buffer.byteLength(JSON.stringify(value) ?? '');
      if (bytes > opts.maxRecordBytes)
        return problem(line, path, `record is ${bytes} bytes, over the ${opts.maxRecordBytes}-byte limit`);
    }
    const kind = opts.format === 'auto' ? detect(value) : opts.format;
    readAs = readAs ?? kind;
    const problemsBefore = problems.length;
    const reportsBefore = streamProblems.length;
    const sessionsBefore = out.length;
    try {
      // A format that was asked for, given another one's message list, names the right one.
      const list = opts.format === 'auto' ? null : messageListFormat(value);
      if (list && kind && list !== kind)
        throw new InputError(
          `this is ${MESSAGE_LISTS[list].name}, not ${formatName(kind)}: use --format ${list} or auto`,
        );
      switch (kind) {
        case 'claude-code':
        case 'codex':
          throw new InputError(`a ${kind} transcript is a JSONL file with one event per line; this record is not one`);
        case 'langchain': {
          if (isLangChainRunList(value))
            value.forEach((r, i) => {
              langchain.add(r, line, `${path}[${i}]`);
            });
          else if (isLangChainRun(value)) langchain.add(value, line, path);
          else
            throw new InputError(
              'expected a LangChain / LangSmith run ({id, name, run_type, inputs, outputs, child_runs | parent_run_id})',
            );
          return;
        }
        case 'openai-agents': {
          if (!isAgentsHistory(value))
            throw new InputError(
              'expected OpenAI Agents SDK / Responses API items (function_call / function_call_output items, bare or under messages / input / output / items)',
            );
          const before = out.length;
          pushBuilt(
            fromAgentsHistory(value, opts.namespace, limits, now, line, path, streamProblems, unread),
            path,
            'openai-agents',
          );
          noteHistory(value, line, path, before);
          return;
        }
        case 'ai-sdk':
        case 'pydantic-ai':
        case 'autogen':
        case 'langchain-messages': {
          const reader = MESSAGE_LISTS[kind];
          if (!reader.messagesOf(value)) throw new InputError(reader.expected);
          const before = out.length;
          const at = { namespace: opts.namespace, limits, now, line, path, problems: streamProblems, unread };
          pushBuilt(reader.read(value, at), path, kind);
          noteWhatIsMissing(reader.notes(value), line, path, before);
          return;
        }
        case 'gemini': {
          if (isGeminiPromptLog(value))
            throw new InputError(
              'a Gemini CLI prompt log (logs.json: the prompts typed, without replies or tool calls): nothing to store; the sessions are in chats/session-*.jsonl beside it',
            );
          if (isGeminiSession(value))
            pushBuilt(
              fromGeminiCli([{ value, line }], opts.file, opts.namespace, limits, now, streamProblems, unread),
              path,
              'gemini',
            );
          else if (isGeminiContents(value))
            pushBuilt(
              fromGeminiContents(value, opts.namespace, limits, now, line, path, streamProblems),
              path,
              'gemini',
            );
          else
            throw new InputError(
              'expected a Gemini CLI session ({sessionId, projectHash, messages}) or Gemini API contents ([{role, parts}], bare or under history / contents)',
            );
          return;
        }
        case 'otel':
          if (!isOtlpTraces(value)) throw new InputError('expected OTLP JSON traces ({"resourceSpans": [...]})');
          otel.add(value, line, path);
          return;
        case 'tau':
          return addTau(value, line, path);
        case 'openai': {
          if (!isOpenAiConversation(value))
            throw new InputError('expected an OpenAI conversation ({"messages": [...]} or a message array)');
          const messages = Array.isArray(value) ? value : value.messages;
          if (hasAnthropicMarkers(messages) && !hasOpenAiMarkers(messages))
            throw new InputError(
              'this is an Anthropic conversation (tool_use / tool_result blocks): use --format anthropic or auto',
            );
          const at = { namespace: opts.namespace, limits, now, line, path, reports: streamProblems };
          pushBuilt(openAiSessions(value, at), path, 'openai');
          return;
        }
        case 'anthropic': {
          if (!isOpenAiConversation(value))
            throw new InputError('expected an Anthropic conversation ({"messages": [...]} or a message array)');
          const messages = Array.isArray(value) ? value : value.messages;
          if (hasOpenAiMarkers(messages))
            throw new InputError(
              'this is an OpenAI conversation (tool_calls / tool messages): use --format openai or auto',
            );
          const at = { namespace: opts.namespace, limits, now, line, path, reports: streamProblems };
          pushBuilt(anthropicSessions(value, at), path, 'anthropic');
          return;
        }
        default: {
          const parsed = normalizedSessionSchema.safeParse(value);
          if (!parsed.success) {
            const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'record'}: ${i.message}`).join('; ');
            if (kind === null && isObject(value))
              throw new InputError(
                `no known format matches this record (keys: ${Object.keys(value).slice(0, 10).join(', ')}); as a jsonl session: ${issues}`,
              );
            throw new InputError(kind === null && !isObject(value) ? `not a session record (${issues})` : issues);
          }
          push(
            {
              session: fromNormalized(parsed.data, opts.namespace, limits, now),
              finalAnswer: parsed.data.final_answer ?? null,
            },
            line,
            path,
            'jsonl',
          );
        }
      }
    } catch (e) {
      problem(line, path, (e as Error).message);
    } finally {
      // A record that held tool traffic but gave no call (no session, or sessions without one), with nothing else
      // said about it, was misread: say so.
      const added = out.slice(sessionsBefore);
      const said = problems.length > problemsBefore || streamProblems.some((p, i) => i >= reportsBefore && !p.note);
      // Spans and runs are gathered and read once the whole file is in: their sessions come later.
      const gathered = kind === 'otel' || kind === 'langchain';
      if (!said && !gathered && added.every((p) => p.session.calls.length === 0)) {
        const marker = toolMarker(value);
        if (marker)
          problem(
            line,
            path,
            `read as ${kind ?? 'jsonl'} but no tool call came out, though the record holds ${marker}${opts.format === 'auto' ? '' : ': try --format auto'}`,
          );
      }
    }
  }

  function addTau(value: unknown, line: number, path: string) {
    const pre = path ? `${path}.` : '';
    if (isTauBenchResult(value)) return push(fromTauBench(value, opts.namespace, limits, now), line, path, 'tau');
    if (isTau2Simulation(value))
      return push(fromTau2Simulation(value, {}, opts.namespace, limits, now), line, path, 'tau');
    if (isTau2Results(value)) {
      const tasks = tau2TaskIndex(value);
      const info = isObject(value.info) ? value.info : {};
      (value.simulations as unknown[]).forEach((sim, i) => {
        const where = `${pre}simulations[${i}]`;
        try {
          if (!isObject(sim) || !Array.isArray(sim.messages))
            throw new InputError('not a simulation run (no messages)');
          push(fromTau2Simulation(sim, { info, tasks }, opts.namespace, limits, now), line, where, 'tau');
        } catch (e) {
          problem(line, where, (e as Error).message);
        }
      });
      return;
    }
    throw new InputError(
      'expected a tau-bench result ({task_id, reward, info, traj}) or a tau2-bench results file ({tasks, simulations})',
    );
  }
}

/**
 * For a log read line by line: once its lines are known to be a Claude Code transcript, a Codex CLI rollout or a
 * Gemini CLI session log (the format given, or the first lines detection judges say so), each line is cut to what the
 * reader reads (slimClaudeCodeLine, slimCodexLine, slimGeminiLine: a tool's output to its first characters, what the
 * whole one said of the call kept) as it is parsed. Detection judges a Claude Code transcript on the first
 * DETECT_SAMPLE objects whatever follows them, a rollout that opens with its `session_meta` line on that line once
 * those are no Claude Code transcript, and a Gemini CLI log on those objects once they are neither (a rollout after
 * them, the file read as one, reads the log's lines as stray: by their line, whatever they hold): the lines before
 * the decision are cut then.
 */
class Slimmer {
  private slim: ((v: unknown) => unknown) | null = null;
  private decided: boolean;
  private objects = 0;
  private readonly claudeCode: (v: unknown) => unknown;
  private readonly codex: (v: unknown) => unknown;
  private readonly gemini: (v: unknown) => unknown;

  constructor(opts: ParseOptions) {
    // Characters of a tool result kept: more than protectResult reads (4 x resultChars + 4,096) and capping keeps.
    const keep = 4 * opts.resultChars + 4096 + 1;
    this.claudeCode = (v: unknown) => slimClaudeCodeLine(v, keep);
    this.codex = (v: unknown) => slimCodexLine(v, keep);
    this.gemini = (v: unknown) => slimGeminiLine(v, keep);
    this.decided = opts.format !== 'auto';
    if (opts.format === 'claude-code') this.slim = this.claudeCode;
    if (opts.format === 'codex') this.slim = this.codex;
    if (opts.format === 'gemini') this.slim = this.gemini;
  }

  add(read: StreamLine, lines: StreamLine[]): void {
    if (this.slim) {
      read.value = this.slim(read.value);
      return;
    }
    if (this.decided) return;
    if (isObject(read.value)) this.objects++;
    if (this.objects < DETECT_SAMPLE) return;
    this.decided = true;
    const shape = claudeCodeShape(lines);
    const first = lines.find((l) => isObject(l.value))?.value as JsonObject | undefined;
    if (shape === 'transcript') this.slim = this.claudeCode;
    else if (shape === null && first?.type === 'session_meta' && isObject(first.payload)) this.slim = this.codex;
    else if (shape === null && isGeminiCliLog(lines)) this.slim = this.gemini;
    else return;
    for (const l of lines) l.value = this.slim(l.value);
  }
}

const STREAM_FORMATS = new Set<IngestFormat>([
  'claude-code',
  'codex',
  'gemini',
  'ai-sdk',
  'pydantic-ai',
  'autogen',
  'langchain-messages',
]);

/**
 * Formats whose conversation is a list of messages (whole, under `messages`, or one message per JSONL line): what
 * they are called, how to find the list, read it, say what it did not record, and what was expected when it is
 * not one.
 */
const MESSAGE_LISTS = {
  'ai-sdk': {
    name: 'a Vercel AI SDK conversation',
    messagesOf: aiSdkMessagesOf,
    read: fromAiSdk,
    notes: aiSdkNotes,
    expected:
      'expected a Vercel AI SDK conversation (UI messages with tool parts, or model messages with tool-call / tool-result parts; a JSON array or {messages})',
  },
  'pydantic-ai': {
    name: 'a Pydantic AI message history',
    messagesOf: pydanticMessagesOf,
    read: fromPydanticAi,
    notes: (_: unknown): string[] => [],
    expected:
      'expected a Pydantic AI message history (ModelRequest / ModelResponse messages whose parts have a part_kind, with a tool call; a JSON array or {messages})',
  },
  autogen: {
    name: 'an AutoGen run',
    messagesOf: autogenMessagesOf,
    read: fromAutogen,
    notes: (_: unknown): string[] => [],
    expected:
      'expected AutoGen AgentChat messages (TextMessage / ToolCallRequestEvent / ToolCallExecutionEvent ..., with a tool call; a list, {messages} or {llm_context: {messages}})',
  },
  'langchain-messages': {
    name: 'a LangChain / LangGraph conversation',
    messagesOf: langchainMessagesOf,
    read: fromLangChainMessages,
    notes: (_: unknown): string[] => [],
    expected:
      'expected LangChain messages (human / ai / tool, with a tool call: a list, {messages}, a LangGraph state or thread {values: {messages}}, messages_to_dict [{type, data}] or LangChain.js constructors {lc, id, kwargs})',
  },
} as const;

type MessageListFormat = keyof typeof MESSAGE_LISTS;

/** What a format reads, in words, for "this is X, not Y". */
function formatName(f: DetectedFormat): string {
  if (isMessageListFormat(f)) return MESSAGE_LISTS[f].name;
  if (f === 'openai') return 'OpenAI chat messages';
  if (f === 'anthropic') return 'an Anthropic conversation';
  if (f === 'langchain') return 'LangChain / LangSmith runs';
  return `what --format ${f} reads`;
}

function isMessageListFormat(f: IngestFormat): f is MessageListFormat {
  return f in MESSAGE_LISTS;
}

/** The message-list format a value (a list, or its container) is in, or null. */
function messageListFormat(v: unknown): MessageListFormat | null {
  for (const f of Object.keys(MESSAGE_LISTS) as MessageListFormat[]) if (MESSAGE_LISTS[f].messagesOf(v)) return f;
  return null;
}

/** A logged model call as the conversation it holds; any other record as it is. */
function asConversation(v: unknown): unknown {
  return exchangeConversation(v) ?? v;
}

/** The message list of a record that holds one conversation (a message-list format, OpenAI or Anthropic), or null. */
function conversationOf(v: unknown): unknown[] | null {
  const format = detect(v);
  if (format !== null && isMessageListFormat(format)) return MESSAGE_LISTS[format].messagesOf(v);
  // A session record (`steps`), a trace or a benchmark result is never a snapshot, whatever fields it carries.
  if ((format === 'openai' || format === 'anthropic') && isOpenAiConversation(v))
    return Array.isArray(v) ? v : v.messages;
  return null;
}

/** The transcript format of a whole JSONL file (one event per line), or null for one record per line. */
export function detectStream(lines: StreamLine[]): DetectedFormat | null {
  if (lines.length === 0) return null;
  if (claudeCodeShape(lines)) return 'claude-code';
  if (isCodexRollout(lines)) return 'codex';
  if (isGeminiCliLog(lines)) return 'gemini';
  const values = lines.map((l) => l.value);
  // One message per line (a chat's messages as rows): AI SDK, Pydantic AI, AutoGen, LangChain.
  const list = lines.length > 1 ? messageListFormat(values) : null;
  if (list) return list;
  // One Responses item per line (an Agents SDK history written line by line).
  if (lines.length > 1 && isItemList(values) && isAgentsHistory(values)) return 'openai-agents';
  // One raw Responses API object per line (a model turn each): one history.
  if (lines.length > 1 && isResponseObjectList(values) && isAgentsHistory(values)) return 'openai-agents';
  return null;
}

/** The transcript (one event per line) a single line is a line of, or null. */
function transcriptLineFormat(v: unknown): 'claude-code' | 'codex' | 'gemini' | null {
  if (isClaudeCodeLine(v)) return 'claude-code';
  if (isCodexRolloutLine(v)) return 'codex';
  if (isGeminiCliLine(v)) return 'gemini';
  return null;
}

/** Whether a line can be part of a transcript of `format` (its own lines, and those its reader reads past). */
const BELONGS_TO: Partial<Record<DetectedFormat, (v: unknown) => boolean>> = {
  'claude-code': isClaudeCodeLine,
  codex: belongsToCodexRollout,
  gemini: isGeminiCliLine,
};

/** A stretch of consecutive lines of another log than the one the file is read as. */
interface StrayRun {
  format: DetectedFormat;
  from: number;
  to: number;
  count: number;
}

/**
 * The lines of a JSONL file split into those read as the file's log and stretches of another one. In a transcript
 * (`stream`), a line that is not one of its own but is recognisably another format's (another transcript's line, a
 * record such as an OpenAI conversation) is stray. In a file of one record per line, a transcript's line is (a
 * transcript is a file of its own, never a record). Without a single line of its own, nothing is stray.
 */
function strayLines(lines: StreamLine[], stream: DetectedFormat | null): { own: StreamLine[]; strays: StrayRun[] } {
  const belongs = stream ? BELONGS_TO[stream] : undefined;
  if (stream && !belongs) return { own: lines, strays: [] };
  // A file with no line of the log it is read as is a misfit as a whole (a format given that it is not): its reader
  // says so, as before.
  const isMine = belongs ?? ((v: unknown) => detect(v) !== null);
  if (!lines.some((l) => isMine(l.value))) return { own: lines, strays: [] };
  const own: StreamLine[] = [];
  const strays: StrayRun[] = [];
  let run: StrayRun | null = null;
  // Lines neither of the file's log nor recognisably another's, met inside a stray stretch: part of the stretch
  // when it goes on after them (another log's lines its reader would read past), else the file's.
  let held: StreamLine[] = [];
  for (const l of lines) {
    let other: DetectedFormat | null = null;
    let mine = true;
    if (belongs) {
      mine = belongs(l.value);
      if (!mine) other = transcriptLineFormat(l.value) ?? detect(l.value);
      if (other === stream) other = null;
    } else {
      // The cheap test first: a transcript's line, and then no record of a known format.
      const line = transcriptLineFormat(l.value);
      if (line !== null && detect(l.value) === null) other = line;
    }
    if (other === null) {
      if (run && !mine) held.push(l);
      else {
        own.push(...held, l);
        held = [];
        run = null;
      }
    } else if (run && run.format === other) {
      run.to = l.line;
      run.count += held.length + 1;
      held = [];
    } else {
      own.push(...held);
      held = [];
      run = { format: other, from: l.line, to: l.line, count: 1 };
      strays.push(run);
    }
  }
  own.push(...held);
  own.sort((a, b) => a.line - b.line);
  return { own, strays };
}

/** What a stray stretch holds, in words. */
function logName(f: DetectedFormat): string {
  switch (f) {
    case 'claude-code':
      return 'a Claude Code transcript';
    case 'codex':
      return 'a Codex CLI rollout';
    case 'gemini':
      return 'a Gemini CLI session';
    case 'jsonl':
      return 'Skillsmith JSONL sessions';
    case 'openai':
      return 'OpenAI chat messages';
    case 'anthropic':
      return 'Anthropic messages';
    case 'tau':
      return 'tau-bench results';
    case 'otel':
      return 'OTLP traces';
    case 'langchain':
      return 'LangChain / LangSmith runs';
    case 'openai-agents':
      return 'OpenAI Agents / Responses items';
    default:
      return MESSAGE_LISTS[f].name;
  }
}

/** The problem a stray stretch is: where it starts, what it is, that it was not read, and what to do. */
function strayReason(run: StrayRun, stream: DetectedFormat | null): string {
  const lines = run.count === 1 ? `line ${run.from}` : `lines ${run.from}-${run.to}`;
  const host = stream ? `a file read as ${logName(stream)}` : 'a file of one record per line';
  return (
    `${lines}${run.count === 1 ? ' holds' : ` (${run.count} records) hold`} ${logName(run.format)}, inside ${host}: ` +
    `${run.count === 1 ? 'it was' : 'they were'} not read. A file holds one log: move ${lines} to a file of ${run.count === 1 ? 'its' : 'their'} own ` +
    `and ingest it (auto-detected, or with --format ${run.format})`
  );
}

const TOOL_MARKERS: [RegExp, string][] = [
  [/"tool_calls"\s*:\s*\[\s*\{/, 'tool_calls'],
  [/"type"\s*:\s*"(?:tool_use|function_call|custom_tool_call|tool_call|mcp_call)"/, 'tool-call items'],
  [/"role"\s*:\s*"tool"/, 'tool messages'],
  [/"run_type"\s*:\s*"tool"/, 'tool runs'],
  [/gen_ai\.(?:completion|prompt)\.\d+\.tool_calls\.\d+\.name/, 'gen_ai.*.tool_calls attributes'],
  [/"execute_tool/, 'execute_tool spans'],
  [/"functionCall"\s*:\s*\{/, 'functionCall parts'],
  [/"toolCalls"\s*:\s*\[\s*\{/, 'toolCalls'],
  [/"type"\s*:\s*"(?:tool-call|tool-invocation|dynamic-tool)"/, 'AI SDK tool parts'],
  [/"toolInvocations"\s*:\s*\[\s*\{/, 'toolInvocations'],
  [/"part_kind"\s*:\s*"tool-call"/, 'Pydantic AI tool-call parts'],
  [/"type"\s*:\s*"ToolCallRequestEvent"/, 'AutoGen tool call events'],
];

/** What in a record says it holds tool calls, or null. */
export function toolMarker(value: unknown): string | null {
  let text: string;
  try {
    text = JSON.stringify(value) ?? '';
  } catch {
    return null;
  }
  for (const [re, name] of TOOL_MARKERS) {
    const m = re.exec(text);
    if (m) return `${name} (${m[0].slice(0, 40)})`;
  }
  return null;
}

/**
 * A file that gave no session at all, or sessions without a call although it holds tool traffic, is an error
 * naming what was seen (so `ingest` never exits 0 on a file it could not read).
 */
const EMPTY_FILE = 'the file is empty: no session';
const NO_MESSAGES = 'a Claude Code transcript without a single user or assistant message';
const NO_REQUEST = 'a Claude Code transcript without a request yet (only context: caveats, commands, summaries)';

/**
 * Whether a log can be read line by line (parseCaptureText with its LogLines): it is text, and not one JSON document
 * (an array, or an object spread over several lines), which is read whole. Decided as parseCaptureText decides it
 * from the text: on its start and its first line that holds anything.
 */
export function readsLineByLine(source: LogHead): boolean {
  if (binaryContent(source.head(BINARY_PROBE))) return false;
  for (const row of source.rows()) {
    // A first line longer than a string: read line by line, it is one problem (a whole read refuses the file).
    if (row.text === null) return true;
    const line = row.text.trim();
    if (!line) continue;
    if (line.startsWith('[')) return false;
    if (!line.startsWith('{') || row.last) return true;
    try {
      JSON.parse(line);
      return true;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * Why a file's text is no log, when it is binary: a NUL character (JSON text never holds one unescaped), or
 * many characters that were not UTF-8 (decoded as U+FFFD) near its start. Null for text.
 */
function binaryContent(text: string): string | null {
  const head = text.slice(0, BINARY_PROBE);
  const nul = head.indexOf('\u0000');
  if (nul >= 0)
    return `this is a binary file, not a log (a NUL byte at character ${nul + 1}): nothing was read; a log is JSON or JSONL text`;
  let replaced = 0;
  for (const ch of head) if (ch === '\uFFFD') replaced++;
  if (head.length >= 64 && replaced / head.length > 0.05)
    return `this is not UTF-8 text (${replaced} of the first ${head.length} characters are not): nothing was read; a log is JSON or JSONL text in UTF-8`;
  return null;
}

/** How much of a file's start the binary check reads. */
const BINARY_PROBE = 8192;

const UNFINISHED_LINE =
  'the last line is not complete JSON and has no newline after it: is the file still being written? The lines before it were read';

/**
 * Whether a problem only says that a file holds nothing to store yet: it is empty, a transcript before its first
 * message (what a hook may find at the start of a session), or a last line its writer has not finished.
 */
export function holdsNothingYet(p: { reason: string }): boolean {
  return (
    p.reason === EMPTY_FILE ||
    p.reason === UNFINISHED_LINE ||
    [NO_MESSAGES, NO_REQUEST].some((start) => p.reason.startsWith(`${start}:`))
  );
}

/** What the checks of a file that gave nothing read of its body (its text without a byte order mark, trimmed). */
interface Body {
  empty: boolean;
  /** The body's first `chars` characters. */
  start(chars: number): string;
  /** describeContent of the body. */
  describe(): string;
}

function wholeBody(text: string): Body {
  const body = text.replace(/^\uFEFF/, '').trim();
  return {
    empty: !body,
    start: (chars) => (body.length > chars ? body.slice(0, chars) : body),
    describe: () => describeContent(body),
  };
}

/** How much of a body the check for tool traffic in a file that gave no call reads (emptiness). */
const BODY_PROBE = 2_000_000;

/**
 * The body of a text read line by line: how many lines hold anything is counted as they are read; the rest (its start,
 * its first lines) is read again from the file only when a check needs it (a file that gave no session, or none with
 * a call). A stream cannot be read again (`again` null): what those checks read of its start is kept as it passes, its
 * first BODY_PROBE characters from its first line that holds anything and its first 5 such lines, and the rows up to
 * the next one that holds anything (which says whether the body goes on past them).
 */
class BodyHead {
  /** Null until the rows are read (a binary file's are not: they are counted when asked). */
  private nonBlank: number | null = null;
  private readonly kept: LogRow[] | null;
  /** Characters of the body kept (as bodyStart counts them), and whether the keeping is done. */
  private chars = 0;
  private full = false;

  constructor(private readonly again: (() => Iterable<LogRow>) | null) {
    this.kept = again ? null : [];
  }

  add(row: LogRow): void {
    const filled = row.text === null || !!row.text.trim();
    this.nonBlank = (this.nonBlank ?? 0) + (filled ? 1 : 0);
    if (this.kept === null || this.full) return;
    // Past the probe with 5 lines that hold something: kept up to and with the next line that does.
    if (this.chars > BODY_PROBE && this.nonBlank > 5 && filled) this.full = true;
    this.kept.push(row);
    const text = row.text ?? '';
    if (this.nonBlank === 1 && filled) this.chars = text.trimStart().length;
    else if (this.nonBlank > 0) this.chars += 1 + text.length;
  }

  body(): Body {
    const rows = this.kept ? () => this.kept! : this.again!;
    if (this.nonBlank === null) for (const row of rows()) this.add(row);
    const count = this.nonBlank ?? 0;
    return {
      empty: count === 0,
      start: (chars) => bodyStart(rows(), chars),
      describe: () => {
        const first: string[] = [];
        for (const row of rows()) {
          if (row.text !== null && !row.text.trim()) continue;
          first.push(row.text ?? '');
          if (first.length === 5) break;
        }
        if (count === 1) return describeContent(first[0]?.trim() ?? '');
        // The body is trimmed: its first line starts, and its last ends, where the text does.
        if (first.length) first[0] = first[0].trimStart();
        if (count <= 5 && first.length) first[first.length - 1] = first[first.length - 1].trimEnd();
        return describeContent(null, { count, first });
      },
    };
  }
}

/** The first `chars` characters of the body of a text read line by line (from its first line that holds anything). */
function bodyStart(rows: Iterable<LogRow>, chars: number): string {
  let start: string | null = null;
  for (const row of rows) {
    const text = row.text ?? '';
    if (start === null) {
      if (!text.trim() && row.text !== null) continue;
      start = text.trimStart();
    } else if (start.length <= chars) start += `\n${text}`;
    else if (text.trim() || row.text === null) return start.slice(0, chars);
    if (start.length > chars) {
      // Cut past the limit: whether the body goes on there decides whether its end is trimmed.
      const rest = start.slice(chars);
      if (rest.trim()) return start.slice(0, chars);
      start = start.slice(0, chars + 1);
    }
  }
  return (start ?? '').trimEnd().slice(0, chars);
}

function emptiness(
  text: Body,
  out: ParsedSession[],
  records: ParsedRecord[],
  problems: IngestProblem[],
  file: string,
): IngestProblem[] {
  const body = text;
  if (body.empty) return [{ file, line: 1, reason: EMPTY_FILE }];
  if (out.length === 0) {
    // Rejected records were each named already (and make the exit non-zero); a file with nothing to name
    // still must not pass as an empty success.
    if (problems.length) return [];
    return [
      {
        file,
        line: 1,
        reason: `no session in this file: ${body.describe()}${problems.length ? `; ${problems.length} record(s) rejected above` : ''}`,
      },
    ];
  }
  const calls = out.reduce((n, p) => n + p.session.calls.length, 0);
  if (calls === 0) {
    const marker = toolMarker(body.start(BODY_PROBE));
    const already = problems.some((p) => p.reason.includes('no tool call came out'));
    if (marker && !already) {
      const kinds = [...new Set(records.map((r) => r.format))].join(', ');
      return [
        {
          file,
          line: records[0]?.line ?? 1,
          reason: `${out.length} session(s) read as ${kinds}, none with a tool call, though the file holds ${marker}`,
        },
      ];
    }
  }
  return [];
}

/** A short account of what a file holds: its shape and the keys / types of its first records. */
function describeContent(body: string | null, rows?: { count: number; first: string[] }): string {
  const sample: unknown[] = [];
  let shape = 'JSONL';
  try {
    // A text read line by line holds more than one line: no one document.
    if (body === null) throw new SyntaxError('lines');
    const doc = JSON.parse(body) as unknown;
    if (Array.isArray(doc)) {
      shape = `a JSON array of ${doc.length}`;
      sample.push(...doc.slice(0, 3));
    } else {
      shape = 'one JSON document';
      sample.push(doc);
    }
  } catch {
    const lines = rows?.first ?? (body ?? '').split('\n').filter((l) => l.trim());
    shape = `${rows?.count ?? lines.length} line(s)`;
    for (const l of lines.slice(0, 5)) {
      try {
        sample.push(JSON.parse(l));
      } catch {
        /* counted as a bad line already */
      }
    }
  }
  const keys = new Set<string>();
  const types = new Set<string>();
  for (const v of sample) {
    if (!isObject(v)) continue;
    Object.keys(v)
      .slice(0, 8)
      .forEach((k) => {
        keys.add(k);
      });
    if (typeof v.type === 'string') types.add(v.type);
  }
  const what = sample.length
    ? `keys ${[...keys].slice(0, 12).join(', ') || '(none)'}${types.size ? `; type ${[...types].join(', ')}` : ''}`
    : 'no JSON object';
  return `${shape}, ${what}; not a known format (${DETECTED_KINDS})`;
}

const DETECTED_KINDS =
  'jsonl sessions, OpenAI / Anthropic messages, Vercel AI SDK messages, Pydantic AI messages, AutoGen messages, OpenAI Agents / Responses items, Claude Code, Codex CLI, Gemini CLI / Gemini API contents, LangChain runs, OTLP GenAI spans, tau-bench';

/** The format of one record, or null when it looks like none of them. */
export function detect(value: unknown): DetectedFormat | null {
  if (isOtlpTraces(value)) return 'otel';
  if (isTauRecord(value)) return 'tau';
  if (isLangChainRun(value) || isLangChainRunList(value)) return 'langchain';
  // Before the chat shapes: a Gemini session has `messages`, and contents are a list of turns with a role.
  if (isGeminiSession(value) || isGeminiContents(value) || isGeminiPromptLog(value)) return 'gemini';
  if (isAgentsHistory(value)) return 'openai-agents';
  // Before the chat shapes: the message lists of AI SDK (whose model messages have `tool` messages too), Pydantic
  // AI, AutoGen and LangChain.
  const list = messageListFormat(value);
  if (list) return list;
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && 'steps' in value) return 'jsonl';
  if (isOpenAiConversation(value)) {
    const messages = Array.isArray(value) ? value : value.messages;
    if (hasOpenAiMarkers(messages)) return 'openai';
    if (hasAnthropicMarkers(messages)) return 'anthropic';
    // No tool traffic either way: an Anthropic request keeps its system prompt outside the messages.
    const system = !Array.isArray(value) && (value as { system?: unknown }).system;
    if (system && !messages.some((m) => isObject(m) && m.role === 'system')) return 'anthropic';
    return 'openai';
  }
  return null;
}

/** What a format counts when it reads past a kind it does not know: transcripts count lines. */
const UNREAD_UNIT: Partial<Record<string, string>> = {
  'openai-agents': 'item',
  'ai-sdk': 'part',
  'pydantic-ai': 'part',
  autogen: 'message',
  'langchain-messages': 'message',
};

/** "skipped 1,367 line(s) of 4 kind(s) this version of Skillsmith does not read (progress 1,333, ...)". */
/** The note on commands stored as succeeded although their log called them failed (answeredByExit). */
function answeredNote(answered: Map<string, number>): string {
  const total = [...answered.values()].reduce((a, n) => a + n, 0);
  const heads = [...answered]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([head, n]) => `${head} ${n.toLocaleString('en-US')}`)
    .join(', ');
  return `${total.toLocaleString('en-US')} command(s) the log marks failed are stored as succeeded: exit status 1 is their answer, not a failure (${heads})`;
}

function unreadNote(unread: Unread, unit: string): string {
  const total = [...unread.values()].reduce((a, b) => a + b, 0);
  const kinds = [...unread].sort((a, b) => b[1] - a[1]);
  const list = kinds
    .slice(0, 8)
    .map(([k, n]) => `${k} ${n.toLocaleString('en-US')}`)
    .join(', ');
  return `skipped ${total.toLocaleString('en-US')} ${unit}(s) of ${kinds.length} kind(s) this version of Skillsmith does not read (${list}${kinds.length > 8 ? ', ...' : ''})`;
}
