import Database from 'better-sqlite3';
import type { Memory } from '../../src/app/memory.js';

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
