import { describe, expect, it } from 'vitest';
import { evidenceLine, restateEvidence, sameButEvidence } from './evidence-line.js';

const BODY = [
  '# Return Items',
  '',
  'Learned from 2 successful sessions; 67% of the 3 sessions that followed this procedure succeeded.',
  '',
  '## Steps',
  '',
  '1. Call `find_user`.',
].join('\n');

describe('the evidence line', () => {
  it('says the counts, in the singular where one is one', () => {
    expect(evidenceLine({ successes: 4, succeeded: 4, followers: 5 })).toBe(
      'Learned from 4 successful sessions; 80% of the 5 sessions that followed this procedure succeeded.',
    );
    expect(evidenceLine({ successes: 1, succeeded: 1, followers: 1 })).toBe(
      'Learned from 1 successful session; 100% of the 1 session that followed this procedure succeeded.',
    );
  });

  it('is said again with new counts, and the rest of the body is left as it was', () => {
    const restated = restateEvidence(BODY, { successes: 4, succeeded: 4, followers: 5 });
    expect(restated).toBe(
      BODY.replace(
        'Learned from 2 successful sessions; 67% of the 3 sessions',
        'Learned from 4 successful sessions; 80% of the 5 sessions',
      ),
    );
    // A body with no such line (a model's, a person's) is not touched, nor is a step that quotes one in passing.
    const other = '# Mine\n\nSteps a person wrote. Learned from 2 successful sessions; see below.\n';
    expect(restateEvidence(other, { successes: 9, succeeded: 9, followers: 9 })).toBe(other);
  });

  it('two bodies that differ only in their counts say the same', () => {
    expect(sameButEvidence(BODY, restateEvidence(BODY, { successes: 7, succeeded: 6, followers: 8 }))).toBe(true);
    expect(sameButEvidence(BODY, BODY.replace('`find_user`', '`find_user_by_email`'))).toBe(false);
  });
});
