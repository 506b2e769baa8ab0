import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadIndexFile, saveIndexFile, type IndexIdentity } from './index-file.js';
import { clustered } from './nearest-index.contract.js';
import { TieredIndex } from './tiered-index.js';

const identity: IndexIdentity = {
  namespace: 'default',
  embedderId: 'test@24',
  dimensions: 24,
  basis: 'store-1;centering=0',
};
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function fixture(n: number, annFrom: number) {
  const dir = mkdtempSync(join(tmpdir(), 'skillsmith-index-file-'));
  dirs.push(dir);
  const data = clustered(n, 24, 20, 0.4, 9);
  const ids = data.map((_, i) => `sk_${i}`);
  const flat = new Float32Array(n * 24);
  data.forEach((v, i) => {
    flat.set(v, i * 24);
  });
  const index = TieredIndex.build(24, ids, flat, { annFrom });
  return { dir, path: join(dir, 'memory.db.recall-x.idx'), index, queries: data.slice(0, 10) };
}

function loaded(path: string, id = identity, annFrom = 100) {
  const got = loadIndexFile(path, id, { annFrom });
  if ('reason' in got) throw new Error(`expected an index, got: ${got.reason}`);
  return got;
}

for (const [tier, annFrom] of [
  ['exact scan', 10_000],
  ['HNSW graph', 100],
] as const) {
  describe(`index file: ${tier}`, () => {
    it('loads what was saved: same size, revision and hits', () => {
      const { path, index, queries } = fixture(400, annFrom);
      expect(index.approximate).toBe(tier === 'HNSW graph');
      saveIndexFile(path, index, identity, 42);
      const back = loaded(path);
      expect(back.revision).toBe(42);
      expect(back.index.size).toBe(400);
      expect(back.index.approximate).toBe(index.approximate);
      for (const q of queries) expect(back.index.search(q, 5)).toEqual(index.search(q, 5));
      // A filter sees the ids as saved (a loaded index decodes them per hit).
      const odd = { filter: (id: string) => Number(id.slice(3)) % 2 === 1 };
      expect(back.index.search(queries[0], 5, odd)).toEqual(index.search(queries[0], 5, odd));
      expect(back.index.search(queries[0], 5, odd).length).toBe(5);
      // The loaded index keeps working: it accepts changes like a new one.
      back.index.remove('sk_0');
      back.index.add('sk_new', queries[1]);
      // (it answers from a half-precision graph here: its scores are exact to 3 places)
      expect(back.index.search(queries[1], 1)[0].score).toBeCloseTo(1, 3);
      expect(back.index.has('sk_0')).toBe(false);
    });

    it('a truncated file, at any length, is refused with a reason and never throws', () => {
      const { path, index, dir } = fixture(300, annFrom);
      saveIndexFile(path, index, identity, 7);
      const files = readdirSync(dir).map((f) => join(dir, f));
      expect(files.length).toBe(tier === 'HNSW graph' ? 2 : 1);
      for (const file of files) {
        const whole = readFileSync(file);
        for (const keep of [0, 3, 15, 16, 40, Math.floor(whole.length / 2), whole.length - 1]) {
          truncateSync(file, keep);
          const got = loadIndexFile(path, identity, { annFrom });
          expect('reason' in got, `${file} cut to ${keep} bytes`).toBe(true);
          writeFileSync(file, whole);
        }
        expect('index' in loadIndexFile(path, identity, { annFrom })).toBe(true);
      }
    });

    it('a corrupt byte anywhere is detected', () => {
      const { path, index, dir } = fixture(300, annFrom);
      saveIndexFile(path, index, identity, 7);
      for (const file of readdirSync(dir).map((f) => join(dir, f))) {
        const whole = readFileSync(file);
        for (let at = 0; at < whole.length; at += Math.max(1, Math.floor(whole.length / 97))) {
          const bad = Buffer.from(whole);
          bad[at] ^= 0x5a;
          writeFileSync(file, bad);
          expect('reason' in loadIndexFile(path, identity, { annFrom }), `${file} byte ${at}`).toBe(true);
        }
        writeFileSync(file, whole);
      }
      expect(loaded(path, identity, annFrom).index.size).toBe(300);
    });

    it('is refused for another namespace, embedder, dimension or basis', () => {
      const { path, index } = fixture(200, annFrom);
      saveIndexFile(path, index, identity, 1);
      for (const other of [
        { namespace: 'x' },
        { embedderId: 'other@24' },
        { dimensions: 25 },
        { basis: 'store-2;centering=0' },
      ]) {
        const got = loadIndexFile(path, { ...identity, ...other }, { annFrom });
        expect(got).toEqual({ reason: expect.stringMatching(/another/) });
      }
    });
  });
}

describe('index file: files on disk', () => {
  it('a missing file or graph is a reason, not an error; saving again replaces the graph and removes stray files', () => {
    const { path, index, dir } = fixture(300, 100);
    expect(loadIndexFile(path, identity)).toEqual({ reason: 'no index file' });
    saveIndexFile(path, index, identity, 1);
    const graph = readdirSync(dir).find((f) => f.endsWith('.hnsw'))!;
    rmSync(join(dir, graph));
    expect(loadIndexFile(path, identity)).toEqual({ reason: 'graph file missing' });

    // A temporary file a killed writer left behind does not disturb a load or a save.
    writeFileSync(`${path}.1234-dead.tmp`, 'half a file');
    saveIndexFile(path, index, identity, 2);
    expect(loaded(path).revision).toBe(2);
    saveIndexFile(path, index, identity, 3);
    expect(loaded(path).revision).toBe(3);
    // Young strays may belong to a running writer and are kept; the file that matters is whole.
    expect(readdirSync(dir).filter((f) => f.endsWith('.idx'))).toEqual(['memory.db.recall-x.idx']);
  });

  it('a graph changed in place is checked in full, even with its modification time set back', () => {
    const { path, index, dir } = fixture(300, 100);
    saveIndexFile(path, index, identity, 1);
    const graph = join(dir, readdirSync(dir).find((f) => f.endsWith('.hnsw'))!);
    const whole = readFileSync(graph);
    const { atime, mtime } = statSync(graph);
    const bad = Buffer.from(whole);
    bad[Math.floor(bad.length / 3)] ^= 0x01;
    writeFileSync(graph, bad);
    utimesSync(graph, atime, mtime);
    expect(loadIndexFile(path, identity)).toEqual({ reason: 'graph checksum mismatch' });
    // The same bytes written back: the stamp no longer matches, the full check passes.
    writeFileSync(graph, whole);
    expect(loaded(path).index.size).toBe(300);
  });

  it('a graph built with other HNSW parameters than asked for is refused (rebuilt once), and loads when they match', () => {
    const { path } = fixture(1, 100);
    const data = clustered(200, 24, 20, 0.4, 9);
    const flat = new Float32Array(200 * 24);
    data.forEach((v, i) => {
      flat.set(v, i * 24);
    });
    const older = { connectivity: 16, expansionAdd: 128 };
    const ids = data.map((_, i) => `sk_${i}`);
    saveIndexFile(path, TieredIndex.build(24, ids, flat, { annFrom: 100, hnsw: older }), identity, 3);
    expect(loadIndexFile(path, identity, { annFrom: 100, hnsw: { connectivity: 24, expansionAdd: 200 } })).toEqual({
      reason: 'graph built with M 16, efConstruction 128; now 24, 200',
    });
    const back = loadIndexFile(path, identity, { annFrom: 100, hnsw: older });
    expect('reason' in back ? back.reason : back.index.size).toBe(200);
  });

  it('a file that is not an index is refused', () => {
    const { path } = fixture(1, 100);
    writeFileSync(path, 'SQLite format 3\0 and then some');
    expect(loadIndexFile(path, identity)).toEqual({ reason: 'not an index file' });
  });
});
