import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { InputError } from '../errors/input-error.js';

/** The most a compressed log may grow to when read (a log that large is read in parts, not at once). */
const MAX_UNZIPPED_BYTES = 512 * 1024 * 1024;

/**
 * The text of a log file (or of standard input, fd 0): UTF-8, and a gzip-compressed log (`session.jsonl.gz`, as
 * log rotation leaves them) decompressed first, recognised by its magic bytes whatever its name.
 */
export function readLogText(file: string | number): string {
  const bytes = readFileSync(file);
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes.toString('utf8');
  try {
    return gunzipSync(bytes, { maxOutputLength: MAX_UNZIPPED_BYTES }).toString('utf8');
  } catch (e) {
    throw new InputError(
      `${typeof file === 'string' ? file : 'stdin'}: a gzip file that does not decompress (${(e as Error).message})`,
    );
  }
}
