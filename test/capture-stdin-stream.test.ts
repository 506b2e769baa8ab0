// `skillsmith ingest -` reads standard input once, in order, line by line as its bytes come (capture/read-log.ts
// LogStream), a gzip-compressed log piped in decompressed as it comes: through the real CLI, with the log piped to a
// child process, what it stores must be what a whole read of the text stores (the same results, sessions and calls).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { writeBigTranscript } from './fixtures/big-transcript.mjs';
import { testMemories } from './support/memories.js';
import { runCli } from './support/surfaces.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'capture');
const tmp = mkdtempSync(join(tmpdir(), 'skillsmith-stdin-stream-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const started = new Date().toISOString();
let n = 0;

/** Times taken when the test ran (a session's time when its log gives none) as one placeholder: two runs differ. */
function timeless(value: unknown): unknown {
  if (typeof value === 'string') return /^\d{4}-\d\d-\d\dT/.test(value) && value >= started ? 'NOW' : value;
  if (Array.isArray(value)) return value.map(timeless);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, timeless(v)]));
  return value;
}

async function storedIn(db: string) {
  const memory = await openMemory({ db, logLevel: 'silent' });
  try {
    return timeless(await memory.sessions.list({ limit: 10_000 }));
  } finally {
    await memory.close();
  }
}

const memories = testMemories('stdin-stream');

/** `ingest - --json` with `input` piped in: its results and what it stored. */
async function piped(input: Buffer) {
  const db = join(tmp, `m${++n}.db`);
  const r = runCli(['ingest', '-', '--db', db, '--judge', 'rule', '--json'], tmp, input);
  expect(r.code, r.stderr).not.toBe(2);
  return { results: timeless(JSON.parse(r.stdout)), stored: await storedIn(db), code: r.code };
}

/** What a whole read of the text, named stdin, stores (memory.ingestText of the string). */
async function whole(text: string) {
  const memory = await memories.fresh();
  const result = await memory.ingestText(text, { name: 'stdin', judge: 'rule' });
  return { result: timeless(result), stored: timeless(await memory.sessions.list({ limit: 10_000 })) };
}

const fixtures = readdirSync(FIXTURES).filter((f) => f.endsWith('.jsonl'));

describe('ingest - (standard input, plain or gzip) stores what a whole read of the text stores', () => {
  it.each(fixtures)('%s', async (name) => {
    const bytes = readFileSync(join(FIXTURES, name));
    const expected = await whole(bytes.toString('utf8'));
    for (const input of [bytes, gzipSync(bytes)]) {
      const got = await piped(input);
      expect(got.results).toEqual([expected.result]);
      expect(got.stored).toEqual(expected.stored);
    }
  });

  it('a long generated Claude Code transcript, its results cut as they come, secrets redacted', async () => {
    const path = join(tmp, 'long.jsonl');
    const written = writeBigTranscript(path, 4, 5);
    const bytes = readFileSync(path);
    const expected = await whole(bytes.toString('utf8'));
    expect((expected.stored as unknown[]).length).toBe(written.tasks);
    for (const input of [bytes, gzipSync(bytes)]) {
      const got = await piped(input);
      expect(got.results).toEqual([expected.result]);
      expect(got.stored).toEqual(expected.stored);
    }
  });

  it('a gzip cut short is a problem of stdin, nothing stored; a JSON document piped in is read whole', async () => {
    const bytes = readFileSync(join(FIXTURES, 'codex-rollout.jsonl'));
    const gz = gzipSync(bytes);
    const cut = await piped(gz.subarray(0, gz.length - 40));
    expect(cut.code).toBe(1);
    expect(cut.results).toMatchObject([
      { file: 'stdin', format: 'unread', inserted: 0, problems: [{ line: 1, reason: /does not decompress/ }] },
    ]);
    expect(cut.stored).toEqual([]);
    const doc = readFileSync(join(FIXTURES, 'openai-agents-history.json'));
    const expected = await whole(doc.toString('utf8'));
    const got = await piped(gzipSync(doc));
    expect(got.results).toEqual([expected.result]);
    expect(got.stored).toEqual(expected.stored);
  });
});
