import type { SessionOutline } from '../../domain/types.js';
import type { Store } from '../../store/store.js';
import type { Logger } from '../../support/log.js';
import { stateKey } from '../../store/state-key.js';

/** Sessions read from the store at a time. */
const PAGE = 5000;

/**
 * Detect: the outlines of the sessions added since the watermark, a page at a time, at most `limit` in all (the
 * rest waits for the next pass; the watermark remembers). The caller handles a page before the next one is read.
 */
export async function* detectNewSessions(
  store: Store,
  namespace: string,
  watermark: number,
  limit: number,
  log: Logger,
): AsyncGenerator<SessionOutline[]> {
  let mark = watermark;
  let seen = 0;
  for (;;) {
    const page = await store.listSessionOutlinesAfter(namespace, mark, Math.min(PAGE, limit - seen));
    if (page.length === 0) return;
    yield page;
    mark = page[page.length - 1].seq!;
    seen += page.length;
    if (page.length < PAGE) return;
    if (seen >= limit) {
      log.info('pass bounded: the remaining sessions wait for the next pass', { limit });
      return;
    }
  }
}

/** Where the last pass with this embedder stopped (the `seq` of the last session it read). */
export async function readWatermark(store: Store, namespace: string, embedderId: string): Promise<number> {
  return Number((await store.getState(namespace, stateKey.watermark(embedderId))) ?? 0);
}
