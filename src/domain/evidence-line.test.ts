import { describe, expect, it } from 'vitest';
import { evidenceLine, restateEvidence, sameButEvidence, sameButSupport, shareOfSuccesses } from './evidence-line.js';

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

  it('says a share of the successful sessions over their new number, as a floor: the new ones were not read for it', () => {
    const item = (share: string) =>
      `${BODY}\n\n## Edge cases\n\n- The first run of \`npm test\` with \`Bash\` fails (${share}): that failure shows what to fix.`;
    const grown = restateEvidence(item(shareOfSuccesses(2, 2)), { successes: 4, succeeded: 4, followers: 4 });
    // Before: "(in 2 of the 2 successful sessions)" under "Learned from 4 successful sessions".
    expect(grown).toContain('Learned from 4 successful sessions;');
    expect(grown).toContain('fails (in at least 2 of the 4 successful sessions): that');
    // Said again as it grows further, still a floor; counts that did not grow leave it as it was.
    expect(restateEvidence(grown, { successes: 5, succeeded: 5, followers: 5 })).toContain(
      '(in at least 2 of the 5 successful sessions)',
    );
    expect(restateEvidence(item(shareOfSuccesses(1, 2)), { successes: 2, succeeded: 2, followers: 3 })).toContain(
      '(in 1 of the 2 successful sessions)',
    );
    expect(shareOfSuccesses(1, 1)).toBe('in 1 of the 1 successful session');
  });

  it('two bodies that differ only in their counts say the same', () => {
    expect(sameButEvidence(BODY, restateEvidence(BODY, { successes: 7, succeeded: 6, followers: 8 }))).toBe(true);
    expect(sameButEvidence(BODY, BODY.replace('`find_user`', '`find_user_by_email`'))).toBe(false);
  });

  it('two SKILL.md texts that differ only in their support say the same; any other change does not', () => {
    const md = (sources: string, count: number, body: string, more = '') =>
      `---\nname: find-order\ndescription: Finds an order.\nmetadata:\n  parents-episodic: ${sources}\n  parents-episodic-count: "${count}"\n${more}---\n\n${body}\n`;
    const before = md('ses-a ses-b', 2, BODY);
    const grown = md('ses-a ses-b ses-c', 3, restateEvidence(BODY, { successes: 3, succeeded: 3, followers: 3 }));
    expect(sameButSupport(before, grown)).toBe(true);
    // A person's edit, in the body or in the frontmatter, is not.
    expect(sameButSupport(before, md('ses-a ses-b ses-c', 3, `${BODY}\n\nMy own note.`))).toBe(false);
    expect(sameButSupport(before, md('ses-a ses-b', 2, BODY, '  owner: me\n'))).toBe(false);
    expect(sameButSupport(before, before.replace('Finds an order.', 'Finds any order.'))).toBe(false);
    // Without a frontmatter, only the same text is.
    expect(sameButSupport(BODY, BODY)).toBe(true);
    expect(sameButSupport(BODY, restateEvidence(BODY, { successes: 7, succeeded: 6, followers: 8 }))).toBe(false);
  });
});
