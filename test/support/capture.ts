import { existsSync, readFileSync } from 'node:fs';
import type { Outcome, Session } from '../../src/domain/types.js';
import type { RecordingTarget, TargetSession } from '../../src/instrument/index.js';

/** Every byte the memory left on disk: the SQLite file, its WAL and the audit copy, as one string. */
export function diskText(db: string): string {
  return [db, `${db}-wal`, `${db}.audit.jsonl`]
    .filter((p) => existsSync(p))
    .map((p) => readFileSync(p).toString('latin1'))
    .join('\n');
}

/** Secrets planted in test inputs: none of them (nor a long prefix of one) may reach the store. */
export const PLANTED = {
  openai: 'sk-proj-Zq8Xw7Vu6Ts5Rq4Po3Nm2Lk1Jh0GfEdCbA9',
  github: 'ghp_Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8',
  aws: 'AKIAZ7Y6X5W4V3U2T1S0',
  jwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJwbGFudGVkIn0.c2lnbmF0dXJlX29mX3RoZV9wbGFudGVkX2p3dA',
  password: 'Tr0ub4dor-and-3-horses',
  email: 'planted.person@example.org',
  card: '4111 1111 1111 1111',
  stripe: 'sk_live_51PlantedStripeKeyAbCdEfGh',
} as const;

export function leaked(text: string): string[] {
  return Object.entries(PLANTED)
    .filter(([, v]) => text.includes(v) || text.includes(v.slice(0, 14)))
    .map(([k]) => k);
}

export interface FakeCall {
  sessionId: string;
  tool: string;
  args?: Record<string, unknown>;
  result?: unknown;
  ok?: boolean;
  error?: string | null;
  durationMs?: number | null;
}

/** An in-memory RecordingTarget that can be told to fail, for the recorder's contract. */
export function fakeTarget(fail: { start?: boolean; call?: boolean; end?: boolean; delayMs?: number } = {}) {
  const sessions = new Map<
    string,
    { goal: string; ended?: { outcome: Outcome; reward: number | null; source?: string } }
  >();
  const calls: FakeCall[] = [];
  let n = 0;
  const target: RecordingTarget = {
    async startSession(opts) {
      if (fail.start) throw new Error('database is locked');
      const id = opts.id ?? `fake-${++n}`;
      sessions.set(id, { goal: opts.goal });
      const s: TargetSession = {
        id,
        async call(c) {
          if (fail.delayMs) await new Promise((r) => setTimeout(r, fail.delayMs));
          if (fail.call) throw new Error('SQLITE_FULL: database or disk is full');
          calls.push({ sessionId: id, ...c });
        },
        async end(outcome, reward = null, o = {}) {
          if (fail.end) throw new Error('disk I/O error');
          sessions.get(id)!.ended = { outcome, reward, source: o.source };
        },
      };
      return s;
    },
  };
  return { target, sessions, calls };
}

/** A session with no calls unless given; `over` replaces any field. */
export function plainSession(id: string, over: Partial<Session> = {}): Session {
  return {
    id,
    namespace: 'default',
    goal: 'g',
    outcome: 'success',
    reward: null,
    agentId: null,
    source: null,
    startedAt: '2026-01-01T00:00:00Z',
    endedAt: null,
    calls: [],
    ...over,
  };
}

/** Session `i` of a synthetic order procedure: `#` in the goal is its order id; every call succeeds (the run too, unless told). */
export function orderSession(
  i: number,
  goal: string,
  tools: string[],
  outcome: 'success' | 'failure' = 'success',
): Session {
  return {
    id: `run-${String(i).padStart(3, '0')}`,
    namespace: 'default',
    goal: goal.replace('#', `#W${1000 + i}`),
    outcome,
    reward: outcome === 'success' ? 1 : 0,
    agentId: null,
    source: 'test',
    startedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
    endedAt: null,
    calls: tools.map((tool, position) => ({
      position,
      tool,
      args: { order_id: `#W${1000 + i}` },
      result: JSON.stringify({ order_id: `#W${1000 + i}`, status: 'ok' }),
      ok: true,
      error: null,
      durationMs: 5,
      at: null,
    })),
  };
}

/**
 * Three refunds of a damaged blender, worded differently, that an agent records call by call (REST, MCP): a task
 * the bundled sample has no skill for, and a fourth request, worded differently again, that should recall it.
 */
export const BLENDER_REFUNDS = {
  goals: [
    'Refund the damaged blender from order #W9000001 to my gift card',
    'Please refund the broken blender in order #W9000002 to the gift card',
    'The blender in order #W9000003 arrived damaged: refund it to my gift card',
  ],
  order: (i: number) => `#W900000${i + 1}`,
  tools: ['lookup_damaged_order', 'issue_gift_card_refund'],
  asked: 'My blender came broken, refund order #W9000009 to my gift card',
};
