import { basename } from 'node:path';
import { Hono } from 'hono';
import type { Memory } from '../../../app/memory.js';
import { unreachableStoreText } from '../../../app/store-errors.js';

/** Health (public: no data; whether the memory answers) and stats (counts the dashboard header shows). */
export function statusRoutes(memory: Memory, version: string): Hono {
  const app = new Hono();

  // Whether the server runs and its memory answers: a database that cannot be reached (a PostgreSQL server down or
  // restarting) is 503 with `ok: false`, so a load balancer or a supervisor sees it.
  app.get('/health', async (c) => {
    try {
      await memory.events.lastId();
    } catch (e) {
      const error = unreachableStoreText(e);
      if (!error) throw e;
      return c.json({ ok: false, name: 'skillsmith', version, store: 'unreachable', error }, 503);
    }
    return c.json({ ok: true, name: 'skillsmith', version, store: 'ok' });
  });

  app.get('/stats', async (c) => {
    const all = await memory.skills.list({ includeSuperseded: true });
    const live = all.filter((s) => !s.supersededBy);
    const count = <K extends string>(keys: readonly K[], of: (s: (typeof all)[number]) => K) =>
      Object.fromEntries(keys.map((k) => [k, live.filter((s) => of(s) === k).length])) as Record<K, number>;
    return c.json({
      namespace: memory.namespace,
      skills: {
        live: live.length,
        superseded: all.length - live.length,
        enabled: live.filter((s) => s.enabled).length,
        byStatus: count(['probationary', 'active', 'retired'], (s) => s.status),
        byCorpus: count(['internal', 'external'], (s) => s.corpus),
        meanEta: live.length ? live.reduce((a, s) => a + s.eta, 0) / live.length : null,
      },
      sessions: { total: await memory.sessions.count() },
      lastEventId: await memory.events.lastId(),
      backends: backends(memory),
      // What a skill needs, as this memory is configured: the dashboard's empty catalogue says it.
      synthesis: { minOccurrences: memory.config.synthesis.minOccurrences },
    });
  });

  return app;
}

/**
 * Which models learn and match, as names only (no URL, no key): the embedder's versioned id and the
 * configured distiller (`heuristic`, or `llm:<provider>:<model>` plus its fallback).
 */
function backends(memory: Memory): { embedder: string; distiller: string } {
  const { distiller, llm } = memory.config;
  if (distiller === 'heuristic') return { embedder: memory.parts.embedder.id, distiller: 'heuristic' };
  const model =
    llm.provider === 'llama-cpp' ? basename(llm.modelPath ?? '').replace(/\.gguf$/i, '') : (llm.model ?? '');
  return {
    embedder: memory.parts.embedder.id,
    distiller: `llm:${llm.provider}:${model}${llm.fallback === 'heuristic' ? ' (fallback: heuristic)' : ''}`,
  };
}
