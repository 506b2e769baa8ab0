import { changeLogWindow, LOGGED_SKILL_COLUMNS_V6, LOGGED_SKILL_COLUMNS_V7 } from '../change-log-schema.js';
import { SQLITE_DETAIL_NOT_JSON, sqliteAuditField } from '../sql/audit-field.js';

/**
 * Additive, numbered migrations. A migration never rewrites a stored fact; new columns get defaults. A table of
 * derived data (the embedding cache) may be moved to a new layout with every row copied as it was.
 * Append new entries at the end; never edit one that has shipped.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Logs a skill's row when any of `columns` changes (and its old key too when the key itself changed). */
function skillsLogUpdateTrigger(columns: readonly string[]): string {
  return `CREATE TRIGGER skills_log_update AFTER UPDATE ON skills
WHEN ${columns.map((c) => `OLD.${c} IS NOT NEW.${c}`).join(' OR ')}
BEGIN
  INSERT INTO skill_changes (namespace, skill_id) VALUES (NEW.namespace, NEW.id);
  INSERT INTO skill_changes (namespace, skill_id) SELECT OLD.namespace, OLD.id WHERE OLD.id IS NOT NEW.id OR OLD.namespace IS NOT NEW.namespace;
END;
`;
}

const pruning = changeLogWindow('MAX');

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'core tables',
    sql: `
CREATE TABLE sessions (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  namespace   TEXT NOT NULL,
  id          TEXT NOT NULL,
  goal        TEXT NOT NULL,
  outcome     TEXT NOT NULL CHECK (outcome IN ('success','failure','unknown')),
  reward      REAL,
  agent_id    TEXT,
  source      TEXT,
  started_at  TEXT NOT NULL,
  ended_at    TEXT,
  labels      TEXT,
  UNIQUE (namespace, id)
);
CREATE TABLE tool_calls (
  namespace   TEXT NOT NULL,
  session_id  TEXT NOT NULL,
  position    INTEGER NOT NULL,
  tool        TEXT NOT NULL,
  args        TEXT NOT NULL,
  result      TEXT NOT NULL,
  ok          INTEGER NOT NULL,
  error       TEXT,
  duration_ms REAL,
  at          TEXT,
  PRIMARY KEY (namespace, session_id, position)
) WITHOUT ROWID;
CREATE TABLE facts (
  namespace   TEXT NOT NULL,
  id          TEXT NOT NULL,
  text        TEXT NOT NULL,
  source      TEXT,
  created_at  TEXT NOT NULL,
  PRIMARY KEY (namespace, id)
);
CREATE TABLE skills (
  id               TEXT PRIMARY KEY,
  namespace        TEXT NOT NULL,
  name             TEXT NOT NULL,
  description      TEXT NOT NULL,
  skill_md         TEXT NOT NULL,
  body             TEXT NOT NULL,
  version          TEXT NOT NULL DEFAULT '1.0.0',
  kind             TEXT NOT NULL DEFAULT 'playbook',
  corpus           TEXT NOT NULL DEFAULT 'internal',
  status           TEXT NOT NULL DEFAULT 'probationary',
  enabled          INTEGER NOT NULL DEFAULT 1,
  tools_required   TEXT NOT NULL DEFAULT '[]',
  tool_sequence    TEXT NOT NULL DEFAULT '[]',
  success_count    INTEGER NOT NULL DEFAULT 0,
  attempt_count    INTEGER NOT NULL DEFAULT 0,
  support          INTEGER NOT NULL DEFAULT 0,
  eta              REAL NOT NULL DEFAULT 0.5,
  utility          REAL NOT NULL DEFAULT 0,
  trials_attempted INTEGER NOT NULL DEFAULT 0,
  trials_passed    INTEGER NOT NULL DEFAULT 0,
  superseded_by    TEXT,
  cluster_id       TEXT,
  embedder_id      TEXT,
  embedding        BLOB,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  last_used_at     TEXT
);
CREATE UNIQUE INDEX skills_live_name ON skills (namespace, corpus, name) WHERE superseded_by IS NULL;
CREATE TABLE provenance (
  skill_id    TEXT NOT NULL,
  source_kind TEXT NOT NULL CHECK (source_kind IN ('episodic','semantic','procedural')),
  source_id   TEXT NOT NULL,
  version     TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  PRIMARY KEY (skill_id, source_kind, source_id)
);
CREATE TABLE feedback (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  namespace   TEXT NOT NULL,
  skill_id    TEXT NOT NULL,
  signal      TEXT NOT NULL,
  value       REAL,
  session_id  TEXT,
  at          TEXT NOT NULL,
  eta_before  REAL,
  eta_after   REAL,
  status_before TEXT,
  status_after  TEXT
);
CREATE INDEX feedback_skill ON feedback (skill_id, id);
CREATE TABLE audit (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  namespace    TEXT NOT NULL,
  at           TEXT NOT NULL,
  actor        TEXT NOT NULL,
  action       TEXT NOT NULL,
  subject_kind TEXT NOT NULL,
  subject_id   TEXT NOT NULL,
  detail       TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_subject ON audit (subject_id, id);
`,
  },
  {
    version: 2,
    name: 'synthesis state: clusters, embedding cache, versions, events',
    sql: `
CREATE TABLE state (
  namespace TEXT NOT NULL,
  key       TEXT NOT NULL,
  value     TEXT NOT NULL,
  PRIMARY KEY (namespace, key)
);
CREATE TABLE embedding_cache (
  embedder_id TEXT NOT NULL,
  text_hash   TEXT NOT NULL,
  vector      BLOB NOT NULL,
  PRIMARY KEY (embedder_id, text_hash)
) WITHOUT ROWID;
CREATE TABLE clusters (
  namespace     TEXT NOT NULL,
  id            TEXT NOT NULL,
  embedder_id   TEXT NOT NULL,
  centroid      BLOB NOT NULL,
  goal_centroid BLOB NOT NULL,
  size          INTEGER NOT NULL,
  dirty         INTEGER NOT NULL DEFAULT 1,
  skill_id      TEXT,
  last_pass_at  TEXT,
  PRIMARY KEY (namespace, id)
);
CREATE TABLE cluster_members (
  namespace  TEXT NOT NULL,
  session_id TEXT NOT NULL,
  cluster_id TEXT NOT NULL,
  PRIMARY KEY (namespace, session_id)
) WITHOUT ROWID;
CREATE INDEX cluster_members_cluster ON cluster_members (namespace, cluster_id);
CREATE TABLE skill_versions (
  skill_id      TEXT NOT NULL,
  version       TEXT NOT NULL,
  skill_md      TEXT NOT NULL,
  tool_sequence TEXT NOT NULL,
  reason        TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  PRIMARY KEY (skill_id, version)
);
CREATE TABLE events (
  id        INTEGER PRIMARY KEY AUTOINCREMENT,
  namespace TEXT NOT NULL,
  at        TEXT NOT NULL,
  type      TEXT NOT NULL,
  skill_id  TEXT,
  payload   TEXT NOT NULL DEFAULT '{}'
);
`,
  },
  {
    version: 3,
    name: 'recalls served per session (outcomes become trials)',
    sql: `
CREATE TABLE recalls (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  namespace  TEXT NOT NULL,
  session_id TEXT,
  goal       TEXT NOT NULL,
  at         TEXT NOT NULL
);
CREATE INDEX recalls_session ON recalls (namespace, session_id);
CREATE TABLE recall_items (
  recall_id  INTEGER NOT NULL,
  skill_id   TEXT NOT NULL,
  rank       INTEGER NOT NULL,
  similarity REAL NOT NULL,
  PRIMARY KEY (recall_id, skill_id)
);
CREATE INDEX recall_items_skill ON recall_items (skill_id);
ALTER TABLE feedback ADD COLUMN utility_before REAL;
ALTER TABLE feedback ADD COLUMN utility_after REAL;
`,
  },
  {
    version: 4,
    name: 'judged outcomes, pass lock',
    sql: `
ALTER TABLE sessions ADD COLUMN outcome_source TEXT NOT NULL DEFAULT 'reported';
CREATE TABLE locks (
  name       TEXT PRIMARY KEY,
  holder     TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
`,
  },
  {
    version: 5,
    name: 'embedding cache as an ordinary rowid table',
    // WITHOUT ROWID suits small rows; a cached vector (1.4 KB for the embedded embedder) spills to overflow
    // pages there. The same columns and key in a rowid table: 4-5x faster writes and reads, half the file.
    sql: `
CREATE TABLE embedding_cache_next (
  embedder_id TEXT NOT NULL,
  text_hash   TEXT NOT NULL,
  vector      BLOB NOT NULL,
  PRIMARY KEY (embedder_id, text_hash)
);
INSERT INTO embedding_cache_next (embedder_id, text_hash, vector) SELECT embedder_id, text_hash, vector FROM embedding_cache;
DROP TABLE embedding_cache;
ALTER TABLE embedding_cache_next RENAME TO embedding_cache;
`,
  },
  {
    version: 6,
    name: 'skill change log for the persisted recall index',
    // Triggers, not store code, log the changes: every writer (this store, another process, a future code path)
    // is covered. Columns that decide which skills recall serves, with which vector, and what it shows of them
    // count; a recall's touch of last_used_at (and a trial's counters) does not. The store id tells a recall index file built on another database apart.
    sql: `
CREATE TABLE skill_changes (
  revision  INTEGER PRIMARY KEY AUTOINCREMENT,
  namespace TEXT NOT NULL,
  skill_id  TEXT NOT NULL
);
CREATE INDEX skill_changes_namespace ON skill_changes (namespace, revision);
CREATE TABLE store_identity (id TEXT NOT NULL);
INSERT INTO store_identity (id) VALUES (lower(hex(randomblob(16))));
CREATE TRIGGER skills_log_insert AFTER INSERT ON skills BEGIN
  INSERT INTO skill_changes (namespace, skill_id) VALUES (NEW.namespace, NEW.id);
END;
CREATE TRIGGER skills_log_delete AFTER DELETE ON skills BEGIN
  INSERT INTO skill_changes (namespace, skill_id) VALUES (OLD.namespace, OLD.id);
END;
${skillsLogUpdateTrigger(LOGGED_SKILL_COLUMNS_V6)}`,
  },
  {
    version: 7,
    name: 'session cues (the first user message) and skill recall exemplars',
    // Exemplars are recall vectors: a change to them is a change the recall index must see.
    sql: `
ALTER TABLE sessions ADD COLUMN cue TEXT;
ALTER TABLE skills ADD COLUMN exemplars BLOB;
DROP TRIGGER skills_log_update;
${skillsLogUpdateTrigger(LOGGED_SKILL_COLUMNS_V7)}`,
  },
  {
    version: 8,
    name: 'skill files: every file of an imported skill folder, byte for byte, per version',
    sql: `
CREATE TABLE skill_files (
  skill_id TEXT NOT NULL,
  version TEXT NOT NULL,
  path TEXT NOT NULL,
  bytes BLOB NOT NULL,
  executable INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (skill_id, version, path)
);
`,
  },
  {
    version: 9,
    name: 'skill change log: a bounded window',
    // The log keeps the last 100,000 changes (pruned every 1,000), and each namespace's latest change so its
    // revision never goes back. `through` says how far it was pruned: a reader behind it whose namespace
    // changed since gets every skill again (skillVectors: changedIds null) and rebuilds its index.
    sql: `
CREATE TABLE skill_changes_pruned (through INTEGER NOT NULL);
INSERT INTO skill_changes_pruned (through) VALUES (0);
CREATE TRIGGER skill_changes_window AFTER INSERT ON skill_changes
WHEN ${pruning.when}
BEGIN
  ${pruning.prune}
END;
`,
  },
  {
    version: 10,
    name: 'feedback rows say who gave them, and which trial replaced a judged one',
    // actor: 'outcome', 'judge' (lifecycle.judgedTrials), 'user'...; rows written before say none (NULL), and no
    // judged trial was given before this version. replaced_by: the row of the trial that took a judged trial's
    // place (the task's reported outcome, or a newer judgement); a replaced row no longer counts.
    sql: `
ALTER TABLE feedback ADD COLUMN actor TEXT;
ALTER TABLE feedback ADD COLUMN replaced_by INTEGER;
`,
  },
  {
    version: 11,
    name: 'feedback keeps the idempotency key it was given under',
    // feedback_key: the SHA-256 of the key a client gave a feedback under (REST Idempotency-Key or feedbackId, MCP
    // feedback_id, CLI --id), so a retried request is answered as a repeat, never counted twice. One feedback per
    // key in a namespace; rows without a key (every row written before this version) are not indexed.
    sql: `
ALTER TABLE feedback ADD COLUMN feedback_key TEXT;
CREATE UNIQUE INDEX feedback_key ON feedback (namespace, feedback_key) WHERE feedback_key IS NOT NULL;
`,
  },
  {
    version: 12,
    name: 'indexes a forget looks sessions up by: provenance, feedback and audit records naming a session',
    // Forgetting one session read every provenance row (its skills' parents), every feedback row of the namespace
    // (its trials) and every audit record of the namespace (those naming it): in a memory of many sessions, a
    // single forget cost as much as a table scan each. The audit indexes serve the parts of the forget's search
    // (audit-field.ts, on the very expressions it matches): the session a feedback record names, the sessions a
    // recall's move names (recall.move records only, so that index stays small), the revise records (they list the
    // sources they took out) and the details that are not JSON (searched as text). Indexes only: no row changes.
    sql: `
CREATE INDEX provenance_source ON provenance (source_id);
CREATE INDEX feedback_session ON feedback (namespace, session_id);
CREATE INDEX audit_session ON audit (namespace, ${sqliteAuditField('session')});
CREATE INDEX audit_moved_from ON audit (namespace, ${sqliteAuditField('from')}) WHERE action = 'recall.move';
CREATE INDEX audit_moved_to ON audit (namespace, ${sqliteAuditField('to')}) WHERE action = 'recall.move';
CREATE INDEX audit_revised ON audit (namespace) WHERE action = 'skill.revise';
CREATE INDEX audit_not_json ON audit (namespace) WHERE ${SQLITE_DETAIL_NOT_JSON};
`,
  },
  {
    version: 13,
    name: 'recall exemplars say the sessions they were taken from',
    // A JSON list beside the packed exemplars, one entry an exemplar: the ids of the sessions of that very wording, so
    // forgetting a session takes out its own exemplars and leaves those a kept session asked the same way (a forget
    // matched the forgotten goals' vectors, and took a kept twin's too). Stored exemplars keep NULL: their sources are
    // not known, and a forget finds them by their vectors as before, until a pass or a re-embed chooses them again.
    // Not a recall vector: the change log does not watch it.
    sql: `
ALTER TABLE skills ADD COLUMN exemplar_sources TEXT;
`,
  },
];

export const latestSchemaVersion = migrations[migrations.length - 1].version;
