import { describe, expect, it } from 'vitest';
import { admitCluster, denyReason, seedEta, shrunkGain, tooFewSessions } from './admit.js';
import { detectSpan } from './spans.js';
import type { Session } from './types.js';

const session = (
  id: string,
  tools: string[],
  outcome: Session['outcome'] = 'success',
  goal = 'refund my order',
): Session => ({
  id,
  namespace: 'default',
  goal,
  outcome,
  reward: null,
  agentId: null,
  source: null,
  startedAt: '2026-01-01T00:00:00Z',
  endedAt: null,
  calls: tools.map((tool, position) => ({
    position,
    tool,
    args: {},
    result: '',
    ok: true,
    error: null,
    durationMs: null,
    at: null,
  })),
});
const rules = {
  minOccurrences: 3,
  minSuccessRate: 0.8,
  followThreshold: 0.5,
  thinkTools: ['think'],
  findSecrets: (t: string) => (t.includes('sk-') ? [1] : []),
};
const spanOf = (s: Session) => detectSpan(s, { minSteps: 3, thinkTools: ['think'] });
const procedure = () => ['find', 'get', 'refund'];
const path = ['find', 'get', 'refund'];

describe('admitCluster', () => {
  it('admits three successful sessions that follow one procedure', () => {
    const a = admitCluster([session('a', path), session('b', path), session('c', path)], spanOf, procedure, rules);
    expect(a.admitted).toBe(true);
    expect(a.successRate).toBe(1);
  });

  it('needs minOccurrences successful sessions', () => {
    const a = admitCluster(
      [session('a', path), session('b', path), session('c', path, 'failure')],
      spanOf,
      procedure,
      rules,
    );
    expect(a.admitted).toBe(false);
    expect(a.reason).toMatch(/2 successful sessions/);
  });

  it('judges the success rate over the sessions that followed the procedure, not over every similar goal', () => {
    const followers = [session('a', path), session('b', path), session('c', path), session('d', path)];
    const strayFailures = ['x', 'y', 'z'].map((id) => session(id, ['transfer_to_human'], 'failure'));
    const a = admitCluster([...followers, ...strayFailures], spanOf, procedure, rules);
    expect(a.admitted).toBe(true);
    expect(a.counterExamples.map((s) => s.id)).toEqual(['x', 'y', 'z']);
    const followedAndFailed = ['x', 'y'].map((id) => session(id, path, 'failure'));
    const b = admitCluster([...followers, ...followedAndFailed], spanOf, procedure, rules);
    expect(b.admitted).toBe(false);
    expect(b.successRate).toBeCloseTo(4 / 6);
  });

  it('does not count a session that skipped a step every successful one made as following the procedure', () => {
    // Every success looked the recipient up before forwarding; the failures forwarded to an address they made up.
    const forward = ['search', 'lookup', 'forward'];
    const succeeded = ['a', 'b', 'c'].map((id) => session(id, forward));
    const skipped = ['w', 'x', 'y', 'z'].map((id) => session(id, ['search', 'forward'], 'failure'));
    const a = admitCluster([...succeeded, ...skipped], spanOf, () => forward, rules);
    expect(a.followers.map((s) => s.id)).toEqual(['a', 'b', 'c']);
    expect(a.counterExamples.map((s) => s.id)).toEqual(['w', 'x', 'y', 'z']);
    expect(a.successRate).toBe(1);
    expect(a.admitted).toBe(true);
    // A failure that made every such step did follow it, and counts against it.
    const followedAndFailed = ['x', 'y'].map((id) => session(id, forward, 'failure'));
    const b = admitCluster([...succeeded, ...followedAndFailed], spanOf, () => forward, rules);
    expect(b.followers.map((s) => s.id)).toEqual(['a', 'b', 'c', 'x', 'y']);
    expect(b.admitted).toBe(false);
  });

  it('counts a follower that succeeded as a success, even when its own span is no material', () => {
    // Of six followers, two succeeded in one call less than a span needs and one held a secret in its arguments:
    // no material, but they followed the procedure and succeeded. All six succeeded, as did the group: no gain, no loss.
    const short = ['d', 'e'].map((id) => session(id, ['get', 'refund']));
    const secret = session('f', path);
    secret.calls[0].args = { key: 'sk-abcdef' };
    const a = admitCluster(
      [session('a', path), session('b', path), session('c', path), ...short, secret],
      spanOf,
      procedure,
      rules,
    );
    expect(a.followers.map((s) => s.id)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(a.successRate).toBe(1);
    expect(a.gain).toBe(0);
    expect(a.admitted).toBe(true);
    // The material, the sources and the support stay the sessions whose spans may be read.
    expect(a.successfulFollowers.map((s) => s.id)).toEqual(['a', 'b', 'c']);
    expect(a.succeeded).toBe(6);
  });

  it('denies chain-of-thought spans, tool-JSON dumps and spans holding secrets', () => {
    const cot = session('t', ['think', 'think', 'think', 'find', 'get', 'refund']);
    expect(denyReason(cot, spanOf(cot)!, rules)).toMatch(/chain-of-thought/);
    const dump = session('j', path, 'success', '{"tool": "x", "args": {"a": 1}}');
    expect(denyReason(dump, spanOf(dump)!, rules)).toMatch(/JSON/);
    const secret = session('s', path);
    secret.calls[0].args = { key: 'sk-abcdef' };
    expect(denyReason(secret, spanOf(secret)!, rules)).toMatch(/secret/);
    expect(denyReason(session('ok', path), spanOf(session('ok', path))!, rules)).toBeNull();
  });

  it('admits by evidence: a procedure most agents fail at is learned when following it beats their baseline', () => {
    // 3 of 5 followers succeed (0.6), while the 5 sessions that took another path all failed: baseline 0.3.
    const followers = [
      session('a', path),
      session('b', path),
      session('c', path),
      session('d', path, 'failure'),
      session('e', path, 'failure'),
    ];
    const others = ['v', 'w', 'x', 'y', 'z'].map((id) => session(id, ['search', 'transfer_to_human'], 'failure'));
    const evidence = admitCluster([...followers, ...others], spanOf, procedure, { ...rules, minSuccessRate: 0.5 });
    expect(evidence.admitted).toBe(true);
    expect(evidence.baselineRate).toBeCloseTo(0.3);
    expect(evidence.gain).toBeCloseTo(shrunkGain(0.6, 0.3, 5, 4));
    // GAIA's absolute rule throws the same evidence away.
    const absolute = admitCluster([...followers, ...others], spanOf, procedure, {
      ...rules,
      rule: 'absolute',
      minSuccessRate: 0.8,
    });
    expect(absolute.admitted).toBe(false);
    expect(absolute.reason).toMatch(/below the floor 0.8/);
  });

  it('rejects a procedure whose followers do worse than the agents that took another path', () => {
    const followers = [
      session('a', path),
      session('b', path),
      session('c', path),
      session('d', path, 'failure'),
      session('e', path, 'failure'),
    ];
    const others = ['v', 'w', 'x', 'y'].map((id) => session(id, ['search', 'refund_now', 'notify'], 'success'));
    const a = admitCluster([...followers, ...others], spanOf, procedure, { ...rules, minSuccessRate: 0.5 });
    expect(a.admitted).toBe(false);
    expect(a.reason).toMatch(/no gain/);
  });

  it('takes a procedure nearly every session followed, though one that took another path succeeded too', () => {
    // 21 followers, 19 of them successful, and one session by another path that succeeded: the followers are the
    // group, and their rate is a hair under it (shrunk gain -0.004), which is no evidence against the procedure.
    const followers = [
      ...Array.from({ length: 19 }, (_, i) => session(`ok${i}`, path)),
      session('f1', path, 'failure'),
      session('f2', path, 'failure'),
    ];
    const other = session('other', ['search', 'refund_now', 'notify'], 'success');
    const a = admitCluster([...followers, other], spanOf, procedure, { ...rules, minSuccessRate: 0.5 });
    expect(a.gain).toBeCloseTo(shrunkGain(19 / 21, 20 / 22, 21, 4));
    expect(a.gain).toBeLessThan(0);
    expect(a.admitted).toBe(true);
    // Followers a few points behind the group are still turned away (-0.019 on the dev traces).
    const behind = admitCluster(
      [
        ...followers,
        other,
        ...['o2', 'o3', 'o4', 'o5'].map((id) => session(id, ['search', 'refund_now', 'notify'], 'success')),
      ],
      spanOf,
      procedure,
      { ...rules, minSuccessRate: 0.5 },
    );
    expect(behind.gain).toBeLessThan(-0.01);
    expect(behind.reason).toMatch(/^no gain/);
    // The rule as it was (a gain of at least 0) turned it away.
    const strict = admitCluster([...followers, other], spanOf, procedure, {
      ...rules,
      minSuccessRate: 0.5,
      minGain: 0,
    });
    expect(strict.reason).toMatch(/^no gain: followers succeed 0.90 against a baseline of 0.91/);
  });

  it('keeps a floor: a procedure whose followers mostly fail is never learned, whatever the baseline', () => {
    const followers = [
      session('a', path),
      session('b', path),
      session('c', path),
      ...['d', 'e', 'f', 'g'].map((id) => session(id, path, 'failure')),
    ];
    const others = ['v', 'w', 'x', 'y', 'z'].map((id) => session(id, ['search', 'transfer_to_human'], 'failure'));
    const a = admitCluster([...followers, ...others], spanOf, procedure, { ...rules, minSuccessRate: 0.5 });
    expect(a.admitted).toBe(false);
    expect(a.reason).toMatch(/floor 0.5/);
  });

  it('shrinks the gain toward zero for small counts and seeds eta from the evidence', () => {
    expect(shrunkGain(1, 0.5, 2, 4)).toBeCloseTo(0.5 * (2 / 6));
    expect(shrunkGain(1, 0.5, 40, 4)).toBeCloseTo(0.5 * (40 / 44));
    expect(shrunkGain(1, 0.5, 0, 4)).toBe(0);
    expect(seedEta(3, 3)).toBeCloseTo(0.8);
    expect(seedEta(30, 30)).toBeCloseTo(31 / 32);
    expect(seedEta(3, 6)).toBeCloseTo(0.5);
    expect(seedEta(0, 0)).toBe(0.5);
  });
});

describe('admitCluster and a pair of steps repeated for each file', () => {
  it('takes a session that read and edited eight files as following the read-then-edit procedure', () => {
    const files = (n: number) => Array.from({ length: n }, () => ['Read', 'Edit']).flat();
    const sessions = [6, 7, 8].map((n, i) => session(`r${i}`, ['Grep', ...files(n), 'Bash'], 'success', 'rename x'));
    // The procedure as the consensus writes it: the pair once, to repeat.
    const a = admitCluster(sessions, spanOf, () => ['Grep', 'Read', 'Edit', 'Bash'], rules);
    expect(a.reason).toBeNull();
    expect(a.successfulFollowers.map((s) => s.id)).toEqual(['r0', 'r1', 'r2']);
  });
});

describe('tooFewSessions', () => {
  it('knows the reasons that only say a cluster has too few sessions yet, from admission and from the pass', () => {
    for (const reason of [
      'not admitted: 1 sessions, 2 needed',
      'not admitted: 1 successful sessions with material, 2 needed',
      'not admitted: 1 successful sessions follow the procedure, 2 needed',
      '0 successful sessions with material, 3 needed',
    ])
      expect(tooFewSessions(reason), reason).toBe(true);
    for (const reason of [
      'not admitted: no gain: followers succeed 0.50 against a baseline of 0.60 (shrunk gain 0.000, 0 needed)',
      'cooldown: distilled less than cooldownMs ago',
      'not admitted: the steps hold a secret',
    ])
      expect(tooFewSessions(reason), reason).toBe(false);
  });
});
