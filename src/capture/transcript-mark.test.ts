import { appendFileSync, closeSync, mkdtempSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClaudeCodeContext } from './claude-code.js';
import {
  captureSettings,
  lineOffset,
  markHolds,
  newMark,
  parseMark,
  taskCount,
  taskIds,
  taskRuns,
  transcriptOf,
} from './transcript-mark.js';

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
  const mark = newMark(file, { offset, line: 3, size: file.size }, { format: 'claude-code', context }, {}, settings);
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
    for (const text of [null, '', '{', '[]', '{"v":1}', JSON.stringify({ v: 2 }), JSON.stringify({ v: 3 })])
      expect(parseMark(text)).toBeNull();
    // Runs that go backwards, or stand for more task ids than any session holds (nothing is spread out).
    const path = join(dir, 'runs.jsonl');
    writeFileSync(path, '{"a":1}\n{"b":2}\n');
    const fd = openSync(path, 'r');
    try {
      const mark = newMark(
        transcriptOf(fd),
        { offset: 8, line: 2, size: 16 },
        { format: 'claude-code', context },
        {},
        settings,
      );
      expect(parseMark(JSON.stringify(mark))).toEqual(mark);
      for (const runs of [[[5, 4]], [[1, 2e9]]])
        expect(parseMark(JSON.stringify({ ...mark, tasks: { s: runs } }))).toBeNull();
    } finally {
      closeSync(fd);
    }
  });

  it('keep the ids of the tasks before them short, and give them back as they were', () => {
    const base = 'codex:019c';
    const ids = {
      [base]: [base, ...Array.from({ length: 1999 }, (_, i) => `${base}#${i + 2}`)],
      'claude-code:s': ['claude-code:s#1', 'claude-code:s', 'claude-code:s#3', 'claude-code:s#5', 'sid_0a1b'],
      'gemini-cli:g': ['gemini-cli:g#2', 'gemini-cli:g#3', 'gemini-cli:g#02', 'gemini-cli:g#4x'],
    };
    const runs = taskRuns(ids);
    expect(runs[base]).toEqual([[1, 2000]]);
    expect(runs['claude-code:s']).toEqual(['claude-code:s#1', [1, 1], [3, 3], [5, 5], 'sid_0a1b']);
    expect(taskIds(runs)).toEqual(ids);
    expect(taskCount(runs)).toBe(2000 + 5 + 4);
    expect(JSON.stringify(runs[base]).length).toBeLessThan(20);
  });

  it('of version 1 (a Claude Code transcript, every task id listed) are read as the same mark', () => {
    const path = join(dir, 'v1.jsonl');
    writeFileSync(path, '{"a":1}\n{"b":2}\n{"c":3}\n');
    const fd = openSync(path, 'r');
    try {
      const file = transcriptOf(fd);
      const tasks = { 'claude-code:s': ['claude-code:s', 'claude-code:s#2'] };
      const mark = newMark(
        file,
        { offset: 16, line: 3, size: file.size },
        { format: 'claude-code', context },
        tasks,
        settings,
      );
      const { v: _v, format: _f, tasks: _t, ...place } = mark;
      const v1 = parseMark(JSON.stringify({ ...place, v: 1, tasks }));
      expect(v1).toEqual(mark);
      expect(v1 && taskIds(v1.tasks)).toEqual(tasks);
      expect(v1 && markHolds(transcriptOf(fd), v1, settings)).toBe(true);
    } finally {
      closeSync(fd);
    }
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
