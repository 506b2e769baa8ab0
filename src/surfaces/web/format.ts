/** Display helpers: short, locale-aware, never throwing on missing values. */

export function date(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const s = Math.round((now - new Date(iso).getTime()) / 1000);
  if (!Number.isFinite(s)) return iso;
  if (s < 60) return 'just now';
  const units: [number, string][] = [
    [60, 'minute'],
    [3600, 'hour'],
    [86400, 'day'],
    [2592000, 'month'],
    [31536000, 'year'],
  ];
  let [size, name] = units[0];
  for (const u of units) if (s >= u[0]) [size, name] = u;
  const n = Math.floor(s / size);
  return `${n} ${name}${n === 1 ? '' : 's'} ago`;
}

export const num = (x: number, digits = 2) => x.toFixed(digits);

export function ratio(successes: number, attempts: number): string {
  return attempts ? `${successes}/${attempts} (${Math.round((100 * successes) / attempts)}%)` : '—';
}

/**
 * A skill's trials since it was learned, as the skills table and its page both say them: `3/4 passed (75%), 1 judged`
 * (judged: the outcome judge read the task, nobody reported it), or `no trials yet`.
 */
export function trialsText(s: { trialsPassed: number; trialsAttempted: number; judgedTrials: number }): string {
  if (!s.trialsAttempted) return 'no trials yet';
  const judged = s.judgedTrials ? `, ${s.judgedTrials} judged` : '';
  return `${s.trialsPassed}/${s.trialsAttempted} passed (${Math.round((100 * s.trialsPassed) / s.trialsAttempted)}%)${judged}`;
}

export function clipText(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${firstUnits(t, max - 1)}…` : t;
}

/**
 * At most the first `max` UTF-16 code units of a text, one fewer when the last would be the first half of a
 * character written with two (an emoji, a rarer Chinese character): a cut never shows half a character as �.
 */
export function firstUnits(text: string, max: number): string {
  if (text.length <= max) return text;
  const c = text.charCodeAt(max - 1);
  return text.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 1 : max);
}
