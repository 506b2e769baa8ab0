// A coding agent (Claude Code, Codex) calls the same few tools for every task: Read, Edit, a test run. Its
// tasks must still be learned apart: the tools say how it works, the requests say what it did. Learned on a
// real SQLite memory through the pass.
import { describe, expect, it } from 'vitest';
import { CHANGELOG, codingSessions, numbered, runs, scriptedSession, TEST_FIXES } from './support/coding-tasks.js';
import { openMemory } from '../src/app/open-memory.js';
import { testMemories } from './support/memories.js';
import { tempDbPath } from './support/tau.js';

const { fresh, track } = testMemories('skillsmith-coding-');

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
    // Read then Edit for each file the search found: the pair once, to repeat, not as many times as one run did.
    expect(byTask.rename.toolSequence).toEqual(['Grep', 'Read', 'Edit', 'Bash']);
    expect(byTask.rename.body).toContain(
      '2. Call `Read` with `file_path` from the result of `Grep`; repeat for each file concerned.',
    );
    expect(byTask.changelog.body).toContain('git log');
    // The entry the agent wrote (several lines no request holds) is the agent's to write, not the user's to give.
    expect(byTask.changelog.body).toContain('`new_string` as the case needs');
    expect(byTask.changelog.body).not.toMatch(/`new_string`[^.]*from the user/);
    // Named by what was asked, not by the Edit every task makes.
    expect(byTask.rename.name).toBe('rename');
    expect(byTask.rename.description).toContain('Use when a user asks to rename something.');
    // The test run after the edit is how the agent knew the fix worked: a step, and the check under "Done when".
    // The failing run before the edit, which the same run then passes, is how the agent saw the problem: a step.
    expect(byTask.date.toolSequence).toEqual(['Bash', 'Read', 'Edit', 'Bash']);
    expect(byTask.date.body).toContain('1. Run `npm test` with `Bash`.\n2. Call `Read`');
    expect(byTask.date.body).toContain('4. Run `npm test` with `Bash`.');
    // Nor is that first run a failure recovered from: no "retry" edge case is read from it.
    expect(byTask.date.body).not.toContain('retry `Bash`');
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

// Two edits of one file each: the same tools, Read then Edit, and nothing after the change to tell them apart.
const LICENSE_YEAR = {
  goals: [
    'Update the copyright year in the LICENSE file',
    'Change the copyright year in LICENSE to 2027',
    'Set the LICENSE copyright line to the current year',
  ],
  calls: [
    { tool: 'Read', args: { file_path: '/repo/LICENSE' }, result: 'Copyright (c) 2025 Example' },
    {
      tool: 'Edit',
      args: { file_path: '/repo/LICENSE', old_string: '2025', new_string: '2027' },
      result: 'The file /repo/LICENSE has been updated successfully.',
    },
  ],
};

describe('a coding agent memory where an earlier pass made two tasks one skill', () => {
  it('parts them again once each task is learned anew', async () => {
    const path = tempDbPath('skillsmith-coding-heal-');
    const both = [...runs(CHANGELOG, 'changelog'), ...runs(LICENSE_YEAR, 'license')];
    // A duplicate threshold this low takes requests as loosely alike as a recall match for duplicates: the two
    // tasks become one skill, as they did before heuristic@13 on their tools alone.
    const loose = await openMemory({
      db: path,
      config: { synthesis: { cooldownMs: 0 }, thresholds: { duplicate: 0.3 } },
      logLevel: 'silent',
    });
    await loose.ingest(both);
    await loose.synthesize();
    const merged = (await loose.skills.list()).filter((s) => s.corpus === 'internal');
    await loose.close();
    expect(merged).toHaveLength(1);
    expect(merged[0].sourceSessions).toHaveLength(6);

    // The same memory on the defaults, given one more run of each task: each is its own skill again.
    const memory = track(
      await openMemory({ db: path, config: { synthesis: { cooldownMs: 0 } }, logLevel: 'silent' }),
      path,
    );
    await memory.ingest([...runs(CHANGELOG, 'changelog-again'), ...runs(LICENSE_YEAR, 'license-again')]);
    await memory.synthesize();
    const live = (await memory.skills.list()).filter((s) => s.corpus === 'internal');
    expect(live).toHaveLength(2);
    const byName = Object.fromEntries(live.map((s) => [s.sourceSessions.at(-1)!.split('-')[0], s]));
    // The new skill is learned from the LICENSE runs alone. (The CHANGELOG skill's provenance keeps the runs that
    // once reinforced it: lineage is never rewritten.)
    expect(byName.license.sourceSessions.every((id) => id.startsWith('license'))).toBe(true);
    expect(byName.changelog.sourceSessions).toContain('changelog-again-0');
    const first = async (goal: string) => (await memory.recall(goal, { record: false }))[0]?.id;
    expect(await first('Bump the copyright year in LICENSE')).toBe(byName.license.id);
    expect(await first('Add the changelog notes for 3.1.0')).toBe(byName.changelog.id);
  });
});

describe("a coding agent's edit", () => {
  it('takes the text it replaces from the file the read printed, and writes the new text itself', async () => {
    const memory = await fresh();
    await memory.ingest(TEST_FIXES.map(scriptedSession));
    await memory.synthesize();
    const [skill] = (await memory.skills.list()).filter((s) => s.corpus === 'internal');
    expect(skill.toolSequence).toEqual(['Bash', 'Read', 'Edit', 'Bash']);
    // Not "from the user": no user gives the line to replace, the line of code that replaces it, or the file the
    // agent went to from the failing run.
    // The file it edits is the one it read (was "`file_path`, `new_string` as the case needs").
    expect(skill.body).toContain(
      '3. Call `Edit` with `file_path` as given to `Read`, `new_string` as the case needs, `old_string` from the result of `Read` (part of its text, copied exactly).',
    );
    expect(skill.body).toContain('2. Call `Read` with `file_path` as the case needs.');
    expect(skill.body).not.toContain('from the user');
    // The test run after the edit confirms it: the agent does not ask its user to.
    expect(skill.body).toContain('## Done when\n\n`Edit` has succeeded');
    expect(skill.body).toContain('The last command (`npm test` with `Bash`) prints "Tests: 41 passed"');
    expect(skill.body).not.toContain('confirmed with the user');

    // Where a request names what to change, it is the user's, and the edit's new text with it.
    const renames = ['formatUser', 'getCfg', 'calcTotal'].map((name, i) =>
      scriptedSession({
        id: `ren-${i}`,
        goal: `Rename ${name} to ${name}V2 in src/lib.ts`,
        steps: [
          { tool: 'Read', args: { file_path: '/r/src/lib.ts' }, result: numbered([`export function ${name}() {}`]) },
          {
            tool: 'Edit',
            args: { file_path: '/r/src/lib.ts', old_string: `function ${name}()`, new_string: `${name}V2` },
            result: 'The file /r/src/lib.ts has been updated successfully.',
          },
        ],
      }),
    );
    await memory.ingest(renames);
    await memory.synthesize();
    const rename = (await memory.skills.list()).find((s) => s.sourceSessions.includes('ren-0'))!;
    expect(rename.body).toContain('`new_string` from the user');
    expect(rename.body).toContain('`old_string` from the result of `Read` (part of its text, copied exactly)');
  });
});
