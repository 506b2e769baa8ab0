// Dev tool: the evidence for lifecycle.judgedTrials' default. (1) How the rule judge's outcome compares with the
// outcome real benchmark runs reported (the reported one taken away first), as the traces are and as if the agent
// had given a final answer (a coding agent's transcript always has one). (2) What judged trials do to a skill's
// standing, with the lifecycle's own maths over the default trial window: a good skill when the judge is wrong one
// time in five, and a skill whose tool is gone. Seeded: the same figures on every run.
// Usage: npm run build && node scripts/judged-trials-report.mjs [FILE.jsonl ...]
import { readFileSync } from 'node:fs';
import { RuleJudge } from '../dist/capture/judge.js';
import { prepareCapture } from '../dist/capture/ingest.js';
import { loadConfig } from '../dist/config/config.js';
import { applySignal } from '../dist/domain/lifecycle.js';

const files = process.argv.slice(2);
if (files.length === 0)
  files.push(
    'test/fixtures/traces/tau-dev.jsonl',
    'test/fixtures/traces/tau-retail-extra.jsonl',
    'test/fixtures/traces/workbench.jsonl',
  );

const config = loadConfig({});
const asConfigured = new RuleJudge(config.capture.judge);
// The same rule with an answer taken as given (and not one that gives up).
const answered = new RuleJudge({ ...config.capture.judge, requireFinalAnswer: false, giveUpPattern: null });

console.log('## The rule judge against the outcomes the runs reported\n');
console.log(
  '| file | judge | successes judged success / failure / unknown | failures judged success / failure / unknown |',
);
console.log('|---|---|---|---|');
for (const file of files) {
  const { parsed } = await prepareCapture(readFileSync(file, 'utf8'), {
    file,
    namespace: 'default',
    format: 'auto',
    maxRecordBytes: config.capture.maxRecordBytes,
    resultChars: config.capture.resultChars,
    maxCallsPerSession: config.capture.maxCallsPerSession,
    now: new Date(0).toISOString(),
  });
  for (const [name, judge] of [
    ['as configured', asConfigured],
    ['with an answer', answered],
  ]) {
    const count = { success: { success: 0, failure: 0, unknown: 0 }, failure: { success: 0, failure: 0, unknown: 0 } };
    parsed.sessions.forEach((s, i) => {
      if (s.outcome === 'unknown') return;
      const j = judge.decide({ goal: s.goal, calls: s.calls, finalAnswer: parsed.records[i]?.finalAnswer ?? null });
      count[s.outcome][j.outcome]++;
    });
    const row = (c) => `${c.success} / ${c.failure} / ${c.unknown}`;
    console.log(`| ${file.split('/').pop()} | ${name} | ${row(count.success)} | ${row(count.failure)} |`);
  }
}

const rules = config.lifecycle;
let seed = 42;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

/** A skill's trials one after the other, as the store hands them to applySignal (its window since its last return). */
function life(prior, passes, trials) {
  let s = { status: 'probationary', eta: prior, utility: 0, trialsAttempted: 0, trialsPassed: 0, prior };
  let since = [];
  let restarted = false;
  let retiredAt = -1;
  for (let i = 0; i < trials; i++) {
    const kind = random() < passes(i) ? 'trial.pass' : 'trial.fail';
    const next = applySignal(
      { ...s, recent: { trials: since.slice(0, rules.trialWindow), restarted } },
      { kind },
      rules,
    );
    if (s.status === 'retired' && next.status !== 'retired') {
      since = [];
      restarted = true;
    } else since = [kind === 'trial.pass', ...since];
    if (next.status === 'retired' && retiredAt < 0) retiredAt = i + 1;
    s = { ...next, recent: undefined, prior };
  }
  return { s, retiredAt };
}

const RUNS = 20000;
const TRIALS = 200;
console.log(`\n## A skill's standing over ${TRIALS} trials (window ${rules.trialWindow}, ${RUNS} runs each)\n`);
console.log('| prior | trials | pass rate | retired (at its 3rd trial) | mean eta after |');
console.log('|---|---|---|---|---|');
for (const prior of [0.5, 0.8, 0.97]) {
  for (const [label, rate] of [
    ['good skill (90% pass), judge right', 0.9],
    ['good skill, judge wrong 1 in 5 either way', 0.9 * 0.8 + 0.1 * 0.2],
  ]) {
    let retired = 0;
    let atProbation = 0;
    let eta = 0;
    for (let r = 0; r < RUNS; r++) {
      const { s, retiredAt } = life(prior, () => rate, TRIALS);
      if (retiredAt > 0) retired++;
      if (retiredAt > 0 && retiredAt <= rules.candidateTrials) atProbation++;
      eta += s.eta;
    }
    const pct = (n) => `${((100 * n) / RUNS).toFixed(2)}%`;
    console.log(
      `| ${prior} | ${label} | ${rate.toFixed(2)} | ${pct(retired)} (${pct(atProbation)}) | ${(eta / RUNS).toFixed(3)} |`,
    );
  }
  // Its tool gone after 50 passed trials: each run's step fails, which trialOf fails whatever the judge said.
  const { retiredAt } = life(prior, (i) => (i < 50 ? 1 : 0), TRIALS);
  console.log(`| ${prior} | tool gone after 50 passes | 0 from then on | after ${retiredAt - 50} failures | |`);
}
