import { changeLogWindow, LOGGED_SKILL_COLUMNS_V6, LOGGED_SKILL_COLUMNS_V7 } from '../change-log-schema.js';
import { PG_DETAIL_NOT_JSON, PG_DETAIL_NOT_JSON_V12, pgAuditField } from '../sql/audit-field.js';

/**
 * Additive, numbered migrations of the PostgreSQL store. Versions 1-4 hold the same tables and columns as the
 * SQLite migrations of the same number (a memory copies between the two column for column); 5 onwards are
 * PostgreSQL's own. A migration never rewrites an existing row; new columns get defaults.
 * Append new entries at the end; never edit one that has shipped.
 *
 * Every text column is `COLLATE "C"`: ORDER BY then compares bytes, as SQLite's BINARY collation does, so
 * both back ends list skills, provenance and calls in the same order whatever the database's locale.
 */
export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

const T = 'TEXT COLLATE "C"';

/**
 * Logs a skill's row unless none of `columns` changed (and its old key too when the key itself changed). The
 * advisory lock, held to COMMIT, serialises the writers of the log: revisions then commit in order.
 */
function skillsLogChangeFunction(create: 'CREATE' | 'CREATE OR REPLACE', columns: readonly string[]): string {
  return `${create} FUNCTION skills_log_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND ${columns.map((c) => `OLD.${c} IS NOT DISTINCT FROM NEW.${c}`).join(' AND ')} THEN
    RETURN NULL;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended('skillsmith:skill_changes', 0));
  IF TG_OP <> 'INSERT' THEN
    INSERT INTO skill_changes (namespace, skill_id) VALUES (OLD.namespace, OLD.id);
  END IF;
  IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR OLD.id IS DISTINCT FROM NEW.id OR OLD.namespace IS DISTINCT FROM NEW.namespace) THEN
    INSERT INTO skill_changes (namespace, skill_id) VALUES (NEW.namespace, NEW.id);
  END IF;
  RETURN NULL;
END $$;
`;
}

const pruning = changeLogWindow('GREATEST');

export const pgMigrations: PgMigration[] = [
  {
    version: 1,
    name: 'core tables',
    sql: `
CREATE TABLE sessions (
  seq         BIGSERIAL PRIMARY KEY,
  namespace   ${T} NOT NULL,
  id          ${T} NOT NULL,
  goal        ${T} NOT NULL,
  outcome     ${T} NOT NULL CHECK (outcome IN ('success','failure','unknown')),
  reward      DOUBLE PRECISION,
  agent_id    ${T},
  source      ${T},
  started_at  ${T} NOT NULL,
  ended_at    ${T},
  labels      ${T},
  UNIQUE (namespace, id)
);
CREATE TABLE tool_calls (
  namespace   ${T} NOT NULL,
  session_id  ${T} NOT NULL,
  position    INTEGER NOT NULL,
  tool        ${T} NOT NULL,
  args        ${T} NOT NULL,
  result      ${T} NOT NULL,
  ok          BOOLEAN NOT NULL,
  error       ${T},
  duration_ms DOUBLE PRECISION,
  at          ${T},
  PRIMARY KEY (namespace, session_id, position)
);
CREATE TABLE facts (
  namespace   ${T} NOT NULL,
  id          ${T} NOT NULL,
  text        ${T} NOT NULL,
  source      ${T},
  created_at  ${T} NOT NULL,
  PRIMARY KEY (namespace, id)
);
CREATE TABLE skills (
  id               ${T} PRIMARY KEY,
  namespace        ${T} NOT NULL,
  name             ${T} NOT NULL,
  description      ${T} NOT NULL,
  skill_md         ${T} NOT NULL,
  body             ${T} NOT NULL,
  version          ${T} NOT NULL DEFAULT '1.0.0',
  kind             ${T} NOT NULL DEFAULT 'playbook',
  corpus           ${T} NOT NULL DEFAULT 'internal',
  status           ${T} NOT NULL DEFAULT 'probationary',
  enabled          BOOLEAN NOT NULL DEFAULT TRUE,
  tools_required   ${T} NOT NULL DEFAULT '[]',
  tool_sequence    ${T} NOT NULL DEFAULT '[]',
  success_count    INTEGER NOT NULL DEFAULT 0,
  attempt_count    INTEGER NOT NULL DEFAULT 0,
  support          INTEGER NOT NULL DEFAULT 0,
  eta              DOUBLE PRECISION NOT NULL DEFAULT 0.5,
  utility          DOUBLE PRECISION NOT NULL DEFAULT 0,
  trials_attempted INTEGER NOT NULL DEFAULT 0,
  trials_passed    INTEGER NOT NULL DEFAULT 0,
  superseded_by    ${T},
  cluster_id       ${T},
  embedder_id      ${T},
  embedding        BYTEA,
  created_at       ${T} NOT NULL,
  updated_at       ${T} NOT NULL,
  last_used_at     ${T}
);
CREATE INDEX skills_namespace ON skills (namespace, created_at, id);
CREATE UNIQUE INDEX skills_live_name ON skills (namespace, corpus, name) WHERE superseded_by IS NULL;
CREATE TABLE provenance (
  skill_id    ${T} NOT NULL,
  source_kind ${T} NOT NULL CHECK (source_kind IN ('episodic','semantic','procedural')),
  source_id   ${T} NOT NULL,
  version     ${T} NOT NULL,
  created_at  ${T} NOT NULL,
  PRIMARY KEY (skill_id, source_kind, source_id)
);
CREATE TABLE feedback (
  id          BIGSERIAL PRIMARY KEY,
  namespace   ${T} NOT NULL,
  skill_id    ${T} NOT NULL,
  signal      ${T} NOT NULL,
  value       DOUBLE PRECISION,
  session_id  ${T},
  at          ${T} NOT NULL,
  eta_before  DOUBLE PRECISION,
  eta_after   DOUBLE PRECISION,
  status_before ${T},
  status_after  ${T}
);
CREATE INDEX feedback_skill ON feedback (skill_id, id);
CREATE TABLE audit (
  id           BIGSERIAL PRIMARY KEY,
  namespace    ${T} NOT NULL,
  at           ${T} NOT NULL,
  actor        ${T} NOT NULL,
  action       ${T} NOT NULL,
  subject_kind ${T} NOT NULL,
  subject_id   ${T} NOT NULL,
  detail       ${T} NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_subject ON audit (subject_id, id);
CREATE INDEX audit_namespace ON audit (namespace, id);
`,
  },
  {
    version: 2,
    name: 'synthesis state: clusters, embedding cache, versions, events',
    sql: `
CREATE TABLE state (
  namespace ${T} NOT NULL,
  key       ${T} NOT NULL,
  value     ${T} NOT NULL,
  PRIMARY KEY (namespace, key)
);
CREATE TABLE embedding_cache (
  embedder_id ${T} NOT NULL,
  text_hash   ${T} NOT NULL,
  vector      BYTEA NOT NULL,
  PRIMARY KEY (embedder_id, text_hash)
);
CREATE TABLE clusters (
  namespace     ${T} NOT NULL,
  id            ${T} NOT NULL,
  embedder_id   ${T} NOT NULL,
  centroid      BYTEA NOT NULL,
  goal_centroid BYTEA NOT NULL,
  size          INTEGER NOT NULL,
  dirty         BOOLEAN NOT NULL DEFAULT TRUE,
  skill_id      ${T},
  last_pass_at  ${T},
  PRIMARY KEY (namespace, id)
);
CREATE TABLE cluster_members (
  namespace  ${T} NOT NULL,
  session_id ${T} NOT NULL,
  cluster_id ${T} NOT NULL,
  PRIMARY KEY (namespace, session_id)
);
CREATE INDEX cluster_members_cluster ON cluster_members (namespace, cluster_id);
CREATE TABLE skill_versions (
  skill_id      ${T} NOT NULL,
  version       ${T} NOT NULL,
  skill_md      ${T} NOT NULL,
  tool_sequence ${T} NOT NULL,
  reason        ${T} NOT NULL,
  created_at    ${T} NOT NULL,
  PRIMARY KEY (skill_id, version)
);
CREATE TABLE events (
  id        BIGSERIAL PRIMARY KEY,
  namespace ${T} NOT NULL,
  at        ${T} NOT NULL,
  type      ${T} NOT NULL,
  skill_id  ${T},
  payload   ${T} NOT NULL DEFAULT '{}'
);
CREATE INDEX events_namespace ON events (namespace, id);
`,
  },
  {
    version: 3,
    name: 'recalls served per session (outcomes become trials)',
    sql: `
CREATE TABLE recalls (
  id         BIGSERIAL PRIMARY KEY,
  namespace  ${T} NOT NULL,
  session_id ${T},
  goal       ${T} NOT NULL,
  at         ${T} NOT NULL
);
CREATE INDEX recalls_session ON recalls (namespace, session_id);
CREATE TABLE recall_items (
  recall_id  BIGINT NOT NULL,
  skill_id   ${T} NOT NULL,
  rank       INTEGER NOT NULL,
  similarity DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (recall_id, skill_id)
);
CREATE INDEX recall_items_skill ON recall_items (skill_id);
ALTER TABLE feedback ADD COLUMN utility_before DOUBLE PRECISION;
ALTER TABLE feedback ADD COLUMN utility_after DOUBLE PRECISION;
`,
  },
  {
    version: 4,
    name: 'judged outcomes, pass lock',
    sql: `
ALTER TABLE sessions ADD COLUMN outcome_source ${T} NOT NULL DEFAULT 'reported';
CREATE TABLE locks (
  name       ${T} PRIMARY KEY,
  holder     ${T} NOT NULL,
  expires_at BIGINT NOT NULL
);
`,
  },
  {
    version: 5,
    name: 'fleet: change counter (bumped by every skill write, announced with NOTIFY)',
    sql: `
CREATE TABLE change_counter (
  id    INTEGER PRIMARY KEY CHECK (id = 1),
  value BIGINT NOT NULL
);
INSERT INTO change_counter (id, value) VALUES (1, 0);
`,
  },
  {
    version: 6,
    name: 'skill change log for the persisted recall index',
    // As SQLite's migration 6. Revisions commit in order (see skillsLogChangeFunction), so a reader that has
    // seen revision r has seen every revision below it.
    sql: `
CREATE TABLE skill_changes (
  revision  BIGSERIAL PRIMARY KEY,
  namespace ${T} NOT NULL,
  skill_id  ${T} NOT NULL
);
CREATE INDEX skill_changes_namespace ON skill_changes (namespace, revision);
CREATE TABLE store_identity (id ${T} NOT NULL);
INSERT INTO store_identity (id) VALUES (md5(random()::text || clock_timestamp()::text));
${skillsLogChangeFunction('CREATE', LOGGED_SKILL_COLUMNS_V6)}
CREATE TRIGGER skills_log_change AFTER INSERT OR UPDATE OR DELETE ON skills FOR EACH ROW EXECUTE FUNCTION skills_log_change();
`,
  },
  {
    version: 7,
    name: 'session cues (the first user message) and skill recall exemplars',
    // Exemplars are recall vectors: the change log's trigger now counts a change to them.
    sql: `
ALTER TABLE sessions ADD COLUMN cue ${T};
ALTER TABLE skills ADD COLUMN exemplars BYTEA;
${skillsLogChangeFunction('CREATE OR REPLACE', LOGGED_SKILL_COLUMNS_V7)}`,
  },
  {
    version: 8,
    name: 'skill files: every file of an imported skill folder, byte for byte, per version',
    sql: `
CREATE TABLE skill_files (
  skill_id ${T} NOT NULL,
  version ${T} NOT NULL,
  path ${T} NOT NULL,
  bytes BYTEA NOT NULL,
  executable INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (skill_id, version, path)
);
`,
  },
  {
    version: 9,
    name: 'skill change log: a bounded window',
    // As SQLite's migration 9. Runs inside the writer's transaction, under the log's advisory lock; a
    // revision the sequence skipped only delays pruning to the next multiple of 1,000.
    sql: `
CREATE TABLE skill_changes_pruned (through BIGINT NOT NULL);
INSERT INTO skill_changes_pruned (through) VALUES (0);
CREATE FUNCTION skill_changes_window() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF ${pruning.when} THEN
    ${pruning.prune}
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER skill_changes_window AFTER INSERT ON skill_changes FOR EACH ROW EXECUTE FUNCTION skill_changes_window();
`,
  },
  {
    version: 10,
    name: 'feedback rows say who gave them, and which trial replaced a judged one',
    // As SQLite's migration 10.
    sql: `
ALTER TABLE feedback ADD COLUMN actor ${T};
ALTER TABLE feedback ADD COLUMN replaced_by BIGINT;
`,
  },
  {
    version: 11,
    name: 'feedback keeps the idempotency key it was given under',
    // As SQLite's migration 11.
    sql: `
ALTER TABLE feedback ADD COLUMN feedback_key ${T};
CREATE UNIQUE INDEX feedback_key ON feedback (namespace, feedback_key) WHERE feedback_key IS NOT NULL;
`,
  },
  {
    version: 12,
    name: 'indexes a forget looks sessions up by (provenance, feedback and audit records naming a session); times as instants',
    // The indexes as SQLite's migration 12, on expressions that never fail on a detail that is not JSON (a cast to
    // jsonb would fail this migration, and every later insert, on one such row: audit-field.ts). skillsmith_instant: a stored time as an instant, NULL for text that is no time (a cast
    // alone would fail the statement; a word such as 'now' is no stored time), so retention orders a session's
    // call times by when they were (dialect.ts, instant).
    sql: `
CREATE INDEX provenance_source ON provenance (source_id);
CREATE INDEX feedback_session ON feedback (namespace, session_id);
CREATE INDEX audit_session ON audit (namespace, (${pgAuditField('session')}));
CREATE INDEX audit_moved_from ON audit (namespace, (${pgAuditField('from')})) WHERE action = 'recall.move';
CREATE INDEX audit_moved_to ON audit (namespace, (${pgAuditField('to')})) WHERE action = 'recall.move';
CREATE INDEX audit_revised ON audit (namespace) WHERE action = 'skill.revise';
CREATE INDEX audit_not_json ON audit (namespace) WHERE ${PG_DETAIL_NOT_JSON_V12};
CREATE FUNCTION skillsmith_instant(t text) RETURNS timestamptz LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF t IS NULL OR t !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}' THEN
    RETURN NULL;
  END IF;
  RETURN t::timestamptz;
EXCEPTION WHEN others THEN
  RETURN NULL;
END $$;
`,
  },
  {
    version: 13,
    name: 'recall exemplars say the sessions they were taken from; audit details that are not JSON, as SQLite finds them',
    // The column as SQLite's migration 13. The index of the details that are not JSON is rebuilt on what SQLite's
    // json_valid says (audit-field.ts): version 12's pattern took any {...} for JSON, so a forget missed a detail that
    // looked like an object and named the session outside a "session" field. skillsmith_not_json never fails: the
    // text is read as json inside the function's exception block (an error there is the answer, not the statement's).
    // Not PARALLEL SAFE: a parallel worker may not start the block's subtransaction (a large index build failed).
    // Measured on 1M JSON details: the index built in 2.8 s (version 12's pattern 0.5 s); +1.8 us an insert.
    sql: `
ALTER TABLE skills ADD COLUMN exemplar_sources ${T};
CREATE FUNCTION skillsmith_not_json(t text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF t IS NULL THEN
    RETURN false;
  END IF;
  PERFORM t::json;
  RETURN false;
EXCEPTION WHEN others THEN
  RETURN true;
END $$;
DROP INDEX audit_not_json;
CREATE INDEX audit_not_json ON audit (namespace) WHERE ${PG_DETAIL_NOT_JSON};
`,
  },
];

export const latestPgSchemaVersion = pgMigrations[pgMigrations.length - 1].version;
