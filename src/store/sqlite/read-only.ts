import type Database from 'better-sqlite3';
import { closeSync, existsSync, openSync, readFileSync, readSync, realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { BackendUnavailableError } from '../../errors/backend-unavailable-error.js';
import type { Logger } from '../../support/log.js';
import { mayAccess } from '../../support/file-access.js';
import { fileName, newDatabase } from './database.js';

/*
 * A SQLite memory this account may only read: a read-only mount (a Docker volume mounted :ro), a file another user
 * owns, a memory shared for recall only. It is read where it lies whenever SQLite can give, that way, exactly what
 * a writer committed; a copy in memory (the whole file read) is the fallback.
 *
 * Why a plain read-only open is not enough: a memory is in WAL mode, and SQLite reads a WAL file only through its
 * write-ahead log (PATH-wal) and that log's index (PATH-shm), which it creates beside the file when they are not
 * there. In a folder this account may not write it cannot, and the open fails ("attempt to write a readonly
 * database"), although nothing is to be written. So, by what lies beside the file:
 *
 * - `shared`: PATH-wal and PATH-shm are there (a process is writing the memory, or one stopped without closing it),
 *   or the file is in rollback-journal mode. SQLite reads it under its own locking, the log included, even with an
 *   index file it may not write (it then rebuilds the index in its own memory): what a writer commits is seen on the
 *   next read, as by any reader. Nothing is created (both files are there already; in a folder this account may
 *   write, a writer closing in the instant between the look and the open leaves SQLite to create them, as it does
 *   for any read-only connection).
 * - `immutable`: no log, or an empty one: the file alone is the memory as last committed. SQLite is told the file
 *   cannot change (`file:PATH?immutable=1`: no locks, no log, no index). It can, though: a process that may write
 *   it (through another mount, as its owner) can start at any time, and its checkpoint rewrites pages of the file.
 *   SQLite does not notice: a scan of an immutable open, paused while a writer deleted half of a table's rows and
 *   checkpointed, went on to return 7,052 rows of a table that held 12,998 before and 6,097 after, without an
 *   error. So this open keeps the file's inode, size, modification and change times as it found them, and every
 *   read is taken only when the file still has them afterwards; otherwise the file is opened again (as it then is)
 *   and the read made again. A log and index appearing beside it (a writer started) open it again too, as
 *   `shared`, so a long-lived process sees what is committed from then on. (The times are the file system's: to the
 *   nanosecond on Linux's local file systems; a network file system may report a change late.)
 * - `copy`: as `immutable`, but SQLite URI filenames are off in this process (see database.ts): the whole file is
 *   read into memory, checked the same way while it is read, and never changes after.
 *
 * A log that holds changes without its index beside it (a folder copied without PATH-shm, a writer that died while
 * closing) is refused: SQLite cannot replay it without writing the index, and the file alone would lack them.
 */

/** How a memory this account may only read was opened (see above). */
export type ReadOnlyHow = 'shared' | 'immutable' | 'copy';

/** Opens, or reads, made again when the file changed under them, before giving up. */
const ATTEMPTS = 5;

/**
 * True when the memory file exists and this account may not write it or its folder (a read-only mount, a file
 * another user owns): SQLite cannot open such a file in WAL mode for writing, nor create its -wal and -shm files.
 */
export function cannotWrite(path: string): boolean {
  return existsSync(path) && !(mayAccess(path, 'w') && mayAccess(dirname(path), 'w'));
}

/** The connection to a memory this account may only read, opened again when the file changes under it. */
export class ReadOnlyFile {
  db: Database.Database;
  how: ReadOnlyHow;
  /** Times the file was opened (1 after the first): what a read saw before is stale once it grows. */
  opens = 1;
  /** The file as an `immutable` open found it (null otherwise). */
  private stamp: string | null;

  constructor(
    readonly path: string,
    private readonly log?: Logger,
  ) {
    const c = connect(path);
    this.db = c.db;
    this.how = c.how;
    this.stamp = c.stamp;
    this.say(c, 'opened');
  }

  /**
   * Before a read: an `immutable` open is made again when the file is no longer as it found it, or a writer's log and
   * index appeared beside it. True when it was (statements prepared on the old connection are gone).
   */
  refresh(): boolean {
    if (this.how !== 'immutable') return false;
    if (stampOf(this.path) === this.stamp && !writerFiles(this.path)) return false;
    this.reopen();
    return true;
  }

  /** After a read: whether what it read came from the file as this connection found it. */
  unchanged(): boolean {
    return this.how !== 'immutable' || stampOf(this.path) === this.stamp;
  }

  /** Opens the file again as it is now. */
  reopen(): void {
    const c = connect(this.path);
    if (this.db.open) this.db.close();
    this.db = c.db;
    this.how = c.how;
    this.stamp = c.stamp;
    this.opens++;
    this.say(c, 'opened again (another process wrote it)');
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private say(c: Connection, what: string): void {
    if (c.how === 'copy')
      this.log?.info(`SQLite memory ${what} read-only from a copy in memory: ${c.why}`, { file: this.path });
    else this.log?.debug(`SQLite memory ${what} read-only in place`, { file: this.path, how: c.how });
  }
}

interface Connection {
  db: Database.Database;
  how: ReadOnlyHow;
  stamp: string | null;
  /** Why a copy. */
  why?: string;
}

function connect(path: string): Connection {
  const wal = `${path}-wal`;
  const shm = `${path}-shm`;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    if (!existsSync(path)) throw new BackendUnavailableError(`cannot open SQLite memory at ${path}: the file is gone`);
    if (!walMode(path) || writerFiles(path)) {
      let db: Database.Database | null = null;
      try {
        db = newDatabase(fileName(path), { readonly: true, fileMustExist: true });
        // The first read opens the log and its index.
        db.prepare('SELECT COUNT(*) FROM sqlite_schema').get();
        return { db, how: 'shared', stamp: null };
      } catch (e) {
        if (db?.open) db.close();
        // The writer closed meanwhile, removing both: look again.
        if (walMode(path) && !writerFiles(path)) continue;
        if (walMode(path) && !(mayAccess(wal, 'r') && mayAccess(shm, 'r')))
          throw new BackendUnavailableError(
            `cannot open SQLite memory at ${path}: this account may not write it or its folder, nor read its write-ahead log (${wal}) and that log's index (${shm}), which hold what was written last`,
            { cause: e },
          );
        throw e;
      }
    }
    // Taken before the log is looked at: a checkpoint that wrote the file since shows as another stamp below.
    const stamp = stampOf(path);
    const walBytes = sizeOf(wal);
    if (walBytes !== null && walBytes > 0) {
      // A writer that just started: its index is there by now.
      if (existsSync(shm)) continue;
      throw new BackendUnavailableError(
        `cannot open SQLite memory at ${path}: this account may not write it or its folder, and its write-ahead log (${wal}) holds changes not yet in the file, without the index (${shm}) SQLite needs to read them; open it once where it can be written (any command copies the log in), or copy the folder somewhere writable`,
      );
    }
    // No log to read: the file alone is the memory as last committed.
    const db = openImmutable(path);
    if (db) {
      if (stampOf(path) === stamp) return { db, how: 'immutable', stamp };
      db.close();
      continue;
    }
    const bytes = readFileSync(path);
    if (stampOf(path) !== stamp) continue;
    // A WAL-mode file (header bytes 18 and 19 are 2) read from memory is read as a rollback-journal one: same pages.
    if (bytes.length >= 100 && bytes[18] === 2 && bytes[19] === 2) bytes[18] = bytes[19] = 1;
    return {
      db: newDatabase(bytes, { readonly: true }),
      how: 'copy',
      stamp: null,
      why: 'SQLite URI filenames are off in this process (SQLITE_USE_URI=0, or better-sqlite3 loaded before Skillsmith), and reading a WAL-mode file where it lies, from a folder this account may not write, needs file:...?immutable=1',
    };
  }
  throw new BackendUnavailableError(
    `cannot open SQLite memory at ${path}: this account may not write it or its folder, and it kept changing while it was opened (another process is writing it); run the command again`,
  );
}

/**
 * The file opened as `file:PATH?immutable=1`; null when URI filenames are off in this process (SQLite then takes the
 * whole text for a file name, which is not there, or not this file).
 */
function openImmutable(path: string): Database.Database | null {
  const full = realpathSync(path);
  const uri = `file://${encodeURIComponent(full).replace(/%2F/g, '/')}?immutable=1`;
  let db: Database.Database;
  try {
    db = newDatabase(uri, { readonly: true, fileMustExist: true });
  } catch {
    return null;
  }
  const [main] = db.pragma('database_list') as { file?: string }[];
  if (main?.file === full) return db;
  db.close();
  return null;
}

/** A log and its index beside the file: a process has it open for writing, or stopped without closing it. */
function writerFiles(path: string): boolean {
  return existsSync(`${path}-wal`) && existsSync(`${path}-shm`);
}

/** Whether the file's header says WAL mode (bytes 18 and 19 are 2); false for anything else, SQLite or not. */
function walMode(path: string): boolean {
  const header = Buffer.alloc(20);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return false;
  }
  try {
    return readSync(fd, header, 0, 20, 0) === 20 && header[18] === 2 && header[19] === 2;
  } finally {
    closeSync(fd);
  }
}

/** The file as the file system sees it: device, inode, size, modification and change times (ns). */
function stampOf(path: string): string {
  try {
    const st = statSync(path, { bigint: true });
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch (e) {
    return `gone: ${(e as NodeJS.ErrnoException).code}`;
  }
}

function sizeOf(path: string): number | null {
  try {
    return statSync(path).size;
  } catch {
    return null;
  }
}
