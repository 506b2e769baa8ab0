import {
  appendFileSync,
  closeSync,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Store } from '../store/store.js';
import { EventBus, type BusEvent, type Listener, type SkillEventType } from '../support/event-bus.js';
import type { Logger } from '../support/log.js';
import { stateKey } from '../store/state-key.js';

/**
 * Delivers committed events to listeners and appends new audit records to the JSONL audit file. The tables
 * are the source of truth (an outbox): nothing is emitted for a write that did not commit.
 */
export class Outbox {
  readonly bus: EventBus;
  private lastEventId = 0;

  constructor(
    private readonly store: Store | null,
    private readonly namespace: string,
    private readonly auditFile: string | null,
    log: Logger,
  ) {
    this.bus = new EventBus(log.child('events'));
  }

  /** Starts delivery after the events that exist now. */
  async init(): Promise<void> {
    if (this.store) this.lastEventId = await this.store.lastEventId();
  }

  /** Subscribes to skill events; a listener that throws never breaks the operation that emitted. */
  on(type: SkillEventType | '*', listener: Listener): () => void {
    return this.bus.on(type, listener);
  }

  async flush(): Promise<void> {
    const store = this.store;
    if (!store) return;
    for (;;) {
      const batch = await store.events(this.namespace, { afterId: this.lastEventId, limit: 500 });
      for (const e of batch) this.bus.emit({ ...e, type: e.type as SkillEventType } as BusEvent);
      if (batch.length) this.lastEventId = batch[batch.length - 1].id;
      if (batch.length < 500) break;
    }
    // A read-only memory changes nothing to mirror, and could not keep the mark of what it mirrored.
    if (this.auditFile && !store.readOnly) {
      const key = stateKey.auditFileMark(markPath(this.auditFile));
      // Without a mark under its real path (an older version kept it under the path as typed then, which may not be
      // this one's): the last record the file holds.
      let mark = Number(
        (await store.getState('', key)) ??
          (await store.getState('', stateKey.auditFileMark(this.auditFile))) ??
          lastIdIn(this.auditFile),
      );
      for (;;) {
        const rows = await store.auditSince(mark, 1000);
        if (rows.length === 0) break;
        appendFileSync(this.auditFile, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
        mark = rows[rows.length - 1].id!;
        await store.setState('', key, String(mark));
        if (rows.length < 1000) break;
      }
    }
  }

  /**
   * After sessions were forgotten: the audit file's copies of records that named one of them by id (a trial's
   * `session`, a recall's move) are written again as the table holds them now, by the session's reference. The file
   * is append-only otherwise; this is the one rewrite, through a temporary file renamed over it. A line of the namespace
   * the table no longer holds (or one that is not a record) has each forgotten id it names replaced by its reference.
   */
  async forgotten(namespace: string, sessions: readonly { id: string; ref: string }[]): Promise<void> {
    const store = this.store;
    const file = this.auditFile;
    if (!store || !file || store.readOnly || sessions.length === 0) return;
    // As the file spells them (JSON strings): a line that spells none of them names none of them.
    const refOf = new Map(sessions.map((s) => [JSON.stringify(s.id), JSON.stringify(s.ref)]));
    // Another process may append meanwhile: the file is read again until it held still while it was rewritten.
    for (let attempt = 0; attempt < 5; attempt++) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        return;
      }
      const lines = text.split('\n');
      let changed = false;
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        const named = (line.match(JSON_STRING) ?? []).filter((x) => refOf.has(x));
        if (named.length === 0) continue;
        // Session ids are a namespace's own: another namespace's session of the same id was not forgotten.
        const record = recordOf(line);
        if (record && record.namespace !== namespace) continue;
        const [row] = record ? await store.auditSince(record.id - 1, 1) : [];
        let next = line;
        if (row && row.id === record!.id) next = JSON.stringify(row);
        else for (const id of named) next = next.split(id).join(refOf.get(id)!);
        if (next !== line) {
          lines[i] = next;
          changed = true;
        }
      }
      if (!changed) return;
      const tmp = `${file}.${process.pid}.tmp`;
      const { mode, size } = statSync(file);
      if (size !== Buffer.byteLength(text)) continue;
      writeFileSync(tmp, lines.join('\n'), { mode });
      renameSync(tmp, file);
      return;
    }
  }
}

/** A JSON string as a line of the audit file spells it, quotes included. */
const JSON_STRING = /"(?:[^"\\]|\\.)*"/g;

/** A line of the audit file as a record with an id and a namespace; null for a line that is not one. */
function recordOf(line: string): { id: number; namespace: unknown } | null {
  try {
    const r = JSON.parse(line) as { id?: unknown; namespace?: unknown } | null;
    return r && typeof r.id === 'number' && Number.isInteger(r.id) && r.id > 0
      ? { id: r.id, namespace: r.namespace }
      : null;
  } catch {
    return null;
  }
}

/**
 * The one name of an audit file, however it was given: `a.db`, `./a.db`, `/abs/a.db` and a path through a symlinked
 * folder are one file, and one mark (each spelling had its own, and each appended the whole trail again).
 */
function markPath(file: string): string {
  try {
    return join(realpathSync(dirname(resolve(file))), basename(file));
  } catch {
    return resolve(file);
  }
}

/** The id of the last record in an audit file (0: no file, or none readable at its end). */
function lastIdIn(file: string): number {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return 0;
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, 64 * 1024);
    const tail = Buffer.alloc(length);
    readSync(fd, tail, 0, length, size - length);
    const lines = tail.toString('utf8').trimEnd().split('\n');
    const id = (JSON.parse(lines[lines.length - 1] ?? '') as { id?: unknown }).id;
    return typeof id === 'number' && Number.isInteger(id) && id > 0 ? id : 0;
  } catch {
    return 0;
  } finally {
    closeSync(fd);
  }
}
