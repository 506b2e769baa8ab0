// Bench-only: writes many 'add' skills into a SQLite store in one transaction per batch, with the same rows
// as SqliteStore.writeSkill({ action: 'add', parents: [], clusterId: undefined }) writes for each (skills,
// skill_versions, audit, events), without its per-skill transaction and read-back. Used to populate 100k
// skills for the recall benchmark in seconds instead of minutes; the rows recall reads are identical.

import type Database from 'better-sqlite3';
import type { Skill } from '#dist/domain/types.js';
import { json } from '#dist/store/rows.js';
import { skillInsertSql, skillRowValues } from '#dist/store/skill-row.js';
import { accepted, planSkillWrite } from '#dist/store/write-plan.js';

export interface BulkSkillWriter {
  write(skills: Skill[], actor: string): void;
}

export function bulkSkillWriter(db: Database.Database): BulkSkillWriter {
  const insertSkill = db.prepare(skillInsertSql(() => '?', { upsert: false }));
  const insertVersion = db.prepare(
    'INSERT INTO skill_versions (skill_id, version, skill_md, tool_sequence, reason, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const insertAudit = db.prepare(
    'INSERT INTO audit (namespace, at, actor, action, subject_kind, subject_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const insertEvent = db.prepare('INSERT INTO events (namespace, at, type, skill_id, payload) VALUES (?, ?, ?, ?, ?)');
  const run = db.transaction((skills: Skill[], actor: string) => {
    for (const s of skills) {
      // The rows writeSkill would write for this 'add' (no parents, no supersede: nothing to read first).
      const plan = accepted(
        planSkillWrite(
          { action: 'add', skill: s, parents: [], actor, detail: {}, at: s.createdAt },
          { superseded: null },
        ),
      );
      insertSkill.run(...skillRowValues(plan.skill, (b) => (b ? 1 : 0)));
      const v = plan.version!;
      insertVersion.run(v.skillId, v.version, v.skillMd, json(v.toolSequence), v.reason, v.createdAt);
      for (const a of plan.audit)
        insertAudit.run(a.namespace, a.at, a.actor, a.action, a.subjectKind, a.subjectId, json(a.detail));
      for (const e of plan.events) insertEvent.run(e.namespace, e.at, e.type, e.skillId, json(e.payload));
    }
  });
  return { write: (skills, actor) => run(skills, actor) };
}
