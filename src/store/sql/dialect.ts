import { JUDGE_ACTOR } from '../../domain/replace-trial.js';
import { FORGOTTEN_PARENT } from '../store.js';
import { PG_DETAIL_NOT_JSON, pgAuditField, SQLITE_DETAIL_NOT_JSON, sqliteAuditField } from './audit-field.js';

/**
 * How many of a skill's trials that count the outcome judge gave (lifecycle.judgedTrials), read with the skill as
 * `judged_trials`: its own feedback rows, a replaced or withdrawn one (`replaced_by` set) not among them.
 */
const judgedTrials = (count: string) =>
  `(SELECT ${count} FROM feedback f WHERE f.skill_id = s.id AND f.actor = '${JUDGE_ACTOR}' AND f.replaced_by IS NULL AND f.signal IN ('trial.pass', 'trial.fail')) AS judged_trials`;

/**
 * What differs between SQLite and PostgreSQL, and nothing else: the query plan (`plan.ts`) is written once with
 * `?` parameters, and each back end's dialect turns it into its own SQL.
 */
export interface Dialect {
  /** The statement with the plan's `?` parameters as the dialect writes them (`?`, or `$1`, `$2`, …). */
  numbered(sql: string): string;
  /** How a boolean is stored (SQLite 1/0, PostgreSQL true/false). */
  bool(b: boolean): unknown;
  /** The SQL of a list of `n` values bound to one condition: one key per length, or one for every length. */
  listKey(n: number): number;
  /** `column` is one of the `listKey(n)` values of a list. */
  inList(column: string, key: number): string;
  /** The parameters of such a list. */
  listParams(values: readonly unknown[]): unknown[];
  /** The most values one list binds (longer lists are read in chunks). */
  maxList: number;
  /** Inserts of many rows at once: what one statement holds, and its SQL (see `insertRowsSql`). */
  maxRowsPerInsert: number;
  insertRowsSql(table: string, columns: readonly RowColumn[], rows: number, onConflict: string): string;
  /** The parameters of such an insert, from its rows. */
  insertRowsParams(columns: readonly RowColumn[], rows: readonly unknown[][]): unknown[];
  /** The larger of two values. */
  greatest: 'MAX' | 'GREATEST';
  /** Appended to a read of the skill rows (`skills s`) the transaction goes on to write. */
  lockSkillRows: string;
  /** Planner hints: read sessions by their seq range, and join in the order written. */
  seqRange: string;
  joinInOrder: string;
  /**
   * The columns of a skill read (`skills s`), with `judged_trials`; with `parentsInRow`, its live episodic parents
   * come along as `source_sessions`.
   */
  skillColumns: string;
  parentsInRow: boolean;
  /**
   * The audit records that may name one of a batch of sessions by id (parameters: the batch as a JSON array of
   * `{id, json}`, `json` being the id as a JSON string spells it between its quotes; then the namespace), as rows
   * `id, action, detail`: those whose detail names one in `session` (feedback records), a recall's move in `from`
   * or `to`, a revise (sources reported failed) in its list `revokedSessions`, and those whose detail is not JSON (an
   * older row, a hand edit) and holds one. A superset: the store decides what each one becomes (write-plan.ts,
   * `auditDetailWithout`). Never fails on a detail that is not JSON. Each part is found through an index of schema
   * version 12 or 13 (audit-field.ts), not by reading the namespace's audit records.
   */
  auditNamingSessionsSql: string;
  /**
   * Writes many audit records' detail in one statement (parameters: the ids and the details, as two arrays); null
   * where one statement a row costs nothing (SQLite runs them in-process).
   */
  rewriteAuditSql: string | null;
  /**
   * Makes many provenance rows forgotten-parent markers in one statement (parameters: the skill ids, the session ids
   * and the markers, as three arrays); null where one statement a row costs nothing (SQLite runs them in-process).
   */
  forgetParentsSql: string | null;
  /**
   * Taken before a feedback given under an idempotency key looks for the key (parameters: namespace, key):
   * PostgreSQL serialises the feedbacks of one key, so two at once cannot both find it unused; SQLite has one
   * writer at a time anyway.
   */
  lockFeedbackKeySql: string | null;
  /**
   * Taken before sessions are inserted, with the list of their namespaces: PostgreSQL serialises the session
   * inserts of a namespace so `seq` is handed out in commit order; SQLite has one writer at a time anyway.
   */
  lockSessionsSql: string | null;
  /**
   * A stored time (`column`) as an instant to order by, NULL where it reads as none: times written with different
   * offsets (`10:00+02:00`, `09:30Z`) compare by when they were, not as text.
   */
  instant(column: string): string;
  /** Appended to an INSERT that hands out an id, to read it back (SQLite reads the last row id instead). */
  returningId: string;
}

/** A column of a multi-row insert, with the PostgreSQL type its array of values is bound as. */
export interface RowColumn {
  name: string;
  type: 'text' | 'int' | 'bigint' | 'bool' | 'float8' | 'bytea';
}

const marks = (n: number) => Array(n).fill('?').join(', ');

export const sqliteDialect: Dialect = {
  numbered: (sql) => sql,
  bool: (b) => (b ? 1 : 0),
  listKey: (n) => n,
  inList: (column, n) => `${column} IN (${marks(n)})`,
  listParams: (values) => [...values],
  maxList: 500,
  // 50 rows a statement: about 8% faster than one statement a row when a batch of sessions stores its calls.
  maxRowsPerInsert: 50,
  insertRowsSql: (table, columns, rows, onConflict) =>
    `INSERT INTO ${table} (${columns.map((c) => c.name).join(', ')}) VALUES ${Array(rows)
      .fill(`(${marks(columns.length)})`)
      .join(', ')} ${onConflict}`,
  // A loop, not rows.flat(): flat() cost a sixth of ingest's time (207k calls in 50-row statements).
  insertRowsParams: (_columns, rows) => {
    const params: unknown[] = [];
    for (const row of rows) for (const value of row) params.push(value);
    return params;
  },
  greatest: 'MAX',
  // One writer at a time: a write transaction has the whole file.
  lockSkillRows: '',
  // Without them SQLite would walk the (namespace, id) index: every session, or every call, of the namespace.
  seqRange: ' NOT INDEXED',
  joinInOrder: 'CROSS JOIN',
  skillColumns: `s.*, ${judgedTrials('COUNT(*)')}`,
  parentsInRow: false,
  // `from` and `to` name sessions in a recall's move only (a rename's detail has them too, as skill names).
  auditNamingSessionsSql: `WITH m(id) AS (SELECT json_extract(value, '$.id') FROM json_each(?)), n(ns) AS (SELECT ?)
     SELECT id, action, detail FROM audit WHERE namespace = (SELECT ns FROM n) AND ${sqliteAuditField('session')} IN (SELECT id FROM m)
     UNION SELECT id, action, detail FROM audit WHERE namespace = (SELECT ns FROM n) AND action = 'recall.move' AND ${sqliteAuditField('from')} IN (SELECT id FROM m)
     UNION SELECT id, action, detail FROM audit WHERE namespace = (SELECT ns FROM n) AND action = 'recall.move' AND ${sqliteAuditField('to')} IN (SELECT id FROM m)
     UNION SELECT id, action, detail FROM audit WHERE namespace = (SELECT ns FROM n) AND action = 'skill.revise'
       AND EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(audit.detail) THEN audit.detail ELSE '{}' END, '$.revokedSessions') j WHERE j.value IN (SELECT id FROM m))
     UNION SELECT id, action, detail FROM audit WHERE namespace = (SELECT ns FROM n) AND ${SQLITE_DETAIL_NOT_JSON}
       AND EXISTS (SELECT 1 FROM m WHERE instr(audit.detail, m.id) > 0)`,
  rewriteAuditSql: null,
  forgetParentsSql: null,
  lockFeedbackKeySql: null,
  lockSessionsSql: null,
  // An offset (`+02:00`, `Z`) is applied; a time without one is read as UTC; NULL for text that is no time.
  instant: (column) => `julianday(${column})`,
  returningId: '',
};

export const pgDialect: Dialect = {
  numbered: (sql) => {
    let i = 0;
    return sql.replace(/\?/g, () => `$${++i}`);
  },
  bool: (b) => b,
  listKey: () => 1,
  inList: (column) => `${column} = ANY(?::text[])`,
  listParams: (values) => [values],
  maxList: 1000,
  maxRowsPerInsert: 1000,
  insertRowsSql: (table, columns, _rows, onConflict) =>
    `INSERT INTO ${table} (${columns.map((c) => c.name).join(', ')}) SELECT * FROM unnest(${columns
      .map((c) => `?::${c.type}[]`)
      .join(', ')}) ${onConflict}`,
  insertRowsParams: (columns, rows) => columns.map((_, i) => rows.map((r) => r[i])),
  greatest: 'GREATEST',
  lockSkillRows: ' FOR UPDATE OF s',
  seqRange: '',
  joinInOrder: 'JOIN',
  skillColumns: `s.*, ${judgedTrials('COUNT(*)::int')}, (SELECT COALESCE(array_agg(p.source_id ORDER BY p.created_at, p.source_id), '{}')
  FROM provenance p WHERE p.skill_id = s.id AND p.source_kind = 'episodic' AND p.source_id NOT LIKE '${FORGOTTEN_PARENT}%') AS source_sessions`,
  parentsInRow: true,
  // No cast of a detail that could fail it; one that is not JSON (skillsmith_not_json) is searched for the ids as text.
  // The ids as a list each part looks up (its elements an index condition): joined to the batch's rows, whose number
  // the planner guesses, the records were read by a scan of the namespace's audit.
  auditNamingSessionsSql: `WITH m AS (SELECT * FROM json_to_recordset(?::json) AS m(id text, json text)), n AS (SELECT ?::text AS ns)
     SELECT id, action, detail FROM audit WHERE namespace = (SELECT ns FROM n) AND ${pgAuditField('session')} = ANY (ARRAY(SELECT json FROM m))
     UNION SELECT id, action, detail FROM audit WHERE namespace = (SELECT ns FROM n) AND action = 'recall.move' AND ${pgAuditField('from')} = ANY (ARRAY(SELECT json FROM m))
     UNION SELECT id, action, detail FROM audit WHERE namespace = (SELECT ns FROM n) AND action = 'recall.move' AND ${pgAuditField('to')} = ANY (ARRAY(SELECT json FROM m))
     UNION SELECT id, action, detail FROM audit WHERE namespace = (SELECT ns FROM n) AND action = 'skill.revise'
       AND EXISTS (SELECT 1 FROM m WHERE strpos(audit.detail, '"' || m.json || '"') > 0)
     UNION SELECT id, action, detail FROM audit WHERE namespace = (SELECT ns FROM n) AND ${PG_DETAIL_NOT_JSON}
       AND EXISTS (SELECT 1 FROM m WHERE strpos(audit.detail, m.id) > 0)`,
  rewriteAuditSql: `UPDATE audit a SET detail = m.detail FROM unnest(?::bigint[], ?::text[]) AS m(id, detail) WHERE a.id = m.id`,
  forgetParentsSql: `UPDATE provenance p SET source_id = m.marker
     FROM unnest(?::text[], ?::text[], ?::text[]) AS m(skill_id, source_id, marker)
     WHERE p.skill_id = m.skill_id AND p.source_kind = 'episodic' AND p.source_id = m.source_id`,
  lockFeedbackKeySql: `SELECT pg_advisory_xact_lock(hashtextextended('skillsmith:feedback:' || ?::text || ':' || ?::text, 0))`,
  // A pass that has read up to seq N can then never meet a committed session below N. Always in the same
  // (sorted) order, so two batches of several namespaces cannot deadlock.
  lockSessionsSql: `SELECT pg_advisory_xact_lock(hashtextextended('skillsmith:sessions:' || ns, 0)) FROM unnest(?::text[]) AS ns`,
  // skillsmith_instant (schema version 12): NULL for text that is no time, where a cast would fail the statement.
  instant: (column) => `skillsmith_instant(${column})`,
  returningId: ' RETURNING id',
};
