// Where a recall index file lives: beside a SQLite memory (it goes wherever the database goes, and is removed
// with it), or under a local cache directory for a networked store such as PostgreSQL (every host keeps its
// own copy, named by the store's location; the store id in the file's identity tells two databases apart), and for
// a SQLite memory in a folder this account may not write, beside which its owner saved no index.

import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { mayAccess } from '../support/file-access.js';

export interface IndexLocationInput {
  storeKind: string;
  /** The store's location: a SQLite path, or a PostgreSQL URL without its password. */
  storeLocation: string;
  namespace: string;
  embedderId: string;
  /**
   * Directory for networked stores and read-only SQLite folders (default: $XDG_CACHE_HOME or ~/.cache, then
   * skillsmith/recall).
   */
  cacheDir?: string;
}

/** The index file's path, or null where there is nowhere to keep one (an in-memory database). */
export function recallIndexPath(input: IndexLocationInput): string | null {
  const tag = shortHash(`${input.namespace}\0${input.embedderId}`);
  if (input.storeKind === 'sqlite') {
    const loc = input.storeLocation;
    if (!loc || loc === ':memory:' || loc.startsWith('file::memory:')) return null;
    const beside = `${loc}.recall-${tag}.idx`;
    // A memory in a folder this account may not write (a read-only mount, another user's) keeps the index its
    // owner's processes saved beside it; when they saved none, this account keeps one in its cache, so that every
    // process does not build it again (minutes at 100k skills).
    if (existsSync(beside) || mayAccess(dirname(loc), 'w')) return beside;
    return join(cacheDir(input), `sqlite-${shortHash(realPathOf(loc))}-${tag}.idx`);
  }
  return join(cacheDir(input), `${input.storeKind}-${shortHash(input.storeLocation)}-${tag}.idx`);
}

function cacheDir(input: Pick<IndexLocationInput, 'cacheDir'>): string {
  return input.cacheDir ?? join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'skillsmith', 'recall');
}

/** The file's path with links resolved (two paths to one memory share a cache file), else the path as given. */
function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
