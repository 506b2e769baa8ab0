// Dev tool: what a synthesis pass admits and rejects, and why, on a trace file, under the evidence rule (the
// default) and under GAIA's absolute 0.8 preset. Prints a markdown table. Labels are not read.
// Usage: npm run build && node scripts/admission-report.mjs [FILE.jsonl ...]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEvalFile } from '../dist/eval/dataset.js';
import { openMemory } from '../dist/index.js';

const files = process.argv.slice(2);
if (files.length === 0)
  files.push('test/fixtures/traces/tau-dev.jsonl', 'test/fixtures/traces/bfcl-multi-turn-base.jsonl');

/** The reason of a skipped cluster, without its figures. */
function category(reason) {
  if (/not admitted: \d+ sessions, \d+ needed/.test(reason)) return 'too small (fewer sessions than minOccurrences)';
  if (/successful sessions with material/.test(reason)) return 'too few successful sessions with a span';
  if (/successful sessions follow the procedure/.test(reason)) return 'too few successful followers';
  if (/below the floor/.test(reason)) return 'followers below the success floor';
  if (/no gain/.test(reason)) return 'following it does no better than the baseline';
  if (/verification failed/.test(reason)) return 'draft failed verification';
  return reason.replace(/[0-9.]+/g, 'N');
}

const rows = [];
for (const file of files) {
  const sessions = loadEvalFile(file, { label: 'meta.family' }).sessions.map((s) => ({ ...s.session, labels: null }));
  for (const admission of ['evidence', 'absolute']) {
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-admission-'));
    const memory = await openMemory({
      db: join(dir, 'memory.db'),
      logLevel: 'silent',
      config: { synthesis: { cooldownMs: 0, admission } },
    });
    await memory.ingest(sessions);
    const report = await memory.synthesize();
    const skipped = {};
    for (const s of report.skipped) skipped[category(s.reason)] = (skipped[category(s.reason)] ?? 0) + 1;
    const live = (await memory.skills.list()).length;
    rows.push({
      file: file.split('/').pop(),
      admission,
      sessions: sessions.length,
      clusters: report.stats.clusters,
      created: report.created.length,
      consolidated: report.reinforced.length + report.updated.length + report.superseded.length,
      live,
      skipped,
    });
    await memory.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(
  '| file | rule | sessions | clusters | skills created | drafts consolidated into a skill | live skills | rejected (why: clusters) |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  const why =
    Object.entries(r.skipped)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k}: ${n}`)
      .join('; ') || '-';
  console.log(
    `| ${r.file} | ${r.admission} | ${r.sessions} | ${r.clusters} | ${r.created} | ${r.consolidated} | ${r.live} | ${why} |`,
  );
}
