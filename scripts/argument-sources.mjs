// Dev tool: the precision of the argument sources the procedures state, against the values of sessions they
// were not learned from. Learns on one half of a trace file (src/eval/split.ts), recalls for each successful
// session of the other half by its goal, and checks every stated source of the top-1 skill on that session by
// value (src/eval/argument-sources.ts). For comparison, the rule used before (an argument comes from the last
// earlier result whose text contains its value) is applied to the same steps and checked at the tool level (the
// session's first call of the step's tool), as are the stated sources; checks a cut result cannot decide and
// sources the session reached another way are left out of both. Labels (meta.family) are read for scoring only: the figures are given over every
// session that recalled a procedure and over those whose top-1 procedure was learned from their own kind.
// Usage: npm run build && node scripts/argument-sources.mjs [--file FILE.jsonl] [--split test|tune]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildConsensus } from '../dist/domain/consensus.js';
import { resultLeaves } from '../dist/domain/result-values.js';
import { detectSpan, requestOf } from '../dist/domain/spans.js';
import { addChecks, checkSources, NO_CHECKS } from '../dist/eval/argument-sources.js';
import { loadEvalFile, otherSplit, selectSplit } from '../dist/eval/dataset.js';
import { openMemory } from '../dist/index.js';

const { values } = parseArgs({ options: { file: { type: 'string' }, split: { type: 'string' } } });
const file = values.file ?? 'test/fixtures/traces/tau-dev.jsonl';
const split = values.split ?? 'test';
const labelled = loadEvalFile(file, { label: 'meta.family' }).sessions;
const kindOf = new Map(labelled.map((s) => [s.session.id, s.kind]));
const all = labelled.map((s) => ({ ...s.session, labels: null }));
const byId = new Map(all.map((s) => [s.id, s]));
const pick = (half) =>
  selectSplit(loadEvalFile(file, { label: 'meta.family' }).sessions, half).map((s) => s.session.id);
const train = pick(otherSplit(split)).map((id) => byId.get(id));
const test = pick(split)
  .map((id) => byId.get(id))
  .filter((s) => s.outcome === 'success');

const dir = mkdtempSync(join(tmpdir(), 'skillsmith-sources-'));
const memory = await openMemory({
  db: join(dir, 'm.db'),
  logLevel: 'silent',
  config: { synthesis: { cooldownMs: 0 } },
});
try {
  await memory.ingest(train);
  await memory.synthesize();
  const cfg = memory.config.synthesis;
  const rules = { requiredSupport: cfg.consensusSupport, conditionalSupport: cfg.conditionalSupport };
  const spanRules = { minSteps: cfg.minSteps, thinkTools: cfg.thinkTools };
  const procedures = new Map();
  for (const skill of await memory.skills.list()) {
    const spans = skill.sourceSessions.map((id) => byId.get(id)).flatMap((s) => (s ? [detectSpan(s, spanRules)] : []));
    const present = spans.filter(Boolean);
    const kinds = new Map();
    for (const id of skill.sourceSessions) kinds.set(kindOf.get(id), (kinds.get(kindOf.get(id)) ?? 0) + 1);
    const kind = [...kinds].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
    if (present.length)
      procedures.set(skill.id, { name: skill.name, kind, spans: present, steps: buildConsensus(present, rules).steps });
  }

  /** The rule used before: the last earlier result whose text contains the value, agreed by half the spans. */
  const oldFlows = (proc) => {
    const flows = [];
    proc.steps.forEach((step, i) => {
      const previous = proc.steps.slice(0, i).map((s) => s.tool);
      const votes = new Map();
      let present = 0;
      for (const span of proc.spans) {
        const call = span.calls.find((c) => c.tool === step.tool);
        if (!call) continue;
        present++;
        for (const [arg, v] of Object.entries(call.args ?? {})) {
          const text = typeof v === 'string' ? v : JSON.stringify(v);
          if (text.length < 3) continue;
          const earlier = span.calls.filter((c) => c.position < call.position && c.result.includes(text));
          const source = earlier[earlier.length - 1];
          if (source && previous.includes(source.tool)) {
            const key = `${arg}\u0000${source.tool}`;
            votes.set(key, (votes.get(key) ?? 0) + 1);
          }
        }
      }
      const best = new Map();
      for (const [key, n] of votes) {
        const [arg, tool] = key.split('\u0000');
        if (n >= Math.max(1, Math.ceil(present / 2)) && (!best.has(arg) || best.get(arg).n < n))
          best.set(arg, { tool, n });
      }
      for (const [arg, { tool }] of best) flows.push({ step: step.tool, arg, tool });
    });
    return flows;
  };
  /** Tool-level check: an earlier successful result of `tool` holds the exact value somewhere (null: a cut result may). */
  const heldByTool = (calls, before, value, tool) => {
    const wanted = typeof value === 'string' ? [value] : Array.isArray(value) ? value.map(String) : [String(value)];
    const own = calls.filter((c) => c.ok && c.position < before && c.tool === tool);
    const held = new Set(own.flatMap((c) => resultLeaves(c.result).map((l) => l.value)));
    if (wanted.some((v) => held.has(v))) return true;
    const cut = own.some((c) => /^[[{]/.test(c.result.trim()) && !parses(c.result));
    return cut ? null : false;
  };
  const parses = (text) => {
    try {
      JSON.parse(text);
      return true;
    } catch {
      return false;
    }
  };

  let total = NO_CHECKS;
  let ofKind = NO_CHECKS;
  const toolLevel = { now: [0, 0], before: [0, 0] };
  let followed = 0;
  for (const s of test) {
    const [top] = await memory.recall(s.goal, { topK: 1, touch: false });
    const proc = top && procedures.get(top.id);
    if (!proc) continue;
    followed++;
    const c = checkSources(proc.steps, s.calls, requestOf(s));
    total = addChecks(total, c);
    if (proc.kind != null && proc.kind === kindOf.get(s.id)) ofKind = addChecks(ofKind, c);
    const check = (key, step, arg, tool) => {
      const call = s.calls.find((c) => c.ok && c.tool === step);
      if (!call || !(arg in (call.args ?? {}))) return;
      if (!s.calls.some((c) => c.ok && c.position < call.position && c.tool === tool)) return;
      const held = heldByTool(s.calls, call.position, call.args[arg], tool);
      if (held === null) return;
      toolLevel[key][0]++;
      if (held) toolLevel[key][1]++;
    };
    for (const step of proc.steps)
      for (const src of step.sources ?? []) if (src.from === 'result') check('now', step.tool, src.arg, src.tool);
    for (const f of oldFlows(proc)) check('before', f.step, f.arg, f.tool);
  }
  const p = (held, checked) => (checked ? (held / checked).toFixed(3) : '-');
  console.log(
    `${file}, learned on the ${otherSplit(split)} half, checked on the ${split} half: ${followed} of ${test.length} successful sessions recalled a procedure\n`,
  );
  const rows = (name, t) => [
    `| ${name}: stated (from a result or the user) | ${t.checked} | ${t.held} | ${p(t.held, t.checked)} | ${t.otherWay} | ${t.undecided} |`,
    `| ${name}: stated, from a result (tool and field) | ${t.checkedResults} | ${t.heldResults} | ${p(t.heldResults, t.checkedResults)} | ${t.otherWay} | ${t.undecided} |`,
  ];
  console.log(
    '| queries: sources | checked | confirmed by value | precision | reached another way (not checked) | value not in the visible part of a cut result (not checked) |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const r of [...rows('every recall', total), ...rows('top-1 of the right kind', ofKind)]) console.log(r);
  console.log(
    `| every recall: stated, from a result (tool only) | ${toolLevel.now[0]} | ${toolLevel.now[1]} | ${p(toolLevel.now[1], toolLevel.now[0])} | - | - |`,
  );
  console.log(
    `| every recall: the rule before, from a result (tool only) | ${toolLevel.before[0]} | ${toolLevel.before[1]} | ${p(toolLevel.before[1], toolLevel.before[0])} | - | - |`,
  );
} finally {
  await memory.close();
  rmSync(dir, { recursive: true, force: true });
}
