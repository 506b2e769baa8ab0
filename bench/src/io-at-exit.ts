// Loaded with `node --import` into a process a benchmark times: on exit, writes to stderr what the process read and
// held, as its last lines: `read-bytes N` (rchar of /proc/self/io: every byte its read calls returned, the log, the
// database and its own modules alike) and `peak-rss-kb N` (VmHWM of /proc/self/status). Linux only; a line the
// kernel does not give is left out.
import { readFileSync } from 'node:fs';

function field(file: string, pattern: RegExp): string | null {
  try {
    return pattern.exec(readFileSync(file, 'utf8'))?.[1] ?? null;
  } catch {
    return null;
  }
}

process.on('exit', () => {
  const read = field('/proc/self/io', /^rchar:\s+(\d+)$/m);
  const peak = field('/proc/self/status', /^VmHWM:\s+(\d+) kB$/m);
  if (read) process.stderr.write(`read-bytes ${read}\n`);
  if (peak) process.stderr.write(`peak-rss-kb ${peak}\n`);
});
