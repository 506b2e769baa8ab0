// Bench-only: writes many 'add' skills into a SQLite store in one transaction per batch, with the same rows
// as SqliteStore.writeSkill({ action: 'add', parents: [], clusterId: undefined }) writes for each (skills,
// skill_versions, audit, events), without its per-skill transaction and read-back. Used to populate 100k
// skills for the recall benchmark in seconds instead of minutes; the rows recall reads are identical.

import type Database from 'better-sqlite3';
import { clip } from '#dist/domain/context-pack.js';
import { chooseExemplars, packExemplars } from '#dist/domain/exemplars.js';
import { newSkill } from '#dist/domain/new-skill.js';
import { normalizeGoal } from '#dist/domain/normalize-goal.js';
import { collapseRepeats } from '#dist/domain/sequence.js';
import type { Session, Skill } from '#dist/domain/types.js';
import type { Memory } from '#dist/app/memory.js';
import { renderSkillMd } from '#dist/pipeline/render-skill-md.js';
import { json } from '#dist/store/rows.js';
import { skillInsertSql, skillRowValues } from '#dist/store/skill-row.js';
import { accepted, planSkillWrite } from '#dist/store/write-plan.js';
import { goalWordings, loadSourceSessions, syntheticSessionBatches } from './synthetic.js';

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

/**
 * Writes `count` skills from perturbed real sessions (seeded) into the memory's store. Returns seconds. On SQLite,
 * the bulk writer above inserts the rows writeSkill('add') would, 1,000 per transaction; elsewhere, through the
 * store's one write path, one skill at a time.
 */
export async function writeBenchSkills(
  memory: Memory,
  count: number,
  opts: { seed: number; traces: string[]; onBatch?: (done: number) => void; exemplars?: number },
): Promise<number> {
  const store = memory.parts.store!;
  const sources = opts.exemplars ? loadSourceSessions(opts.traces) : [];
  const benchSkill = (memory: Memory, session: Session, i: number) =>
    withExemplars(memory, benchSkillOf(memory, session, i), sources, session, opts.seed, opts.exemplars ?? 0);
  const start = performance.now();
  let i = 0;
  const db = store.kind === 'sqlite' ? (store as unknown as { db: Database.Database }).db : null;
  const bulk = db ? bulkSkillWriter(db) : null;
  for (const batch of syntheticSessionBatches(count, opts.seed, opts.traces, 1_000)) {
    if (bulk) {
      bulk.write(
        batch.map((session) => benchSkill(memory, session, i++)),
        'bench',
      );
      opts.onBatch?.(i);
      continue;
    }
    for (const session of batch) {
      const skill = benchSkill(memory, session, i++);
      await store.writeSkill({ action: 'add', skill, parents: [], actor: 'bench', detail: {}, at: skill.createdAt });
      if (i % 50 === 0) opts.onBatch?.(i);
    }
  }
  return (performance.now() - start) / 1000;
}

/**
 * The skill with up to `count` exemplars, as a learned skill carries them (see domain/exemplars.ts): embeddings
 * of other wordings of its task, chosen for spread. None when `count` is 0.
 */
function withExemplars(
  memory: Memory,
  skill: Skill,
  sources: readonly Session[],
  session: Session,
  seed: number,
  count: number,
): Skill {
  if (count <= 0) return skill;
  const wordings = goalWordings(sources, session, seed, count + 2);
  const vectors = wordings.map((w) => memory.parts.embedder.embedSync!(normalizeGoal(w)));
  return { ...skill, exemplars: packExemplars(chooseExemplars(vectors, count)) };
}

/** A plausible learned skill for a session: its tool path as the procedure, its goal as the trigger text. */
function benchSkillOf(memory: Memory, session: Session, i: number): Skill {
  const tools = collapseRepeats(session.calls.filter((c) => c.ok).map((c) => c.tool));
  const required = [...new Set(tools)];
  const id = `sk_bench${String(i).padStart(8, '0')}`;
  const name = `bench-${(tools.find((t) => !t.startsWith('get_') && !t.startsWith('find_')) ?? tools[0] ?? 'answer').replace(/_/g, '-')}-${i}`;
  const description = clip(session.goal.replace(/\s+/g, ' '), 240);
  const body = `# ${name}\n\n${tools.map((t, k) => `${k + 1}. Call \`${t}\`.`).join('\n')}\n`;
  const at = new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString();
  const skillMd = renderSkillMd(
    { name, whenToUse: description, toolsRequired: required, kind: 'playbook', body },
    { license: memory.config.license, version: '1.0.0', id, sourceSessions: [], clusterId: null, learnedBy: 'bench' },
  );
  return newSkill(at, {
    id,
    namespace: memory.namespace,
    name,
    description,
    skillMd,
    body,
    kind: 'playbook',
    toolsRequired: required,
    toolSequence: tools,
    successCount: 3,
    attemptCount: 3,
    support: 3,
    embedderId: memory.parts.embedder.id,
    embedding: memory.parts.embedder.embedSync!(normalizeGoal(session.goal)),
  });
}
