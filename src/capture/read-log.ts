import { constants } from 'node:buffer';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { InputError } from '../errors/input-error.js';

/**
 * The most text one log read whole may hold: no JavaScript string is longer (536,870,888 characters, about 512 MB, in
 * Node 20 and 22). A compressed log may grow to as much when read. A JSONL file is read line by line (LogLines),
 * without this limit.
 */
const MAX_TEXT_CHARS = constants.MAX_STRING_LENGTH;

/**
 * A log to ingest, opened once (one file descriptor, its length fixed when it is opened: every read of it agrees, lines
 * appended meanwhile are left for the next ingest): a plain file whose text is JSONL (`linewise` says so: parse-file.ts
 * readsLineByLine) is read line by line as it is parsed, whatever its size (LogLines). Standard input, a pipe, and a
 * gzip-compressed log (decompressed as it is read, through zlib's stream) are read once, in order (LogStream): their
 * start is held until `linewise` can judge it, and JSONL goes on line by line from there, whatever its size. A JSON
 * document (or a binary file) is read whole (up to `maxChars`). What comes back is the caller's to close (closeLog).
 */
export async function openLog(
  file: string | number,
  linewise: (lines: LogHead) => boolean,
  opts: { maxChars?: number; chunkBytes?: number } = {},
): Promise<string | LogLines | LogStream> {
  const maxChars = opts.maxChars ?? MAX_TEXT_CHARS;
  const name = typeof file === 'string' ? file : 'stdin';
  const fd = typeof file === 'number' ? file : openSync(file, 'r');
  const owned = typeof file === 'string';
  let handed = false;
  try {
    const stat = fstatSync(fd);
    let bytes: AsyncIterable<Buffer>;
    let gzip = false;
    if (stat.isFile()) {
      const magic = readBytes(fd, 0, 2);
      gzip = isGzip(magic);
      if (!gzip) {
        const lines = new LogLines(name, opts.chunkBytes, { fd, start: 0, end: stat.size }, owned);
        if (linewise(lines)) {
          handed = true;
          return lines;
        }
        if (stat.size > maxChars) throw tooLarge(name, stat.size, maxChars);
        return readBytes(fd, 0, stat.size).toString('utf8');
      }
      bytes = fdChunks(fd, opts.chunkBytes ?? CHUNK_BYTES, stat.size);
    } else {
      // Standard input, or a pipe or a device named as a file (`<(zcat log)`): read in order; its first bytes say
      // whether it is compressed.
      const raw = fdChunks(fd, opts.chunkBytes ?? CHUNK_BYTES, Number.POSITIVE_INFINITY);
      const [first, rest] = await peek(raw, 2);
      gzip = isGzip(first);
      bytes = prepend(first, rest);
    }
    const stream = await LogStream.open(name, gzip ? gunzipped(name, bytes) : bytes, gzip);
    if (linewise(stream)) {
      stream.onClose(() => {
        if (owned) closeSync(fd);
      });
      handed = true;
      return stream;
    }
    return await stream.text(maxChars);
  } finally {
    if (owned && !handed) closeSync(fd);
  }
}

/** Closes what openLog returned (a text is nothing to close). */
export function closeLog(log: string | LogLines | LogStream): void {
  if (typeof log !== 'string') log.close();
}

/** The start of a log, as readsLineByLine judges it: its first characters, and its rows from the first. */
export interface LogHead {
  head(chars: number): string;
  rows(): Iterable<LogRow>;
}

/**
 * The bytes of an open file descriptor read in order, from where it is, `chunkBytes` at a time, `limit` of them at
 * most (a regular file's length when it was opened). A descriptor another program made non-blocking (a pipe from a
 * hook runner) is waited on, not taken for its end.
 */
async function* fdChunks(fd: number, chunkBytes: number, limit: number): AsyncGenerator<Buffer> {
  let left = limit;
  let position = 0;
  const regular = Number.isFinite(limit);
  while (left > 0) {
    const chunk = Buffer.allocUnsafe(Math.min(chunkBytes, left));
    let n: number;
    try {
      n = readSync(fd, chunk, 0, chunk.length, regular ? position : null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        await new Promise((done) => setTimeout(done, 5));
        continue;
      }
      // Windows says EOF at the end of a pipe.
      if (code === 'EOF') return;
      throw e;
    }
    if (n === 0) return;
    position += n;
    left -= n;
    yield chunk.subarray(0, n);
  }
}

/** The first `count` bytes of a stream of chunks (fewer when it ends before), and the stream of the rest. */
async function peek(chunks: AsyncIterable<Buffer>, count: number): Promise<[Buffer, AsyncIterator<Buffer>]> {
  const it = chunks[Symbol.asyncIterator]();
  const got: Buffer[] = [];
  let have = 0;
  while (have < count) {
    const next = await it.next();
    if (next.done) break;
    got.push(next.value);
    have += next.value.length;
  }
  return [Buffer.concat(got), it];
}

async function* prepend(first: Buffer, rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  if (first.length) yield first;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}

/**
 * The bytes of a gzip stream decompressed as they come (zlib's Gunzip stream: several members one after another, as
 * `cat a.gz b.gz` leaves them, included). One that does not decompress is an InputError that names it.
 */
async function* gunzipped(name: string, bytes: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const gunzip = createGunzip();
  const source = Readable.from(bytes, { objectMode: false });
  // An error reading the compressed bytes ends the Gunzip stream with it: it is thrown by the loop below.
  pipeline(source, gunzip, () => {});
  try {
    for await (const chunk of gunzip) yield chunk as Buffer;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code?.startsWith('Z_'))
      throw new InputError(`${name}: a gzip file that does not decompress (${(e as Error).message})`);
    throw e;
  } finally {
    source.destroy();
    gunzip.destroy();
  }
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
  readonly start: number;
  readonly end: number;
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
    /** Whether the span's file is this reader's to close (openLog's): close() does. */
    private readonly owned = false,
  ) {}

  /** Closes the file a reader opened for its span (openLog); a span of a caller's open file stays open. */
  close(): void {
    if (this.owned && this.span && this.span.fd >= 0) {
      closeSync(this.span.fd);
      this.span.fd = -1;
    }
  }

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
      const split = new RowSplitter();
      while (position < end) {
        const chunk = Buffer.allocUnsafe(Math.min(this.chunkBytes, end - position));
        const n = readSync(fd, chunk, 0, chunk.length, position);
        if (n === 0) break;
        const at = position;
        position += n;
        for (const { row, next } of split.push(chunk.subarray(0, n))) {
          starts?.push(at + next);
          yield row;
        }
      }
      const last = split.end();
      this.starts = starts;
      this.replaced = starts !== null && split.replaced;
      yield last;
    } finally {
      if (!this.span) closeSync(fd);
    }
  }
}

/**
 * Bytes cut into rows as `text.split('\n')` cuts their text: each row decoded on its own (a newline byte ends any
 * UTF-8 sequence it cuts, so the rows are those of the text decoded whole); a row longer than a string can hold is
 * not decoded (its `text` null) nor kept.
 */
class RowSplitter {
  /** Whether a row held U+FFFD or was too long to decode (its bytes may not be the text's). */
  replaced = false;
  /** The row being read, in the pieces of the chunks it spans (none kept once it is longer than a string). */
  private parts: Buffer[] = [];
  private bytes = 0;

  /** The rows a chunk ends, each with the offset in the chunk of the byte after its newline. */
  *push(view: Buffer): Generator<{ row: LogRow; next: number }> {
    let start = 0;
    for (let nl = view.indexOf(0x0a); nl >= 0; nl = view.indexOf(0x0a, start)) {
      const piece = view.subarray(start, nl);
      start = nl + 1;
      yield { row: this.row(piece, false), next: start };
    }
    if (start < view.length) {
      if (this.bytes + view.length - start <= MAX_TEXT_CHARS) this.parts.push(view.subarray(start));
      else this.parts = [];
      this.bytes += view.length - start;
    }
  }

  /** The row after the last newline ('' when the bytes end in one). */
  end(): LogRow {
    return this.row(Buffer.alloc(0), true);
  }

  private row(piece: Buffer, last: boolean): LogRow {
    const total = this.bytes + piece.length;
    const text =
      total > MAX_TEXT_CHARS
        ? null
        : (this.parts.length ? Buffer.concat([...this.parts, piece], total) : piece).toString('utf8');
    if (text === null || text.includes('\uFFFD')) this.replaced = true;
    this.parts = [];
    this.bytes = 0;
    return { text, bytes: total, last };
  }
}

/** How many bytes of a stream LogStream holds before its first rows: what `head` reads (BINARY_PROBE chars). */
const HEAD_BYTES = 4 * 8192 + 4;

/**
 * A log read once, in order, as its bytes come (standard input, a pipe, a gzip-compressed log as it is decompressed):
 * its start is held (HEAD_BYTES, and its rows up to its first that holds anything) so that it can be judged (head,
 * rows: readsLineByLine), then its rows are read once (stream), those held first, as LogLines gives a file's.
 */
export class LogStream implements LogHead {
  private held: Buffer[];
  private rest: AsyncIterator<Buffer> | null;
  private closers: (() => void)[] = [];
  private read = false;
  /** The error that ended a read of it (a gzip that stops decompressing, a read that failed), once one did. */
  failure: unknown = null;

  private constructor(
    readonly path: string,
    held: Buffer[],
    rest: AsyncIterator<Buffer> | null,
    /** Whether its bytes are decompressed as they are read (a read that fails is then the file's problem). */
    readonly compressed: boolean,
  ) {
    this.held = held;
    this.rest = rest;
  }

  /** Reads the start of `bytes`: HEAD_BYTES, and on to the end of its first row that holds anything. */
  static async open(path: string, bytes: AsyncIterable<Buffer>, compressed: boolean): Promise<LogStream> {
    const it = bytes[Symbol.asyncIterator]();
    const held: Buffer[] = [];
    let have = 0;
    let text = false;
    const split = new RowSplitter();
    for (;;) {
      if (have >= HEAD_BYTES && text) return new LogStream(path, held, it, compressed);
      let next: IteratorResult<Buffer>;
      try {
        next = await it.next();
      } catch (e) {
        await it.return?.();
        throw e;
      }
      if (next.done) return new LogStream(path, held, null, compressed);
      held.push(next.value);
      have += next.value.length;
      // A row longer than a string can hold is one that holds something (its text is not read).
      if (!text) for (const { row } of split.push(next.value)) text ||= row.text === null || !!row.text.trim();
      if (!text && have > MAX_TEXT_CHARS) text = true;
    }
  }

  /** The first `chars` characters of the text (all of it when it is shorter), from what is held. */
  head(chars: number): string {
    return Buffer.concat(this.held)
      .subarray(0, 4 * chars + 4)
      .toString('utf8')
      .slice(0, chars);
  }

  /** The rows of what is held (up to the end of the first that holds anything, and the end when it came). */
  *rows(): Generator<LogRow> {
    const split = new RowSplitter();
    for (const chunk of this.held) for (const { row } of split.push(chunk)) yield row;
    if (this.rest === null) yield split.end();
  }

  /** Every row of the text, in order, each decoded as it is reached; read once. */
  async *stream(): AsyncGenerator<LogRow> {
    if (this.read) throw new InputError(`${this.path}: a stream is read once, and it has been`);
    this.read = true;
    const split = new RowSplitter();
    const held = this.held;
    this.held = [];
    try {
      for (const chunk of held) for (const { row } of split.push(chunk)) yield row;
      held.length = 0;
      if (this.rest)
        for (let next = await this.rest.next(); !next.done; next = await this.rest.next())
          for (const { row } of split.push(next.value)) yield row;
      yield split.end();
    } catch (e) {
      this.failure = e;
      throw e;
    } finally {
      this.close();
    }
  }

  /** The whole text (a JSON document), more than `maxChars` an InputError; read once. */
  async text(maxChars: number): Promise<string> {
    this.read = true;
    const chunks = this.held;
    this.held = [];
    let bytes = chunks.reduce((n, c) => n + c.length, 0);
    try {
      if (this.rest)
        for (let next = await this.rest.next(); !next.done; next = await this.rest.next()) {
          bytes += next.value.length;
          if (bytes > maxChars) {
            // A compressed log stops where it grows past; a plain one is counted to its end, to say its size.
            if (this.compressed) throw tooLarge(this.path, null, maxChars);
            chunks.length = 0;
          } else chunks.push(next.value);
        }
      if (bytes > maxChars) throw tooLarge(this.path, this.compressed ? null : bytes, maxChars);
      return Buffer.concat(chunks).toString('utf8');
    } finally {
      this.close();
    }
  }

  /** Runs `close` once the stream is closed (read to its end, left, or closed). */
  onClose(close: () => void): void {
    this.closers.push(close);
  }

  /** Ends the read (what is not read is left) and releases the file. */
  close(): void {
    const rest = this.rest;
    this.rest = null;
    this.held = [];
    if (rest) void rest.return?.();
    for (const close of this.closers.splice(0)) close();
  }
}
