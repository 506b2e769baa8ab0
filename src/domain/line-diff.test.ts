import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffHunks, diffLines, unifiedDiff } from './line-diff.js';

const V1 = [
  '---',
  'name: cancel-pending-order',
  'metadata:',
  '  version: 1.0.0',
  '  learned-by: heuristic@10',
  '---',
  '',
  '# Cancel Pending Order',
  '',
  '## Steps',
  '',
  '1. Call `find_user_id_by_email` with `email` from the user.',
  '2. Call `get_order_details` with `order_id` from the user.',
  '3. Call `cancel_pending_order` with `order_id`, `reason` from the user.',
  '',
  '## Done when',
  '',
  '`cancel_pending_order` has succeeded, and the result is confirmed with the user.',
  '',
  '## Edge cases',
  '',
  '- No failure was observed: if a step errors, stop and report the error rather than guessing.',
].join('\n');

const V2 = V1.replace('version: 1.0.0', 'version: 1.1.0')
  .replace('learned-by: heuristic@10', 'learned-by: heuristic@11')
  .replace(
    '3. Call `cancel_pending_order`',
    '3. Call `get_product_details` with `product_id` from the result of `get_order_details`.\n4. Call `cancel_pending_order`',
  )
  .replace(
    '- No failure was observed: if a step errors, stop and report the error rather than guessing.',
    '- If `get_order_details` fails, correct the arguments and retry it.',
  );

/** The longest common subsequence of two lists, by the textbook table. */
function lcsLength(a: string[], b: string[]): number {
  const t = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      t[i][j] = a[i - 1] === b[j - 1] ? t[i - 1][j - 1] + 1 : Math.max(t[i - 1][j], t[i][j - 1]);
  return t[a.length][b.length];
}

describe('line diff', () => {
  it('gives back both texts, keeping as many lines unchanged as any alignment can', () => {
    // Texts of a few letters a line, so lines repeat and many alignments compete.
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let round = 0; round < 200; round++) {
      const text = () => Array.from({ length: next() % 12 }, () => 'abcd'[next() % 4]).join('\n');
      const [a, b] = [text(), text()];
      const lines = diffLines(a, b);
      expect(
        lines
          .filter((l) => l.op !== '+')
          .map((l) => l.text)
          .join('\n'),
      ).toBe(a);
      expect(
        lines
          .filter((l) => l.op !== '-')
          .map((l) => l.text)
          .join('\n'),
      ).toBe(b);
      expect(lines.filter((l) => l.op === ' ').length).toBe(lcsLength(a.split('\n'), b.split('\n')));
    }
  });

  it('says nothing for equal texts', () => {
    expect(diffHunks(V1, V1)).toEqual([]);
    expect(unifiedDiff(V1, V1, 'a', 'b')).toBe('');
  });

  it('prints what diff -u prints for two versions of a SKILL.md', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillsmith-diff-'));
    try {
      writeFileSync(join(dir, 'a'), `${V1}\n`);
      writeFileSync(join(dir, 'b'), `${V2}\n`);
      const gnu = spawnSync('diff', ['-u', 'a', 'b'], { cwd: dir, encoding: 'utf8' });
      expect(gnu.status, gnu.stderr).toBe(1);
      // The hunks, without the headers (diff -u puts file times there).
      const hunks = (s: string) => s.slice(s.indexOf('@@')).trimEnd();
      expect(hunks(unifiedDiff(V1, V2, 'a', 'b'))).toBe(hunks(gnu.stdout));
      expect(
        unifiedDiff(V1, V2, 'cancel-pending-order@1.0.0', 'cancel-pending-order@1.1.0').split('\n').slice(0, 2),
      ).toEqual(['--- cancel-pending-order@1.0.0', '+++ cancel-pending-order@1.1.0']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('joins changes whose context overlaps into one hunk, and keeps far ones apart', () => {
    const a = Array.from({ length: 30 }, (_, i) => `line ${i}`);
    const near = a.map((l, i) => (i === 10 || i === 14 ? `${l} changed` : l));
    expect(diffHunks(a.join('\n'), near.join('\n'))).toHaveLength(1);
    const far = a.map((l, i) => (i === 2 || i === 25 ? `${l} changed` : l));
    const hunks = diffHunks(a.join('\n'), far.join('\n'));
    expect(hunks.map((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines])).toEqual([
      [1, 6, 1, 6],
      [23, 7, 23, 7],
    ]);
  });
});
