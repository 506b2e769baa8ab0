import type { Skill } from '../domain/types.js';
import { fromBuffer, toBuffer } from '../vector/vector-math.js';
import type { ServedSkill, SkillVectorRow } from './store.js';
import { json, parseJson, truthy, type Row } from './rows.js';

/**
 * The one mapping between a Skill and a row of the `skills` table, for every back end and the bench writer:
 * the column list, how each field is stored (JSON text for lists, float32 bytes for vectors) and read back.
 * A back end only says how it stores a boolean (SQLite 1/0, PostgreSQL true/false).
 */
export const SKILL_COLUMNS = [
  'id',
  'namespace',
  'name',
  'description',
  'skill_md',
  'body',
  'version',
  'kind',
  'corpus',
  'status',
  'enabled',
  'tools_required',
  'tool_sequence',
  'success_count',
  'attempt_count',
  'support',
  'eta',
  'utility',
  'trials_attempted',
  'trials_passed',
  'superseded_by',
  'cluster_id',
  'embedder_id',
  'embedding',
  'exemplars',
  'exemplar_sources',
  'created_at',
  'updated_at',
  'last_used_at',
] as const;

export type SkillColumn = (typeof SKILL_COLUMNS)[number];

/** Columns a rewrite of an existing row keeps: its identity, lineage, birth and last use. */
const KEPT_ON_REWRITE: ReadonlySet<SkillColumn> = new Set([
  'id',
  'namespace',
  'superseded_by',
  'created_at',
  'last_used_at',
]);

/** The columns of recall's index rows (`SkillVectorRow`). */
export const VECTOR_COLUMNS =
  'id, name, description, corpus, enabled, status, eta, utility, superseded_by, embedder_id, embedding, exemplars, tool_sequence';

/** The columns of what recall serves (`ServedSkill`). */
export const SERVED_COLUMNS =
  'id, name, description, body, version, kind, corpus, status, enabled, tools_required, tool_sequence, eta, utility, superseded_by';

/** How a back end writes a boolean. */
export type BoolValue = (b: boolean) => unknown;

/** The values of `SKILL_COLUMNS`, in order, for a skill. */
export function skillRowValues(s: Skill, bool: BoolValue): unknown[] {
  const row: Record<SkillColumn, unknown> = {
    id: s.id,
    namespace: s.namespace,
    name: s.name,
    description: s.description,
    skill_md: s.skillMd,
    body: s.body,
    version: s.version,
    kind: s.kind,
    corpus: s.corpus,
    status: s.status,
    enabled: bool(s.enabled),
    tools_required: json(s.toolsRequired),
    tool_sequence: json(s.toolSequence),
    success_count: s.successCount,
    attempt_count: s.attemptCount,
    support: s.support,
    eta: s.eta,
    utility: s.utility,
    trials_attempted: s.trialsAttempted,
    trials_passed: s.trialsPassed,
    superseded_by: s.supersededBy,
    cluster_id: s.clusterId,
    embedder_id: s.embedderId,
    embedding: s.embedding ? toBuffer(s.embedding) : null,
    exemplars: s.exemplars ? toBuffer(s.exemplars) : null,
    exemplar_sources: s.exemplars && s.exemplarSources ? json(s.exemplarSources) : null,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    last_used_at: s.lastUsedAt,
  };
  return SKILL_COLUMNS.map((c) => row[c]);
}

/**
 * The INSERT of one skill row; with `upsert`, a row of that id is rewritten but for its identity, lineage,
 * birth and last use. `placeholder(i)` is the dialect's i-th parameter (0-based): `?` or `$1`.
 */
export function skillInsertSql(placeholder: (i: number) => string, opts: { upsert: boolean }): string {
  const insert = `INSERT INTO skills (${SKILL_COLUMNS.join(', ')}) VALUES (${SKILL_COLUMNS.map((_, i) => placeholder(i)).join(', ')})`;
  if (!opts.upsert) return insert;
  const set = SKILL_COLUMNS.filter((c) => !KEPT_ON_REWRITE.has(c)).map((c) => `${c} = excluded.${c}`);
  return `${insert} ON CONFLICT (id) DO UPDATE SET ${set.join(', ')}`;
}

const vector = (v: Buffer | null | undefined) => (v ? fromBuffer(v) : null);

/** A skill from its row and its live episodic parents (provenance, oldest first). */
export function skillFromRow(r: Row, sourceSessions: string[]): Skill {
  return {
    ...servedSkillFrom(r),
    namespace: r.namespace,
    skillMd: r.skill_md,
    successCount: r.success_count,
    attemptCount: r.attempt_count,
    support: r.support,
    trialsAttempted: r.trials_attempted,
    trialsPassed: r.trials_passed,
    ...(r.judged_trials === undefined ? {} : { judgedTrials: Number(r.judged_trials) }),
    sourceSessions,
    clusterId: r.cluster_id,
    embedderId: r.embedder_id,
    embedding: vector(r.embedding),
    exemplars: vector(r.exemplars),
    // Absent when none is known (as a skill that never had exemplars is read).
    ...(r.exemplar_sources ? { exemplarSources: parseJson(r.exemplar_sources, null) } : {}),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    lastUsedAt: r.last_used_at,
  };
}

/** What recall serves, from a row of `SERVED_COLUMNS` (or of every column: skillFromRow builds on it). */
export function servedSkillFrom(r: Row): ServedSkill {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    body: r.body,
    version: r.version,
    kind: r.kind,
    corpus: r.corpus,
    status: r.status,
    enabled: truthy(r.enabled),
    toolsRequired: parseJson(r.tools_required, []),
    toolSequence: parseJson(r.tool_sequence, []),
    eta: r.eta,
    utility: r.utility,
    supersededBy: r.superseded_by,
  };
}

/** Recall's index row from a row of `VECTOR_COLUMNS`. */
export function vectorRowFrom(r: Row): SkillVectorRow {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    corpus: r.corpus,
    enabled: truthy(r.enabled),
    status: r.status,
    eta: r.eta,
    utility: r.utility,
    supersededBy: r.superseded_by,
    embedderId: r.embedder_id,
    embedding: vector(r.embedding),
    exemplars: vector(r.exemplars),
    toolSequence: parseJson(r.tool_sequence, []),
  };
}
