import { h, s } from './dom.js';
import { date, num } from './format.js';

export interface TrackPoint {
  at: string;
  eta: number;
  utility: number | null;
  signal: string;
  status: string;
}

const W = 640;
const H = 220;
const PAD = { left: 40, right: 16, top: 16, bottom: 36 };

/**
 * The track record as an inline SVG line chart: eta and utility (both 0..1) after each signal, in order.
 * The same numbers follow in a table for people who do not read charts.
 */
export function trackChart(track: TrackPoint[]): HTMLElement {
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (track.length < 2 ? plotW / 2 : (i * plotW) / (track.length - 1));
  const y = (v: number) => PAD.top + (1 - Math.max(0, Math.min(1, v))) * plotH;
  const line = (pick: (p: TrackPoint) => number | null, cls: string) => {
    const pts = track.map((p, i) => [i, pick(p)] as const).filter((p): p is readonly [number, number] => p[1] !== null);
    return pts.length
      ? s('polyline', { class: cls, points: pts.map(([i, v]) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ') })
      : null;
  };
  const last = track[track.length - 1];
  const summary = last
    ? `Track record over ${track.length} point(s): eta ${num(track[0].eta)} at creation, ${num(last.eta)} now; utility ${last.utility == null ? 'not known' : num(last.utility)}.`
    : 'No track record yet.';

  const svg = s(
    'svg',
    { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': summary, class: 'chart' },
    [0, 0.25, 0.5, 0.75, 1].map((v) => [
      s('line', { class: 'grid', x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v) }),
      s('text', { class: 'axis', x: PAD.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, v.toFixed(2)),
    ]),
    line((p) => p.utility, 'utility'),
    line((p) => p.eta, 'eta'),
    track.map((p, i) =>
      s(
        'circle',
        { class: 'eta', cx: x(i), cy: y(p.eta), r: 3.5 },
        s('title', {}, `${date(p.at)} — ${p.signal}: eta ${num(p.eta)}, ${p.status}`),
      ),
    ),
    track.length
      ? [
          s('text', { class: 'axis', x: PAD.left, y: H - 12, 'text-anchor': 'start' }, date(track[0].at)),
          track.length > 1
            ? s('text', { class: 'axis', x: W - PAD.right, y: H - 12, 'text-anchor': 'end' }, date(last.at))
            : null,
        ]
      : null,
  );

  return h(
    'figure',
    { class: 'chart-figure' },
    svg,
    h(
      'figcaption',
      {},
      h('span', { class: 'key eta' }, 'eta'),
      ' ',
      h('span', { class: 'key utility' }, 'utility'),
      ` — ${summary}`,
    ),
    h(
      'details',
      {},
      h('summary', {}, 'Track record as a table'),
      h(
        'table',
        {},
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'When'),
            h('th', { scope: 'col' }, 'Signal'),
            h('th', { scope: 'col' }, 'Eta'),
            h('th', { scope: 'col' }, 'Utility'),
            h('th', { scope: 'col' }, 'Status'),
          ),
        ),
        h(
          'tbody',
          {},
          track.map((p) =>
            h(
              'tr',
              {},
              h('td', {}, date(p.at)),
              h('td', {}, p.signal),
              h('td', {}, num(p.eta)),
              h('td', {}, p.utility == null ? '—' : num(p.utility)),
              h('td', {}, p.status),
            ),
          ),
        ),
      ),
    ),
  );
}
