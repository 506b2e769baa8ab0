// One Stop hook process (`ingest --hook`) as the Stop-hook benchmarks time it: a new process on a transcript or
// log, with io-at-exit.ts loaded so it says what it read and held (stop-hook-bench.ts, stop-hook-logs.ts).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nowMs } from './monitor.js';

const IO_AT_EXIT = join(dirname(fileURLToPath(import.meta.url)), 'io-at-exit.js');

export interface HookSample {
  ms: number;
  /** Bytes its read calls returned (the log, the database, its own modules), in MB. */
  readMB: number;
  peakMB: number;
  /** Whether it read on from a mark a stop before left. */
  readFrom: boolean;
}

/** `cli ingest --hook` on `log` against `db`, in `home`: wall time, bytes read, peak RSS, whether it read on. */
export function runStopHook(cli: string, db: string, log: string, home: string): HookSample {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, SKILLSMITH_RECALL_DAEMON: '0' };
  for (const name of ['SKILLSMITH_DB', 'SKILLSMITH_CONFIG']) delete env[name];
  const input = JSON.stringify({ session_id: 'bench', transcript_path: log, hook_event_name: 'Stop' });
  const t0 = nowMs();
  const r = spawnSync(process.execPath, ['--import', IO_AT_EXIT, cli, 'ingest', '--hook', '--json', '--db', db], {
    cwd: home,
    env,
    input,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const ms = nowMs() - t0;
  if (r.status !== 0) throw new Error(`ingest --hook exited ${r.status}: ${r.stderr}`);
  const number = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(r.stderr)?.[1] ?? Number.NaN);
  const readFrom = (JSON.parse(r.stdout) as { readFrom?: unknown }[])[0]?.readFrom !== undefined;
  return { ms, readMB: number('read-bytes') / 1e6, peakMB: (number('peak-rss-kb') * 1024) / 1e6, readFrom };
}

/** A tool result made about `bytes` long with lines of a file the agent might have read (the `k`-th repeat's). */
export function padResult(text: string, bytes: number, k: number): string {
  const lines = [text];
  let size = text.length;
  for (let n = 1; size < bytes; n++) {
    const line = `  ${n + k}: const value${n} = compute(${n}, "${k}") // line of a file the agent read`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}
