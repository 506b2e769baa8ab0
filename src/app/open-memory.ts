import { InputError } from '../errors/index.js';
import { loadConfig, type SkillsmithConfigInput } from '../config/config.js';
import type { Distiller } from '../distillers/distiller.js';
import type { Embedder } from '../embedders/embedder.js';
import { createGloveEmbedder } from '../embedders/glove/glove-embedder.js';
import type { Store } from '../store/store.js';
import { createLogger, type Logger, type LogLevel } from '../support/log.js';
import { auditFileFor, openEmbedder, openStoreAt } from './backends.js';
import { Capture } from './capture.js';
import { Catalog } from './catalog.js';
import { Changes } from './changes.js';
import { RecallIndexes } from './recall-indexes.js';
import { AppContext, type Owned } from './context.js';
import { Memory } from './memory.js';
import { Outbox } from './outbox.js';
import { SkillFiles } from './skill-files.js';
import { PassLock, Synthesis } from './synthesis.js';

export interface OpenMemoryOptions {
  /** SQLite file path or postgres:// URL (default ./skillsmith.db or SKILLSMITH_DB), or a ready Store. */
  db?: string | Store;
  namespace?: string;
  config?: SkillsmithConfigInput;
  embedder?: Embedder;
  distiller?: Distiller;
  logLevel?: LogLevel;
  logger?: Logger;
  /** Injected clock (tests, replays). */
  now?: () => Date;
  /**
   * Append-only JSONL copy of the audit table (default: `<db>.audit.jsonl` beside a SQLite file; none for
   * PostgreSQL, whose audit table is the trail; null = none). The mark of how far the file got is kept in the memory,
   * one per path: on a PostgreSQL memory shared by several hosts, give a file on one host only.
   */
  auditFile?: string | null;
}

/**
 * The composition root. Opens the memory on the embedded defaults unless told otherwise: SQLite file, GloVe
 * embedder, heuristic distiller.
 */
export async function openMemory(opts: OpenMemoryOptions = {}): Promise<Memory> {
  // An empty path is better-sqlite3's throwaway database: everything learned would vanish at close, unsaid.
  if (typeof opts.db === 'string' && !opts.db.trim())
    throw new InputError(
      "openMemory: db is an empty string; give a SQLite file path, ':memory:' for a memory that lasts until close, or a postgres:// URL",
    );
  const config = loadConfig({ ...(opts.config ?? {}), ...(opts.namespace ? { namespace: opts.namespace } : {}) });
  const log = opts.logger ?? createLogger(opts.logLevel ?? config.logLevel);
  // Chosen by configuration, never swapped silently (SPEC "Distil", "Back ends").
  const owned: Owned[] = [];
  const own = <T extends Owned>(backEnd: T): T => {
    owned.push(backEnd);
    return backEnd;
  };
  const embedder =
    opts.embedder ??
    (config.disabled
      ? createGloveEmbedder()
      : config.embedder.provider === 'glove'
        ? await openEmbedder(config)
        : own(await openEmbedder(config)));
  // A misconfigured distiller fails here, loudly, rather than at the first pass.
  const distiller =
    opts.distiller ??
    (config.distiller === 'heuristic'
      ? null
      : own(await (await import('../distillers/create-distiller.js')).createDistiller(config, { log })));
  let store: Store | null = null;
  let auditFile: string | null = opts.auditFile ?? null;
  if (!config.disabled) {
    const path =
      typeof opts.db === 'object' ? null : (opts.db ?? (process.env.SKILLSMITH_DB || undefined) ?? './skillsmith.db');
    store = typeof opts.db === 'object' ? opts.db : await openStoreAt(path!, { log: log.child('store') });
    if (opts.auditFile === undefined && path) auditFile = auditFileFor(path);
  }
  const services = buildServices(
    new AppContext(store, config, embedder, log, opts.now ?? (() => new Date()), distiller, owned),
    auditFile,
  );
  // Event delivery starts after the events that exist now.
  await services.outbox.init();
  return new Memory(services);
}

/** Wires the services of one memory around its context. */
function buildServices(ctx: AppContext, auditFile: string | null) {
  const outbox = new Outbox(ctx.store, ctx.namespace, auditFile, ctx.log);
  const indexes = new RecallIndexes(ctx);
  const changes = new Changes(indexes, outbox);
  const lock = new PassLock(ctx);
  const synthesis = new Synthesis(ctx, lock, changes);
  const catalog = new Catalog(ctx, indexes, changes, lock, () => synthesis.noteFirstUse());
  const capture = new Capture(ctx, synthesis, catalog, lock, changes);
  synthesis.retainWith((namespace, before) => capture.forgetBefore(before, { namespace, actor: 'retention' }));
  const skillFiles = new SkillFiles(ctx, catalog, changes);
  return { ctx, outbox, indexes, capture, synthesis, catalog, skillFiles };
}
