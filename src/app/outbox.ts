import { appendFileSync, closeSync, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
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
