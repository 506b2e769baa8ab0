import { hasAnthropicMarkers, fromAnthropic } from './anthropic-messages.js';
import { depthReason, exceedsDepth } from '../domain/json-limits.js';
import { isObject } from './common.js';
import { type CaptureLimits, fromNormalized, normalizedSessionSchema } from './normalized-jsonl.js';
import { fromOpenAi, hasOpenAiMarkers, isOpenAiConversation } from './openai-messages.js';
import { isOtlpTraces, OtelCollector } from './otel-genai.js';
import { type PrivacyPolicy, protectSession } from './privacy.js';
import { fromTau2Simulation, fromTauBench, isTau2Results, isTau2Simulation, isTauBenchResult, isTauRecord, tau2TaskIndex } from './tau-raw.js';
import type { CapturedSession, DetectedFormat, IngestFormat, ParsedSession, RecordInfo } from './types.js';

export type { DetectedFormat, IngestFormat } from './types.js';
export { INGEST_FORMATS, isIngestFormat } from './types.js';

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
}

export interface ParsedFile {
  /** The format of the file's records, or `mixed` when auto-detection found several. */
  format: DetectedFormat | 'mixed';
  /** Whether the format was detected (`--format auto`) or given. */
  detected: boolean;
  /** Sessions per detected format. */
  formats: Partial<Record<DetectedFormat, number>>;
  sessions: CapturedSession[];
  /** One per session, in the same order: where it was read and as what. */
  records: ParsedRecord[];
  problems: IngestProblem[];
}

export interface ParseOptions extends CaptureLimits {
  file: string;
  namespace: string;
  format: IngestFormat;
  maxRecordBytes: number;
  now?: string;
  /** Capture-time privacy; when set, every session goes through it (results are capped after redaction). */
  privacy?: PrivacyPolicy;
}

/**
 * Parses a capture file: JSONL (one record per line) or one JSON document (an array of records or messages,
 * or one pretty-printed record). A record is a normalized session (`steps`), an OpenAI or Anthropic
 * conversation (`messages`), a raw tau-bench / tau2-bench result, or an OTLP JSON trace export. With
 * `format: 'auto'` every record is detected on its own, so a file may mix shapes; `records` says what each one
 * was read as. Every bad record is reported with its line, JSON path and reason; the valid ones are kept.
 */
export function parseCaptureText(text: string, opts: ParseOptions): ParsedFile {
  const now = opts.now ?? new Date().toISOString();
  const problems: IngestProblem[] = [];
  const out: ParsedSession[] = [];
  const records: ParsedRecord[] = [];
  const otel = new OtelCollector();
  // With a privacy policy, parsers keep whole results: they are redacted first and capped after.
  const limits: CaptureLimits = { resultChars: opts.privacy ? Number.MAX_SAFE_INTEGER : opts.resultChars, maxCallsPerSession: opts.maxCallsPerSession };
  let sawDocumentArray = false;

  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  let handled = false;
  // A whole-file JSON document (array of messages, or array of records) rather than JSONL.
  if (trimmed.startsWith('[')) {
    try {
      const doc = JSON.parse(trimmed) as unknown;
      handled = true;
      sawDocumentArray = true;
      if (isOpenAiConversation(doc) || !Array.isArray(doc)) addRecord(doc, 1, '');
      else doc.forEach((item, i) => addRecord(item, 1, `[${i}]`));
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
      // Not one document: fall through to line-by-line parsing, which reports the broken lines.
    }
  }

  // One pretty-printed JSON object (a session, a conversation, a results file, an OTLP export) rather than JSONL.
  if (!handled && trimmed.startsWith('{') && trimmed.includes('\n')) {
    const firstLine = trimmed.slice(0, trimmed.indexOf('\n')).trim();
    let firstLineParses = true;
    try {
      JSON.parse(firstLine);
    } catch {
      firstLineParses = false;
    }
    if (!firstLineParses) {
      try {
        const doc = JSON.parse(trimmed) as unknown;
        handled = true;
        addRecord(doc, 1, '');
      } catch (e) {
        if (!(e instanceof SyntaxError)) throw e;
      }
    }
  }

  if (!handled) {
    text.split('\n').forEach((raw, i) => {
      const line = raw.trim();
      if (!line) return;
      const lineNo = i + 1;
      if (Buffer.byteLength(line) > opts.maxRecordBytes) {
        problems.push({ file: opts.file, line: lineNo, reason: `record is ${Buffer.byteLength(line)} bytes, over the ${opts.maxRecordBytes}-byte limit` });
        return;
      }
      let value: unknown;
      try {
        value = JSON.parse(line.replace(/^\uFEFF/, ''));
      } catch (e) {
        problems.push({ file: opts.file, line: lineNo, reason: `not valid JSON (${(e as Error).message})` });
        return;
      }
      addRecord(value, lineNo, '');
    });
  }

  if (otel.spans.length || otel.problems.length) {
    const built = otel.build(opts.namespace, limits, now);
    for (const p of built.problems) problems.push({ file: opts.file, line: p.line, path: p.path, reason: p.reason });
    for (const s of built.sessions) push(s, s.line, s.path, 'otel');
  }

  const formats: Partial<Record<DetectedFormat, number>> = {};
  for (const r of records) formats[r.format] = (formats[r.format] ?? 0) + 1;
  const kinds = Object.keys(formats) as DetectedFormat[];
  const fallback: DetectedFormat = opts.format !== 'auto' ? opts.format : sawDocumentArray ? 'openai' : 'jsonl';
  const format = kinds.length > 1 ? 'mixed' : (kinds[0] ?? fallback);
  const sessions = out.map((p) => (opts.privacy ? protectSession(p.session, opts.privacy, opts.resultChars) : p.session));
  return { format, detected: opts.format === 'auto', formats, sessions, records, problems };

  function push(p: ParsedSession, line: number, path: string, format: DetectedFormat) {
    out.push(p);
    records.push({ line, path, format, sessionId: p.session.id, finalAnswer: p.finalAnswer });
  }

  function problem(line: number, path: string, reason: string) {
    problems.push({ file: opts.file, line, ...(path ? { path } : {}), reason: path && !reason.startsWith(path) ? `${path}: ${reason}` : reason });
  }

  function addRecord(value: unknown, line: number, path: string) {
    // Untrusted depth and size are refused before any recursive code (redaction, zod, JSON.stringify) runs:
    // the record costs only itself.
    if (exceedsDepth(value)) return problem(line, path, depthReason('record'));
    if (path) {
      const bytes = Buffer.byteLength(JSON.stringify(value) ?? '');
      if (bytes > opts.maxRecordBytes) return problem(line, path, `record is ${bytes} bytes, over the ${opts.maxRecordBytes}-byte limit`);
    }
    const kind = opts.format === 'auto' ? detect(value) : opts.format;
    try {
      switch (kind) {
        case 'otel':
          if (!isOtlpTraces(value)) throw new Error('expected OTLP JSON traces ({"resourceSpans": [...]})');
          otel.add(value, line, path);
          return;
        case 'tau':
          return addTau(value, line, path);
        case 'openai': {
          if (!isOpenAiConversation(value)) throw new Error('expected an OpenAI conversation ({"messages": [...]} or a message array)');
          const messages = Array.isArray(value) ? value : value.messages;
          if (hasAnthropicMarkers(messages) && !hasOpenAiMarkers(messages)) throw new Error('this is an Anthropic conversation (tool_use / tool_result blocks): use --format anthropic or auto');
          push(fromOpenAi(value, opts.namespace, limits, now), line, path, 'openai');
          return;
        }
        case 'anthropic': {
          if (!isOpenAiConversation(value)) throw new Error('expected an Anthropic conversation ({"messages": [...]} or a message array)');
          const messages = Array.isArray(value) ? value : value.messages;
          if (hasOpenAiMarkers(messages)) throw new Error('this is an OpenAI conversation (tool_calls / tool messages): use --format openai or auto');
          push(fromAnthropic(value, opts.namespace, limits, now), line, path, 'anthropic');
          return;
        }
        default: {
          const parsed = normalizedSessionSchema.safeParse(value);
          if (!parsed.success) {
            const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'record'}: ${i.message}`).join('; ');
            throw new Error(kind === null && !isObject(value) ? `not a session record (${issues})` : issues);
          }
          push({ session: fromNormalized(parsed.data, opts.namespace, limits, now), finalAnswer: parsed.data.final_answer ?? null }, line, path, 'jsonl');
        }
      }
    } catch (e) {
      problem(line, path, (e as Error).message);
    }
  }

  function addTau(value: unknown, line: number, path: string) {
    const pre = path ? `${path}.` : '';
    if (isTauBenchResult(value)) return push(fromTauBench(value, opts.namespace, limits, now), line, path, 'tau');
    if (isTau2Simulation(value)) return push(fromTau2Simulation(value, {}, opts.namespace, limits, now), line, path, 'tau');
    if (isTau2Results(value)) {
      const tasks = tau2TaskIndex(value);
      const info = isObject(value.info) ? value.info : {};
      (value.simulations as unknown[]).forEach((sim, i) => {
        const where = `${pre}simulations[${i}]`;
        try {
          if (!isObject(sim) || !Array.isArray(sim.messages)) throw new Error('not a simulation run (no messages)');
          push(fromTau2Simulation(sim, { info, tasks }, opts.namespace, limits, now), line, where, 'tau');
        } catch (e) {
          problem(line, where, (e as Error).message);
        }
      });
      return;
    }
    throw new Error('expected a tau-bench result ({task_id, reward, info, traj}) or a tau2-bench results file ({tasks, simulations})');
  }
}

/** The format of one record, or null when it looks like none of them. */
export function detect(value: unknown): DetectedFormat | null {
  if (isOtlpTraces(value)) return 'otel';
  if (isTauRecord(value)) return 'tau';
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
