import type { Session } from '../domain/types.js';
import { type CaptureLimits, fromNormalized, normalizedSessionSchema } from './normalized-jsonl.js';
import { fromOpenAi, isOpenAiConversation } from './openai-messages.js';

export type IngestFormat = 'auto' | 'jsonl' | 'openai';

export interface IngestProblem {
  file: string;
  /** 1-based line number (for a whole-file JSON document: 1). */
  line: number;
  reason: string;
}

export interface ParsedFile {
  format: Exclude<IngestFormat, 'auto'>;
  sessions: Session[];
  problems: IngestProblem[];
}

export interface ParseOptions extends CaptureLimits {
  file: string;
  namespace: string;
  format: IngestFormat;
  maxRecordBytes: number;
  now?: string;
}

/**
 * Parses a capture file: JSONL (one record per line, either our normalized session or an OpenAI
 * conversation `{"messages": [...]}`), or one JSON document holding a message array or a list of conversations.
 * Every bad record is reported with its line and reason; the valid ones are kept.
 */
export function parseCaptureText(text: string, opts: ParseOptions): ParsedFile {
  const now = opts.now ?? new Date().toISOString();
  const problems: IngestProblem[] = [];
  const sessions: Session[] = [];
  let format: ParsedFile['format'] | null = opts.format === 'auto' ? null : opts.format;

  const trimmed = text.trimStart();
  // A whole-file JSON document (array of messages, or array of conversations) rather than JSONL.
  if (trimmed.startsWith('[')) {
    try {
      const doc = JSON.parse(trimmed) as unknown[];
      const items = isOpenAiConversation(doc) ? [doc] : doc;
      items.forEach((item, i) => addRecord(item, 1, `[${i}]`));
      return { format: format ?? 'openai', sessions, problems };
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
      // Not one document: fall through to line-by-line parsing, which reports the broken lines.
    }
  }

  // One pretty-printed JSON object (a single session or conversation) rather than JSONL.
  if (trimmed.startsWith('{') && trimmed.includes('\n')) {
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
        addRecord(doc, 1, '');
        return { format: format ?? 'jsonl', sessions, problems };
      } catch (e) {
        if (!(e instanceof SyntaxError)) throw e;
      }
    }
  }

  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    const lineNo = i + 1;
    if (Buffer.byteLength(line) > opts.maxRecordBytes) {
      problems.push({ file: opts.file, line: lineNo, reason: `record is ${Buffer.byteLength(line)} bytes, over the ${opts.maxRecordBytes}-byte limit` });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      problems.push({ file: opts.file, line: lineNo, reason: `not valid JSON (${(e as Error).message})` });
      return;
    }
    addRecord(value, lineNo, '');
  });
  return { format: format ?? 'jsonl', sessions, problems };

  function addRecord(value: unknown, line: number, where: string) {
    const prefix = where ? `${where}: ` : '';
    try {
      // In auto mode every record is detected on its own: a file may mix both shapes.
      const kind = opts.format === 'auto' ? detect(value) : opts.format;
      if (!format && kind) format = kind;
      if (kind === 'openai') {
        if (!isOpenAiConversation(value)) throw new Error('expected an OpenAI conversation ({"messages": [...]} or a message array)');
        sessions.push(fromOpenAi(value, opts.namespace, opts, now));
        return;
      }
      const parsed = normalizedSessionSchema.safeParse(value);
      if (!parsed.success) {
        throw new Error(parsed.error.issues.map((i) => `${i.path.join('.') || 'record'}: ${i.message}`).join('; '));
      }
      sessions.push(fromNormalized(parsed.data, opts.namespace, opts, now));
    } catch (e) {
      problems.push({ file: opts.file, line, reason: prefix + (e as Error).message });
    }
  }
}

function detect(value: unknown): ParsedFile['format'] | null {
  if (isOpenAiConversation(value)) return 'openai';
  if (typeof value === 'object' && value !== null && 'steps' in value) return 'jsonl';
  return null;
}
