import { describe, expect, it } from 'vitest';
import { leadingSessionId } from './gemini-session-id.js';

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
