import Database from 'better-sqlite3';

/** Whether this module has loaded SQLite (the first connection of the process it makes). */
let loaded = false;

/**
 * A better-sqlite3 connection. The first one loads SQLite with URI filenames on: the binding reads
 * SQLITE_USE_URI once, as it loads, and never again; a memory this account may only read is opened where it lies
 * as `file:...?immutable=1` (read-only.ts), which SQLite reads only as a URI. The variable is set for that moment
 * and removed again (child processes do not inherit it). A process that set SQLITE_USE_URI itself keeps its
 * choice, and one that had loaded better-sqlite3 before keeps SQLite as it was loaded: read-only.ts then finds
 * URIs off and reads such a memory from a copy.
 */
export function newDatabase(filename: string | Buffer, options?: Database.Options): Database.Database {
  if (!loaded) {
    loaded = true;
    const env = process.env;
    const ours = env.SQLITE_USE_URI === undefined;
    if (ours) env.SQLITE_USE_URI = '1';
    try {
      new Database(':memory:').close();
    } finally {
      if (ours) delete env.SQLITE_USE_URI;
    }
  }
  return new Database(filename, options);
}

/**
 * A path given for a memory, as SQLite must take it: a file name, never a URI. With URI filenames on, a name that
 * starts with `file:` would be read as one; `./` in front keeps it the file it always named.
 */
export function fileName(path: string): string {
  return path.startsWith('file:') ? `./${path}` : path;
}
