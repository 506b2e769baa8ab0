import { describe, expect, it } from 'vitest';
import type { Session } from '../domain/types.js';
import {
  baselineFalseRecall,
  baselineRecall,
  mostFrequentSequence,
  oracleProcedures,
  type LabelledSession,
} from './baselines.js';
import { scoreQueries } from './metrics.js';

let n = 0;
function session(tools: (string | [string, boolean])[], outcome: Session['outcome'] = 'success'): Session {
  const id = `s${n++}`;
  return {
    id,
    namespace: 'default',
    goal: `goal ${id}`,
    outcome,
    reward: null,
    agentId: null,
    source: null,
    startedAt: new Date(0).toISOString(),
    endedAt: null,
    labels: null,
    calls: tools.map((t, position) => {
      const [tool, ok] = typeof t === 'string' ? [t, true] : t;
      return { position, tool, args: {}, result: '', ok, error: null, durationMs: null, at: null };
    }),
  };
}
const L = (
  kind: string | null,
  tools: (string | [string, boolean])[],
  outcome: Session['outcome'] = 'success',
): LabelledSession => ({ session: session(tools, outcome), kind });

describe('mostFrequentSequence', () => {
  it('takes the most frequent essential sequence of the successful sessions, with its majority kind', () => {
    const train = [
      L('refund', ['find', 'get', 'refund']),
      L('refund', ['find', 'get', 'get', 'refund']), // collapses to the same sequence
      L('other', ['find', 'think', 'get', 'refund']), // think is not a step
      L('cancel', ['find', 'cancel']),
      L('cancel', ['find', 'cancel'], 'failure'), // failures do not count
      L('cancel', ['find', 'cancel'], 'failure'),
      L('cancel', ['find', 'cancel'], 'failure'),
    ];
    const f = mostFrequentSequence(train)!;
    expect(f.sequence).toEqual(['find', 'get', 'refund']);
    expect(f.count).toBe(3);
    expect(f.kind).toBe('refund');
    expect(f.kindShare).toBeCloseTo(2 / 3);
  });
  it('breaks a tie in favour of the sequence that agrees most with the others', () => {
    const train = [L('a', ['x', 'y', 'z']), L('b', ['p', 'q']), L('c', ['x', 'y', 'w'])];
    // all three occur once; [x,y,z] and [x,y,w] agree with each other (F1 0.667) and [p,q] with nothing;
    // between the two equally central ones of equal length, the one that sorts first wins
    expect(mostFrequentSequence(train)!.sequence).toEqual(['x', 'y', 'w']);
  });
  it('is null without successful material', () => {
    expect(mostFrequentSequence([L('a', ['x'], 'failure'), L('a', [['x', false]])])).toBeNull();
  });
});

describe('oracleProcedures', () => {
  it('builds one consensus procedure (its required steps) per kind from its successful sessions only', () => {
    const train = [
      L('refund', ['find', 'get', 'refund']),
      L('refund', ['find', 'get', 'check', 'refund']),
      L('refund', ['find', 'get', 'refund']),
      L('refund', ['find', 'get', 'refund']),
      L('refund', ['cancel', 'cancel'], 'failure'),
      L('cancel', ['find', 'cancel']),
      L(null, ['zzz']),
    ];
    const o = oracleProcedures(train, { requiredSupport: 0.5, conditionalSupport: 0.25 });
    expect([...o.keys()]).toEqual(['cancel', 'refund']);
    expect(o.get('refund')).toEqual(['find', 'get', 'refund']); // check (support 0.25) is only a conditional step
    expect(o.get('cancel')).toEqual(['find', 'cancel']);
  });
});

describe('baseline recall and scoring', () => {
  const frequent = { sequence: ['find', 'get', 'refund'], count: 3, kind: 'refund', kindShare: 1 };
  const oracle = new Map([['refund', ['find', 'get', 'refund']]]);
  const data = { frequent, oracle };
  const queries = [
    { kind: 'refund', callsMade: 7, essential: ['find', 'get', 'refund'] },
    { kind: 'cancel', callsMade: 4, essential: ['find', 'cancel'] },
    { kind: 'exchange', callsMade: 5, essential: ['find', 'get', 'exchange'] },
  ];

  it('none recalls nothing: hit 0 and nothing saved', () => {
    const m = scoreQueries(
      queries.map((q) => ({ ...q, recalled: baselineRecall('none', q, data) })),
      { topK: 2 },
    );
    expect(m).toMatchObject({ recalled: 0, hitsTop1: 0, hitsTopK: 0, hitRateTop1: 0 });
    expect(m.stepsSaved).toMatchObject({ agreeing: 0, perQuery: 0 });
    expect(baselineFalseRecall('none', data)).toBe(0);
  });
  it('most-frequent recalls its sequence for every goal and hits where its kind is the session kind', () => {
    const m = scoreQueries(
      queries.map((q) => ({ ...q, recalled: baselineRecall('most-frequent', q, data) })),
      { topK: 2 },
    );
    expect(m).toMatchObject({ recalled: 3, hitsTop1: 1 });
    // agreement: 1 (refund), F1([find,get,refund],[find,cancel]) = 0.4, F1 with [find,get,exchange] = 2/3
    expect(m.stepAgreement.overRecalled).toBeCloseTo((1 + 0.4 + 2 / 3) / 3);
    // agrees with refund (7-3=4) and exchange (5-3=2)
    expect(m.stepsSaved).toMatchObject({ agreeing: 2, meanWhenAgrees: 3 });
    expect(baselineFalseRecall('most-frequent', data)).toBe(1);
    expect(baselineFalseRecall('most-frequent', { frequent: null })).toBe(0);
  });
  it('oracle recalls the procedure of the true kind, and nothing for kinds it never saw', () => {
    const m = scoreQueries(
      queries.map((q) => ({ ...q, recalled: baselineRecall('oracle', q, data) })),
      { topK: 2 },
    );
    expect(m).toMatchObject({ recalled: 1, hitsTop1: 1, precisionTop1: 1 });
    expect(m.stepAgreement.overHits).toBe(1);
    expect(baselineRecall('oracle', { kind: null }, data)).toEqual([]);
    expect(baselineFalseRecall('oracle', data)).toBe(0);
  });
});
