import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { splitOf } from '../src/eval/split.js';
import { TAU_DIR } from './support/tau.js';

/**
 * test/fixtures/traces/workbench.jsonl is WorkBench's published agent runs (test/fixtures/workbench, transcribed
 * from olly-styles/WorkBench) in Skillsmith's trace format, by scripts/workbench.mjs: the committed file is what
 * the script writes; a run succeeded exactly when its state-changing calls are the reference answer's; and the
 * runs of one task by several agents sit on one side of the tune/test split, so no evaluation tunes on a task
 * it is tested on.
 */
const ROOT = new URL('..', import.meta.url).pathname;
const RUNS_DIR = join(ROOT, 'test/fixtures/workbench');
const TRACES = join(TAU_DIR, 'workbench.jsonl');
const dir = mkdtempSync(join(tmpdir(), 'skillsmith-workbench-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Row {
  session_id: string;
  goal: string;
  success: boolean;
  steps: { tool: string; args: Record<string, unknown>; result: string; ok: boolean }[];
  meta: {
    domain: string;
    family: string;
    family_fine: string;
    task_id: string;
    agent_model: string;
    reference_actions: string[];
  };
}
const jsonl = <T>(file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
const rows = jsonl<Row>(TRACES);

describe('the WorkBench sessions', () => {
  it('are what scripts/workbench.mjs writes from the transcribed runs', () => {
    const out = join(dir, 'workbench.jsonl');
    const r = spawnSync(process.execPath, ['scripts/workbench.mjs', '--out', out], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(TRACES, 'utf8'));
  });

  it("hold each run's task and calls, labelled by the first change the task needs and by the benchmark's template, scored against the reference", () => {
    const answers = new Map<string, { template: string; answer: string[] }>();
    for (const f of readdirSync(RUNS_DIR).filter((f) => f.startsWith('answers-'))) {
      const domain = f.slice('answers-'.length, -'.jsonl'.length);
      for (const a of jsonl<{ query: string; template: string; answer: string[] }>(join(RUNS_DIR, f))) {
        answers.set(`${domain}\u0000${a.query}`, a);
      }
    }
    expect(rows.length).toBeGreaterThan(200);
    for (const row of rows) {
      const reference = answers.get(`${row.meta.domain}\u0000${row.goal}`);
      expect(reference, row.session_id).toBeDefined();
      expect(row.meta.family_fine).toBe(`workbench:${row.meta.domain}:${reference!.template}`);
      // The reference's acting functions, in order, are what the label says the task needs.
      expect(row.meta.reference_actions).toEqual(
        reference!.answer.map((c) => c.slice(0, c.indexOf('(')).replace(/\.func$/, '')),
      );
      // The kind, as the other trace files label it: the domain and the first state-changing call required.
      const first = row.meta.reference_actions[0];
      expect(row.meta.family).toBe(`${row.meta.domain}:${first ? first.split('.').pop() : 'no_change'}`);
      // A run that called nothing succeeded only where the answer is to do nothing.
      if (row.steps.length === 0) expect(row.success).toBe(reference!.answer.length === 0);
      // A run that succeeded made every acting call the answer makes.
      if (row.success) {
        const made = new Set(row.steps.map((s) => s.tool));
        for (const tool of row.meta.reference_actions) expect(made.has(tool), row.session_id).toBe(true);
      }
    }
    // Some runs of every domain succeeded and some failed.
    for (const domain of new Set(rows.map((r) => r.meta.domain))) {
      const own = rows.filter((r) => r.meta.domain === domain);
      expect(own.some((r) => r.success) && own.some((r) => !r.success), domain).toBe(true);
    }
  });

  it("put every agent's run of one task on the same side of the split", () => {
    const side = new Map<string, string>();
    for (const row of rows) {
      const s = splitOf(row);
      expect(side.get(row.meta.task_id) ?? s, row.session_id).toBe(s);
      side.set(row.meta.task_id, s);
    }
    const sides = [...side.values()];
    expect(sides.filter((s) => s === 'tune').length).toBeGreaterThan(sides.length / 3);
    expect(sides.filter((s) => s === 'test').length).toBeGreaterThan(sides.length / 3);
  });
});
