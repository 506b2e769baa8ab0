import { describe, expect, it } from 'vitest';
import {
  AGREE_THRESHOLD,
  essentialSequence,
  falseRecall,
  isHit,
  majorityLabel,
  ratio,
  roundMetrics,
  scoreQueries,
  stepAgreement,
  stepsSaved,
  wilson95,
  type QueryOutcome,
} from './metrics.js';

const c = (tool: string, ok = true) => ({ tool, ok });

describe('essentialSequence', () => {
  it('keeps successful non-think calls in order and collapses immediate repeats', () => {
    expect(essentialSequence([c('a'), c('think'), c('a'), c('b', false), c('b'), c('b'), c('c'), c('a')])).toEqual([
      'a',
      'b',
      'c',
      'a',
    ]);
  });
  it('is empty for a session of failed and reasoning calls', () => {
    expect(essentialSequence([c('x', false), c('think'), c('reflect')])).toEqual([]);
  });
  it('uses the given reasoning tools', () => {
    expect(essentialSequence([c('plan'), c('a')], ['plan'])).toEqual(['a']);
  });
});

describe('stepAgreement (LCS F1)', () => {
  it('is 1 for identical sequences and 0 for disjoint or empty ones', () => {
    expect(stepAgreement(['a', 'b', 'c'], ['a', 'b', 'c'])).toBe(1);
    expect(stepAgreement(['a', 'b'], ['x', 'y'])).toBe(0);
    expect(stepAgreement([], ['a'])).toBe(0);
    expect(stepAgreement(['a'], [])).toBe(0);
  });
  it('is the harmonic mean of LCS precision (over the skill) and recall (over the session)', () => {
    // LCS 2: precision 2/3, recall 1 -> F1 0.8
    expect(stepAgreement(['a', 'b', 'c'], ['a', 'c'])).toBeCloseTo(0.8, 10);
    // order matters: LCS of [a,b,c] and [c,b,a] is 1 -> p = r = 1/3
    expect(stepAgreement(['a', 'b', 'c'], ['c', 'b', 'a'])).toBeCloseTo(1 / 3, 10);
    // LCS 3 of a 4-step skill and a 6-step session: p 3/4, r 1/2 -> 0.6
    expect(stepAgreement(['a', 'b', 'c', 'd'], ['a', 'x', 'b', 'y', 'c', 'z'])).toBeCloseTo(0.6, 10);
  });
});

describe('stepsSaved', () => {
  it('is calls made minus steps prescribed when the skill agrees', () => {
    expect(stepsSaved(10, 4, 0.8)).toBe(6);
    expect(stepsSaved(3, 5, 1)).toBe(-2); // signed: a longer skill costs steps
  });
  it('counts agreement exactly at the threshold and nothing below it', () => {
    expect(AGREE_THRESHOLD).toBe(0.5);
    expect(stepsSaved(7, 3, 0.5)).toBe(4);
    expect(stepsSaved(7, 3, 0.4999)).toBeNull();
    expect(stepsSaved(7, 3, 0.6, 0.7)).toBeNull();
    expect(stepsSaved(7, 3, Number.NaN)).toBeNull();
  });
});

describe('majorityLabel and hits', () => {
  it('takes the most frequent label, ignoring missing ones', () => {
    expect(majorityLabel(['x', 'y', 'x', null, undefined])).toEqual({ label: 'x', count: 2, share: 2 / 3 });
  });
  it('has no majority on a tie, whatever the input order', () => {
    expect(majorityLabel(['b', 'a'])).toEqual({ label: null, count: 1, share: 0.5 });
    expect(majorityLabel(['a', 'b', 'b', 'a']).label).toBeNull();
    expect(majorityLabel(['a', 'b', 'b', 'a', 'c', 'b']).label).toBe('b');
  });
  it('has no label without labels', () => {
    expect(majorityLabel([null, undefined])).toEqual({ label: null, count: 0, share: 0 });
    expect(majorityLabel([])).toEqual({ label: null, count: 0, share: 0 });
  });
  it('is a hit only when both kinds are known and equal', () => {
    expect(isHit('a', 'a')).toBe(true);
    expect(isHit('a', 'b')).toBe(false);
    expect(isHit(null, null)).toBe(false);
    expect(isHit('a', undefined)).toBe(false);
    expect(isHit(null, 'a')).toBe(false);
  });
  it('ratio has no value over an empty set', () => {
    expect(ratio(1, 4)).toBe(0.25);
    expect(ratio(0, 0)).toBeNull();
  });
});

describe('scoreQueries', () => {
  const queries: QueryOutcome[] = [
    // hit at 1, agreement 1, saves 6 - 3 = 3
    { kind: 'A', callsMade: 6, essential: ['a', 'b', 'c'], recalled: [{ kind: 'A', toolSequence: ['a', 'b', 'c'] }] },
    // wrong kind first, right kind second: a hit at k=2 only; agreement 0
    {
      kind: 'B',
      callsMade: 4,
      essential: ['x', 'y'],
      recalled: [
        { kind: 'A', toolSequence: ['a', 'b', 'c'] },
        { kind: 'B', toolSequence: ['x', 'y'] },
      ],
    },
    // no skill of kind C exists, nothing recalled
    { kind: 'C', callsMade: 5, essential: ['a', 'b'], recalled: [] },
    // unlabelled: recalled and agrees (saves 2 - 1 = 1) but can never be a hit
    { kind: null, callsMade: 2, essential: ['a'], recalled: [{ kind: 'A', toolSequence: ['a'] }] },
    // a skill of kind B exists, nothing recalled
    { kind: 'B', callsMade: 3, essential: ['x', 'y'], recalled: [] },
  ];
  const kindsWithSkill = new Set(['A', 'B']);

  it('counts queries, recalls and hits at 1 and at k', () => {
    const m = scoreQueries(queries, { topK: 2, kindsWithSkill });
    expect(m).toMatchObject({ queries: 5, labelled: 4, recalled: 3, hitsTop1: 1, hitsTopK: 2 });
    expect(m.recallRate).toBeCloseTo(0.6);
    expect(m.hitRateTop1).toBeCloseTo(0.2);
    expect(m.hitRateTopK).toBeCloseTo(0.4);
    expect(m.precisionTop1).toBeCloseTo(1 / 3);
  });
  it('averages step agreement of the top-1 skill over hits and over all recalls', () => {
    const m = scoreQueries(queries, { topK: 2, kindsWithSkill });
    expect(m.stepAgreement.overHits).toBe(1);
    expect(m.stepAgreement.overRecalled).toBeCloseTo(2 / 3);
  });
  it('counts steps saved only where the top-1 skill agrees', () => {
    const m = scoreQueries(queries, { topK: 2, kindsWithSkill });
    expect(m.stepsSaved).toEqual({ agreeing: 2, agreeRate: 0.4, meanWhenAgrees: 2, perQuery: 0.8 });
    expect(m.callsMean).toBe(4);
  });
  it('measures coverage over the labelled kinds of the queries', () => {
    const m = scoreQueries(queries, { topK: 2, kindsWithSkill });
    expect(m.coverage.kinds).toBe(3);
    expect(m.coverage.kindsHitTop1).toBe(1);
    expect(m.coverage.kindsHitTopK).toBe(2);
    expect(m.coverage.top1).toBeCloseTo(1 / 3);
    expect(m.coverage.topK).toBeCloseTo(2 / 3);
  });
  it('splits the top-1 misses by cause, and the parts add up', () => {
    const m = scoreQueries(queries, { topK: 2, kindsWithSkill });
    expect(m.misses).toEqual({
      unlabelled: 1,
      noSkillForKind: 1,
      noSkillForKindRecalledOther: 0,
      nothingRecalled: 1,
      wrongKind: 1,
    });
    const x = m.misses!;
    expect(x.unlabelled + x.noSkillForKind + x.nothingRecalled + x.wrongKind).toBe(m.queries - m.hitsTop1);
    expect(scoreQueries(queries, { topK: 2 }).misses).toBeNull();
  });
  it('flags a recall of another kind where no skill of the kind exists', () => {
    const m = scoreQueries(
      [{ kind: 'C', callsMade: 3, essential: ['a'], recalled: [{ kind: 'A', toolSequence: ['a'] }] }],
      { topK: 2, kindsWithSkill },
    );
    expect(m.misses).toMatchObject({ noSkillForKind: 1, noSkillForKindRecalledOther: 1, wrongKind: 0 });
  });
  it('looks only at the first k recalled skills', () => {
    const m = scoreQueries(queries, { topK: 1, kindsWithSkill });
    expect(m.hitsTopK).toBe(1);
    expect(m.hitsTopK).toBe(m.hitsTop1);
  });
  it('gives no rates and no means for an empty query set', () => {
    const m = scoreQueries([], { topK: 2, kindsWithSkill });
    expect(m).toMatchObject({
      queries: 0,
      recalled: 0,
      recallRate: null,
      hitRateTop1: null,
      precisionTop1: null,
      callsMean: null,
    });
    expect(m.stepAgreement).toEqual({ overHits: null, overRecalled: null, perQuery: null });
    expect(m.stepsSaved).toEqual({ agreeing: 0, agreeRate: null, meanWhenAgrees: null, perQuery: null });
  });
  it('rounds rates to 4 decimals without touching counts', () => {
    const m = roundMetrics(scoreQueries(queries, { topK: 2, kindsWithSkill }));
    expect(m.precisionTop1).toBe(0.3333);
    expect(m.stepAgreement.overRecalled).toBe(0.6667);
    expect(m.recalled).toBe(3);
  });
});

describe('falseRecall', () => {
  it('is the share of unrelated goals that recalled anything, with its 95% interval', () => {
    expect(falseRecall([0, 2, 0, 1])).toEqual({ goals: 4, recalled: 2, rate: 0.5, interval95: wilson95(2, 4) });
    expect(falseRecall([])).toEqual({ goals: 0, recalled: 0, rate: null, interval95: null });
  });
});

describe('wilson95', () => {
  it('is the Wilson score interval: none of n is 0 to z^2 / (n + z^2), and it holds the observed rate', () => {
    const z2 = 1.959964 ** 2;
    expect(wilson95(0, 60)).toEqual([0, Math.round((z2 / (60 + z2)) * 1e4) / 1e4]);
    expect(wilson95(60, 60)).toEqual([Math.round((60 / (60 + z2)) * 1e4) / 1e4, 1]);
    // 4 of 60 (the dev split's false recall) and 3 of 60 (the target 0.05) are not told apart by 60 goals.
    const [lo4, hi4] = wilson95(4, 60)!;
    expect([lo4, hi4]).toEqual([0.0262, 0.1593]);
    const [lo3, hi3] = wilson95(3, 60)!;
    expect(lo3).toBeLessThan(3 / 60);
    expect(hi3).toBeGreaterThan(4 / 60);
    expect(wilson95(0, 0)).toBeNull();
    // More goals, a narrower interval around the same rate.
    const [lo, hi] = wilson95(40, 600)!;
    expect(hi - lo).toBeLessThan(hi4 - lo4);
  });
});
