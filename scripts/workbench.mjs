#!/usr/bin/env node
// Reshapes WorkBench's published GPT-4 agent runs (olly-styles/WorkBench, MIT; transcribed into
// test/fixtures/workbench/: the runs with their calls and the first characters of each tool's answer, and the
// benchmark's reference answers) into Skillsmith's trace format, one session per task:
//
//   node scripts/workbench.mjs [--in DIR] [--out FILE]
//
// - `goal` is the task as the user wrote it; `steps` are the agent's tool calls in order (LangChain's
//   intermediate steps), each with its arguments and the start of what the tool answered.
// - `success`: WorkBench scores a run by the state it leaves (emails sent, events created, tasks updated). The
//   state-changing calls are those the reference answers make (a function that some reference answer calls:
//   `email.send_email`, `calendar.create_event`, ...; never a search); a run succeeds when it made exactly the
//   reference answer's state-changing calls, compared as sets of calls with their arguments (argument order and
//   quoting aside). A run with none succeeds when the answer has none.
// - Labels, for scoring only (the engine never reads `meta`): `meta.family` follows the other trace files' rule,
//   the domain and the first state-changing call the task required (`email:forward_email`), or `<domain>:no_change`
//   when the reference answer changes nothing (nothing matches the request: the right run only looks). The finer
//   `meta.family_fine` is `workbench:<domain>:<template>`, the benchmark's own base task template (`Delete my last
//   email from {name}`; the reworded templates a query was written from are in `chosen_template`). Both are found
//   by the task's exact text in the reference answers. A task that no reference answer has is left out and named
//   (ten email tasks whose bodies the published run words otherwise).
// - Domains: those with a run in the input folder. Calendar is not there: no stored version of its reference
//   answers has the run's tasks, so its runs cannot be scored.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    in: { type: 'string', default: 'test/fixtures/workbench' },
    out: { type: 'string', default: 'test/fixtures/traces/workbench.jsonl' },
  },
});

/** The transcribed runs: `runs-<model>-<domain>.jsonl`, each with its `origin-<model>-<domain>.json`. */
const RUNS = readdirSync(values.in)
  .map((f) => /^runs-(.+)-([a-z_]+)\.jsonl$/.exec(f))
  .filter(Boolean)
  .map(([file, model, domain]) => ({ file, model, domain }))
  .sort((a, b) => a.domain.localeCompare(b.domain) || a.model.localeCompare(b.model));
const DOMAINS = [...new Set(RUNS.map((r) => r.domain))];
const readJsonl = (file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

/** `email.send_email.func(recipient="a", subject="b")` -> the function and its arguments. */
function parseCall(text) {
  const open = text.indexOf('(');
  const name = text.slice(0, open).replace(/\.func$/, '');
  const args = {};
  const body = text.slice(open + 1, text.lastIndexOf(')'));
  const arg = /\s*(\w+)=("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^,]*)\s*(?:,|$)/gy;
  for (let m = arg.exec(body); m?.[0]; m = arg.exec(body)) {
    const raw = m[2].trim();
    args[m[1]] = /^["']/.test(raw) ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
  }
  return { name, args };
}
const callKey = ({ name, args }) =>
  `${name}(${Object.keys(args)
    .sort()
    .map((k) => `${k}=${JSON.stringify(String(args[k]))}`)
    .join(',')})`;

const answers = new Map();
const acting = new Set();
for (const domain of DOMAINS) {
  for (const a of readJsonl(join(values.in, `answers-${domain}.jsonl`))) {
    const calls = a.answer.map(parseCall);
    for (const c of calls) acting.add(c.name);
    answers.set(`${domain}\u0000${a.query}`, { template: a.template, calls });
  }
}

/** The kind of a task, as the other trace files label it: its domain and the first state-changing call it required. */
const familyOf = (domain, calls) => `${domain}:${calls.length ? calls[0].name.split('.').pop() : 'no_change'}`;

/** A tool's answer that says the call failed. */
const FAILED = /^(error|invalid|exception|traceback)\b|\berror:/i;

const out = [];
const unmatched = [];
let successes = 0;
for (const { file, model, domain } of RUNS) {
  const origin = JSON.parse(readFileSync(join(values.in, `origin-${model}-${domain}.json`), 'utf8'));
  for (const run of readJsonl(join(values.in, file))) {
    const reference = answers.get(`${domain}\u0000${run.task}`);
    if (!reference) {
      unmatched.push(`${model} ${domain} row ${run.row}`);
      continue;
    }
    const made = run.function_calls.map(parseCall).filter((c) => acting.has(c.name));
    const want = reference.calls.map(callKey).sort();
    const got = made.map(callKey).sort();
    const success = JSON.stringify([...new Set(got)]) === JSON.stringify([...new Set(want)]);
    if (success) successes++;
    out.push({
      session_id: `workbench:${domain}:${model}:row${run.row}`,
      source: 'workbench',
      goal: run.task,
      success,
      reward: success ? 1 : 0,
      steps: run.steps.map((s) => ({
        tool: s.tool,
        args: typeof s.input === 'string' ? { input: s.input } : (s.input ?? {}),
        result: s.observation,
        ok: !FAILED.test(s.observation ?? ''),
      })),
      meta: {
        domain,
        // The same task run by several agents goes to one half of the evaluation's tune/test split.
        task_id: `${domain}:${run.task}`,
        family: familyOf(domain, reference.calls),
        family_fine: `workbench:${domain}:${reference.template}`,
        agent_model: model,
        first_user_message: run.task,
        reference_actions: reference.calls.map((c) => c.name),
        success_basis: 'state-changing calls equal the reference answer',
        origin,
      },
    });
  }
}
writeFileSync(values.out, `${out.map((s) => JSON.stringify(s)).join('\n')}\n`);
console.log(`${values.out}: ${out.length} sessions, ${successes} succeeded`);
if (unmatched.length) {
  console.log(`left out ${unmatched.length} task(s) no reference answer has the text of: ${unmatched.join(', ')}`);
}
