import { createHash } from 'node:crypto';
import { z } from 'zod';

/**
 * The ids a transcript reader saw before a checkpoint (Codex call ids, Gemini CLI message ids), kept short: a Bloom
 * filter, so it can say that an id was surely not seen there, or that it may have been. A reader reading on from the
 * checkpoint that meets an id which may have been seen before it, where that would change a task before it, reads the
 * file whole (always right); a false "may" costs one whole read, never a wrong task.
 *
 * The filter is a list of parts, the k-th holding up to BASE_IDS * 2^k ids in BITS_PER_ID bits each (so that a short
 * session keeps a short one): about 1.5 to 3 bytes an id, and a false "may" for under 0.4% of the ids asked about per
 * part.
 */
export interface IdFilter {
  /** How many ids were put in. */
  count: number;
  /** The parts' bits, base64, the last one filling. */
  parts: string[];
}

const BASE_IDS = 64;
const BITS_PER_ID = 12;
const PROBES = 8;

export const idFilterSchema = z.object({
  count: z.number().int().min(0),
  parts: z.array(z.string()),
});

export const emptyIdFilter = (): IdFilter => ({ count: 0, parts: [] });

const capacity = (k: number) => BASE_IDS * 2 ** k;

/** The bit places of an id in a part of `bits` bits (double hashing over one SHA-256). */
function places(id: string, bits: number): number[] {
  const d = createHash('sha256').update(id).digest();
  const h1 = d.readUInt32BE(0);
  const h2 = (d.readUInt32BE(4) | 1) >>> 0;
  const out: number[] = [];
  for (let i = 0; i < PROBES; i++) out.push((h1 + i * h2) % bits);
  return out;
}

/** The filter with `ids` put in too. */
export function withIds(filter: IdFilter, ids: Iterable<string>): IdFilter {
  const parts = filter.parts.map((p) => Buffer.from(p, 'base64'));
  let count = filter.count;
  let filled = count - parts.slice(0, -1).reduce((n, _, k) => n + capacity(k), 0);
  for (const id of ids) {
    if (!parts.length || filled >= capacity(parts.length - 1)) {
      parts.push(Buffer.alloc((capacity(parts.length) * BITS_PER_ID) / 8));
      filled = 0;
    }
    const part = parts[parts.length - 1]!;
    for (const at of places(id, part.length * 8)) part[at >> 3] = part[at >> 3]! | (1 << (at & 7));
    filled++;
    count++;
  }
  return { count, parts: parts.map((p) => p.toString('base64')) };
}

/** Whether `id` may have been put in the filter (false: surely not). */
export function mayHold(filter: IdFilter, id: string): boolean {
  return filter.parts.some((p) => {
    const part = Buffer.from(p, 'base64');
    return part.length > 0 && places(id, part.length * 8).every((at) => (part[at >> 3]! & (1 << (at & 7))) !== 0);
  });
}
