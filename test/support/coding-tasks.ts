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

/** A run of a task: its id, its request and its calls. */
export interface ScriptedRun {
  id: string;
  goal: string;
  steps: Step[];
}

/** A call of a scripted run, as the interchange JSONL writes a step (`error`: it failed). */
export type Step = { tool: string; args: Record<string, unknown>; result: string; error?: string };
const bash = (command: string, result: string, error?: string): Step => ({
  tool: 'Bash',
  args: { command, description: 'Run it' },
  result,
  ...(error ? { error } : {}),
});
const read = (file: string): Step => ({ tool: 'Read', args: { file_path: file }, result: '# Title' });
const edit = (file: string): Step => ({
  tool: 'Edit',
  args: { file_path: file, old_string: '# Title', new_string: '# Title\n\nMore.' },
  result: `The file ${file} has been updated successfully.`,
});
const outdated = bash('npm outdated', 'Package  Current  Wanted  Latest', 'Exit code 1');
const passed = bash('npm test', 'Tests  44 passed (44)');

/**
 * A dependency upgrade, three times, asked three ways: too far apart in words (GloVe) for one cluster, the same
 * steps (test/look-alike.test.ts).
 */
export const UPGRADES: ScriptedRun[] = [
  {
    id: 'up-zod',
    goal: 'upgrade zod to the latest version',
    steps: [outdated, bash('npm install zod@latest', 'changed 1 package'), passed],
  },
  {
    id: 'up-eslint',
    goal: 'can you update eslint to the newest release? make sure nothing breaks',
    steps: [
      outdated,
      bash('npm install --save-dev eslint@latest', 'changed 3 packages'),
      bash('npm run lint', ''),
      passed,
    ],
  },
  {
    id: 'up-datefns',
    goal: 'bump date-fns to the newest version',
    steps: [outdated, bash('npm install date-fns@latest', 'changed 1 package'), passed, bash('npx tsc --noEmit', '')],
  },
];
// Other work of the same agent, with Read and Edit: most of its sessions call them, so they say nothing of a task.
export const OTHER_CODING: ScriptedRun[] = [
  {
    id: 'doc-env',
    goal: 'Add a section to the README that documents every environment variable',
    steps: [read('/r/README.md'), edit('/r/README.md')],
  },
  {
    id: 'doc-contrib',
    goal: 'Write a short CONTRIBUTING guide for new developers',
    steps: [
      { tool: 'Glob', args: { pattern: '*.md' }, result: '/r/README.md' },
      read('/r/CONTRIBUTING.md'),
      edit('/r/CONTRIBUTING.md'),
    ],
  },
  {
    id: 'fix-a',
    goal: 'The formatCurrency test is failing, can you fix it?',
    steps: [read('/r/src/money.ts'), edit('/r/src/money.ts'), passed],
  },
  {
    id: 'fix-b',
    goal: 'the formatCurrency test fails again after the merge, fix it please',
    steps: [read('/r/src/money.ts'), edit('/r/src/money.ts'), passed],
  },
];

/** A file as a coding agent's read prints it: each line after its number (`     2→  const x = 1;`). */
export const numbered = (lines: string[]): string =>
  lines.map((l, i) => `${String(i + 1).padStart(6)}→${l}`).join('\n');

/**
 * A test fix as Claude Code records it, three times: the failing run, a read that prints the file with its line
 * numbers, an edit of one line of it, the passing run. Each run fixes another file, and no request names the line.
 */
export const TEST_FIXES: ScriptedRun[] = [
  {
    goal: 'the formatCurrency test fails, fix it',
    file: 'currency',
    from: 'Math.floor(cents)',
    to: 'Math.round(cents)',
  },
  {
    goal: 'parseInvoiceDate rejects dotted dates; make its test pass',
    file: 'date',
    from: 'new Date(NaN)',
    to: 'parseDotted(s)',
  },
  {
    goal: 'The totals test is red after the merge, please repair it',
    file: 'totals',
    from: 'sum - tax',
    to: 'sum + tax',
  },
].map((f, i) => {
  const path = `/home/dana/code/invoicer/src/${f.file}.ts`;
  const line = `  const value = ${f.from} / 100;`;
  return {
    id: `fix-${i}`,
    goal: f.goal,
    steps: [
      { tool: 'Bash', args: { command: 'npm test' }, result: `FAIL src/${f.file}.test.ts`, error: 'Exit code 1' },
      {
        tool: 'Read',
        args: { file_path: path },
        result: numbered(['export function run(cents: number) {', line, '}']),
      },
      {
        tool: 'Edit',
        args: { file_path: path, old_string: line, new_string: `  const value = ${f.to} / 100;` },
        result: `The file ${path} has been updated successfully.`,
      },
      { tool: 'Bash', args: { command: 'npm test' }, result: 'Tests: 41 passed' },
    ],
  };
});

/** A scripted run as a stored session (successful; a step with an error failed). */
export const scriptedSession = (s: ScriptedRun): Session => ({
  id: s.id,
  namespace: 'default',
  goal: s.goal,
  outcome: 'success',
  reward: 1,
  agentId: null,
  source: 'scripted-test',
  startedAt: '2026-03-01T00:00:00.000Z',
  endedAt: null,
  labels: null,
  calls: s.steps.map((c, position) => ({
    position,
    tool: c.tool,
    args: c.args,
    result: c.result,
    ok: !c.error,
    error: c.error ?? null,
    durationMs: null,
    at: null,
  })),
});
