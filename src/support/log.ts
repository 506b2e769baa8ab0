export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(component: string): Logger;
}

/** Structured log lines (one JSON object per line) on stderr, per component, filtered by level. */
export function createLogger(
  level: LogLevel = 'warn',
  component = 'skillsmith',
  sink: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Logger {
  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (rank[lvl] < rank[level]) return;
    sink(JSON.stringify({ t: new Date().toISOString(), level: lvl, component, msg, ...fields }));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (c) => createLogger(level, `${component}.${c}`, sink),
  };
}
