import { randomUUID } from 'node:crypto';
import { INITIAL_LIFECYCLE } from './lifecycle.js';
import type { Skill } from './types.js';

/** A fresh skill id: `sk_` and 16 hex digits. */
export function newSkillId(): string {
  return `sk_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

/** What a new skill must be told; everything else has a default (see `newSkill`). */
export type NewSkillFields = Pick<Skill, 'namespace' | 'name' | 'description' | 'skillMd' | 'body' | 'kind'> &
  Partial<Skill>;

/**
 * A new Skill with every default filled in: a fresh id, version 1.0.0, an internal, enabled, probationary
 * skill with the initial lifecycle (eta 0.5, no trials), no evidence, parents, cluster, embedding or use,
 * created and updated `at`. Fields given (and not undefined) win over the defaults.
 */
export function newSkill(at: string, fields: NewSkillFields): Skill {
  const skill: Skill = {
    id: newSkillId(),
    version: '1.0.0',
    corpus: 'internal',
    ...INITIAL_LIFECYCLE,
    enabled: true,
    toolsRequired: [],
    toolSequence: [],
    successCount: 0,
    attemptCount: 0,
    support: 0,
    sourceSessions: [],
    supersededBy: null,
    clusterId: null,
    embedderId: null,
    embedding: null,
    exemplars: null,
    createdAt: at,
    updatedAt: at,
    lastUsedAt: null,
    ...definedOnly(fields),
  } as Skill;
  return skill;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
