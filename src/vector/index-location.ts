// Where a recall index file lives: beside a SQLite memory (it goes wherever the database goes, and is removed
// with it), or under a local cache directory for a networked store such as PostgreSQL (every host keeps its
// own copy, named by the store's location; the store id in the file's identity tells two databases apart).

import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface IndexLocationInput {
  storeKind: string;
  /** The store's location: a SQLite path, or a PostgreSQL URL without its password. */
  storeLocation: string;
  namespace: string;
  embedderId: string;
  /** Directory for networked stores (default: $XDG_CACHE_HOME or ~/.cache, then skillsmith/recall). */
  cacheDir?: string;
}

/** The index file's path, or null where there is nowhere to keep one (an in-memory database). */
export function recallIndexPath(input: IndexLocationInput): string | null {
  const tag = shortHash(`${input.namespace}\0${input.embedderId}`);
  if (input.storeKind === 'sqlite') {
    const loc = input.storeLocation;
    if (!loc || loc === ':memory:' || loc.startsWith('file::memory:')) return null;
    return `${loc}.recall-${tag}.idx`;
  }
  const dir = input.cacheDir ?? join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'skillsmith', 'recall');
  return join(dir, `${input.storeKind}-${shortHash(input.storeLocation)}-${tag}.idx`);
}

export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
