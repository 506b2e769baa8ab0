#!/usr/bin/env node
// Dev tool: does what a skill's steps state hold on sessions it was not learned from? Learns each file's tune half
// and reads its test half, then the other way round (the embedded defaults).
// 1. For each condition a skill's steps state, over the other half's successful sessions that ran the condition's
//    check: those that took the step after the check showed it, took it otherwise, skipped it and never saw it, or
//    skipped it although the check showed it (the condition fired for a session that did not take the step).
// 2. For each result a skill tells an agent to expect (a state-changing step's note, the finishing condition),
//    over the other half's successful sessions in which that call worked: how many showed it.
// Reads dist/.
// Usage: npm run build && node scripts/step-conditions.mjs [FILE.jsonl ...] (default: the bundled trace files)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemory } from '../dist/index.js';
import { loadEvalFile, selectSplit } from '../dist/eval/dataset.js';
import { BASE_EVAL_CONFIG } from '../dist/eval/harness.js';
import { shows } from '../dist/distillers/heuristic-distiller.js';
import { checkStepConditions } from '../dist/eval/step-conditions.js';
import { checkStepResults } from '../dist/eval/step-results.js';

const ROOT = new URL('..', import.meta.url).pathname;
const files = process.argv.slice(2);
if (files.length === 0)
  for (const f of ['tau-dev', 'bfcl-multi-turn-base', 'bfcl-multi-turn-turns', 'workbench'])
    files.push(`${ROOT}test/fixtures/traces/${f}.jsonl`);

const conditions = [
  '| file | learned on | skill | step | condition | sessions with the check | took, shown | took otherwise | skipped, not shown | fired without |',
  '|---|---|---|---|---|---|---|---|---|---|',
];
const results = [
  '| file | learned on | skill | call | expected result | sessions where it worked | showed it |',
  '|---|---|---|---|---|---|---|',
];
const total = { sessions: 0, held: 0 };
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
    const name = file.split('/').pop();
    for (const c of checks) {
      conditions.push(
        `| ${name} | ${learn} | ${c.skill} | \`${c.step}\` | ${shows(c.when)} | ${c.sessions} | ${c.tookWhenShown} | ${c.tookOtherwise} | ${c.skippedWhenNotShown} | ${c.firedWithout} |`,
      );
    }
    if (checks.length === 0) conditions.push(`| ${name} | ${learn} | (no step condition learned) | | | | | | | |`);
    const held = checkStepResults(
      skills,
      selectSplit(loaded.sessions, read).map((s) => s.session),
    );
    for (const c of held) {
      const said = c.shows.map((x) => (x.path ? `\`${x.path}\` ${JSON.stringify(x.value)}` : JSON.stringify(x.value)));
      results.push(
        `| ${name} | ${learn} | ${c.skill} | \`${c.step}\`${c.done ? ' (done)' : ''} | ${said.join(' and ')} | ${c.sessions} | ${c.held} |`,
      );
      total.sessions += c.sessions;
      total.held += c.held;
    }
    await memory.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(conditions.join('\n'));
console.log();
console.log(results.join('\n'));
console.log();
console.log(
  `Expected results: ${total.held} of ${total.sessions} sessions where the call worked showed them (${total.sessions ? (total.held / total.sessions).toFixed(3) : '-'}).`,
);
