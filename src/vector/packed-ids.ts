// The ids of an index file as they lie on disk: one UTF-8 block and the end offset of each id. A loaded
// index decodes an id only when a search returns it, so opening a 100k-skill index costs no per-id work;
// the first change to the index unpacks them all (see HnswIndex).
//
// Layout: u32 count, count x u32 end offsets (little-endian, non-decreasing), then the UTF-8 bytes. An empty
// range is an empty slot (a removed graph key); ids themselves are never empty.

import { InputError } from '../errors/input-error.js';

export class PackedIds {
  private constructor(
    private readonly bytes: Buffer,
    private readonly ends: Uint32Array,
    /** Ids present (non-empty ranges). */
    readonly live: number,
  ) {}

  get length(): number {
    return this.ends.length;
  }

  at(i: number): string | undefined {
    if (!(i >= 0 && i < this.ends.length)) return undefined;
    const start = i === 0 ? 0 : this.ends[i - 1];
    const end = this.ends[i];
    return end > start ? this.bytes.toString('utf8', start, end) : undefined;
  }

  toArray(): (string | undefined)[] {
    const out = new Array<string | undefined>(this.ends.length);
    for (let i = 0; i < out.length; i++) out[i] = this.at(i);
    return out;
  }

  static encode(ids: readonly (string | undefined)[]): Buffer {
    const texts = ids.map((id) => {
      if (id === '') throw new InputError('PackedIds.encode: a recall index id cannot be empty');
      return Buffer.from(id ?? '', 'utf8');
    });
    const head = Buffer.alloc(4 + 4 * ids.length);
    head.writeUInt32LE(ids.length, 0);
    let end = 0;
    texts.forEach((t, i) => {
      end += t.length;
      head.writeUInt32LE(end, 4 + 4 * i);
    });
    return Buffer.concat([head, ...texts]);
  }

  /** The ids in `block`, or null when it is not a well-formed id table. */
  static decode(block: Buffer): PackedIds | null {
    if (block.length < 4) return null;
    const count = block.readUInt32LE(0);
    const bytesAt = 4 + 4 * count;
    if (bytesAt > block.length) return null;
    const ends = new Uint32Array(count);
    new Uint8Array(ends.buffer).set(block.subarray(4, bytesAt));
    if (!littleEndian) for (let i = 0; i < count; i++) ends[i] = block.readUInt32LE(4 + 4 * i);
    const bytes = block.subarray(bytesAt);
    let live = 0;
    let prev = 0;
    for (let i = 0; i < count; i++) {
      const end = ends[i];
      if (end < prev) return null;
      if (end > prev) live++;
      prev = end;
    }
    if (prev !== bytes.length) return null;
    return new PackedIds(bytes, ends, live);
  }
}

const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
