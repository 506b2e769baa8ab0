import { readSync } from 'node:fs';

/** Reads into `target` from byte `position` of `fd` until it is full or the file ends; returns the bytes read. */
export function readAt(fd: number, target: Uint8Array, position: number): number {
  let done = 0;
  while (done < target.length) {
    const n = readSync(fd, target, done, target.length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}
