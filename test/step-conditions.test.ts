import { describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { toolCall } from '../src/domain/tool-call.case.js';
import type { Session, Skill } from '../src/domain/types.js';
import { loadEvalFile, selectSplit } from '../src/eval/dataset.js';
import { BASE_EVAL_CONFIG } from '../src/eval/harness.js';
import { checkStepConditions } from '../src/eval/step-conditions.js';
import { checkStepResults } from '../src/eval/step-results.js';
import { plainSession } from './support/capture.js';
import { TAU_DEV, tempDbPath } from './support/tau.js';

const session = (id: string, calls: Session['calls'], outcome: Session['outcome'] = 'success') =>
  plainSession(id, { goal: 'Fix my mobile data', calls, outcome });

let learned: Promise<{ skills: Skill[]; other: Session[] }> | null = null;
/**
 * The skills learned on the test half of tau-dev, and the tune half's sessions to hold them to (node
 * scripts/step-conditions.mjs prints both ways): learned once for every test that reads them.
 */
function learnedOnTestHalf() {
  learned ??= (async () => {
    const loaded = loadEvalFile(TAU_DEV, { label: 'meta.family' });
    const memory = await openMemory({ db: tempDbPath(), config: BASE_EVAL_CONFIG, logLevel: 'silent' });
    try {
      await memory.ingest(selectSplit(loaded.sessions, 'test').map((s) => ({ ...s.session, labels: null })));
      await memory.synthesize();
      return { skills: await memory.skills.list(), other: selectSplit(loaded.sessions, 'tune').map((s) => s.session) };
    } finally {
      await memory.close();
    }
  })();
  return learned;
}

describe('conditions on steps, held to sessions the skill was not learned from', () => {
  it('counts, among sessions that ran the check, who took the step after it showed the condition and who did not', () => {
    const body =
      '## Steps\n\n1. Call `check_network_status`.\n2. Call `toggle_airplane_mode` (when `check_network_status` printed "Airplane Mode: ON": seen in 60% of successful sessions).\n';
    const status = (on: boolean) => toolCall(0, 'check_network_status', {}, `Airplane Mode: ${on ? 'ON' : 'OFF'}`);
    const toggle = toolCall(1, 'toggle_airplane_mode', {}, 'Airplane Mode: OFF');
    const [check] = checkStepConditions(
      [{ name: 'fix-mobile-data', body }],
      [
        session('a', [status(true), toggle]),
        session('b', [toggle, status(true)]), // toggled before it looked
        session('c', [status(false)]),
        session('d', [status(true)]), // saw it on and left it: the condition fired without the step
        session('e', [toggle]), // never ran the check: not counted
        session('f', [status(true)], 'failure'), // only successful sessions count
      ],
    );
    expect(check).toMatchObject({
      step: 'toggle_airplane_mode',
      when: { tool: 'check_network_status', path: 'Airplane Mode', in: ['ON'], text: true },
      sessions: 4,
      tookWhenShown: 1,
      tookOtherwise: 1,
      skippedWhenNotShown: 1,
      firedWithout: 1,
    });
  });

  it('never fires, on the tau traces, for a session that did not take the step', async () => {
    const { skills, other } = await learnedOnTestHalf();
    const checks = checkStepConditions(skills, other);
    expect(checks.length).toBeGreaterThan(0);
    for (const c of checks) {
      expect(c.firedWithout).toBe(0);
      expect(c.tookWhenShown).toBeGreaterThan(0);
      expect((c.tookWhenShown + c.skippedWhenNotShown) / c.sessions).toBeGreaterThanOrEqual(0.9);
    }
  });
});

describe('expected results, held to sessions the skill was not learned from', () => {
  it('counts the sessions in which the call worked, and those whose last working call showed what the skill says', () => {
    const body = [
      '## Steps',
      '',
      '1. Call `toggle_data`. Expect its result to show "Mobile Data is now ON.", as it did in the sessions.',
      '2. Call `cancel_order` with `order_id` from the user.',
      '',
      '## Done when',
      '',
      '`cancel_order` has succeeded and its result shows `status` "Cancelled", and the result is confirmed with the user.',
    ].join('\n');
    const toggled = (text: string, ok = true) => toolCall(0, 'toggle_data', {}, `${text}\nStatus Bar: 5G`, ok);
    const cancelled = (status: string) => toolCall(1, 'cancel_order', { order_id: 'o1' }, JSON.stringify({ status }));
    const checks = checkStepResults(
      [{ name: 'fix-data', body }],
      [
        session('a', [toggled('Mobile Data is now ON.'), cancelled('Cancelled')]),
        // Switched twice: the last working call is the one that counts.
        session('b', [toggled('Mobile Data is now ON.'), toggled('Mobile Data is now OFF.'), cancelled('Pending')]),
        session('c', [toggled('Error: no SIM', false)]), // the call never worked: not counted
        session('d', [toggled('Mobile Data is now ON.')], 'failure'), // only successful sessions count
      ],
    );
    expect(checks).toEqual([
      {
        skill: 'fix-data',
        step: 'toggle_data',
        done: false,
        shows: [{ path: '', value: 'Mobile Data is now ON.' }],
        sessions: 2,
        held: 1,
      },
      {
        skill: 'fix-data',
        step: 'cancel_order',
        done: true,
        shows: [{ path: 'status', value: 'Cancelled' }],
        sessions: 2,
        held: 1,
      },
    ]);
  });

  it('hold on the tau traces in nearly every session where the call worked', async () => {
    const { skills, other } = await learnedOnTestHalf();
    const checks = checkStepResults(skills, other);
    // The switches of the mobile-data fix and the finishing calls that quote what they showed.
    expect(checks.filter((c) => !c.done).length).toBeGreaterThanOrEqual(3);
    const sessions = checks.reduce((n, c) => n + c.sessions, 0);
    const held = checks.reduce((n, c) => n + c.held, 0);
    expect(sessions).toBeGreaterThanOrEqual(20);
    expect(held / sessions).toBeGreaterThanOrEqual(0.9);
  });
});
