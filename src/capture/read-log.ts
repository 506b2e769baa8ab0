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
 * Bytes `start` to `end` of an open log file as UTF-8 text (the part of a transcript a hook has not read yet): more
 * than one string can hold is an InputError, as for a whole log.
 */
export function readLogRange(fd: number, start: number, end: number, name: string): string {
  if (end - start > MAX_TEXT_CHARS) throw tooLarge(name, end - start);
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

/**
 * A log file read line by line, in chunks, never whole: what `ingest` reads a JSONL log with, whatever its size (a
 * whole read is limited to what one string holds). The file is opened for each pass over it and closed when the
 * pass ends or is left. Each row is decoded on its own; a newline byte ends any UTF-8 sequence it cuts, so the rows
 * are those of the text decoded whole.
 */
export class LogLines {
  constructor(
    readonly path: string,
    private readonly chunkBytes = CHUNK_BYTES,
  ) {}

  /** The first `chars` characters of the text (all of it when it is shorter). */
  head(chars: number): string {
    const fd = openSync(this.path, 'r');
    try {
      // A character takes at most 4 bytes, an undecodable byte gives one U+FFFD: enough bytes for `chars` of them.
      return readBytes(fd, 0, 4 * chars + 4)
        .toString('utf8')
        .slice(0, chars);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The rows of the text in order, each decoded as it is reached. A row longer than a string can hold is not
   * decoded: its `text` is null, `bytes` says its size.
   */
  *rows(): Generator<LogRow> {
    const fd = openSync(this.path, 'r');
    try {
      // The row being read, in the pieces of the chunks it spans (none kept once it is longer than a string).
      let parts: Buffer[] = [];
      let bytes = 0;
      let position = 0;
      const row = (piece: Buffer, last: boolean): LogRow => {
        const total = bytes + piece.length;
        const text =
          total > MAX_TEXT_CHARS
            ? null
            : (parts.length ? Buffer.concat([...parts, piece], total) : piece).toString('utf8');
        parts = [];
        bytes = 0;
        return { text, bytes: total, last };
      };
      for (;;) {
        const chunk = Buffer.allocUnsafe(this.chunkBytes);
        const n = readSync(fd, chunk, 0, chunk.length, position);
        if (n === 0) break;
        position += n;
        const view = chunk.subarray(0, n);
        let start = 0;
        for (let nl = view.indexOf(0x0a); nl >= 0; nl = view.indexOf(0x0a, start)) {
          const piece = view.subarray(start, nl);
          start = nl + 1;
          yield row(piece, false);
        }
        if (start < n) {
          if (bytes + n - start <= MAX_TEXT_CHARS) parts.push(view.subarray(start));
          else parts = [];
          bytes += n - start;
        }
      }
      yield row(Buffer.alloc(0), true);
    } finally {
      closeSync(fd);
    }
  }
}
