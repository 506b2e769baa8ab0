/** A one-line progress bar on stderr, drawn only when stderr is a terminal. */
export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr) {
  const enabled = !!stream.isTTY;
  let last = 0;
  return {
    update(phase: string, done: number, total: number) {
      if (!enabled) return;
      const now = Date.now();
      if (now - last < 80 && done < total) return;
      last = now;
      const width = 24;
      const frac = total > 0 ? Math.min(1, done / total) : 0;
      const filled = Math.round(frac * width);
      stream.write(
        `\r${label} ${phase.padEnd(8)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}   `,
      );
    },
    done() {
      if (enabled) stream.write('\r\x1b[2K');
    },
  };
}
