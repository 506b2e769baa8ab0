import { appendFileSync, closeSync, mkdtempSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClaudeCodeContext } from './claude-code.js';
import { captureSettings, lineOffset, markHolds, newMark, parseMark, transcriptOf } from './transcript-mark.js';

const context: ClaudeCodeContext = {
  sessionId: 's',
  segment: { id: 's', from: 0 },
  stored: { 'claude-code:s': 1 },
  cwd: null,
  branch: null,
  version: null,
  promptParents: ['p'],
  rewound: [],
};
const settings = captureSettings({ resultChars: 2000, maxRecordBytes: 1_000_000, maxCallsPerSession: 1000 });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'skillsmith-mark-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A mark at the start of line 3 of the file as it is now, and whether it holds after `change`. */
function holdsAfter(path: string, change: () => void, otherSettings = settings): boolean {
  const text = '{"a":1}\n{"b":"é"}\n{"c":3}\n';
  writeFileSync(path, text);
  let fd = openSync(path, 'r');
  const file = transcriptOf(fd);
  const offset = lineOffset(text, 0, 1, 3)!;
  const mark = newMark(file, { offset, line: 3, size: file.size }, context, {}, settings);
  closeSync(fd);
  expect(parseMark(JSON.stringify(mark))).toEqual(mark);
  change();
  fd = openSync(path, 'r');
  try {
    return markHolds(transcriptOf(fd), mark, otherSettings);
  } finally {
    closeSync(fd);
  }
}

describe('transcript marks', () => {
  it('give the byte offset of a line, counting multi-byte characters as bytes', () => {
    const text = '{"a":"é"}\n{"b":"日本"}\n{"c":1}\n';
    expect(lineOffset(text, 0, 1, 2)).toBe(Buffer.byteLength('{"a":"é"}\n'));
    expect(lineOffset(text, 100, 5, 7)).toBe(100 + Buffer.byteLength('{"a":"é"}\n{"b":"日本"}\n'));
    // Past the text's last line, or a text whose bytes it may not be (a replacement character): none.
    expect(lineOffset(text, 0, 1, 9)).toBeNull();
    expect(lineOffset('{"a":"\uFFFD"}\n{}\n', 0, 1, 2)).toBeNull();
  });

  it('hold while the file only grows, and not once it is replaced, cut, rewritten or read with other settings', () => {
    const path = join(dir, 't.jsonl');
    expect(holdsAfter(path, () => appendFileSync(path, '{"d":4}\n'))).toBe(true);
    expect(holdsAfter(path, () => {})).toBe(true);
    expect(
      holdsAfter(path, () => {
        // Another file with the same lines moved into its place (another inode: the old one is still there).
        writeFileSync(`${path}.new`, '{"a":1}\n{"b":"é"}\n{"c":3}\n');
        renameSync(`${path}.new`, path);
      }),
    ).toBe(false);
    expect(holdsAfter(path, () => writeFileSync(path, '{"a":1}\n'))).toBe(false);
    expect(holdsAfter(path, () => writeFileSync(path, '{"a":1}\n{"b":"e!"}\n{"c":3}\n'))).toBe(false);
    expect(holdsAfter(path, () => writeFileSync(path, '{"a":2}\n{"b":"é"}\n{"c":3}\n'))).toBe(false);
    const other = captureSettings({ resultChars: 500, maxRecordBytes: 1_000_000, maxCallsPerSession: 1000 });
    expect(holdsAfter(path, () => {}, other)).toBe(false);
  });

  it('that cannot be read are none', () => {
    for (const text of [null, '', '{', '[]', '{"v":1}', JSON.stringify({ v: 2 })]) expect(parseMark(text)).toBeNull();
  });

  it('keep the privacy salt only as a hash', () => {
    const salted = captureSettings({
      resultChars: 2000,
      maxRecordBytes: 1_000_000,
      maxCallsPerSession: 1000,
      privacy: { salt: 'a-secret-salt' },
    });
    expect(salted).not.toContain('a-secret-salt');
    expect(salted).not.toBe(settings);
  });
});
