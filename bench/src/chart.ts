// The benchmark chart (latest.svg / partial.svg): hand-written SVG, two panels.
//   left:  synthesis pass wall time against history size (log x, linear y)
//   right: recall p50 / p99 (and the brute-force scan's p50) against the number of skills (log x, log y)

import type { BenchResults } from './report.js';

const W = 960;
const H = 400;
const PANEL = { w: 350, h: 260, top: 70 };
const LEFT_X = [80, 580];

interface Series {
  name: string;
  color: string;
  dashed?: boolean;
  points: [number, number][];
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fmtCount = (x: number) => (x >= 1e6 ? `${x / 1e6}M` : x >= 1e3 ? `${x / 1e3}k` : String(x));
const fmtNum = (x: number) =>
  x >= 100 ? String(Math.round(x)) : x >= 10 ? x.toFixed(1).replace(/\.0$/, '') : String(Number(x.toPrecision(2)));

function logDomain(values: number[]): [number, number] {
  const pos = values.filter((v) => v > 0);
  if (!pos.length) return [1, 10];
  const lo = Math.floor(Math.log10(Math.min(...pos)));
  let hi = Math.ceil(Math.log10(Math.max(...pos)));
  if (hi <= lo) hi = lo + 1;
  return [10 ** lo, 10 ** hi];
}

function niceStep(max: number): number {
  const raw = max / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

interface Axis {
  scale: (v: number) => number;
  ticks: { v: number; label: string }[];
}

function logAxis(domain: [number, number], from: number, to: number, label: (v: number) => string): Axis {
  const [a, b] = domain.map(Math.log10);
  const ticks: { v: number; label: string }[] = [];
  for (let e = a; e <= b + 1e-9; e++) ticks.push({ v: 10 ** e, label: label(10 ** e) });
  return { scale: (v) => from + ((Math.log10(Math.max(v, 1e-12)) - a) / (b - a)) * (to - from), ticks };
}

function linearAxis(max: number, from: number, to: number, label: (v: number) => string): Axis {
  const step = niceStep(max > 0 ? max : 1);
  const top = Math.ceil((max > 0 ? max : 1) / step) * step;
  const ticks: { v: number; label: string }[] = [];
  for (let v = 0; v <= top + step / 2; v += step) ticks.push({ v, label: label(v) });
  return { scale: (v) => from + (v / top) * (to - from), ticks };
}

function panel(x0: number, title: string, xLabel: string, yLabel: string, x: Axis, y: Axis, series: Series[]): string {
  const { w, h, top } = PANEL;
  const bottom = top + h;
  const out: string[] = [];
  out.push(
    `<text x="${x0 + w / 2}" y="${top - 14}" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>`,
  );
  out.push(`<rect x="${x0}" y="${top}" width="${w}" height="${h}" fill="#fafafa" stroke="#999"/>`);
  for (const t of x.ticks) {
    const px = x.scale(t.v);
    out.push(`<line x1="${px}" y1="${top}" x2="${px}" y2="${bottom}" stroke="#e2e2e2"/>`);
    out.push(`<text x="${px}" y="${bottom + 18}" text-anchor="middle" font-size="12">${esc(t.label)}</text>`);
  }
  for (const t of y.ticks) {
    const py = y.scale(t.v);
    out.push(`<line x1="${x0}" y1="${py}" x2="${x0 + w}" y2="${py}" stroke="#e2e2e2"/>`);
    out.push(`<text x="${x0 - 6}" y="${py + 4}" text-anchor="end" font-size="12">${esc(t.label)}</text>`);
  }
  out.push(`<text x="${x0 + w / 2}" y="${bottom + 40}" text-anchor="middle" font-size="13">${esc(xLabel)}</text>`);
  out.push(
    `<text transform="translate(${x0 - 50},${top + h / 2}) rotate(-90)" text-anchor="middle" font-size="13">${esc(yLabel)}</text>`,
  );
  const drawn = series.filter((s) => s.points.length);
  if (!drawn.length) {
    out.push(
      `<text x="${x0 + w / 2}" y="${top + h / 2}" text-anchor="middle" font-size="14" fill="#888">not measured in this run</text>`,
    );
    return out.join('\n');
  }
  for (const s of drawn) {
    const pts = [...s.points].sort((a, b) => a[0] - b[0]).map(([vx, vy]) => [x.scale(vx), y.scale(vy), vy] as const);
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    out.push(
      `<polyline fill="none" stroke="${s.color}" stroke-width="2"${dash} points="${pts.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' ')}"/>`,
    );
    for (const [px, py, vy] of pts) {
      out.push(`<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="4" fill="${s.color}"/>`);
      // Value labels: left of points near the right edge, below the point for dashed (secondary) series.
      const nearRight = px > x0 + w - 40;
      const tx = nearRight ? px - 7 : px + 7;
      const ty = s.dashed && py + 16 < top + h - 4 ? py + 16 : py - 7;
      out.push(
        `<text x="${tx.toFixed(1)}" y="${ty.toFixed(1)}" font-size="11" fill="${s.color}"${nearRight ? ' text-anchor="end"' : ''}>${esc(fmtNum(vy))}</text>`,
      );
    }
  }
  // Legend, top-left inside the panel.
  drawn.forEach((s, i) => {
    const ly = top + 16 + i * 17;
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    out.push(
      `<line x1="${x0 + 10}" y1="${ly - 4}" x2="${x0 + 34}" y2="${ly - 4}" stroke="${s.color}" stroke-width="2"${dash}/>`,
    );
    out.push(`<text x="${x0 + 40}" y="${ly}" font-size="12">${esc(s.name)}</text>`);
  });
  return out.join('\n');
}

export function renderChart(r: BenchResults): string {
  const { h, top } = PANEL;
  const bottom = top + h;

  // Left: synthesis pass time against history size.
  const synth = [...r.synthesis].sort((a, b) => a.sessions - b.sessions);
  const synthX = logAxis(logDomain(synth.map((s) => s.sessions)), LEFT_X[0], LEFT_X[0] + PANEL.w, fmtCount);
  const synthY = linearAxis(Math.max(0, ...synth.map((s) => s.seconds)), bottom, top, (v) => fmtNum(v));
  const left = panel(LEFT_X[0], 'Synthesis pass time', 'sessions in history (log scale)', 'seconds', synthX, synthY, [
    { name: 'memory.synthesize() wall time', color: '#1f77b4', points: synth.map((s) => [s.sessions, s.seconds]) },
    {
      name: 'of which detect + embed + cluster',
      color: '#7f7f7f',
      dashed: true,
      points: synth.map((s) => [s.sessions, s.clusterSeconds]),
    },
  ]);

  // Right: recall latency against skills.
  const rec = [...r.recall].sort((a, b) => a.skills - b.skills);
  const lat = rec.flatMap((q) => [q.p50Ms, q.p99Ms, q.bruteForce.p50Ms]);
  const recX = logAxis(logDomain(rec.map((q) => q.skills)), LEFT_X[1], LEFT_X[1] + PANEL.w, fmtCount);
  const recY = logAxis(logDomain(lat), bottom, top, (v) => (v >= 1 ? String(v) : String(Number(v.toPrecision(1)))));
  const right = panel(
    LEFT_X[1],
    'Recall latency',
    'stored skills (log scale)',
    'ms per recall (log scale)',
    recX,
    recY,
    [
      { name: 'memory.recall() p50', color: '#2ca02c', points: rec.map((q) => [q.skills, q.p50Ms]) },
      { name: 'memory.recall() p99', color: '#d62728', points: rec.map((q) => [q.skills, q.p99Ms]) },
      {
        name: 'brute-force SQLite scan p50',
        color: '#7f7f7f',
        dashed: true,
        points: rec.map((q) => [q.skills, q.bruteForce.p50Ms]),
      },
    ],
  );

  const m = r.machine;
  const caption = `${m.cpu}, ${m.cores} cores, Node ${m.node}; ${m.date.slice(0, 10)}; ${r.mode}${r.partial ? ', partial' : ''} run`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${W / 2}" y="24" text-anchor="middle" font-size="17" font-weight="bold">Skillsmith benchmark</text>`,
    left,
    right,
    `<text x="${W / 2}" y="${H - 8}" text-anchor="middle" font-size="11" fill="#555">${esc(caption)}</text>`,
    '</svg>',
    '',
  ].join('\n');
}
