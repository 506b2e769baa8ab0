/**
 * Retention: which stored sessions are older than a cutoff. A session's time is when it ended, else when it
 * started (a session still open counts from its start). A time that does not read as a date (an imported log's
 * free-form `started_at`) dates nothing: such a session is kept and said, never forgotten on a guess. Pure.
 */
export interface SessionTime {
  id: string;
  startedAt: string | null;
  endedAt: string | null;
}

export interface Expiry {
  /** The sessions older than the cutoff, oldest first, each with the time it was judged by. */
  expired: { id: string; at: string }[];
  /** The sessions whose time reads as no date: kept. */
  undated: string[];
}

export function expiredSessions(sessions: readonly SessionTime[], before: Date): Expiry {
  const cutoff = before.getTime();
  const expired: { id: string; at: string; t: number }[] = [];
  const undated: string[] = [];
  for (const s of sessions) {
    const at = s.endedAt ?? s.startedAt;
    const t = at === null ? Number.NaN : Date.parse(at);
    if (Number.isNaN(t)) undated.push(s.id);
    else if (t < cutoff) expired.push({ id: s.id, at: new Date(t).toISOString(), t });
  }
  expired.sort((a, b) => a.t - b.t);
  return { expired: expired.map(({ id, at }) => ({ id, at })), undated };
}

/**
 * An age as people write it, `90d`, `12w`, `36h`, in milliseconds; a reason instead when it reads as none (a bare
 * number, another unit, zero).
 */
export function parseAge(text: string): number | string {
  const m = /^\s*(\d{1,6})\s*([hdw])\s*$/i.exec(text);
  if (!m) return `"${text}" is no age: write a number of hours, days or weeks, e.g. 36h, 90d, 12w`;
  const n = Number(m[1]);
  if (n === 0) return `"${text}" is no age: it must be at least 1${m[2]!.toLowerCase()}`;
  const hour = 3_600_000;
  return n * { h: hour, d: 24 * hour, w: 7 * 24 * hour }[m[2]!.toLowerCase() as 'h' | 'd' | 'w'];
}
