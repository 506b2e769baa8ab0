// Three tasks a coding agent (Claude Code, Codex) does with the same few tools: Read, Edit, a command run. Each
// is three successful runs, worded differently. Made up for the tests; the tools and results have the shapes
// Claude Code gives them.
import type { Session } from '../../src/domain/types.js';
import { successfulRuns, type ScriptedCall } from './memories.js';

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
export const CHANGELOG = {
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
    { tool: 'Grep', args: { pattern: 'formatUser' }, result: 'Found 2 files\n/repo/src/a.ts\n/repo/src/b.ts' },
    { tool: 'Read', args: { file_path: '/repo/src/a.ts' }, result: 'export const formatUser = () => {}' },
    { tool: 'Edit', args: { file_path: '/repo/src/a.ts', old_string: 'a', new_string: 'b' }, result: edited('a.ts') },
    { tool: 'Read', args: { file_path: '/repo/src/b.ts' }, result: 'import { formatUser } from "./a"' },
    { tool: 'Edit', args: { file_path: '/repo/src/b.ts', old_string: 'a', new_string: 'b' }, result: edited('b.ts') },
    { tool: 'Bash', args: { command: 'npx tsc --noEmit' }, result: '' },
  ],
};

/** The runs of one task, ids `prefix-0` to `prefix-2`. */
export const runs = (task: { goals: string[]; calls: ScriptedCall[] }, prefix: string): Session[] => {
  const sessions = successfulRuns(prefix, task.goals, task.calls);
  // The fix starts from the failing test run: a failed call, retried once the edit is made.
  if (task === FIX_DATE)
    sessions.forEach((s, i) => {
      Object.assign(s.calls[0], { ok: false, error: 'exit code 1' });
      // Claude Code's Bash takes the agent's own note of what a command does, worded anew each time.
      s.calls[3].args = { ...s.calls[3].args, description: ['Run the tests again', 'Re-run the suite', 'Check'][i] };
    });
  return sessions;
};

/** All three tasks' runs. */
export const codingSessions = (): Session[] => [
  ...runs(FIX_DATE, 'date'),
  ...runs(CHANGELOG, 'changelog'),
  ...runs(RENAME, 'rename'),
];
