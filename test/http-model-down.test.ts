// A model server that stops answering while the API runs: REST says 503 (send it again later), not 500, and once
// the back end's circuit is open it says when it takes a call again (Retry-After).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { serveApi } from '../src/surfaces/http/server.js';
import { startFakeOpenAiServer } from './fixtures/fake-openai-server.js';
import { ROOT } from './support/surfaces.js';

const tmp = mkdtempSync(join(tmpdir(), 'skillsmith-model-down-'));
/** Words, not numbers: a goal's numbers are read as placeholders, so "service 1" and "service 2" embed alike. */
const SERVICES = ['billing', 'search', 'mailer', 'gateway', 'storage', 'payments', 'analytics', 'auth'];
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('REST with an embedding model that went down', () => {
  it('answers 503 naming the model server, then 503 with Retry-After while its circuit is open', async () => {
    const model = await startFakeOpenAiServer({ dims: 12 });
    const memory = await openMemory({
      db: join(tmp, 'm.db'),
      logLevel: 'silent',
      config: { embedder: { provider: 'openai', baseUrl: model.baseUrl, model: 'test-embed' } },
    });
    // One recallable skill, so a recall embeds its query (an empty memory answers without the model).
    await memory.skills.import(join(ROOT, 'test', 'fixtures', 'skills-import'));
    await memory.skills.promote('triage-support-ticket');
    const server = await serveApi(memory, { port: 0, webRoot: null });
    let asked = 0;
    // Each request another goal: an embedding already made is cached and needs no model.
    const recall = async () => {
      asked += 1;
      const res = await fetch(`${server.url}/api/recall`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Skillsmith-CSRF': '1' },
        body: JSON.stringify({ goal: `Rotate the ${SERVICES[asked % SERVICES.length]} API keys` }),
      });
      return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as any };
    };
    try {
      expect((await recall()).status).toBe(200);
      // The model server goes away: every request from now on is dropped without an answer. (Stopping it would
      // free its port for another test's server to take.)
      model.script('embeddings', ...Array.from({ length: 20 }, () => ({ kind: 'destroy' as const })));
      const down = await recall();
      expect(down.status).toBe(503);
      expect(down.body.error).toContain(`${model.baseUrl}/embeddings is unreachable`);
      expect(down.retryAfter).toBeNull();
      let open = down;
      for (let i = 0; i < 5 && open.retryAfter === null; i++) open = await recall();
      expect(open.status).toBe(503);
      expect(open.body.error).toMatch(/not calling it again before/);
      expect(Number(open.retryAfter)).toBeGreaterThan(0);
      expect(Number(open.retryAfter)).toBeLessThanOrEqual(60);
    } finally {
      await server.close();
      await memory.close();
    }
  });
});
