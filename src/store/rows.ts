import type { AuditRecord } from '../domain/types.js';
import type { SkillWrite } from './store.js';

/** Row helpers shared by the store back ends: one mapping, so SQLite and PostgreSQL cannot drift. */
export type Row = Record<string, any>;

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

/** The event a skill write emits. */
export function eventType(action: SkillWrite['action']): string {
  switch (action) {
    case 'add':
    case 'supersede':
      return 'skill.created';
    case 'update':
      return 'skill.updated';
    case 'reinforce':
      return 'skill.reinforced';
    case 'import':
      return 'skill.imported';
    case 'promote':
      return 'skill.promoted';
  }
}
