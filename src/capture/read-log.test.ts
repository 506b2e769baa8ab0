import {
  appendFileSync,
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseCaptureStream, parseCaptureText, readsLineByLine } from './parse-file.js';
import { closeLog, LogLines, LogStream, openLog, openLogRange, rangeReadLimits } from './read-log.js';
import { lineOffset } from './transcript-mark.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'skillsmith-read-log-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function file(content: string | Buffer): string {
  const path = join(dir, `log-${++n}.jsonl`);
  writeFileSync(path, content);
  return path;
}

/** The rows a LogLines reading `chunk` bytes at a time gives, as text.split('\n') gives them. */
function rows(path: string, chunk: number): { text: string | null; last: boolean }[] {
  return [...new LogLines(path, chunk).rows()].map(({ text, last }) => ({ text, last }));
}

const splitRows = (path: string) => {
  const all = readFileSync(path).toString('utf8').split('\n');
  return all.map((text, i) => ({ text, last: i === all.length - 1 }));
};

/** What openLog gave, parsed as ingest parses it (capture/ingest.ts prepareCapture), and closed. */
async function parseLog(input: string | LogLines | LogStream, options = opts) {
  try {
    return input instanceof LogStream ? await parseCaptureStream(input, options) : parseCaptureText(input, options);
  } finally {
    closeLog(input);
  }
}

const opts = {
  file: 'log',
  namespace: 'ns',
  format: 'auto' as const,
  maxRecordBytes: 1 << 20,
  resultChars: 100,
  maxCallsPerSession: 1000,
  now: '2026-01-01T00:00:00.000Z',
};

describe('a log read line by line (LogLines)', () => {
  it('gives the rows of the text decoded whole, whatever the chunk size: lines across chunks, CRLF, UTF-8 cut', () => {
    const text = `{"a":"é€😀"}\r\n\n{"b":"${'x'.repeat(300)}"}\r\n  {"c":"中文 ü"}\n\n\n{"d":"last, no newline 😀"}`;
    const path = file(text);
    for (const chunk of [1, 2, 3, 5, 7, 64, 1 << 20])
      expect(rows(path, chunk), `chunk ${chunk}`).toEqual(splitRows(path));
    expect(rows(path, 3).at(-1)).toEqual({ text: '{"d":"last, no newline 😀"}', last: true });
  });

  it('an empty file is one empty row; a text ending in a newline ends in an empty one', () => {
    expect(rows(file(''), 4)).toEqual([{ text: '', last: true }]);
    expect(rows(file('{}\n'), 1)).toEqual([
      { text: '{}', last: false },
      { text: '', last: true },
    ]);
  });

  it('bytes that are not UTF-8 decode as in a whole read (U+FFFD), a newline ending a cut sequence', () => {
    const bytes = Buffer.concat([
      Buffer.from('{"a":"'),
      Buffer.from([0xe2, 0x82]), // a 3-byte character cut short by the newline
      Buffer.from('\n'),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from('"}\n'),
      Buffer.from([0xf0, 0x9f, 0x98]),
    ]);
    const path = file(bytes);
    for (const chunk of [1, 2, 3, 4, 1024]) expect(rows(path, chunk)).toEqual(splitRows(path));
  });

  it('its head is the start of the text', () => {
    const path = file(`${'😀'.repeat(10)}\n{}`);
    expect(new LogLines(path, 2).head(5)).toBe('😀'.repeat(10).slice(0, 5));
  });
});

describe('a part of an open log read line by line (openLogRange)', () => {
  it('gives the rows of those bytes only, and where each starts as lineOffset finds it in their text read whole', () => {
    const text = `{"a":"é€😀"}\r\n\n{"b":"${'x'.repeat(300)}"}\n  {"c":"中文 ü"}\n{"d":"last, no newline 😀"}`;
    const bytes = Buffer.from(text);
    const fd = openSync(file(bytes), 'r');
    try {
      const start = bytes.indexOf('\n') + 1;
      const part = bytes.subarray(start, bytes.length - 2).toString('utf8');
      for (const chunk of [1, 3, 64, 1 << 20]) {
        const lines = new LogLines('log', chunk, { fd, start, end: bytes.length - 2 });
        expect(lines.rowOffset(0)).toBeNull(); // no pass read to the end yet
        const all = part.split('\n');
        expect([...lines.rows()].map((r) => r.text)).toEqual(all);
        expect(lines.head(4)).toBe(part.slice(0, 4));
        for (let row = 0; row <= all.length; row++)
          expect(lines.rowOffset(row), `chunk ${chunk} row ${row}`).toBe(lineOffset(part, start, 7, 7 + row));
      }
    } finally {
      closeSync(fd);
    }
  });

  it('is read line by line past the limit of a whole read; a row holding U+FFFD leaves no offset, as read whole', () => {
    const bytes = Buffer.concat([Buffer.from('{"a":1}\n{"b":"'), Buffer.from([0xff]), Buffer.from('"}\n{"c":3}\n')]);
    const fd = openSync(file(bytes), 'r');
    const saved = { ...rangeReadLimits };
    rangeReadLimits.maxChars = 8;
    try {
      const lines = openLogRange(fd, 'log', 0, bytes.length, readsLineByLine);
      expect(lines).toBeInstanceOf(LogLines);
      expect(parseCaptureText(lines, opts)).toEqual(parseCaptureText(bytes.toString('utf8'), opts));
      expect(lineOffset(lines, 0, 1, 3)).toBeNull();
      expect(lineOffset(bytes.toString('utf8'), 0, 1, 3)).toBeNull();
      // A JSON document is read whole, up to the limit.
      expect(() => openLogRange(fd, 'doc', 0, bytes.length, () => false)).toThrow(/doc: is 26 bytes, more than the 8/);
    } finally {
      Object.assign(rangeReadLimits, saved);
      closeSync(fd);
    }
  });
});

describe('openLog', () => {
  it('reads JSONL line by line, past the size a whole read may hold; a JSON document larger than that is refused', async () => {
    const lines = Array.from({ length: 40 }, (_, i) =>
      JSON.stringify({
        messages: [
          { role: 'user', content: `task ${i}` },
          {
            role: 'assistant',
            tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'look', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: `c${i}`, content: 'ok' },
        ],
      }),
    );
    const jsonl = file(`${lines.join('\n')}\n`);
    const text = readFileSync(jsonl, 'utf8');
    expect(text.length).toBeGreaterThan(1000);
    // The limit of a whole read lowered to 1,000 characters: the JSONL file is read line by line all the same.
    const input = await openLog(jsonl, readsLineByLine, { maxChars: 1000, chunkBytes: 256 });
    expect(input).toBeInstanceOf(LogLines);
    const read = await parseLog(input);
    expect(read.sessions).toHaveLength(40);
    expect(read).toEqual(parseCaptureText(text, opts));

    // Compressed, it decompresses to more than the limit: read line by line as it is decompressed, all the same.
    const gz = file(gzipSync(text));
    const streamed = await openLog(gz, readsLineByLine, { maxChars: 1000, chunkBytes: 64 });
    expect(streamed).toBeInstanceOf(LogStream);
    expect(await parseLog(streamed)).toEqual(parseCaptureText(text, opts));

    const doc = file(`[${lines.join(',\n')}]`);
    await expect(openLog(doc, readsLineByLine, { maxChars: 1000 })).rejects.toThrow(
      /more than the 1,000 a log may hold .*split it between tasks/,
    );
    expect(typeof (await openLog(doc, readsLineByLine))).toBe('string');
    // A compressed document over the limit is refused once it decompresses past it.
    await expect(openLog(file(gzipSync(readFileSync(doc))), readsLineByLine, { maxChars: 1000 })).rejects.toThrow(
      /decompresses to more than the 1,000 a log may hold/,
    );
  });

  it('a pretty-printed document and a binary file are read whole; a gzip file of JSONL line by line as it decompresses', async () => {
    expect(typeof (await openLog(file('{\n  "messages": []\n}\n'), readsLineByLine))).toBe('string');
    expect(typeof (await openLog(file('\n\n  [{"messages": []}]'), readsLineByLine))).toBe('string');
    expect(await openLog(file(gzipSync('[{"a":1},\n{"b":2}]\n')), readsLineByLine)).toBe('[{"a":1},\n{"b":2}]\n');
    const gz = await openLog(file(gzipSync('{"a":1}\n{"b":2}\n')), readsLineByLine);
    expect(gz).toBeInstanceOf(LogStream);
    closeLog(gz);
    expect(typeof (await openLog(file(Buffer.alloc(100, 0)), readsLineByLine))).toBe('string');
    expect(typeof (await openLog(file(gzipSync(Buffer.alloc(100, 0))), readsLineByLine))).toBe('string');
    // One object a line, the first one alone on its line: JSONL.
    const plain = await openLog(file('{"a":1}\n{"b":2}\n'), readsLineByLine);
    expect(plain).toBeInstanceOf(LogLines);
    closeLog(plain);
    const one = await openLog(file('{"a":1}'), readsLineByLine);
    expect(one).toBeInstanceOf(LogLines);
    closeLog(one);
  });

  it('reads a file line by line as it reads it whole: problems, line numbers, an unfinished last line, emptiness', async () => {
    const cases = [
      '',
      '\n \r\n',
      '\uFEFF{"messages":[{"role":"user","content":"hi"}]}\n',
      '{"x":1}\n{"y":2}\n\n{"z":3}\r\n{"w":4}\n{"v":5}\n{"u":6}\n',
      'not json\n{"steps":[]}\n{"steps":[{"tool":"a","args":{},"result":"r"}],"goal":"g","id":"s1"}\n{"half":',
      `${'\u00A0'}{"only":"one"}${'\u00A0'}\n`,
      'plain text, no JSON at all\nmore of it\n',
    ];
    for (const text of cases) {
      const path = file(text);
      const input = await openLog(path, readsLineByLine, { chunkBytes: 3 });
      expect(input, JSON.stringify(text)).toBeInstanceOf(LogLines);
      expect(await parseLog(input), JSON.stringify(text)).toEqual(parseCaptureText(text, opts));
      // Compressed: read once, in order, as it is decompressed (its start held until it is judged).
      const gz = await openLog(file(gzipSync(text)), readsLineByLine, { chunkBytes: 3 });
      expect(gz, JSON.stringify(text)).toBeInstanceOf(LogStream);
      expect(await parseLog(gz), JSON.stringify(text)).toEqual(parseCaptureText(text, opts));
    }
  });

  it('reads a file as it was when it was opened: lines appended, or the file replaced, after that are not read', async () => {
    const record = (i: number) =>
      JSON.stringify({
        messages: [
          { role: 'user', content: `task ${i}` },
          {
            role: 'assistant',
            tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: `c${i}`, content: 'ok' },
        ],
      });
    const text = `${record(1)}\n${record(2)}\n`;
    const path = file(text);
    const input = await openLog(path, readsLineByLine, { chunkBytes: 16 });
    // Appended between the reads of its start and of its body, and the file then replaced by another.
    appendFileSync(path, `${record(3)}\nnot json\n`);
    const moved = `${path}.old`;
    renameSync(path, moved);
    writeFileSync(path, 'plain text now\n');
    expect(await parseLog(input)).toEqual(parseCaptureText(text, opts));
    // An empty file written to once it is open: still empty.
    const empty = file('');
    const none = await openLog(empty, readsLineByLine);
    appendFileSync(empty, `${record(4)}\n`);
    expect(await parseLog(none)).toEqual(parseCaptureText('', opts));
  });

  it('a file of bytes that are not UTF-8 is one problem', async () => {
    const path = file(Buffer.from(Array.from({ length: 400 }, (_, i) => 0x80 + (i % 100))));
    const input = await openLog(path, readsLineByLine, { chunkBytes: 16 });
    const read = await parseLog(input);
    expect(read.problems).toHaveLength(1);
    expect(read.problems[0]!.reason).toMatch(/not UTF-8 text/);
  });
});

describe('parseCaptureText of a LogLines', () => {
  it("counts a record's bytes as a whole read does: a byte that is not UTF-8 as the 3 of U+FFFD", () => {
    const record = (pad: Buffer) =>
      Buffer.concat([Buffer.from('{"messages":[{"role":"user","content":"'), pad, Buffer.from('"}]}\n')]);
    // 1,000 bytes in the file, 1,040 once decoded: over a 1,024-byte limit read either way.
    const path = file(
      Buffer.concat([
        record(Buffer.alloc(40, 0x61)),
        record(Buffer.concat([Buffer.alloc(940, 0x61), Buffer.alloc(20, 0xff)])),
      ]),
    );
    const small = { ...opts, maxRecordBytes: 1024, resultChars: 10 };
    const whole = parseCaptureText(readFileSync(path, 'utf8'), small);
    expect(whole.notes.some((n) => n.line === 2 && /over the 1024-byte limit/.test(n.reason))).toBe(true);
    expect(parseCaptureText(new LogLines(path, 64), small)).toEqual(whole);
  });

  it('a binary file given line by line is one problem, as given whole', () => {
    const path = file(Buffer.concat([Buffer.from('{"a":1}\n'), Buffer.alloc(200, 0), Buffer.from('\n{"b":2}\n')]));
    const whole = parseCaptureText(readFileSync(path, 'utf8'), opts);
    expect(whole.problems).toHaveLength(1);
    expect(parseCaptureText(new LogLines(path, 5), opts)).toEqual(whole);
  });
});

describe('openLog of a file that is not a regular one', () => {
  it('a named pipe of JSONL is read once, line by line as it comes (it cannot be read at an offset)', async () => {
    const { execFileSync, spawn } = await import('node:child_process');
    const fifo = join(dir, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    const text = '{"messages":[{"role":"user","content":"hi"}]}\n{"b":2}\n';
    const writer = spawn('sh', ['-c', `printf '%s' '${text}' > '${fifo}'`]);
    const input = await openLog(fifo, readsLineByLine);
    expect(input).toBeInstanceOf(LogStream);
    expect(await parseLog(input)).toEqual(parseCaptureText(text, opts));
    await new Promise((done) => writer.on('exit', done));
  });
});
