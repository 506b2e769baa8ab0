import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stepsOf } from '../src/domain/branches.js';
import { TRUNCATION_MARKER } from '../src/domain/context-pack.js';
import { openMemory } from '../src/index.js';
import { readTau, SAMPLE, tempDbPath, toSession } from './support/tau.js';

// A recalled skill's `body` is clipped to recall.maxBodyChars for callers that print it (`recall --json`), but
// the prompt block a planner reads (`recall --hook`, MCP, REST) is made from the whole body within the same
// budget: a long procedure keeps its branches and its finishing condition instead of losing its tail.

const db = tempDbPath('skillsmith-context-budget-');
afterAll(() => rmSync(dirname(db), { recursive: true, force: true }));

describe('the context pack of a long recalled skill', () => {
  it('keeps its branches and when it is done, where its clipped body lost them', async () => {
    const budget = 1200;
    const memory = await openMemory({
      db,
      logLevel: 'silent',
      config: { synthesis: { cooldownMs: 0 }, recall: { maxBodyChars: budget } },
    });
    try {
      await memory.ingest(readTau(SAMPLE).map((r) => toSession(r, memory.namespace)));
      await memory.synthesize();
      const long = (await memory.skills.list()).find(
        (s) => s.body.length > budget && s.body.includes('## Branches') && s.body.includes('## Done when'),
      );
      expect(long, 'the sample teaches a long procedure with branches').toBeTruthy();
      const hits = await memory.recall(long!.description, { topK: 1 });
      expect(hits[0]?.name).toBe(long!.name);
      const [hit] = hits;
      // What `recall --json` prints: the body clipped, its finishing condition cut off.
      const done = /## Done when\n\n(.+)/.exec(long!.body)![1];
      expect(hit.body.length).toBeLessThanOrEqual(budget);
      expect(hit.body.endsWith(TRUNCATION_MARKER)).toBe(true);
      expect(hit.body).not.toContain(done);
      expect(hit.branches.length).toBeGreaterThan(0);
      // What the planner reads: every step, the branch and the finishing condition, within the same budget.
      const pack = memory.formatContext(hits);
      const block = pack.slice(pack.indexOf('\n', pack.indexOf('### Skill')) + 1).trimEnd();
      expect(block.length).toBeLessThanOrEqual(budget);
      expect(pack).not.toContain(TRUNCATION_MARKER);
      expect(pack).toContain(`Done: ${done}`);
      // Each branch as the body states it: on the agent's tools, or on what a lookup shows.
      for (const { when } of hit.branches)
        expect(pack).toContain(
          when.available ? `If you can call \`${when.tool}\` yourself` : `\`${when.tool}\` shows \`${when.path}\``,
        );
      // Every step of the procedure (a branch's own steps are the branch's: its line says where it goes).
      const stepCount = stepsOf(long!.body).length;
      expect(pack).toMatch(new RegExp(`^ {2}${stepCount}\\. Call `, 'm'));
    } finally {
      await memory.close();
    }
  });
});
