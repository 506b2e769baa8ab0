import { constants } from 'node:buffer';
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { InputError } from '../errors/input-error.js';

/**
 * The most text one log read whole may hold: no JavaScript string is longer (536,870,888 characters, about 512 MB, in
 * Node 20 and 22). A compressed log may grow to as much when read. A JSONL file is read line by line (LogLines),
 * without this limit.
 */
const MAX_TEXT_CHARS = constants.MAX_STRING_LENGTH;

/**
 * The text of a log file (or of standard input, fd 0): UTF-8, and a gzip-compressed log (`session.jsonl.gz`, as
 * log rotation leaves them) decompressed first, recognised by its magic bytes whatever its name. A log larger
 * than one string can hold is an InputError that names it and its size, read no further than its size.
 */
export function readLogText(file: string | number, maxChars = MAX_TEXT_CHARS): string {
  const name = typeof file === 'string' ? file : 'stdin';
  if (typeof file === 'string') {
    const size = statSync(file).size;
    if (size > maxChars) throw tooLarge(name, size, maxChars);
  }
  const bytes = readFileSync(file);
  if (!isGzip(bytes)) return text(name, bytes, maxChars);
  let unzipped: Buffer;
  try {
    unzipped = gunzipSync(bytes, { maxOutputLength: maxChars });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(name, null, maxChars);
    throw new InputError(`${name}: a gzip file that does not decompress (${(e as Error).message})`);
  }
  return text(name, unzipped, maxChars);
}

/**
 * A log to ingest: a plain file whose text is JSONL (`linewise` says so: parse-file.ts readsLineByLine) is read line by
 * line as it is parsed, whatever its size; standard input (or any file that is not a regular one), a gzip-compressed
 * log and a JSON document are read whole (readLogText, up to `maxChars`).
 */
export function openLog(
  file: string | number,
  linewise: (lines: LogLines) => boolean,
  opts: { maxChars?: number; chunkBytes?: number } = {},
): string | LogLines {
  // Standard input, and a pipe or a device named as a file (`<(zcat log)`), cannot be read at an offset: read whole.
  if (typeof file === 'number' || !statSync(file).isFile()) return readLogText(file, opts.maxChars);
  const fd = openSync(file, 'r');
  let magic: Buffer;
  try {
    magic = readBytes(fd, 0, 2);
  } finally {
    closeSync(fd);
  }
  const lines = new LogLines(file, opts.chunkBytes);
  return !isGzip(magic) && linewise(lines) ? lines : readLogText(file, opts.maxChars);
}

const isGzip = (bytes: Buffer) => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

/**
 * The limits of the read of a part of a log (openLogRange): the most text it may hold read whole, and how many bytes
 * a read line by line reads at a time. Tests lower them (a part larger than a lowered limit must be read by line).
 */
export const rangeReadLimits = { maxChars: MAX_TEXT_CHARS, chunkBytes: 1 << 20 };

/**
 * Bytes `start` to `end` of an open log file (the part of a transcript a hook has not read yet, or all of it), as
 * openLog reads a file: JSONL (`linewise` says so) line by line, whatever its size (LogLines over the part, which
 * also says the byte offset of each of its lines: rowOffset); any other text whole, more than one string can hold an
 * InputError, as for a whole log. The file is not closed; a compressed one is the caller's to read otherwise.
 */
export function openLogRange(
  fd: number,
  name: string,
  start: number,
  end: number,
  linewise: (lines: LogLines) => boolean,
): string | LogLines {
  const { maxChars, chunkBytes } = rangeReadLimits;
  const lines = new LogLines(name, chunkBytes, { fd, start, end });
  if (linewise(lines)) return lines;
  if (end - start > maxChars) throw tooLarge(name, end - start, maxChars);
  return readBytes(fd, start, end).toString('utf8');
}

/** Bytes `start` to `end` of an open file (fewer when it ends before). */
export function readBytes(fd: number, start: number, end: number): Buffer {
  const out = Buffer.allocUnsafe(Math.max(0, end - start));
  let got = 0;
  while (got < out.length) {
    const n = readSync(fd, out, got, out.length - got, start + got);
    if (n === 0) break;
    got += n;
  }
  return got === out.length ? out : out.subarray(0, got);
}

/** The bytes as UTF-8 text; more than a string holds (standard input, whose size is not known before) refused. */
function text(name: string, bytes: Buffer, maxChars: number): string {
  if (bytes.length > maxChars) throw tooLarge(name, bytes.length, maxChars);
  return bytes.toString('utf8');
}

function tooLarge(name: string, bytes: number | null, maxChars = MAX_TEXT_CHARS): InputError {
  const size = bytes === null ? 'decompresses to more than' : `is ${count(bytes)} bytes, more than`;
  return new InputError(
    `${name}: ${size} the ${count(maxChars)} a log may hold (about 512 MB: it is read whole, as one string): nothing was read from it; split it between tasks, at line ends, into smaller files and ingest those`,
  );
}

const count = (n: number) => n.toLocaleString('en-US');

/** How many bytes a log read line by line reads at a time. */
const CHUNK_BYTES = 1 << 20;

/** One row of a log's text, as `text.split('\n')` gives it. */
export interface LogRow {
  /** Null for a row longer than a string can hold (not decoded). */
  text: string | null;
  bytes: number;
  /** The row after the last newline ('' when the text ends in one). */
  last: boolean;
}

/** A part of an open file: bytes `start` to `end` of `fd` (which the reader does not close). */
interface LogSpan {
  fd: number;
  start: number;
  end: number;
}

/**
 * A log file read line by line, in chunks, never whole: what `ingest` reads a JSONL log with, whatever its size (a
 * whole read is limited to what one string holds). The file is opened for each pass over it and closed when the
 * pass ends or is left. Each row is decoded on its own; a newline byte ends any UTF-8 sequence it cuts, so the rows
 * are those of the text decoded whole. Over a span of an open file (openLogRange), only its bytes are read, and
 * a pass read to the end keeps where each row starts (rowOffset).
 */
export class LogLines {
  /** The byte offset in the file of each row of the last pass read to its end, and whether a row held U+FFFD. */
  private starts: number[] | null = null;
  private replaced = false;

  constructor(
    readonly path: string,
    private readonly chunkBytes = CHUNK_BYTES,
    private readonly span?: LogSpan,
  ) {}

  /** The first `chars` characters of the text (all of it when it is shorter). */
  head(chars: number): string {
    const from = this.span?.start ?? 0;
    // A character takes at most 4 bytes, an undecodable byte gives one U+FFFD: enough bytes for `chars` of them.
    const to = Math.min(from + 4 * chars + 4, this.span?.end ?? Number.POSITIVE_INFINITY);
    return this.withFile((fd) => readBytes(fd, from, to))
      .toString('utf8')
      .slice(0, chars);
  }

  /**
   * The byte offset in the file of row `row` (counted from 0, the text's first), as a pass over the rows read to the
   * end found it; null when none was, when the text has fewer rows, or when it holds a replacement character (its
   * bytes may not be the file's: transcript-mark.ts lineOffset says the same of a text read whole).
   */
  rowOffset(row: number): number | null {
    if (this.starts === null || this.replaced) return null;
    if (row <= 0) return this.span?.start ?? 0;
    return row < this.starts.length ? this.starts[row]! : null;
  }

  private withFile<T>(use: (fd: number) => T): T {
    if (this.span) return use(this.span.fd);
    const fd = openSync(this.path, 'r');
    try {
      return use(fd);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The rows of the text in order, each decoded as it is reached. A row longer than a string can hold is not
   * decoded: its `text` is null, `bytes` says its size.
   */
  *rows(): Generator<LogRow> {
    const fd = this.span?.fd ?? openSync(this.path, 'r');
    try {
      const end = this.span?.end ?? Number.POSITIVE_INFINITY;
      let position = this.span?.start ?? 0;
      // Where each row starts, kept over a span only (a hook's mark is placed at one).
      const starts: number[] | null = this.span ? [position] : null;
      let replaced = false;
      // The row being read, in the pieces of the chunks it spans (none kept once it is longer than a string).
      let parts: Buffer[] = [];
      let bytes = 0;
      const row = (piece: Buffer, last: boolean): LogRow => {
        const total = bytes + piece.length;
        const text =
          total > MAX_TEXT_CHARS
            ? null
            : (parts.length ? Buffer.concat([...parts, piece], total) : piece).toString('utf8');
        if (starts !== null && (text === null || text.includes('\uFFFD'))) replaced = true;
        parts = [];
        bytes = 0;
        return { text, bytes: total, last };
      };
      while (position < end) {
        const chunk = Buffer.allocUnsafe(Math.min(this.chunkBytes, end - position));
        const n = readSync(fd, chunk, 0, chunk.length, position);
        if (n === 0) break;
        const at = position;
        position += n;
        const view = chunk.subarray(0, n);
        let start = 0;
        for (let nl = view.indexOf(0x0a); nl >= 0; nl = view.indexOf(0x0a, start)) {
          const piece = view.subarray(start, nl);
          start = nl + 1;
          starts?.push(at + start);
          yield row(piece, false);
        }
        if (start < n) {
          if (bytes + n - start <= MAX_TEXT_CHARS) parts.push(view.subarray(start));
          else parts = [];
          bytes += n - start;
        }
      }
      const last = row(Buffer.alloc(0), true);
      this.starts = starts;
      this.replaced = replaced;
      yield last;
    } finally {
      if (!this.span) closeSync(fd);
    }
  }
}
