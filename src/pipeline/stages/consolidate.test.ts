import { describe, expect, it } from 'vitest';
import { seedEta } from '../../domain/admit.js';
import { evidenceLine } from '../../domain/evidence-line.js';
import { newSkill } from '../../domain/new-skill.js';
import type { Skill } from '../../domain/types.js';
import { createLogger } from '../../support/log.js';
import type { PipelineDeps } from '../pipeline-deps.js';
import { editedSkill } from '../edit.js';
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
  it('folds the one with less support into the other, which keeps its name', async () => {
    const [merged] = await consolidate([
      learned('refund-order', 'Refund Order', 6, 'c1'),
      learned('refund-payment', 'Refund Payment', 3, 'c2'),
    ]);
    expect(merged!.loser.name).toBe('refund-payment');
    expect(merged!.winner).toMatchObject({ name: 'refund-order', support: 9 });
    expect(merged!.winner.body).toMatch(/^# Refund Order\n\nLearned from 9 successful sessions/);
    expect(merged!.winner.skillMd).not.toContain('named-by');
  });

  it('never folds away a skill a person named: they told it apart', async () => {
    const named = renamedSkill(learned('refund-payment', 'Refund Payment', 3, 'c2'), 'refund-to-card', 'user', 'MIT')!;
    expect(await consolidate([learned('refund-order', 'Refund Order', 6, 'c1'), named])).toEqual([]);
  });

  it('a skill a person named absorbs another under its own name', async () => {
    const [merged] = await consolidate([
      renamedSkill(learned('refund-order', 'Refund Order', 6, 'c1'), 'refund-money', 'http', 'MIT')!,
      learned('refund-payment', 'Refund Payment', 3, 'c2'),
    ]);
    expect(merged!.winner).toMatchObject({ name: 'refund-money', support: 9 });
    expect(merged!.winner.body).toMatch(/^# Refund Money\n\nLearned from 9 successful sessions/);
    expect(merged!.winner.skillMd).toMatch(/^ {2}named-by: http$/m);
    expect(merged!.winner.skillMd).toMatch(/^ {2}renamed-from: refund-order$/m);
  });

  it("never folds away a skill a person edited, and one that absorbs another keeps the person's text", async () => {
    const edit = (s: Skill) =>
      editedSkill(
        s,
        { ...s, body: s.body.replace('2. Call `refund_order`.', '2. Call `refund_order`; never to a gift card.') },
        { editedBy: 'user', at: AT, license: 'MIT' },
      )!;
    const edited = edit(learned('refund-payment', 'Refund Payment', 3, 'c2'));
    expect(await consolidate([learned('refund-order', 'Refund Order', 6, 'c1'), edited])).toEqual([]);
    const [merged] = await consolidate([
      edit(learned('refund-order', 'Refund Order', 6, 'c1')),
      learned('refund-payment', 'Refund Payment', 3, 'c2'),
    ]);
    expect(merged!.winner).toMatchObject({ name: 'refund-order', support: 9 });
    expect(merged!.winner.body).toContain('never to a gift card');
    expect(merged!.winner.body).toMatch(/Learned from 9 successful sessions/);
    expect(merged!.winner.skillMd).toMatch(/^ {2}edited-by: user$/m);
  });
});
