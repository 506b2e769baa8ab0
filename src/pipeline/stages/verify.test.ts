import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/config.js';
import type { EvidenceTrace } from '../../domain/evidence.js';
import type { Draft } from '../../domain/types.js';
import { createLogger } from '../../support/log.js';
import type { DraftMaterial, GroupInput } from '../group.js';
import type { PipelineDeps } from '../pipeline-deps.js';
import { verifyMaterial } from './verify.js';

const draft: Draft = {
  name: 'cancel-pending-order',
  whenToUse: 'Cancel a pending order. Use when the user asks to cancel an order that has not shipped.',
  toolsRequired: ['get_order_details', 'cancel_pending_order'],
  toolSequence: ['get_order_details', 'cancel_pending_order'],
  body: '# Cancel a pending order\n\n1. Look the order up with `get_order_details`.\n2. Cancel it with `cancel_pending_order`.\n\n## Edge cases\n\n- The order already shipped: say so.',
  kind: 'playbook',
  steps: [],
};
const trace = (id: string, text: string): EvidenceTrace => ({
  sessionId: id,
  outcome: 'success',
  text,
  tools: ['get_order_details', 'cancel_pending_order'],
});
// One trace of two shares the draft's words: resonance 0.5.
const evidence = [
  trace(
    's1',
    'goal: cancel my pending order\nget_order_details(order) -> pending\ncancel_pending_order(order) -> cancelled',
  ),
  trace('s2', 'xyz'),
];
const material: DraftMaterial = {
  draft,
  evidence,
  counts: { successCount: 2, attemptCount: 2, support: 2 },
  sourceSessions: ['s1', 's2'],
  materialTools: new Set(draft.toolsRequired),
  exemplarTexts: [],
};

function setup(verify?: { minCoverage?: number; minResonance?: number }) {
  const events: { type: string; payload: unknown }[] = [];
  const deps = {
    config: loadConfig({ synthesis: { verify } }, {}),
    store: {
      appendEvent: async (_ns: string, type: string, _skill: string | null, payload: unknown) =>
        void events.push({ type, payload }),
    },
    distiller: { id: 'heuristic@1' },
    now: () => new Date('2026-12-01T00:00:00Z'),
    log: createLogger('silent'),
  } as unknown as PipelineDeps;
  const input = { namespace: 'default', clusterId: 'c000001', dryRun: false } as GroupInput;
  return { deps, input, events };
}

describe('verify stage', () => {
  it('passes a draft at the default thresholds (coverage and resonance 0.5)', async () => {
    const { deps, input, events } = setup();
    const verdict = await verifyMaterial(deps, input, material);
    expect(verdict).toMatchObject({ ok: true, coverage: 1, resonance: 0.5 });
    expect(events).toEqual([]);
  });

  it('takes its thresholds from synthesis.verify, and records a failed draft as an event with the reasons', async () => {
    const { deps, input, events } = setup({ minResonance: 0.75 });
    const verdict = await verifyMaterial(deps, input, material);
    expect(verdict.ok).toBe(false);
    expect(verdict.reasons).toEqual(['evidence resonance 0.50 below 0.75']);
    expect(events).toEqual([
      {
        type: 'skill.verification_failed',
        payload: { cluster: 'c000001', name: 'cancel-pending-order', reasons: verdict.reasons },
      },
    ]);
  });

  it('writes nothing in a dry run', async () => {
    const { deps, input, events } = setup({ minCoverage: 1, minResonance: 1 });
    expect((await verifyMaterial(deps, { ...input, dryRun: true }, material)).ok).toBe(false);
    expect(events).toEqual([]);
  });
});
