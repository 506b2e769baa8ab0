#!/usr/bin/env node
// Summarises a V8 .cpuprofile (from `node --cpu-prof` or `npm run bench -- --cpu-prof`): where the time
// goes, by function (self and inclusive time) and by source file.
//
//   node bench/build/bench/src/profile-summary.js PROFILE.cpuprofile [--top N]

import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    children?: number[];
  }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileRow {
  /** `function (file:line)`; line is 1-based. */
  where: string;
  selfMs: number;
  selfPct: number;
  /** Time with this function anywhere on the stack (each sample counted once per function). */
  totalMs: number;
  totalPct: number;
}

export interface ProfileSummary {
  totalMs: number;
  functions: ProfileRow[];
  files: { file: string; selfMs: number; selfPct: number }[];
}

/** Self and inclusive time per function, and self time per file, biggest first. */
export function summarizeProfile(profile: CpuProfile, top = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = new Map<number, string>();
  const fileOf = new Map<number, string>();
  for (const n of profile.nodes) {
    const f = n.callFrame;
    const file = f.url ? shortUrl(f.url) : '(native)';
    keyOf.set(n.id, `${f.functionName || '(anonymous)'} (${file}${f.url ? `:${f.lineNumber + 1}` : ''})`);
    fileOf.set(n.id, file);
  }

  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const files = new Map<string, number>();
  let totalUs = 0;
  // timeDeltas[i] is the time elapsed before sample i; attributing it to sample i is the usual convention.
  profile.samples.forEach((nodeId, i) => {
    const dt = Math.max(0, profile.timeDeltas[i] ?? 0);
    totalUs += dt;
    const key = keyOf.get(nodeId)!;
    self.set(key, (self.get(key) ?? 0) + dt);
    files.set(fileOf.get(nodeId)!, (files.get(fileOf.get(nodeId)!) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = nodeId; id !== undefined && byId.has(id); id = parent.get(id)) {
      const k = keyOf.get(id)!;
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + dt);
    }
  });

  const ms = (us: number) => Math.round(us / 100) / 10;
  const pct = (us: number) => (totalUs > 0 ? Math.round((1000 * us) / totalUs) / 10 : 0);
  const functions = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([where, us]) => ({
      where,
      selfMs: ms(us),
      selfPct: pct(us),
      totalMs: ms(total.get(where) ?? 0),
      totalPct: pct(total.get(where) ?? 0),
    }));
  const fileRows = [...files.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([file, us]) => ({ file, selfMs: ms(us), selfPct: pct(us) }));
  return { totalMs: ms(totalUs), functions, files: fileRows };
}

/** The heaviest functions by inclusive time (the call paths that cost the most), skipping wrappers. */
export function inclusiveTop(profile: CpuProfile, top = 25): ProfileRow[] {
  const all = summarizeProfile(profile, Number.MAX_SAFE_INTEGER).functions;
  return all
    .filter((r) => !/^\((?:root|program|idle|garbage collector)\)/.test(r.where))
    .sort((a, b) => b.totalMs - a.totalMs)
    .slice(0, top);
}

export function formatSummary(s: ProfileSummary, inclusive: ProfileRow[]): string {
  const lines = [`profile: ${s.totalMs} ms sampled`, '', 'self time by function:'];
  for (const r of s.functions)
    lines.push(`  ${String(r.selfMs).padStart(9)} ms ${String(r.selfPct).padStart(5)}%  ${r.where}`);
  lines.push('', 'inclusive time by function:');
  for (const r of inclusive)
    lines.push(`  ${String(r.totalMs).padStart(9)} ms ${String(r.totalPct).padStart(5)}%  ${r.where}`);
  lines.push('', 'self time by file:');
  for (const f of s.files)
    lines.push(`  ${String(f.selfMs).padStart(9)} ms ${String(f.selfPct).padStart(5)}%  ${f.file}`);
  return lines.join('\n');
}

/** dist/… paths relative to the package, node internals and dependencies by name. */
function shortUrl(url: string): string {
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const dist = path.lastIndexOf('/dist/');
  if (dist >= 0) return path.slice(dist + 1);
  const modules = path.lastIndexOf('/node_modules/');
  if (modules >= 0) return path.slice(modules + 1);
  return path.startsWith('node:') ? path : basename(path);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node bench/build/bench/src/profile-summary.js PROFILE.cpuprofile [--top N]\n');
    process.exit(2);
  }
  const topFlag = process.argv.indexOf('--top');
  const top = topFlag > 0 ? Number(process.argv[topFlag + 1]) || 25 : 25;
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  process.stdout.write(`${formatSummary(summarizeProfile(profile, top), inclusiveTop(profile, top))}\n`);
}
