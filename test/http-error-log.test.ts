// A request the server fails on is logged with its path and error, redacted like everything else it keeps: a
// session id is a client's words and may be an email or carry a token (percent-encoded in the path, too).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { serveApi } from '../src/surfaces/http/server.js';
import { createLogger } from '../src/support/log.js';

const dir = mkdtempSync(join(tmpdir(), 'skillsmith-http-error-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the REST server log of a failed request', () => {
  it('names the method and path, without the email or token a session id carried', async () => {
    const lines: string[] = [];
    const memory = await openMemory({
      db: join(dir, 'memory.db'),
      logger: createLogger('debug', 'skillsmith', (l) => lines.push(l)),
    });
    const server = await serveApi(memory, { port: 0, webRoot: null });
    try {
      // The memory's database is gone under the server (a disk unmounted): every read fails with a 500.
      memory.parts.store!.close();
      const token = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
      const res = await fetch(`${server.url}/api/sessions/${encodeURIComponent(`jane.doe@example.com-${token}`)}`);
      expect(res.status).toBe(500);
      const failed = lines.filter((l) => l.includes('request failed'));
      expect(failed).toHaveLength(1);
      expect(JSON.parse(failed[0]!)).toMatchObject({ level: 'error', method: 'GET' });
      expect(failed[0]).toContain('/api/sessions/');
      for (const l of lines) {
        expect(l).not.toContain('jane.doe');
        expect(l).not.toContain('jane.doe%40');
        expect(l).not.toContain(token.slice(0, 12));
      }
    } finally {
      await server.close();
      await memory.close().catch(() => undefined);
    }
  });

  it('without an id that is stored as a keyed hash for credentials said in words (a PIN, an API key)', async () => {
    const lines: string[] = [];
    const memory = await openMemory({
      db: join(dir, 'prose.db'),
      logger: createLogger('debug', 'skillsmith', (l) => lines.push(l)),
    });
    const server = await serveApi(memory, { port: 0, webRoot: null });
    const ids = ['ticket my pin is 4921', `jane api key ${'8f3a9c2e4b6d1a0f'}3c5e7b9d`];
    try {
      // Stored, each is its keyed hash: no redaction of a log line may leave more of it than the store keeps.
      for (const id of ids) expect(memory.sessions.key(id)).toMatch(/^sid_[0-9a-f]{20}$/);
      memory.parts.store!.close();
      for (const id of ids) {
        const res = await fetch(`${server.url}/api/sessions/${encodeURIComponent(id)}`);
        expect(res.status).toBe(500);
      }
      expect(lines.filter((l) => l.includes('request failed'))).toHaveLength(2);
      for (const l of lines) {
        expect(l).not.toContain('4921');
        expect(l).not.toContain('8f3a9c2e4b6d1a0f');
      }
    } finally {
      await server.close();
      await memory.close().catch(() => undefined);
    }
  });
});
