import type {
  AuditRecord,
  Fact,
  Outcome,
  OutcomeSource,
  Provenance,
  Session,
  SessionOutline,
  ToolCall,
} from '../domain/types.js';
import { stepKey } from '../domain/commands.js';
import { fromBuffer } from '../vector/vector-math.js';
import type { ClusterRecord, FeedbackRecord, SkillEvent, SkillFile, SkillVersion } from './store.js';
import type { FeedbackInsert, RowChange } from './write-plan.js';

/** Row helpers shared by the store back ends: one mapping, so SQLite and PostgreSQL cannot drift. */
// biome-ignore lint/suspicious/noExplicitAny: a database row as the driver returns it; the mapping functions give it types
export type Row = Record<string, any>;

/** A stored boolean as either back end returns it (SQLite 1/0, PostgreSQL true/false). */
export const truthy = (v: unknown) => v === 1 || v === true;

export const json = (v: unknown) => JSON.stringify(v ?? null);

export const parseJson = <T>(s: string | null | undefined, fallback: T): T => {
  if (s == null) return fallback;
  try {
    return JSON.parse(s) as T;
  } catch {
    return fallback;
  }
};

export function auditFromRow(r: Row): AuditRecord {
  return {
    id: Number(r.id),
    namespace: r.namespace,
    at: r.at,
    actor: r.actor,
    action: r.action,
    subjectKind: r.subject_kind,
    subjectId: r.subject_id,
    detail: parseJson(r.detail, {}),
  };
}

export function factFromRow(r: Row): Fact {
  return { id: r.id, namespace: r.namespace, text: r.text, source: r.source, createdAt: r.created_at };
}

export function provenanceFromRow(r: Row): Provenance {
  return {
    skillId: r.skill_id,
    sourceKind: r.source_kind,
    sourceId: r.source_id,
    version: r.version,
    createdAt: r.created_at,
  };
}

export function versionFromRow(r: Row): SkillVersion {
  return {
    skillId: r.skill_id,
    version: r.version,
    skillMd: r.skill_md,
    toolSequence: parseJson(r.tool_sequence, []),
    reason: r.reason,
    createdAt: r.created_at,
  };
}

export function eventFromRow(r: Row): SkillEvent {
  return {
    id: Number(r.id),
    namespace: r.namespace,
    at: r.at,
    type: r.type,
    skillId: r.skill_id,
    payload: parseJson(r.payload, {}),
  };
}

export function feedbackFromRow(r: Row): FeedbackRecord {
  return {
    id: Number(r.id),
    skillId: r.skill_id,
    signal: r.signal,
    value: r.value,
    sessionId: r.session_id,
    at: r.at,
    etaBefore: r.eta_before,
    etaAfter: r.eta_after,
    statusBefore: r.status_before,
    statusAfter: r.status_after,
    utilityAfter: r.utility_after,
    utilityBefore: r.utility_before ?? null,
    actor: r.actor ?? null,
    replacedBy: r.replaced_by == null ? null : Number(r.replaced_by),
  };
}

export function clusterFromRow(r: Row): ClusterRecord {
  return {
    id: r.id,
    centroid: fromBuffer(r.centroid),
    goalCentroid: fromBuffer(r.goal_centroid),
    size: r.size,
    dirty: truthy(r.dirty),
    skillId: r.skill_id,
    lastPassAt: r.last_pass_at,
    newMembers: [],
  };
}

export function skillFileFromRow(r: Row): SkillFile {
  return {
    path: r.path,
    bytes: Buffer.from(r.bytes),
    ...(r.executable ? { executable: true } : {}),
  };
}

export { sessionRef } from '../domain/session-ref.js';

export function callFromRow(c: Row): ToolCall {
  return {
    position: c.position,
    tool: c.tool,
    args: parseJson(c.args, {}),
    result: c.result,
    ok: truthy(c.ok),
    error: c.error,
    durationMs: c.duration_ms,
    at: c.at,
  };
}

/**
 * Session outlines from their rows and `[session_id, tool, ok, args]` call rows in position order. `args` is read
 * only for tools that may run command lines; such a call gets the step key of its command. A call row of a session
 * not among the rows, committed between the two reads, is left out.
 */
export function outlinesFromRows(rows: Row[], calls: readonly (readonly unknown[])[]): SessionOutline[] {
  const byId = new Map<string, SessionOutline>();
  for (const r of rows)
    byId.set(r.id, {
      id: r.id,
      goal: r.goal,
      outcome: r.outcome as Outcome,
      seq: Number(r.seq),
      calls: [],
    });
  for (const [sessionId, tool, ok, args] of calls) {
    const key = outlineKey(tool as string, args);
    byId
      .get(sessionId as string)
      ?.calls.push(key === tool ? { tool, ok: truthy(ok) } : { tool: tool as string, ok: truthy(ok), key });
  }
  return [...byId.values()];
}

/** A session from its row and its calls (in position order). */
export function sessionFromRow(r: Row, calls: ToolCall[]): Session {
  return {
    id: r.id,
    namespace: r.namespace,
    goal: r.goal,
    cue: r.cue ?? null,
    outcome: r.outcome as Outcome,
    outcomeSource: (r.outcome_source ?? 'reported') as OutcomeSource,
    reward: r.reward,
    agentId: r.agent_id,
    source: r.source,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    labels: parseJson(r.labels, null),
    seq: r.seq,
    calls,
  };
}

/** The columns of a new feedback row, in the order of `feedbackInsertValues`. */
export const FEEDBACK_INSERT_COLUMNS = [
  'namespace',
  'skill_id',
  'signal',
  'value',
  'session_id',
  'at',
  'eta_before',
  'eta_after',
  'status_before',
  'status_after',
  'utility_before',
  'utility_after',
  'actor',
  'feedback_key',
] as const;

export function feedbackInsertValues(f: FeedbackInsert): unknown[] {
  return [
    f.namespace,
    f.skillId,
    f.signal,
    f.value,
    f.sessionId,
    f.at,
    f.etaBefore,
    f.etaAfter,
    f.statusBefore,
    f.statusAfter,
    f.utilityBefore,
    f.utilityAfter,
    f.actor,
    f.feedbackKey,
  ];
}

/**
 * The statement of a row change in a dialect: `placeholder(i)` is its i-th parameter (0-based, `?` or `$1`),
 * `bool` how it stores a boolean.
 */
export function rowChangeSql(
  change: RowChange,
  placeholder: (i: number) => string,
  bool: (b: boolean) => unknown,
): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const param = (v: unknown) => {
    values.push(typeof v === 'boolean' ? bool(v) : v);
    return placeholder(values.length - 1);
  };
  const set = change.set ? Object.entries(change.set).map(([c, v]) => `${c} = ${param(v)}`) : [];
  const where = Object.entries(change.where)
    .map(([c, v]) => `${c} = ${param(v)}`)
    .join(' AND ');
  const text = change.set
    ? `UPDATE ${change.table} SET ${set.join(', ')} WHERE ${where}`
    : `DELETE FROM ${change.table} WHERE ${where}`;
  return { text, values };
}

/** The columns of a session row as written, in the order of `sessionRowValues` (`seq` is the store's). */
export const SESSION_COLUMNS = [
  'namespace',
  'id',
  'goal',
  'cue',
  'outcome',
  'outcome_source',
  'reward',
  'agent_id',
  'source',
  'started_at',
  'ended_at',
  'labels',
] as const;

export function sessionRowValues(s: Omit<Session, 'calls' | 'seq'>): unknown[] {
  const labels = s.labels == null ? null : JSON.stringify(s.labels);
  return [
    s.namespace,
    s.id,
    s.goal,
    s.cue ?? null,
    s.outcome,
    s.outcomeSource ?? 'reported',
    s.reward,
    s.agentId,
    s.source,
    s.startedAt,
    s.endedAt,
    labels,
  ];
}

/** The columns of a tool-call row, in the order of `callRowValues`. */
export const CALL_COLUMNS = [
  'namespace',
  'session_id',
  'position',
  'tool',
  'args',
  'result',
  'ok',
  'error',
  'duration_ms',
  'at',
] as const;

export function callRowValues(
  namespace: string,
  sessionId: string,
  c: ToolCall,
  bool: (b: boolean) => unknown,
): unknown[] {
  return pushCallRow([], namespace, sessionId, c, bool);
}

/** Appends the values of a tool-call row (`callRowValues`) to `out`, for multi-row inserts; returns `out`. */
export function pushCallRow(
  out: unknown[],
  namespace: string,
  sessionId: string,
  c: ToolCall,
  bool: (b: boolean) => unknown,
): unknown[] {
  out.push(
    namespace,
    sessionId,
    c.position,
    c.tool,
    JSON.stringify(c.args ?? {}),
    c.result ?? '',
    bool(!!c.ok),
    c.error,
    c.durationMs,
    c.at,
  );
  return out;
}

/** The step key of an outline's call (commands.ts): its tool, or for a command line its tool and head. */
function outlineKey(tool: string, args: unknown): string {
  if (typeof args !== 'string') return tool;
  try {
    const parsed: unknown = JSON.parse(args);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? stepKey({ tool, args: parsed as Record<string, unknown> })
      : tool;
  } catch {
    return tool;
  }
}
