/**
 * What a forget's search for the audit records that name a session matches on, written once: the search
 * (dialect.ts, auditNamingSessionsSql) and the indexes of schema version 12 (13 for PostgreSQL's details that are not
 * JSON) use these very expressions, and an index
 * on an expression serves only a query that writes the same one. Never change one without a migration that rebuilds
 * its index. None of them fails on a detail that is not JSON (an older row, a hand edit): such a detail is searched
 * as text, through an index of its own.
 */
export type AuditField = 'session' | 'from' | 'to';

/** SQLite: the field of a JSON detail; NULL for a detail that is not JSON (json_extract would fail on it). */
export const sqliteAuditField = (field: AuditField): string =>
  `(CASE WHEN json_valid(detail) THEN json_extract(detail, '$.${field}') END)`;

/** SQLite: a detail that is not JSON. */
export const SQLITE_DETAIL_NOT_JSON = 'NOT json_valid(detail)';

/**
 * PostgreSQL: the field's string value as the detail's JSON text spells it (between its quotes), read with a pattern:
 * a cast to jsonb fails on a detail that is not JSON, and would fail the forget's statement, the index's build in the
 * migration and every later insert of such a row. The first such field of the text: a superset the store then reads
 * record by record (write-plan.ts, auditDetailWithout).
 */
export const pgAuditField = (field: AuditField): string =>
  `substring(detail from '"${field}"\\s*:\\s*"(([^"\\\\]|\\\\.)*)"')`;

/**
 * PostgreSQL, schema version 12 only: a detail that does not look like a JSON object. A detail that looks like one and
 * is not JSON (`{hand edit: s1}`) was missed, and a forget left the id it names.
 */
export const PG_DETAIL_NOT_JSON_V12 = `detail !~ '^\\s*[{].*[}]\\s*$'`;

/**
 * PostgreSQL, schema version 13 on: a detail that is not JSON, as SQLite's json_valid says, through
 * skillsmith_not_json (migration 13): it reads the text as json inside its own exception block, so a detail that is
 * not JSON is an answer, never an error (no jsonb cast of the detail that could fail the statement or an insert).
 */
export const PG_DETAIL_NOT_JSON = 'skillsmith_not_json(detail)';
