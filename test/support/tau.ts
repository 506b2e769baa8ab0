import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Session } from '../../src/domain/types.js';

/** The real traces shipped with the repository (test/fixtures/traces, with their licences). */
export const TAU_DIR = new URL('../fixtures/traces/', import.meta.url).pathname;
export const TAU_DEV = join(TAU_DIR, 'tau-dev.jsonl');
export const TAU_RETAIL_EXTRA = join(TAU_DIR, 'tau-retail-extra.jsonl');
export const SAMPLE = new URL('../../examples/tau-sample.jsonl', import.meta.url).pathname;

export interface TauRecord {
  session_id: string;
  goal: string;
  success: boolean;
  reward: number;
  source: string;
  steps: { tool: string; args?: Record<string, unknown>; result?: string; ok?: boolean }[];
  meta: Record<string, unknown> & { family: string };
}

export function readTau(path: string): TauRecord[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as TauRecord);
}

/** A tau record as a session; `meta` is deliberately not carried over, so the engine cannot see labels. */
export function toSession(r: TauRecord, namespace = 'default', startedAt = '2026-01-01T00:00:00.000Z'): Session {
  return {
    id: r.session_id,
    namespace,
    goal: r.goal,
    outcome: r.success ? 'success' : 'failure',
    reward: r.reward,
    agentId: null,
    source: r.source,
    startedAt,
    endedAt: null,
    labels: null,
    calls: r.steps.map((s, position) => ({
      position,
      tool: s.tool,
      args: s.args ?? {},
      result: String(s.result ?? ''),
      ok: s.ok !== false,
      error: null,
      durationMs: null,
      at: null,
    })),
  };
}

export function tempDbPath(prefix = 'skillsmith-test-'): string {
  return join(mkdtempSync(join(tmpdir(), prefix)), 'memory.db');
}
