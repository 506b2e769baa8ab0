const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * True when an error means "the server is not reachable right now" (down, restarting, network cut) rather
 * than "this statement is wrong": such work can wait and be retried; the other kind never succeeds.
 */
export function isConnectionError(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | null;
  if (!err || typeof err !== 'object') return false;
  const code = typeof err.code === 'string' ? err.code : '';
  // SQLSTATE class 08 (connection exception), 57P01-57P03 (admin/crash shutdown, cannot connect now).
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return true;
  if (NETWORK_CODES.has(code)) return true;
  const message = typeof err.message === 'string' ? err.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|Client was closed|terminating connection/i.test(
    message,
  );
}

/** One line for a lost connection: SQLSTATE and the first line of the message. */
export function connectionLossText(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown };
  const code = typeof err?.code === 'string' ? `${err.code} ` : '';
  return `${code}${String(err?.message ?? e).split('\n')[0]}`;
}
