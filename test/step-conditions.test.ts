import { describe, expect, it } from 'vitest';
import { openMemory } from '../src/app/open-memory.js';
import { toolCall } from '../src/domain/tool-call.case.js';
import type { Session } from '../src/domain/types.js';
import { loadEvalFile, selectSplit } from '../src/eval/dataset.js';
import { BASE_EVAL_CONFIG } from '../src/eval/harness.js';
import { checkStepConditions } from '../src/eval/step-conditions.js';
import { plainSession } from './support/capture.js';
import { TAU_DEV, tempDbPath } from './support/tau.js';

const session = (id: string, calls: Session['calls'], outcome: Session['outcome'] = 'success') =>
  plainSession(id, { goal: 'Fix my mobile data', calls, outcome });

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
    // Learned on the test half of tau-dev, read on the tune half (node scripts/step-conditions.mjs prints both ways).
    const loaded = loadEvalFile(TAU_DEV, { label: 'meta.family' });
    const memory = await openMemory({ db: tempDbPath(), config: BASE_EVAL_CONFIG, logLevel: 'silent' });
    try {
      await memory.ingest(selectSplit(loaded.sessions, 'test').map((s) => ({ ...s.session, labels: null })));
      await memory.synthesize();
      const checks = checkStepConditions(
        await memory.skills.list(),
        selectSplit(loaded.sessions, 'tune').map((s) => s.session),
      );
      expect(checks.length).toBeGreaterThan(0);
      for (const c of checks) {
        expect(c.firedWithout).toBe(0);
        expect(c.tookWhenShown).toBeGreaterThan(0);
        expect((c.tookWhenShown + c.skippedWhenNotShown) / c.sessions).toBeGreaterThanOrEqual(0.9);
      }
    } finally {
      await memory.close();
    }
  });
});
