import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { SkillsmithConfig } from '../config/config.js';
import type { BackendDeps, ReadyableEmbedder } from '../backends/from-config.js';
import { createGloveEmbedder } from '../embedders/glove/glove-embedder.js';
import type { ConfigError } from '../errors/config-error.js';
import { TransferError } from '../errors/transfer-error.js';
import { isPostgresUrl, openStore } from '../store/open-store.js';
import { sqliteForeignDatabase } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import type { Logger } from '../support/log.js';
import { mayAccess } from '../support/file-access.js';

/*
 * The one way to open a memory's store and its embedder: the composition root (`openMemory`) and the
 * commands that work on a store without a memory (doctor, reembed) all come through here.
 */

/** The store at a location: a SQLite file path, `:memory:`, or a postgres:// URL. */
export async function openStoreAt(location: string, opts: { log?: Logger } = {}): Promise<Store> {
  return openStore(location, opts.log ? { postgres: { log: opts.log }, log: opts.log } : {});
}

/** Whether a location names a PostgreSQL database (else a SQLite file, or `:memory:`). */
export function isPostgresLocation(location: string): boolean {
  return isPostgresUrl(location);
}

/**
 * Whether a memory is stored at a location, created by nothing: a SQLite file that exists, a PostgreSQL database
 * that holds Skillsmith's tables (one that cannot be reached counts as holding them: opening it says why).
 */
export async function storeExists(location: string): Promise<boolean> {
  if (location === ':memory:') return true;
  if (isPostgresUrl(location)) return (await import('../store/postgres/pg-store.js')).pgHoldsMemory(location.trim());
  return existsSync(location);
}

/**
 * Why opening the memory at a location would refuse it, found changing nothing: a SQLite database of another program,
 * a PostgreSQL schema whose tables of another program carry Skillsmith's names. Null when opening would not refuse it
 * for that (nor when nothing is there yet).
 */
export async function foreignStore(location: string): Promise<ConfigError | null> {
  if (location === ':memory:') return null;
  if (isPostgresUrl(location)) return (await import('../store/postgres/pg-store.js')).pgForeignTables(location.trim());
  return existsSync(location) ? sqliteForeignDatabase(location) : null;
}

/**
 * Whether this account may create a memory where none is yet: a SQLite file's nearest existing folder is writable;
 * a PostgreSQL user has CREATE on its schema (null: the server cannot say).
 */
export async function canCreateStore(location: string): Promise<{ can: boolean | null; why?: string }> {
  if (isPostgresUrl(location)) return (await import('../store/postgres/pg-store.js')).pgCanCreate(location.trim());
  let dir = dirname(resolve(location));
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return mayAccess(dir, 'w') ? { can: true } : { can: false, why: `this account may not write ${dir}` };
}

/**
 * The JSONL audit copy of a memory: beside a SQLite file; a shared PostgreSQL memory (or one in RAM) keeps its
 * audit table only.
 */
export function auditFileFor(location: string): string | null {
  return location !== ':memory:' && !isPostgresUrl(location) ? `${location}.audit.jsonl` : null;
}

/**
 * The embedder the configuration names. The embedded GloVe one is built in place (no factory import: the
 * CLI's cold start stays short); the others come from `createEmbedder` (probed unless `deps.probe` is false).
 */
export async function openEmbedder(config: SkillsmithConfig, deps: BackendDeps = {}): Promise<ReadyableEmbedder> {
  if (config.embedder.provider === 'glove') return createGloveEmbedder();
  const { createEmbedder } = await import('../backends/from-config.js');
  return createEmbedder(config, deps);
}

export type { TransferReport } from '../store/postgres/transfer.js';

/**
 * Copies the memory at `from` into the empty memory at `to` (SQLite path or postgres:// URL) and verifies it:
 * `skillsmith migrate`. Loaded on use, so commands that do not copy never load the PostgreSQL driver.
 */
export async function copyMemory(
  from: string,
  to: string,
): Promise<import('../store/postgres/transfer.js').TransferReport> {
  // A SQLite target writes its audit file from the copied audit table, in full, on first use: one already there
  // holds another memory's records (or this one's, from before it moved), which the copy would be appended to.
  const auditFile = auditFileFor(to);
  if (auditFile && existsSync(auditFile))
    throw new TransferError(
      `${auditFile} is already there, beside the target: it is the audit copy of another memory (or of this one, kept from before it moved). Move it away and run migrate again; the new memory writes its own, with every audit record, on first use`,
    );
  const { transferMemory } = await import('../store/postgres/transfer.js');
  return transferMemory(from, to);
}
