import { describe, expect, it } from 'vitest';
import { currentSessionId, leadingSessionId } from './gemini-session-id.js';
import { parseCaptureText } from './parse-file.js';

describe('the session a Gemini CLI log opens with', () => {
  it('reads the metadata record of a JSONL log, and the opening of an older one-document log cut short', () => {
    const meta = { sessionId: 'abc-1', projectHash: 'ff00', startTime: '2025-09-01T10:00:00.000Z', kind: 'main' };
    expect(leadingSessionId(`${JSON.stringify(meta)}\n{"id":"m1","type":"user","content":"hi"}\n`)).toBe('abc-1');
    const document = JSON.stringify(
      { ...meta, messages: [{ id: 'm1', type: 'user', content: 'x'.repeat(9000) }] },
      null,
      2,
    );
    expect(leadingSessionId(document.slice(0, 4096))).toBe('abc-1');
    // An escaped character in the id reads back as the log holds it.
    const odd = JSON.stringify({ sessionId: 'a"b', projectHash: 'p', messages: [{ content: 'y'.repeat(9000) }] });
    expect(leadingSessionId(odd.slice(0, 4096))).toBe('a"b');
  });

  it('names none for other logs, a message first, or a sessionId without the project hash', () => {
    expect(leadingSessionId('{"type":"user","sessionId":"x","message":{}}\n')).toBe(null);
    expect(leadingSessionId('{"id":"m1","type":"user","content":"hi"}\n')).toBe(null);
    expect(leadingSessionId('{"sessionId":"x"}\n')).toBe(null);
    expect(leadingSessionId('')).toBe(null);
    expect(leadingSessionId('{"sessionId": "x", "note": 1')).toBe(null);
  });
});

describe('the session a Gemini CLI log names now', () => {
  const meta = { sessionId: 'first-id', projectHash: 'ff00', startTime: '2025-09-01T10:00:00.000Z', kind: 'main' };
  const message = (n: number, type: 'user' | 'gemini', text: string) =>
    JSON.stringify({ id: `m${n}`, timestamp: `2025-09-01T10:0${n % 10}:00.000Z`, type, content: text });
  /** A log's lines: the metadata, a turn, then `middle`, then `turns` more turns of padding. */
  const log = (middle: unknown[], turns: number) =>
    `${[
      JSON.stringify(meta),
      message(1, 'user', 'Resume line L-7731'),
      JSON.stringify({
        id: 'm2',
        timestamp: '2025-09-01T10:02:00.000Z',
        type: 'gemini',
        content: 'Done.',
        toolCalls: [
          {
            id: 'run_shell_command-1',
            name: 'run_shell_command',
            args: { command: 'linectl resume L-7731' },
            status: 'success',
            result: [{ functionResponse: { id: 'run_shell_command-1', name: 'run_shell_command', response: {} } }],
          },
        ],
      }),
      ...middle.map((m) => JSON.stringify(m)),
      ...Array.from({ length: turns }, (_, i) => [
        message(10 + 2 * i, 'user', `question ${i} ${'x'.repeat(400)}`),
        message(11 + 2 * i, 'gemini', 'ok'),
      ]).flat(),
    ].join('\n')}\n`;
  /** What the recall hook reads of a log: its first 4 KB, and its last 64 KB. */
  const read = (text: string) => currentSessionId(text.slice(0, 4096), text.slice(-65536), text.length <= 65536);
  /** The id the ingest of the whole log stores its tasks under. */
  const ingested = (text: string) =>
    parseCaptureText(text, {
      file: 'session.jsonl',
      namespace: 'default',
      format: 'gemini',
      maxRecordBytes: 1_000_000,
      resultChars: 2000,
      maxCallsPerSession: 1000,
    }).bases[0];

  it('a later $set that changes the sessionId wins, as it does for the ingest; one without it changes nothing', () => {
    const changed = log(
      [{ $set: { sessionId: 'second-id', lastUpdated: '2025-09-01T10:03:00.000Z' } }, { $set: { lastUpdated: 'x' } }],
      20,
    );
    expect(changed.length).toBeGreaterThan(4096);
    expect(read(changed)).toBe('second-id');
    expect(ingested(changed)).toBe('gemini-cli:second-id');
    // A metadata record written again later counts as well.
    const again = log([{ ...meta, sessionId: 'third-id' }], 2);
    expect([read(again), ingested(again)]).toEqual(['third-id', 'gemini-cli:third-id']);
    // None: the id it opens with.
    expect(read(log([{ $set: { lastUpdated: 'x' } }], 2))).toBe('first-id');
    expect(read(log([{ $set: { sessionId: 7 } }], 2))).toBe('first-id');
  });

  it('reads only the last bytes: the cut first line is not read, a line still being written neither', () => {
    const set = JSON.stringify({ $set: { sessionId: 'cut-id' } });
    // The tail starts inside the $set line: whole, it would have been read; cut, it is not.
    expect(currentSessionId(JSON.stringify(meta), `${set}\n${message(3, 'user', 'hi')}\n`, true)).toBe('cut-id');
    expect(currentSessionId(JSON.stringify(meta), `${set}\n${message(3, 'user', 'hi')}\n`, false)).toBe('first-id');
    expect(currentSessionId(JSON.stringify(meta), `\n${set.slice(0, -4)}`, false)).toBe('first-id');
    // A $set further back than the last 64 KB is not seen: the id the log opens with stands.
    const far = log([{ $set: { sessionId: 'far-id' } }], 200);
    expect(far.length).toBeGreaterThan(65536 + 4096);
    expect(read(far)).toBe('first-id');
    // Not a Gemini CLI log: none, whatever its end holds.
    expect(currentSessionId('{"id":"m1","type":"user","content":"hi"}\n', `\n${set}\n`, false)).toBe(null);
  });
});
