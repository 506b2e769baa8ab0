// A coding agent (Claude Code, Codex) calls the same few tools for every task: Read, Edit, a test run. Its
// tasks must still be learned apart: the tools say how it works, the requests say what it did. Learned on a
// real SQLite memory through the pass.
import { describe, expect, it } from 'vitest';
import { CHANGELOG, codingSessions, runs } from './support/coding-tasks.js';
import { testMemories } from './support/memories.js';

const { fresh } = testMemories('skillsmith-coding-');

describe("a coding agent's tasks, all done with Read, Edit and Bash", () => {
  it('are three skills, each learned from its own runs and recalled for its own kind of request', async () => {
    const memory = await fresh();
    await memory.ingest(codingSessions());
    await memory.synthesize();
    const skills = (await memory.skills.list()).filter((s) => s.corpus === 'internal');
    // Before, the Edit every task ends with made them one skill, recalled for all three.
    expect(skills).toHaveLength(3);
    const byTask = Object.fromEntries(skills.map((s) => [s.sourceSessions[0].split('-')[0], s]));
    expect(byTask.date.sourceSessions.sort()).toEqual(['date-0', 'date-1', 'date-2']);
    expect(byTask.changelog.sourceSessions.sort()).toEqual(['changelog-0', 'changelog-1', 'changelog-2']);
    expect(byTask.rename.sourceSessions.sort()).toEqual(['rename-0', 'rename-1', 'rename-2']);
    expect(byTask.rename.toolSequence).toContain('Grep');
    expect(byTask.changelog.body).toContain('git log');
    // Named by what was asked, not by the Edit every task makes.
    expect(byTask.rename.name).toMatch(/^rename-/);
    // The test run after the edit is how the agent knew the fix worked: a step, and the check under "Done when".
    // The failed run before it is what the user reported, not a step.
    expect(byTask.date.toolSequence).toEqual(['Read', 'Edit', 'Bash']);
    expect(byTask.date.body).toContain('3. Run `npm test` with `Bash`.');
    expect(byTask.date.body).toContain(
      'The last command (`npm test` with `Bash`) prints "Tests: 42 passed", as it did every time.',
    );

    const first = async (goal: string) => (await memory.recall(goal, { record: false }))[0]?.id;
    expect(await first('Please rename the function sumPrices to totalPrice in all files')).toBe(byTask.rename.id);
    expect(await first('Add the changelog section for the 3.0.0 release')).toBe(byTask.changelog.id);
    expect(await first('The parseDate test fails on dates with offsets, fix it')).toBe(byTask.date.id);

    // A later pass, with more runs of one task, keeps them apart (consolidation asks the same of stored skills).
    await memory.ingest(runs(CHANGELOG, 'changelog-again'));
    await memory.synthesize();
    const after = (await memory.skills.list()).filter((s) => s.corpus === 'internal');
    expect(after).toHaveLength(3);
  });
});
