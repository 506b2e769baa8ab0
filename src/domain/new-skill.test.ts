import { describe, expect, it } from 'vitest';
import { INITIAL_LIFECYCLE } from './lifecycle.js';
import { newSkill, newSkillId } from './new-skill.js';

const AT = '2025-06-01T00:00:00.000Z';
const required = {
  namespace: 'default',
  name: 'cancel-order',
  description: 'Cancel an order.',
  skillMd: '---\n---\n',
  body: '# x\n',
  kind: 'playbook' as const,
};

describe('newSkill', () => {
  it('fills every default: a fresh internal, enabled, probationary skill with the initial lifecycle, created at `at`', () => {
    const s = newSkill(AT, required);
    expect(s.id).toMatch(/^sk_[0-9a-f]{16}$/);
    expect(s).toEqual({
      ...required,
      id: s.id,
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
      createdAt: AT,
      updatedAt: AT,
      lastUsedAt: null,
    });
  });

  it('given fields win; fields given as undefined keep the default', () => {
    const s = newSkill(AT, {
      ...required,
      id: undefined,
      createdAt: undefined,
      corpus: 'external',
      eta: 0.7,
      version: '2.1.0',
    });
    expect(s.id).toMatch(/^sk_/);
    expect(s).toMatchObject({ corpus: 'external', eta: 0.7, version: '2.1.0', createdAt: AT });
    expect(newSkill(AT, { ...required, id: 'sk_given' }).id).toBe('sk_given');
    expect(newSkillId()).not.toBe(newSkillId());
  });
});
