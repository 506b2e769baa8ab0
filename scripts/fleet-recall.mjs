#!/usr/bin/env node
// Dev tool: one memory for a fleet of agents with different tools. Learns the tune half of every bundled trace
// file into one namespace (the embedded defaults) and queries each file's test half, then the other way round,
// twice: as before, and with each query's agent naming its tools (`recall(goal, { tools })`). An agent is a tau
// domain (airline, retail, telecom: `meta.domain`), the BFCL runs or the WorkBench runs; its tools are those its
// sessions on the learning side called (what it had, as far as the traces tell). Prints hit@1 (the top skill's
// majority kind is the query's `meta.family`, read for scoring only) on task statements and first user messages,
// and false recall: each unrelated goal asked by each agent. Reads dist/.
// Usage: npm run build && node scripts/fleet-recall.mjs
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemory } from '../dist/index.js';
import { loadEvalFile } from '../dist/eval/dataset.js';
import { BASE_EVAL_CONFIG } from '../dist/eval/harness.js';
import { majorityLabel } from '../dist/eval/metrics.js';
import { UNRELATED_GOALS } from '../dist/eval/unrelated-goals.js';

const ROOT = new URL('..', import.meta.url).pathname;
const FILES = { 'tau-dev': 'meta.domain', 'bfcl-multi-turn-base': 'bfcl', workbench: 'workbench' };

/** Every record, read once, with its agent: its tau domain, or the file's name where all runs had one tool set. */
const RECORDS = Object.entries(FILES).flatMap(([name, agent]) => {
  const file = `${ROOT}test/fixtures/traces/${name}.jsonl`;
  const kinds = loadEvalFile(file, { label: 'meta.family' }).sessions;
  const agents = agent.startsWith('meta.') ? loadEvalFile(file, { label: agent }).sessions : null;
  return kinds.map((s, i) => ({ ...s, agent: agents ? `${name}:${agents[i].kind}` : name }));
});
const load = (split) => RECORDS.filter((s) => s.split === split);

const pct = (n, d) => (d ? (n / d).toFixed(3) : '-');
console.log(
  '| learned on | queries | hit@1, task statements | hit@1, first user messages | false recall (goals x agents) |',
);
console.log('|---|---|---|---|---|');
for (const [learn, read] of [
  ['tune', 'test'],
  ['test', 'tune'],
]) {
  const train = load(learn);
  const dir = mkdtempSync(join(tmpdir(), 'fleet-recall-'));
  const memory = await openMemory({ db: join(dir, 'm.db'), config: BASE_EVAL_CONFIG, logLevel: 'silent' });
  await memory.ingest(train.map((s) => ({ ...s.session, labels: null })));
  await memory.synthesize();
  const kindOf = new Map(train.map((s) => [s.session.id, s.kind]));
  const kindOfSkill = new Map(
    (await memory.skills.list()).map((s) => [s.id, majorityLabel(s.sourceSessions.map((id) => kindOf.get(id))).label]),
  );
  const toolsOf = new Map();
  for (const s of train) {
    const set = toolsOf.get(s.agent) ?? new Set();
    for (const c of s.session.calls) set.add(c.tool);
    toolsOf.set(s.agent, set);
  }
  const queries = load(read).filter((s) => s.session.outcome === 'success' && s.kind);
  for (const named of [false, true]) {
    const tools = (agent) => (named ? [...(toolsOf.get(agent) ?? [])] : undefined);
    const hit = async (goal, s) => {
      const [top] = await memory.recall(goal, { topK: 1, tools: tools(s.agent), record: false });
      return top ? kindOfSkill.get(top.id) === s.kind : false;
    };
    let goals = 0;
    let fum = 0;
    let fums = 0;
    for (const s of queries) {
      if (await hit(s.session.goal, s)) goals++;
      if (s.firstUserMessage) {
        fums++;
        if (await hit(s.firstUserMessage, s)) fum++;
      }
    }
    let asked = 0;
    let recalled = 0;
    for (const agent of toolsOf.keys())
      for (const goal of UNRELATED_GOALS) {
        asked++;
        if ((await memory.recall(goal, { tools: tools(agent), record: false })).length) recalled++;
      }
    console.log(
      `| ${learn}${named ? ', agents name their tools' : ''} | ${queries.length} | ${pct(goals, queries.length)} | ${pct(fum, fums)} | ${pct(recalled, asked)} (${recalled} of ${asked}) |`,
    );
  }
  await memory.close();
  rmSync(dir, { recursive: true, force: true });
}
