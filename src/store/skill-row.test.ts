import { describe, expect, it } from 'vitest';
import { rowChangeSql } from './rows.js';
import { skill } from './store.contract.js';
import { SKILL_COLUMNS, skillFromRow, skillInsertSql, skillRowValues } from './skill-row.js';

describe('the skill row mapping', () => {
  it('a skill written to its row and read back is the same skill, whichever way booleans are stored', () => {
    const s = skill({
      exemplars: new Float32Array([1, 0, 0, 0, 1, 0]),
      lastUsedAt: '2025-01-03T00:00:00.000Z',
      supersededBy: 'sk_2',
      clusterId: 'c1',
    });
    for (const bool of [(b: boolean) => (b ? 1 : 0), (b: boolean) => b]) {
      const values = skillRowValues(s, bool);
      expect(values).toHaveLength(SKILL_COLUMNS.length);
      const row = Object.fromEntries(SKILL_COLUMNS.map((c, i) => [c, values[i]]));
      expect(skillFromRow(row, ['s1'])).toEqual({ ...s, sourceSessions: ['s1'] });
    }
    const off = skillRowValues(skill({ enabled: false, embedding: null }), (b) => (b ? 1 : 0));
    const row = Object.fromEntries(SKILL_COLUMNS.map((c, i) => [c, off[i]]));
    expect(skillFromRow(row, [])).toMatchObject({ enabled: false, embedding: null, exemplars: null });
  });

  it('an upsert rewrites every column but identity, lineage, birth and last use', () => {
    const sql = skillInsertSql((i) => `$${i + 1}`, { upsert: true });
    expect(sql).toContain(`VALUES ($1, $2,`);
    expect(sql).toContain(`$${SKILL_COLUMNS.length})`);
    const set = sql
      .slice(sql.indexOf('DO UPDATE SET') + 'DO UPDATE SET'.length)
      .split(',')
      .map((x) => x.trim().split(' ')[0]);
    expect(set.sort()).toEqual(
      SKILL_COLUMNS.filter(
        (c) => !['id', 'namespace', 'superseded_by', 'created_at', 'last_used_at'].includes(c),
      ).sort(),
    );
    expect(skillInsertSql(() => '?', { upsert: false })).not.toContain('ON CONFLICT');
  });

  it('a row change reads the same in both dialects but for placeholders and booleans', () => {
    const change = {
      table: 'clusters' as const,
      set: { skill_id: 'sk_1', dirty: false, last_pass_at: null },
      where: { namespace: 'default', id: 'c1' },
    };
    expect(
      rowChangeSql(
        change,
        () => '?',
        (b) => (b ? 1 : 0),
      ),
    ).toEqual({
      text: 'UPDATE clusters SET skill_id = ?, dirty = ?, last_pass_at = ? WHERE namespace = ? AND id = ?',
      values: ['sk_1', 0, null, 'default', 'c1'],
    });
    expect(
      rowChangeSql(
        change,
        (i) => `$${i + 1}`,
        (b) => b,
      ),
    ).toEqual({
      text: 'UPDATE clusters SET skill_id = $1, dirty = $2, last_pass_at = $3 WHERE namespace = $4 AND id = $5',
      values: ['sk_1', false, null, 'default', 'c1'],
    });
    expect(rowChangeSql({ table: 'feedback', where: { skill_id: 'sk_1' } }, () => '?', Number)).toEqual({
      text: 'DELETE FROM feedback WHERE skill_id = ?',
      values: ['sk_1'],
    });
  });
});
