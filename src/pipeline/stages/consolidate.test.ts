import { describe, expect, it } from 'vitest';
import { seedEta } from '../../domain/admit.js';
import { evidenceLine } from '../../domain/evidence-line.js';
import { newSkill } from '../../domain/new-skill.js';
import type { Skill } from '../../domain/types.js';
import { createLogger } from '../../support/log.js';
import type { PipelineDeps } from '../pipeline-deps.js';
import { renamedSkill } from '../rename.js';
import { renderSkillMd } from '../render-skill-md.js';
import { SkillCatalog } from '../skill-catalog.js';
import { consolidateSkills } from './consolidate.js';

const AT = '2026-01-01T00:00:00.000Z';
const TOOLS = ['get_order_details', 'refund_order'];
const EMBEDDER = 'test-embedder';

/** A learned refund skill of `n` sessions, its recall vector pointing the same way as every other's. */
function learned(name: string, title: string, n: number, cluster: string): Skill {
  const sourceSessions = Array.from({ length: n }, (_, i) => `${cluster}-${i}`);
  const body = `# ${title}\n\n${evidenceLine({ successes: n, succeeded: n, followers: n })}\n\n## Steps\n\n1. Call \`get_order_details\`.\n2. Call \`refund_order\`.\n`;
  const skill = newSkill(AT, {
    namespace: 'default',
    name,
    description: `${title}: looks up the order, then refunds it.`,
    kind: 'playbook',
    body,
    skillMd: '',
    toolsRequired: TOOLS,
    toolSequence: TOOLS,
    successCount: n,
    attemptCount: n,
    support: n,
    eta: seedEta(n, n),
    sourceSessions,
    clusterId: cluster,
    embedderId: EMBEDDER,
    embedding: new Float32Array([1, 0, 0, 0]),
  });
  const skillMd = renderSkillMd(
    { name, whenToUse: skill.description, toolsRequired: TOOLS, kind: 'playbook', body },
    {
      license: 'MIT',
      version: skill.version,
      id: skill.id,
      sourceSessions,
      clusterId: cluster,
      learnedBy: 'heuristic@17',
    },
  );
  return { ...skill, skillMd };
}

const deps = {
  thresholds: { recall: 0.5, duplicate: 0.9 },
  now: () => new Date(AT),
  embedder: { dimensions: 4 },
  config: { license: 'MIT' },
  log: createLogger('silent'),
} as unknown as PipelineDeps;

/** What a dry-run consolidation of these skills makes of them. */
async function consolidate(skills: Skill[]) {
  return consolidateSkills(deps, {
    namespace: 'default',
    skills: new SkillCatalog(4, skills, EMBEDDER),
    toolWeight: () => 1,
    toolShare: () => 0.1,
    actor: 'synthesis',
    dryRun: true,
  });
}

describe('consolidation of two skills that are one', () => {
  it('folds the one with less support into the other, under the name a person gave the absorbed one', async () => {
    const winner = learned('refund-order', 'Refund Order', 6, 'c1');
    const loser = renamedSkill(learned('refund-payment', 'Refund Payment', 3, 'c2'), 'refund-to-card', 'user', 'MIT')!;
    const [merged] = await consolidate([winner, loser]);
    expect(merged!.loser.id).toBe(loser.id);
    const absorbed = merged!.winner;
    expect(absorbed).toMatchObject({ id: winner.id, name: 'refund-to-card', support: 9 });
    expect(absorbed.body).toMatch(/^# Refund To Card\n\nLearned from 9 successful sessions/);
    expect(absorbed.description).toBe('Refund To Card: looks up the order, then refunds it.');
    expect(absorbed.skillMd).toMatch(/^ {2}named-by: user$/m);
    expect(absorbed.skillMd).toMatch(/^name: refund-to-card$/m);
  });

  it('keeps its own name when it has one nobody gave, or one a person gave it', async () => {
    const plain = await consolidate([
      learned('refund-order', 'Refund Order', 6, 'c1'),
      learned('refund-payment', 'Refund Payment', 3, 'c2'),
    ]);
    expect(plain[0]!.winner.name).toBe('refund-order');
    expect(plain[0]!.winner.skillMd).not.toContain('named-by');
    const both = await consolidate([
      renamedSkill(learned('refund-order', 'Refund Order', 6, 'c1'), 'refund-money', 'http', 'MIT')!,
      renamedSkill(learned('refund-payment', 'Refund Payment', 3, 'c2'), 'refund-to-card', 'user', 'MIT')!,
    ]);
    expect(both[0]!.winner.name).toBe('refund-money');
    expect(both[0]!.winner.skillMd).toMatch(/^ {2}named-by: http$/m);
  });
});
