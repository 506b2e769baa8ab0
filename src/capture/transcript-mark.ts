import { createHash } from 'node:crypto';
import { fstatSync } from 'node:fs';
import { z } from 'zod';
import type { ClaudeCodeContext } from './claude-code.js';
import { readBytes } from './read-log.js';

/**
 * How far a hook has read a transcript its agent appends to (a Claude Code `transcript_path`), so that the next run
 * reads only the lines from the last task on instead of the whole file: the byte offset and line number of that
 * task's first line, what the reader must know of the lines before it (claude-code.ts ClaudeCodeContext), the ids
 * of the tasks stored from them (a recall may belong to one), and what makes the offset mean the same file: its
 * device and inode, the hash of its first bytes and of the bytes before the offset, the size read, and the capture
 * settings it was read with. A file replaced, cut shorter or rewritten, or settings changed, and the file is read
 * whole again; so is a mark that cannot be read.
 */
export interface TranscriptMark {
  v: typeof MARK_VERSION;
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
  context: ClaudeCodeContext;
  /** The ids of the tasks stored from the lines before `offset`, per agent session, in the file's order. */
  tasks: Record<string, string[]>;
}

/**
 * The version of the mark and of the reading it describes: raise it when the Claude Code reader splits or names
 * tasks differently, so that every transcript is read whole once more.
 */
const MARK_VERSION = 1;
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
  rewound: z.array(z.string()),
});

const markSchema = z.object({
  v: z.literal(MARK_VERSION),
  dev: z.number(),
  ino: z.number(),
  head: z.string(),
  headBytes: z.number().int().min(0),
  size: z.number().int().min(0),
  offset: z.number().int().min(1),
  line: z.number().int().min(2),
  before: z.string(),
  settings: z.string(),
  context: contextSchema,
  tasks: z.record(z.string(), z.array(z.string())),
});

/** The mark a state row holds, or null when there is none or it cannot be read (the file is then read whole). */
export function parseMark(text: string | null): TranscriptMark | null {
  if (!text) return null;
  try {
    const r = markSchema.safeParse(JSON.parse(text));
    return r.success ? (r.data as TranscriptMark) : null;
  } catch {
    return null;
  }
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
  context: ClaudeCodeContext,
  tasks: Record<string, string[]>,
  settings: string,
): TranscriptMark {
  const head = readBytes(file.fd, 0, Math.min(PROBE, at.size));
  return {
    v: MARK_VERSION,
    dev: file.dev,
    ino: file.ino,
    head: hash(head),
    headBytes: head.length,
    size: at.size,
    offset: at.offset,
    line: at.line,
    before: hash(readBytes(file.fd, Math.max(0, at.offset - PROBE), at.offset)),
    settings,
    context,
    tasks,
  };
}

/**
 * The byte offset in the file of line `line`, in a text read from byte `start` whose first line is `firstLine`; null
 * when the text cannot say (it holds a replacement character, so its bytes may not be the file's).
 */
export function lineOffset(text: string, start: number, firstLine: number, line: number): number | null {
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
