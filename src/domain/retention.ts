/**
 * Retention: which stored sessions are older than a cutoff. A session's time is when it ended; one still open (an
 * agent still running, or one whose end never arrived) counts from its latest activity: its last call, else its
 * start, so a long-running agent's session is kept while it still records calls. A time that does not read as a date
 * (an imported log's free-form `started_at`) dates nothing: such a session is kept and said, never forgotten on a
 * guess. Pure.
 */
export interface SessionTime {
  id: string;
  startedAt: string | null;
  endedAt: string | null;
  /** The latest of its calls' times (as stored): read for a session still open, null when it has none. */
  lastCallAt?: string | null;
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
    const t = s.endedAt !== null ? time(s.endedAt) : latest(time(s.lastCallAt ?? null), time(s.startedAt));
    if (Number.isNaN(t)) undated.push(s.id);
    else if (t < cutoff) expired.push({ id: s.id, at: new Date(t).toISOString(), t });
  }
  expired.sort((a, b) => a.t - b.t);
  return { expired: expired.map(({ id, at }) => ({ id, at })), undated };
}

/**
 * A session's times as retention judges them, from the session itself: for one still open, the latest of its calls'
 * times by the instant each names (`10:00+02:00` is before `09:30Z`), as stored. A call time that reads as no date
 * counts only when none does (as the store's reading, sessionTimes, takes them).
 */
export function sessionTimeOf(s: {
  id: string;
  startedAt: string | null;
  endedAt: string | null;
  calls: readonly { at?: string | null }[];
}): SessionTime {
  let lastCallAt: string | null = null;
  let last = Number.NaN;
  if (s.endedAt === null)
    for (const c of s.calls) {
      if (c.at == null) continue;
      const t = time(c.at);
      const later = Number.isNaN(t)
        ? Number.isNaN(last) && (lastCallAt === null || c.at > lastCallAt)
        : Number.isNaN(last) || t > last || (t === last && c.at > lastCallAt!);
      if (later) {
        lastCallAt = c.at;
        last = t;
      }
    }
  return { id: s.id, startedAt: s.startedAt, endedAt: s.endedAt, lastCallAt };
}

/** A stored time in milliseconds, NaN when there is none or it reads as no date. */
function time(at: string | null): number {
  return at === null ? Number.NaN : Date.parse(at);
}

/** The later of two times, either of which may be NaN (NaN only when both are). */
function latest(a: number, b: number): number {
  if (Number.isNaN(a)) return b;
  if (Number.isNaN(b)) return a;
  return Math.max(a, b);
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

/**
 * A date as `--before` (and REST's `before`) takes it: `2026-09-01` (midnight UTC) or an ISO time; a reason instead
 * when it reads as none.
 */
export function parseDate(text: string): Date | string {
  const at = text.trim();
  const t = /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(at) ? Date.parse(at) : Number.NaN;
  return Number.isNaN(t) ? `"${text}" is no date: write 2026-09-01 or an ISO time` : new Date(t);
}

/**
 * The cutoff an age (`olderThan`, before `now`) or a date (`before`) names, sessions before it being forgotten; what
 * is wrong with it, each field called by its name on the surface (`names`); null when neither is given. Both given
 * is refused.
 */
export function retentionCutoff(
  given: { olderThan?: string; before?: string },
  now: number,
  names: { olderThan: string; before: string },
): Date | string | null {
  if (given.olderThan !== undefined && given.before !== undefined)
    return `give ${names.olderThan} or ${names.before}, not both`;
  if (given.olderThan !== undefined) {
    const ms = parseAge(given.olderThan);
    return typeof ms === 'string' ? `${names.olderThan}: ${ms}` : new Date(now - ms);
  }
  if (given.before === undefined) return null;
  const at = parseDate(given.before);
  return typeof at === 'string' ? `${names.before}: ${at}` : at;
}
