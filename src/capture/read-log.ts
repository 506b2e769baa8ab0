import { constants } from 'node:buffer';
import { readFileSync, readSync, statSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { InputError } from '../errors/input-error.js';

/**
 * The most text one log may hold: a log is read whole, as one string, and no JavaScript string is longer
 * (536,870,888 characters, about 512 MB, in Node 20 and 22). A compressed log may grow to as much when read.
 */
const MAX_TEXT_CHARS = constants.MAX_STRING_LENGTH;

/**
 * The text of a log file (or of standard input, fd 0): UTF-8, and a gzip-compressed log (`session.jsonl.gz`, as
 * log rotation leaves them) decompressed first, recognised by its magic bytes whatever its name. A log larger
 * than one string can hold is an InputError that names it and its size, read no further than its size.
 */
export function readLogText(file: string | number): string {
  const name = typeof file === 'string' ? file : 'stdin';
  if (typeof file === 'string') {
    const size = statSync(file).size;
    if (size > MAX_TEXT_CHARS) throw tooLarge(name, size);
  }
  const bytes = readFileSync(file);
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) return text(name, bytes);
  let unzipped: Buffer;
  try {
    unzipped = gunzipSync(bytes, { maxOutputLength: MAX_TEXT_CHARS });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(name, null);
    throw new InputError(`${name}: a gzip file that does not decompress (${(e as Error).message})`);
  }
  return text(name, unzipped);
}

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
function text(name: string, bytes: Buffer): string {
  if (bytes.length > MAX_TEXT_CHARS) throw tooLarge(name, bytes.length);
  return bytes.toString('utf8');
}

function tooLarge(name: string, bytes: number | null): InputError {
  const size = bytes === null ? 'decompresses to more than' : `is ${count(bytes)} bytes, more than`;
  return new InputError(
    `${name}: ${size} the ${count(MAX_TEXT_CHARS)} a log may hold (about 512 MB: it is read whole, as one string): nothing was read from it; split it between tasks, at line ends, into smaller files and ingest those`,
  );
}

const count = (n: number) => n.toLocaleString('en-US');
