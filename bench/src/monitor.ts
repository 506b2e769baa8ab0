// Small instruments for the benchmark: a progress line, an RSS sampler, a clock and percentiles.

import { loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A one-line progress bar on stderr when it is a terminal; plain lines for phase results either way. */
export class Progress {
  private readonly tty: boolean;
  private last = 0;
  private drawn = false;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {
    this.tty = !!stream.isTTY;
  }

  bar(label: string, done: number, total: number): void {
    if (!this.tty) return;
    const now = Date.now();
    if (now - this.last < 100 && done < total) return;
    this.last = now;
    const width = 28;
    const frac = total > 0 ? Math.min(1, done / total) : 0;
    const filled = Math.round(frac * width);
    const cols = this.stream.columns || 100;
    const text = `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}`;
    this.stream.write(`\r\x1b[2K${text.slice(0, cols - 1)}`);
    this.drawn = true;
  }

  line(message: string): void {
    this.clear();
    this.stream.write(`${message}\n`);
  }

  clear(): void {
    if (this.tty && this.drawn) this.stream.write('\r\x1b[2K');
    this.drawn = false;
  }
}

export interface PhaseMemory {
  /** RSS when the phase began, MB. */
  startMB: number;
  /** Highest RSS sampled during the phase, MB. */
  peakMB: number;
  /** RSS when the phase ended, MB. */
  endMB: number;
  /** 1-minute load average when the phase ended: above ~1 other processes shared the CPU. */
  load1: number;
}

/**
 * Samples `process.memoryUsage.rss()` on a timer and whenever `sample()` is called (the engine's hot loops
 * are synchronous, so the timer alone would miss them; the benchmark samples at every batch and progress
 * callback too). Keeps the overall peak and a peak per named phase.
 */
export class RssMonitor {
  peakMB = 0;
  readonly phases: Record<string, PhaseMemory> = {};
  private current: string | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(intervalMs = 20) {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  sample(): number {
    const mb = process.memoryUsage.rss() / 2 ** 20;
    if (mb > this.peakMB) this.peakMB = mb;
    if (this.current) {
      const p = this.phases[this.current];
      if (mb > p.peakMB) p.peakMB = mb;
      p.endMB = mb;
    }
    return mb;
  }

  begin(phase: string): void {
    this.end();
    const mb = process.memoryUsage.rss() / 2 ** 20;
    this.phases[phase] = { startMB: mb, peakMB: mb, endMB: mb, load1: loadavg()[0] };
    this.current = phase;
  }

  end(): void {
    if (this.current) {
      this.sample();
      this.phases[this.current].load1 = loadavg()[0];
    }
    this.current = null;
  }

  stop(): void {
    this.end();
    clearInterval(this.timer);
  }

  /** The kernel's high-water mark of this process's RSS, MB (cross-check of the sampled peak). */
  static kernelMaxMB(): number {
    return process.resourceUsage().maxRSS / 1024;
  }
}

/** Milliseconds from a monotonic clock. */
export const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/**
 * CPU milliseconds (user + system) used by this process so far, all threads included (V8's helper
 * threads too). Less sensitive than wall time to other processes sharing the machine.
 */
export const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Nearest-rank percentile (p in [0, 100]) of unsorted values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export const mean = (values: readonly number[]): number =>
  values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

let gcFunction: (() => void) | null | undefined;

/**
 * Runs a full garbage collection between phases, so each starts from a similar heap. Without
 * `--expose-gc` the flag is set at run time and `gc` taken from a fresh context (a no-op if that fails).
 */
export function collectGarbage(): void {
  if (gcFunction === undefined) {
    gcFunction = (globalThis as { gc?: () => void }).gc ?? null;
    if (!gcFunction) {
      try {
        setFlagsFromString('--expose-gc');
        gcFunction = runInNewContext('gc') as () => void;
      } catch {
        gcFunction = null;
      }
    }
  }
  gcFunction?.();
}
