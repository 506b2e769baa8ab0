import { isPostgresUrl } from '../config/default-db.js';
import type { RecallConfig } from '../config/recall-config.js';
import { formatContextPack } from '../domain/context-pack.js';
import { InputError } from '../errors/input-error.js';
import { protectId } from '../domain/protect-id.js';
import { createGloveEmbedder } from '../embedders/glove/glove-embedder.js';
import { type NearestSkill, RecallIndex, type RecalledSkill, unclippedBody } from '../pipeline/recall.js';
import { openCurrentSqliteStore, type SqliteStore } from '../store/sqlite/sqlite-store.js';
import { createLogger, type LogLevel } from '../support/log.js';
import { auditFileFor } from './backends.js';
import { Outbox } from './outbox.js';
import type { RecallOptions } from './types.js';

const isBusy = (e: unknown) => (e as { code?: string } | null)?.code === 'SQLITE_BUSY';

/** How long a recall-only process waits for the write lock to record a recall (see writeRecalls). */
const RECALL_WRITE_WAIT_MS = 1000;

/** Longest fact or recall goal accepted (a goal of a recorded session is bounded by capture.maxRecordBytes). */
export const MAX_TEXT_CHARS = 64 * 1024;

/** Longest agent session id a recall is recorded under. */
const MAX_SESSION_ID = 1000;

/** A recall goal as the library accepts it: a string of at most MAX_TEXT_CHARS characters. */
export function checkGoal(
  goal: unknown,
  opts: { topK?: unknown; tools?: unknown; agentSession?: unknown } = {},
): asserts goal is string {
  if (typeof goal !== 'string') throw new InputError('recall: goal must be a string');
  if (goal.length > MAX_TEXT_CHARS)
    throw new InputError(`recall: goal is ${goal.length} characters, over the ${MAX_TEXT_CHARS} limit`);
  // A JavaScript caller's options, checked as the CLI and REST check theirs: topK -1 served every skill, and tools
  // as a string was read letter by letter.
  const { topK, tools, agentSession } = opts;
  if (agentSession !== undefined && !(typeof agentSession === 'string' && agentSession.length <= MAX_SESSION_ID))
    throw new InputError(`recall: agentSession must be a session id of at most ${MAX_SESSION_ID} characters`);
  if (topK !== undefined && !(Number.isInteger(topK) && (topK as number) >= 1))
    throw new InputError(`recall: topK must be a whole number of 1 or more, not ${JSON.stringify(topK)}`);
  if (tools !== undefined && !(Array.isArray(tools) && tools.every((t) => typeof t === 'string' && t.length > 0)))
    throw new InputError('recall: tools must be an array of tool names (non-empty strings)');
}

/**
 * The stored key of the session a recall is recorded under: the recorded session's (`sessionId`), else the
 * agent's session not recorded yet (`agentSession`); null for none.
 */
export function agentSessionKey(
  opts: { sessionId?: string; agentSession?: string },
  key: (id: string) => string,
): string | null {
  const id = opts.sessionId || opts.agentSession;
  return id ? key(id) : null;
}

/** Union of the recalled skills' tools, for callers that load tools per turn. */
export function toolsOf(skills: RecalledSkill[]): string[] {
  return [...new Set(skills.flatMap((s) => s.toolsRequired))];
}

/** The prompt block for recalled skills, each made to fit `maxBodyChars` from its whole body (context-pack.ts). */
export function contextPack(skills: RecalledSkill[], maxBodyChars: number): string {
  return formatContextPack(
    skills.map((s) => ({ ...s, body: unclippedBody(s) })),
    maxBodyChars,
  );
}

/** What `openRecallOnly` gives: `Memory.recall`, `formatContext`, `toolsFor` and `close`, and nothing else. */
export interface RecallOnlyMemory {
  recall(goal: string, opts?: Pick<RecallOptions, 'topK' | 'tools' | 'agentSession'>): Promise<RecalledSkill[]>;
  nearest(goal: string, opts?: Pick<RecallOptions, 'tools'>): Promise<NearestSkill | null>;
  formatContext(skills: RecalledSkill[]): string;
  toolsFor(skills: RecalledSkill[]): string[];
  /**
   * Leaves the memory as closing it would, and keeps it open: the recalls recorded are written, the audit file
   * brought up to date and the index file saved if due (a long-lived process, after each request).
   */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A second composition root, for a process that only recalls (a hook running `skillsmith recall` on every
 * prompt): the SQLite store, the GloVe embedder and one namespace's recall index, without the services a recall
 * never calls (capture, synthesis, the catalogue's writes, skill files), the configuration schema or migrations.
 * It behaves as `openMemory(...).recall()` does for the same memory and settings: the same hits, the recall
 * recorded, the audit file brought up to date and the index file saved on close.
 *
 * Null when this memory needs the full open: a PostgreSQL URL, a file that does not exist yet or whose schema
 * is not the latest (the full open creates or migrates it), or a file that does not open.
 */
export async function openRecallOnly(opts: {
  db: string;
  config: RecallConfig;
  logLevel: LogLevel;
  /** Where log lines go (default stderr). */
  logSink?: (line: string) => void;
}): Promise<RecallOnlyMemory | null> {
  const { config } = opts;
  if (config.embedder.provider !== 'glove') return null;
  const log = createLogger(opts.logLevel, undefined, opts.logSink);
  let store: SqliteStore | null = null;
  if (!config.disabled) {
    if (opts.db === ':memory:' || isPostgresUrl(opts.db)) return null;
    // A recall writes only the record of what it served: it does not wait long for another process's write lock.
    store = openCurrentSqliteStore(opts.db, { busyTimeoutMs: RECALL_WRITE_WAIT_MS, log: log.child('store') });
    if (!store) return null;
  }
  const recallLog = log.child('recall');
  const embedder = createGloveEmbedder();
  const outbox = new Outbox(store, config.namespace, store ? auditFileFor(opts.db) : null, log);
  await outbox.init();
  const index = store ? new RecallIndex(store, embedder, config.namespace, config, recallLog) : null;
  const threshold = config.thresholds.recall ?? embedder.thresholds.recall;
  /**
   * The record of what was served, written if the memory's write lock comes free soon: a recall that another process
   * (a synthesis pass, an ingest) keeps waiting has answered already, and its record is only the skills' last use.
   */
  const writeRecalls = () => {
    try {
      store?.flushRecalls();
    } catch (e) {
      if (!isBusy(e)) throw e;
      log.info('recall not recorded: another process holds the memory for writing', { error: String(e) });
    }
  };
  // The audit file catches up on the next open when the write lock is held now.
  const flushAudit = () =>
    outbox.flush().catch((e) => (isBusy(e) ? log.info : log.warn)('final flush failed', { error: String(e) }));
  return {
    async recall(goal, { topK, tools, agentSession } = {}) {
      checkGoal(goal, { topK, tools, agentSession });
      if (!index) return [];
      // Keyed as the full open keys it: this path runs only with the default capture privacy (recallConfig).
      const sessionId = agentSessionKey({ agentSession }, (id) => protectId({ salt: '' }, id, 'sid'));
      const hits = await index.recall(goal, { topK, threshold, now: new Date(), touch: true, tools, sessionId });
      recallLog.debug('recall', { served: hits.map((h) => h.name), session: agentSession ?? null });
      return hits;
    },
    async nearest(goal, { tools } = {}) {
      checkGoal(goal, { tools });
      if (!index) return null;
      return index.nearest(goal, { threshold, now: new Date(), tools });
    },
    formatContext: (skills) => contextPack(skills, config.recall.maxBodyChars),
    toolsFor: toolsOf,
    async sync() {
      writeRecalls();
      await flushAudit();
      index?.persist();
    },
    async close() {
      // As Memory.close: the audit file, then the index file, then the store (which writes pending recalls).
      await flushAudit();
      index?.persist();
      writeRecalls();
      await store?.close();
    },
  };
}
