import { createHash } from 'node:crypto';
import { fstatSync } from 'node:fs';
import { z } from 'zod';
import type { ClaudeCodeContext } from './claude-code.js';
import type { CodexContext } from './codex-rollout.js';
import type { GeminiContext } from './gemini.js';
import { idFilterSchema } from './id-filter.js';
import { type LogLines, readBytes } from './read-log.js';

/** The transcripts a hook reads on from a mark: Claude Code transcripts, Codex CLI rollouts, Gemini CLI JSONL logs. */
export type MarkedFormat = 'claude-code' | 'codex' | 'gemini';

/** What the reader of the mark's format must know of the lines before its offset. */
export type MarkContext =
  | { format: 'claude-code'; context: ClaudeCodeContext }
  | { format: 'codex'; context: CodexContext }
  | { format: 'gemini'; context: GeminiContext };

/**
 * The ids of the tasks stored from a transcript's lines before a mark, per agent session (`base`), in the file's
 * order, kept short: a task named `base` or `base#n` (n >= 2), as tasks are, is its number (1 for `base`), and a
 * stretch of numbers one after another is one `[first, last]` pair; any other id is kept as it is. A 2,000-task
 * session whose tasks were all stored is `{"codex:<id>": [[1, 2000]]}`.
 */
export type TaskRuns = Record<string, (string | [number, number])[]>;

/**
 * How far a hook has read a transcript its agent appends to (a Claude Code `transcript_path`, a Codex CLI rollout, a
 * Gemini CLI session log), so that the next run reads only the lines from the last task on instead of the whole file:
 * the byte offset and line number of that task's first line, the transcript's format and what its reader must know of
 * the lines before it (claude-code.ts ClaudeCodeContext, codex-rollout.ts CodexContext, gemini.ts GeminiContext), the
 * ids of the tasks stored from them (a recall may belong to one), and what makes the offset mean the same file: its
 * device and inode, the hash of its first bytes and of the bytes before the offset, the size read, and the capture
 * settings it was read with. A file replaced, cut shorter or rewritten, or settings changed, and the file is read
 * whole again; so is a mark that cannot be read.
 */
export type TranscriptMark = MarkPlace & MarkContext & { v: typeof MARK_VERSION; tasks: TaskRuns };

interface MarkPlace {
  dev: number;
  ino: number;
  /** The hash of the file's first `headBytes` bytes. */
  head: string;
  headBytes: number;
  /** How many bytes the read that wrote the mark took: a file shorter than that was rewritten. */
  size: number;
  /** Where the next read starts: the byte offset and line number of the last task's first line. */
  offset: number;
  line: number;
  /** The hash of the bytes just before `offset` (up to PROBE of them). */
  before: string;
  /** The capture settings the file was read with (captureSettings). */
  settings: string;
}

/**
 * The version of the mark and of the reading it describes: raise it when a transcript reader splits or names tasks
 * differently, so that every transcript is read whole once more (and stop reading version 1 marks then). Version 1,
 * Claude Code transcripts only, listed every task id: such a mark is read as the same mark of version 2.
 */
const MARK_VERSION = 2;
/** How many bytes of the file's start, and before the offset, are compared. */
const PROBE = 4096;

const contextSchema = z.object({
  sessionId: z.string().nullable(),
  segment: z.object({ id: z.string().nullable(), from: z.number().int().max(0) }),
  stored: z.record(z.string(), z.number().int().min(0)),
  cwd: z.string().nullable(),
  branch: z.string().nullable(),
  version: z.string().nullable(),
  promptParents: z.array(z.string()),
  promptParentsDropped: z.boolean().optional(),
  promptParentsSeen: idFilterSchema.optional(),
  rewound: z.array(z.string()),
  rewoundDropped: z.boolean().optional(),
  rewoundSeen: idFilterSchema.optional(),
});

const codexSchema = z.object({
  id: z.string(),
  cwd: z.string().nullable(),
  version: z.string().nullable(),
  model: z.string().nullable(),
  tasks: z.number().int().min(1),
  calls: z.array(z.string()),
  rejected: z.array(z.string()),
  given: z.array(z.string()).optional(),
  seen: idFilterSchema,
});

const geminiSchema = z.object({
  sessionId: z.string().nullable(),
  projectHash: z.string().nullable(),
  kind: z.string().nullable(),
  tasks: z.number().int().min(1),
  recent: z.array(z.string()),
  seen: idFilterSchema,
});

const placeSchema = {
  dev: z.number(),
  ino: z.number(),
  head: z.string(),
  headBytes: z.number().int().min(0),
  size: z.number().int().min(0),
  offset: z.number().int().min(1),
  line: z.number().int().min(2),
  before: z.string(),
  settings: z.string(),
};

/** The most task ids a mark may stand for: a state row that says more is not a mark (its runs are not spread out). */
const MAX_MARKED_TASKS = 10_000_000;

const runsSchema = z
  .record(
    z.string(),
    z.array(
      z.union([
        z.string(),
        z.tuple([z.number().int().min(1), z.number().int().min(1)]).refine(([first, last]) => first <= last),
      ]),
    ),
  )
  .refine((runs) => taskCount(runs) <= MAX_MARKED_TASKS);

const markSchema = z.discriminatedUnion('format', [
  z.object({
    v: z.literal(MARK_VERSION),
    ...placeSchema,
    format: z.literal('claude-code'),
    context: contextSchema,
    tasks: runsSchema,
  }),
  z.object({
    v: z.literal(MARK_VERSION),
    ...placeSchema,
    format: z.literal('codex'),
    context: codexSchema,
    tasks: runsSchema,
  }),
  z.object({
    v: z.literal(MARK_VERSION),
    ...placeSchema,
    format: z.literal('gemini'),
    context: geminiSchema,
    tasks: runsSchema,
  }),
]);

/** A mark of version 1: a Claude Code transcript's, every task id listed. */
const markV1Schema = z.object({
  v: z.literal(1),
  ...placeSchema,
  context: contextSchema,
  tasks: z.record(z.string(), z.array(z.string())),
});

/**
 * The mark a state row holds, or null when there is none or it cannot be read (the file is then read whole). A mark
 * of version 1 (written before Codex and Gemini logs were read on) is the same mark, its task ids made short.
 */
export function parseMark(text: string | null): TranscriptMark | null {
  if (!text) return null;
  try {
    const value: unknown = JSON.parse(text);
    const r = markSchema.safeParse(value);
    if (r.success) return r.data as TranscriptMark;
    const old = markV1Schema.safeParse(value);
    if (!old.success) return null;
    const { v: _v, tasks, ...place } = old.data;
    return { ...place, v: MARK_VERSION, format: 'claude-code', tasks: taskRuns(tasks) } as TranscriptMark;
  } catch {
    return null;
  }
}

/** The number a task id has under its base (`base` is 1, `base#n` is n for n >= 2), or null for any other id. */
function taskNumber(base: string, id: string): number | null {
  if (id === base) return 1;
  if (!id.startsWith(`${base}#`)) return null;
  const n = id.slice(base.length + 1);
  return /^[1-9]\d{0,8}$/.test(n) && Number(n) >= 2 ? Number(n) : null;
}

/** Task ids per agent session, in order, kept short (TaskRuns). */
export function taskRuns(ids: Readonly<Record<string, readonly string[]>>): TaskRuns {
  const out: TaskRuns = {};
  for (const [base, list] of Object.entries(ids)) {
    const runs: (string | [number, number])[] = [];
    for (const id of list) {
      const n = taskNumber(base, id);
      const last = runs[runs.length - 1];
      if (n === null) runs.push(id);
      else if (Array.isArray(last) && last[1] + 1 === n) last[1] = n;
      else runs.push([n, n]);
    }
    out[base] = runs;
  }
  return out;
}

/** The task ids TaskRuns stands for, per agent session, in order. */
export function taskIds(runs: Readonly<TaskRuns>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [base, list] of Object.entries(runs)) {
    const ids: string[] = [];
    for (const run of list) {
      if (typeof run === 'string') ids.push(run);
      else for (let n = run[0]; n <= run[1]; n++) ids.push(n === 1 ? base : `${base}#${n}`);
    }
    out[base] = ids;
  }
  return out;
}

/** How many task ids TaskRuns stands for. */
export function taskCount(runs: Readonly<TaskRuns>): number {
  let n = 0;
  for (const list of Object.values(runs))
    for (const run of list) n += typeof run === 'string' ? 1 : Math.max(0, run[1] - run[0] + 1);
  return n;
}

/** An open transcript as found: its identity and size now. */
export interface OpenTranscript {
  fd: number;
  dev: number;
  ino: number;
  size: number;
}

export function transcriptOf(fd: number): OpenTranscript {
  const st = fstatSync(fd);
  return { fd, dev: st.dev, ino: st.ino, size: st.size };
}

/** Whether a file opens with gzip's magic bytes (read whole, as read-log.ts decompresses it). */
export function isCompressed(file: OpenTranscript): boolean {
  const b = readBytes(file.fd, 0, 2);
  return b.length === 2 && b[0] === 0x1f && b[1] === 0x8b;
}

const hash = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * Whether the mark still describes this file: the same device and inode, no shorter than the read that wrote it,
 * the same first bytes and bytes before the offset (a newline just before it), and the same capture settings.
 */
export function markHolds(file: OpenTranscript, mark: TranscriptMark, settings: string): boolean {
  if (mark.dev !== file.dev || mark.ino !== file.ino || mark.settings !== settings) return false;
  if (file.size < mark.size || mark.offset > mark.size || mark.headBytes > file.size) return false;
  if (hash(readBytes(file.fd, 0, mark.headBytes)) !== mark.head) return false;
  const before = readBytes(file.fd, Math.max(0, mark.offset - PROBE), mark.offset);
  return before[before.length - 1] === 0x0a && hash(before) === mark.before;
}

/** A mark for this file: the next read starts at byte `offset` (line `line`), `size` bytes having been read. */
export function newMark(
  file: OpenTranscript,
  at: { offset: number; line: number; size: number },
  reader: MarkContext,
  tasks: Readonly<Record<string, readonly string[]>>,
  settings: string,
): TranscriptMark {
  const head = readBytes(file.fd, 0, Math.min(PROBE, at.size));
  return {
    v: MARK_VERSION,
    ...reader,
    dev: file.dev,
    ino: file.ino,
    head: hash(head),
    headBytes: head.length,
    size: at.size,
    offset: at.offset,
    line: at.line,
    before: hash(readBytes(file.fd, Math.max(0, at.offset - PROBE), at.offset)),
    settings,
    tasks: taskRuns(tasks),
  } as TranscriptMark;
}

/**
 * The byte offset in the file of line `line`, in a text read from byte `start` whose first line is `firstLine`; null
 * when the text cannot say (it holds a replacement character, so its bytes may not be the file's). The text may be the
 * part of the file read line by line (read-log.ts openLogRange), once its rows were read to the end.
 */
export function lineOffset(text: string | LogLines, start: number, firstLine: number, line: number): number | null {
  if (typeof text !== 'string') return text.rowOffset(line - firstLine);
  if (text.includes('\uFFFD')) return null;
  let at = 0;
  for (let n = firstLine; n < line; n++) {
    const nl = text.indexOf('\n', at);
    if (nl < 0) return null;
    at = nl + 1;
  }
  return start + Buffer.byteLength(text.slice(0, at));
}

/**
 * The capture settings a transcript is read with, as one string: a mark made with others is not used (a task read
 * before would come out otherwise). The privacy salt is kept as its hash.
 */
export function captureSettings(capture: {
  resultChars: number;
  maxRecordBytes: number;
  maxCallsPerSession: number;
  privacy?: unknown;
}): string {
  const privacy = (capture.privacy ?? {}) as { salt?: unknown };
  const salt = typeof privacy.salt === 'string' && privacy.salt ? hash(Buffer.from(privacy.salt)) : '';
  return hash(
    Buffer.from(
      JSON.stringify({
        resultChars: capture.resultChars,
        maxRecordBytes: capture.maxRecordBytes,
        maxCallsPerSession: capture.maxCallsPerSession,
        privacy: { ...privacy, salt },
      }),
    ),
  );
}
