// Bench-only: writes many 'add' skills into a SQLite store in one transaction per batch, with the same rows
// as SqliteStore.writeSkill({ action: 'add', parents: [], clusterId: undefined }) writes for each (skills,
// skill_versions, audit, events), without its per-skill transaction and read-back. Used to populate 100k
// skills for the recall benchmark in seconds instead of minutes; the rows recall reads are identical.

import type Database from 'better-sqlite3';
import type { Skill } from '#dist/domain/types.js';
import { toBuffer } from '#dist/vector/vector-math.js';

const json = (v: unknown) => JSON.stringify(v ?? null);

export interface BulkSkillWriter {
  write(skills: Skill[], actor: string): void;
}

export function bulkSkillWriter(db: Database.Database): BulkSkillWriter {
  const insertSkill = db.prepare(
    `INSERT INTO skills (id, namespace, name, description, skill_md, body, version, kind, corpus, status, enabled,
       tools_required, tool_sequence, success_count, attempt_count, support, eta, utility, trials_attempted, trials_passed,
       superseded_by, cluster_id, embedder_id, embedding, created_at, updated_at, last_used_at)
     VALUES (@id, @namespace, @name, @description, @skillMd, @body, @version, @kind, @corpus, @status, @enabled,
       @toolsRequired, @toolSequence, @successCount, @attemptCount, @support, @eta, @utility, @trialsAttempted, @trialsPassed,
       @supersededBy, @clusterId, @embedderId, @embedding, @createdAt, @updatedAt, @lastUsedAt)`,
  );
  const insertVersion = db.prepare(
    'INSERT INTO skill_versions (skill_id, version, skill_md, tool_sequence, reason, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const insertAudit = db.prepare('INSERT INTO audit (namespace, at, actor, action, subject_kind, subject_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const insertEvent = db.prepare('INSERT INTO events (namespace, at, type, skill_id, payload) VALUES (?, ?, ?, ?, ?)');
  const run = db.transaction((skills: Skill[], actor: string) => {
    for (const s of skills) {
      insertSkill.run({
        ...s,
        enabled: s.enabled ? 1 : 0,
        toolsRequired: json(s.toolsRequired),
        toolSequence: json(s.toolSequence),
        embedding: s.embedding ? toBuffer(s.embedding) : null,
      });
      insertVersion.run(s.id, s.version, s.skillMd, json(s.toolSequence), 'add', s.createdAt);
      const detail = { version: s.version, parents: 0, supersedes: null };
      insertAudit.run(s.namespace, s.createdAt, actor, 'skill.add', 'skill', s.id, json(detail));
      insertEvent.run(s.namespace, s.createdAt, 'skill.created', s.id, json({ name: s.name, ...detail }));
    }
  });
  return { write: (skills, actor) => run(skills, actor) };
}
