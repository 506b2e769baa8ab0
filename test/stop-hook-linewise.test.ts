import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedSessions, suiteMemories } from './support/hook-reads.js';
import { rangeReadLimits } from '../src/capture/read-log.js';
import { lineOffset, parseMark } from '../src/capture/transcript-mark.js';
import { writeBigTranscript } from './fixtures/big-transcript.mjs';

// The Stop hook (`ingest --hook`, memory.ingestTranscript) reads a JSONL transcript line by line as it parses it, as
// `ingest` does, never as one string: its first read of a long session (from byte 0) must not hold the whole file.
// With the whole-read limit lowered far below the transcripts' sizes (read-log.ts rangeReadLimits), the hook's whole
// read stores what one ingest of the file stores and leaves a mark at the byte a whole read would put it; the next
// stop reads on from it and the memory still matches an ingest of the whole file.

const CAPTURE = join(new URL('..', import.meta.url).pathname, 'test', 'fixtures', 'capture');
const saved = { ...rangeReadLimits };
const hooks = suiteMemories('stop-hook-linewise');
const fresh = hooks.fresh;

beforeAll(() => {
  // No part of these transcripts fits a whole read; chunks small enough that lines straddle them.
  rangeReadLimits.maxChars = 1000;
  rangeReadLimits.chunkBytes = 4096;
});

afterAll(() => {
  Object.assign(rangeReadLimits, saved);
});

const stored = storedSessions;

/** What one ingest of the whole file stores (as the hook reads it: its last task may not be over). */
async function ingested(log: string) {
  const memory = await fresh();
  await memory.ingestFile(log, { finished: false });
  return stored(memory);
}

const markOf = hooks.markOf;

/** A transcript's text cut at a line end about `share` of the way in, and the rest. */
function split(text: string, share: number): [string, string] {
  const at = share >= 1 ? text.length : text.indexOf('\n', Math.floor(text.length * share)) + 1;
  return [text.slice(0, at), text.slice(at)];
}

const codex = readFileSync(join(CAPTURE, 'codex-rollout-0.104.jsonl'), 'utf8');
const gemini = readFileSync(join(CAPTURE, 'gemini-cli-session.jsonl'), 'utf8');

describe('the Stop hook reads a transcript larger than a whole read holds line by line', () => {
  // Each transcript is cut at a line end `share` of the way in for the first stop (the fixtures of two tasks whole: a
  // part of them holds no mark yet), then written on for the next.
  const cases: [string, () => string, number][] = [
    [
      'a long Claude Code transcript',
      () => {
        const path = join(hooks.dir(), 'big.jsonl');
        writeBigTranscript(path, 1.5, 5);
        return readFileSync(path, 'utf8');
      },
      0.6,
    ],
    ['a Codex CLI rollout', () => codex, 1],
    ['a Gemini CLI session log', () => gemini, 1],
  ];

  it.each(cases)(
    '%s: its whole read stores what ingest stores and leaves the mark a whole read leaves',
    async (_, text, share) => {
      const all = text();
      expect(Buffer.byteLength(all)).toBeGreaterThan(rangeReadLimits.maxChars);
      const [first, rest] = split(all, share);
      const log = hooks.path('transcript.jsonl');
      writeFileSync(log, first);
      const hook = await fresh();

      // The first stop: no mark yet, the file read from byte 0.
      const whole = await hook.ingestTranscript(log, { finished: false });
      expect(whole.problems).toEqual([]);
      expect(whole.readFrom).toBeUndefined();
      expect(whole.inserted).toBeGreaterThan(0);
      expect(await stored(hook)).toEqual(await ingested(log));
      const mark = parseMark(markOf(hook));
      expect(mark).not.toBeNull();
      // Where a read of the text whole puts it, and a line start.
      expect(mark!.offset).toBe(lineOffset(first, 0, 1, mark!.line));
      expect(first[Buffer.from(first).subarray(0, mark!.offset).toString().length - 1]).toBe('\n');
      expect(mark!.size).toBe(Buffer.byteLength(first));

      // The next stop reads on from that mark, and the memory is what an ingest of the whole file gives.
      appendFileSync(log, rest);
      const on = await hook.ingestTranscript(log, { finished: false });
      expect(on.problems).toEqual([]);
      expect(on.readFrom).toEqual({ line: mark!.line, byte: mark!.offset });
      expect(await stored(hook)).toEqual(await ingested(log));
      const next = parseMark(markOf(hook))!;
      expect(next.offset).toBe(lineOffset(all, 0, 1, next.line));
      expect(next.size).toBe(Buffer.byteLength(all));
    },
  );
});
