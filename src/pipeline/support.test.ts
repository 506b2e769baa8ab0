import { describe, expect, it } from 'vitest';
import { seedEta } from '../domain/admit.js';
import { evidenceLine, shareOfSuccesses } from '../domain/evidence-line.js';
import { newSkill } from '../domain/new-skill.js';
import type { Skill } from '../domain/types.js';
import { renderSkillMd } from './render-skill-md.js';
import { reinforcedCounts, withSupport } from './support.js';

const AT = '2026-01-01T00:00:00.000Z';
const body = (n: number, followers: number) =>
  `# Upgrade Package\n\n${evidenceLine({ successes: n, succeeded: n, followers })}\n\n## Steps\n\n1. Run \`npm outdated\` with \`Bash\`.\n\n## Edge cases\n\n- The first run of \`npm test\` with \`Bash\` fails (${shareOfSuccesses(n, n)}): that failure shows what to fix.\n`;

/** A skill compiled from chosen sessions, as compile writes it: no cluster holds it, its text says `compile`. */
function compiled(over: Partial<Skill> = {}): Skill {
  const sourceSessions = ['s1', 's2'];
  const skill = newSkill(AT, {
    namespace: 'default',
    name: 'upgrade-package',
    description: 'Upgrade Package: runs npm.',
    kind: 'playbook',
    body: body(2, 2),
    skillMd: '',
    toolsRequired: ['Bash'],
    toolSequence: ['Bash'],
    successCount: 2,
    attemptCount: 2,
    support: 2,
    eta: seedEta(2, 2),
    sourceSessions,
    ...over,
  });
  const skillMd = renderSkillMd(
    {
      name: skill.name,
      whenToUse: skill.description,
      toolsRequired: skill.toolsRequired,
      kind: skill.kind,
      body: skill.body,
    },
    {
      license: 'MIT',
      version: skill.version,
      id: skill.id,
      sourceSessions,
      clusterId: 'compile',
      learnedBy: 'heuristic@16',
    },
  );
  return { ...skill, skillMd, ...over };
}

describe('a skill more sessions support', () => {
  it('counts each session once: a group that reinforced it before adds only its new sessions', () => {
    const skill = compiled();
    const group = { sourceSessions: ['s2', 's3', 's3'], counts: { successCount: 2, attemptCount: 3, support: 2 } };
    expect(reinforcedCounts(skill, group)).toEqual({
      sourceSessions: ['s1', 's2', 's3'],
      successCount: 3,
      attemptCount: 3,
      support: 3,
    });
  });

  it('says the new counts in its text, keeps where it came from, and its eta follows the seed until something moved it', () => {
    const skill = compiled();
    const grown = reinforcedCounts(skill, {
      sourceSessions: ['s3', 's4'],
      counts: { successCount: 2, attemptCount: 2, support: 2 },
    });
    const after = withSupport(skill, grown, 'MIT');
    expect(after.body).toContain(evidenceLine({ successes: 4, succeeded: 4, followers: 4 }));
    // The two new sessions were not read for the edge case: what it counted is a floor of the four.
    expect(after.body).toContain('fails (in at least 2 of the 4 successful sessions)');
    expect(after.skillMd).toContain(after.body);
    expect(after.skillMd).toContain('parents-episodic-count: "4"');
    expect(after.skillMd).toContain('cluster: compile');
    expect(after.skillMd).toContain('learned-by: heuristic@16');
    expect(after.eta).toBe(seedEta(4, 4));
    // A person's thumbs (or a trial) moved its eta: that stays.
    const moved = withSupport({ ...skill, eta: 0.4 }, grown, 'MIT');
    expect(moved.eta).toBe(0.4);
    expect(moved.support).toBe(4);
  });

  it('leaves the text of a skill no pass wrote as it is', () => {
    const imported = compiled({
      skillMd: '---\nname: upgrade-package\ndescription: Mine.\n---\n\n# Mine\n',
      body: '# Mine\n',
    });
    const after = withSupport(
      imported,
      { sourceSessions: ['s1', 's2', 's3'], successCount: 3, attemptCount: 3, support: 3 },
      'MIT',
    );
    expect(after.skillMd).toBe(imported.skillMd);
    expect(after.body).toBe(imported.body);
    expect(after.support).toBe(3);
  });
});
