// A coding agent (Claude Code, Codex) calls the same few tools for every task: Read, Edit, a test run. Its
// tasks must still be learned apart: the tools say how it works, the requests say what it did. Learned on a
// real SQLite memory through the pass.
import { describe, expect, it } from 'vitest';
import type { Session } from '../src/domain/types.js';
import { successfulRuns, testMemories, type ScriptedCall } from './support/memories.js';

const edited = (file: string) => `The file ${file} has been updated successfully.`;

const FIX_DATE = {
  goals: [
    'Fix the failing parseDate test in src/date.ts',
    'parseDate breaks on ISO strings with offsets, please fix it',
    'The date parser test fails for timezone offsets; fix parseDate',
  ],
  calls: [
    { tool: 'Bash', args: { command: 'npm test' }, result: 'FAIL test/date.test.ts' },
    { tool: 'Read', args: { file_path: '/repo/src/date.ts' }, result: 'export function parseDate(s) {}' },
    {
      tool: 'Edit',
      args: { file_path: '/repo/src/date.ts', old_string: 'Date.parse(s)', new_string: 'parseIso(s)' },
      result: edited('/repo/src/date.ts'),
    },
    { tool: 'Bash', args: { command: 'npm test' }, result: 'Tests: 42 passed' },
  ],
};
const CHANGELOG = {
  goals: [
    'Add a CHANGELOG entry for the 2.3.0 release',
    'Write the changelog notes for version 2.4.0',
    'Update CHANGELOG.md with the new release section for 2.5.0',
  ],
  calls: [
    { tool: 'Read', args: { file_path: '/repo/CHANGELOG.md' }, result: '# Changelog\n## 2.2.0' },
    { tool: 'Bash', args: { command: 'git log --oneline -20' }, result: 'abc1234 fix the parser' },
    {
      tool: 'Edit',
      args: { file_path: '/repo/CHANGELOG.md', old_string: '# Changelog', new_string: '# Changelog\n## 2.3.0' },
      result: edited('/repo/CHANGELOG.md'),
    },
  ],
};
const RENAME = {
  goals: [
    'Rename the helper formatUser to formatAccount everywhere',
    'Rename getCfg to loadConfig across the codebase',
    'Please rename the function calcTotal to computeTotal in all files',
  ],
  calls: [
    { tool: 'Grep', args: { pattern: 'formatUser' }, result: 'src/a.ts\nsrc/b.ts' },
    { tool: 'Read', args: { file_path: '/repo/src/a.ts' }, result: 'export const formatUser = () => {}' },
    { tool: 'Edit', args: { file_path: '/repo/src/a.ts', old_string: 'a', new_string: 'b' }, result: edited('a.ts') },
    { tool: 'Edit', args: { file_path: '/repo/src/b.ts', old_string: 'a', new_string: 'b' }, result: edited('b.ts') },
    { tool: 'Bash', args: { command: 'npx tsc --noEmit' }, result: '' },
  ],
};

const runs = (task: { goals: string[]; calls: ScriptedCall[] }, prefix: string): Session[] => {
  const sessions = successfulRuns(prefix, task.goals, task.calls);
  // The fix starts from the failing test run: a failed call, retried once the edit is made.
  if (task === FIX_DATE) for (const s of sessions) Object.assign(s.calls[0], { ok: false, error: 'exit code 1' });
  return sessions;
};

const { fresh } = testMemories('skillsmith-coding-');

describe("a coding agent's tasks, all done with Read, Edit and Bash", () => {
  it('are three skills, each learned from its own runs and recalled for its own kind of request', async () => {
    const memory = await fresh();
    await memory.ingest([...runs(FIX_DATE, 'date'), ...runs(CHANGELOG, 'changelog'), ...runs(RENAME, 'rename')]);
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
