import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll } from 'vitest';
import type { Memory } from '../../src/app/memory.js';
import { openMemory } from '../../src/app/open-memory.js';

/** Every stored session of a memory, as stored (without `seq`, which differs between two memories), by id. */
export async function storedSessions(memory: Memory) {
  const list = await memory.sessions.list({ limit: 10_000 });
  return list
    .map((s) => {
      const { seq: _seq, ...session } = s as typeof s & { seq?: number };
      return session;
    })
    .sort((a, b) => a.id.localeCompare(b.id));
}

/** The mark a hook keeps for its transcript in the SQLite memory at `db` (one transcript per memory), as stored. */
export function transcriptMark(db: string): string {
  const sql = new Database(db, { readonly: true });
  try {
    return (sql.prepare("SELECT value FROM state WHERE key LIKE 'transcript:%'").get() as { value: string }).value;
  } finally {
    sql.close();
  }
}

/**
 * The memories of one hook suite, each a SQLite file in a folder of its own that is deleted after the suite (with every
 * memory opened here closed first). `path(name)` is a new path in that folder, numbered so none is given twice; `markOf`
 * reads a memory's transcript mark.
 */
export function suiteMemories(name: string) {
  let dir = '';
  let counter = 0;
  const opened: Memory[] = [];
  const dbOf = new Map<Memory, string>();
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), `skillsmith-${name}-`));
  });
  afterAll(async () => {
    for (const m of opened.splice(0)) await m.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const at = async (db: string): Promise<Memory> => {
    const memory = await openMemory({ db, logLevel: 'silent' });
    opened.push(memory);
    dbOf.set(memory, db);
    return memory;
  };
  return {
    /** The suite's folder (set once the suite has begun). */
    dir: () => dir,
    /** A path in the suite's folder no other call gave: `<n>-name` (`name` may be empty). */
    path: (file: string) => join(dir, `${++counter}-${file}`),
    at,
    fresh: () => at(join(dir, `memory-${++counter}.db`)),
    dbOf: (memory: Memory) => dbOf.get(memory)!,
    markOf: (memory: Memory) => transcriptMark(dbOf.get(memory)!),
  };
}
