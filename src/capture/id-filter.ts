import { createHash } from 'node:crypto';
import { z } from 'zod';

/**
 * The ids a transcript reader saw before a checkpoint (Codex call ids, Gemini CLI message ids), kept short: a Bloom
 * filter, so it can say that an id was surely not seen there, or that it may have been. A reader reading on from the
 * checkpoint that meets an id which may have been seen before it, where that would change a task before it, reads the
 * file whole (always right); a false "may" costs one whole read, never a wrong task.
 *
 * The filter is a list of parts, the k-th holding up to BASE_IDS * 2^k ids in BITS_PER_ID bits each (so that a short
 * session keeps a short one): about 3.3 to 6.7 bytes an id as kept (base64), and a false "may" for under 0.01% of the
 * ids asked about per part, under 0.1% over the 8 parts of a 16,000-id session. A Gemini CLI reader asks about every
 * message written after the checkpoint: at 12 bits an id and 8 probes (the first version) that was about 2% of them on
 * a 2,000-task session, each a whole read of the log for nothing.
 */
export interface IdFilter {
  /** How many ids were put in. */
  count: number;
  /** The parts' bits, base64, the last one filling. */
  parts: string[];
  /** The probes an id sets (PROBES): a filter made with other parameters is not read (a whole read instead). */
  probes: typeof PROBES;
}

const BASE_IDS = 64;
const BITS_PER_ID = 20;
const PROBES = 13;

export const idFilterSchema = z.object({
  count: z.number().int().min(0),
  parts: z.array(z.string()),
  probes: z.literal(PROBES),
});

export const emptyIdFilter = (): IdFilter => ({ count: 0, parts: [], probes: PROBES });

const capacity = (k: number) => BASE_IDS * 2 ** k;

/** The bit places of an id in a part of `bits` bits. */
function places(id: string, bits: number): number[] {
  // A word of its own for each probe (SHA-512 has 16): places drawn by double hashing from two words were
  // correlated enough, in parts whose size is no prime, to let through about twice the false "may" of the maths.
  const d = createHash('sha512').update(id).digest();
  const out: number[] = [];
  for (let i = 0; i < PROBES; i++) out.push(d.readUInt32BE(i * 4) % bits);
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
  return { count, parts: parts.map((p) => p.toString('base64')), probes: PROBES };
}

/** Whether `id` may have been put in the filter (false: surely not). */
export function mayHold(filter: IdFilter, id: string): boolean {
  return filter.parts.some((p) => {
    const part = Buffer.from(p, 'base64');
    return part.length > 0 && places(id, part.length * 8).every((at) => (part[at >> 3]! & (1 << (at & 7))) !== 0);
  });
}
