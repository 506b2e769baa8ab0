#!/usr/bin/env node
// Dev tool: do the conditions learned for steps hold on sessions they were not learned from? Learns each file's
// tune half and reads its test half, then the other way round (the embedded defaults), and for each condition a
// skill's steps state counts, over the other half's successful sessions that ran the condition's check: those that
// took the step after the check showed it, took it otherwise, skipped it and never saw it, or skipped it although
// the check showed it (the condition fired for a session that did not take the step). Reads dist/.
// Usage: npm run build && node scripts/step-conditions.mjs [FILE.jsonl ...] (default: the bundled trace files)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemory } from '../dist/index.js';
import { loadEvalFile, selectSplit } from '../dist/eval/dataset.js';
import { BASE_EVAL_CONFIG } from '../dist/eval/harness.js';
import { shows } from '../dist/distillers/heuristic-distiller.js';
import { checkStepConditions } from '../dist/eval/step-conditions.js';

const ROOT = new URL('..', import.meta.url).pathname;
const files = process.argv.slice(2);
if (files.length === 0)
  for (const f of ['tau-dev', 'bfcl-multi-turn-base', 'bfcl-multi-turn-turns', 'workbench'])
    files.push(`${ROOT}test/fixtures/traces/${f}.jsonl`);

console.log(
  '| file | learned on | skill | step | condition | sessions with the check | took, shown | took otherwise | skipped, not shown | fired without |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const file of files) {
  const loaded = loadEvalFile(file, { label: 'meta.family' });
  for (const [learn, read] of [
    ['tune', 'test'],
    ['test', 'tune'],
  ]) {
    const dir = mkdtempSync(join(tmpdir(), 'step-conditions-'));
    const memory = await openMemory({ db: join(dir, 'm.db'), config: BASE_EVAL_CONFIG, logLevel: 'silent' });
    await memory.ingest(selectSplit(loaded.sessions, learn).map((s) => ({ ...s.session, labels: null })));
    await memory.synthesize();
    const skills = await memory.skills.list();
    const checks = checkStepConditions(
      skills,
      selectSplit(loaded.sessions, read).map((s) => s.session),
    );
    for (const c of checks) {
      console.log(
        `| ${file.split('/').pop()} | ${learn} | ${c.skill} | \`${c.step}\` | ${shows(c.when)} | ${c.sessions} | ${c.tookWhenShown} | ${c.tookOtherwise} | ${c.skippedWhenNotShown} | ${c.firedWithout} |`,
      );
    }
    if (checks.length === 0)
      console.log(`| ${file.split('/').pop()} | ${learn} | (no step condition learned) | | | | | | | |`);
    await memory.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
