import { describe, expect, it } from 'vitest';
import { lookAlikeGroups, sharedSteps } from './look-alike.js';
import type { ToolCall } from './types.js';

const v = (...xs: number[]) => Float32Array.from(xs);

describe('lookAlikeGroups', () => {
  it('groups clusters whose tool use is alike around one that changed, largest first', () => {
    const groups = lookAlikeGroups([
      { id: 'c1', tools: v(1, 0, 0), changed: true },
      { id: 'c2', tools: v(0.9, 0.1, 0), changed: false },
      { id: 'c3', tools: v(0.95, 0, 0.1), changed: false },
      { id: 'c4', tools: v(0, 1, 0), changed: true },
      { id: 'c5', tools: v(0, 0.9, 0.2), changed: false },
      { id: 'c6', tools: v(0, 0, 1), changed: true },
    ]);
    expect(groups.map((g) => [...g].sort())).toEqual([
      ['c1', 'c2', 'c3'],
      ['c4', 'c5'],
    ]);
  });

  it('takes only what is alike to the one that changed, not a chain through others', () => {
    // c1 ~ c2 (0.8) and c2 ~ c3 (0.8), but c1 and c3 are far apart (0.28).
    const a = Math.cos((37 * Math.PI) / 180);
    const b = Math.sin((37 * Math.PI) / 180);
    const groups = lookAlikeGroups([
      { id: 'c1', tools: v(1, 0), changed: true },
      { id: 'c2', tools: v(a, b), changed: false },
      { id: 'c3', tools: v(Math.cos((74 * Math.PI) / 180), Math.sin((74 * Math.PI) / 180)), changed: false },
    ]);
    expect(groups).toEqual([['c1', 'c2']]);
  });

  it('says nothing of a group none of whose clusters changed, nor of clusters that called no tool', () => {
    expect(
      lookAlikeGroups([
        { id: 'c1', tools: v(1, 0), changed: false },
        { id: 'c2', tools: v(1, 0), changed: false },
        { id: 'c3', tools: v(0, 1), changed: true },
      ]),
    ).toEqual([]);
    expect(
      lookAlikeGroups([
        { id: 'c1', tools: v(0, 0), changed: true },
        { id: 'c2', tools: v(0, 0), changed: true },
      ]),
    ).toEqual([]);
  });

  it('holds a group to the floor it is given', () => {
    const near = [
      { id: 'c1', tools: v(1, 0), changed: true },
      { id: 'c2', tools: v(0.7, 0.7), changed: false },
    ];
    expect(lookAlikeGroups(near, 0.75)).toEqual([]);
    expect(lookAlikeGroups(near, 0.7)).toEqual([['c1', 'c2']]);
  });
});

const call = (position: number, tool: string, args: Record<string, unknown> = {}, ok = true): ToolCall => ({
  position,
  tool,
  args,
  result: '',
  ok,
  error: ok ? null : 'exit code 1',
  durationMs: null,
  at: null,
});
const bash = (position: number, command: string, ok = true) => call(position, 'Bash', { command }, ok);

describe('sharedSteps', () => {
  // Read and Edit: most of the namespace calls them; the package commands: few.
  const share = (key: string) => (key === 'Read' || key === 'Edit' ? 0.9 : 0.2);

  it('names the telling steps the sessions share, commands by their head, in the order the first took them', () => {
    const found = sharedSteps(
      [
        { id: 'a', calls: [bash(0, 'npm outdated', false), bash(1, 'npm install zod@latest'), bash(2, 'npm test')] },
        {
          id: 'b',
          calls: [
            call(0, 'TodoWrite', { todos: [] }),
            bash(1, 'npm install --save-dev eslint@latest'),
            bash(2, 'npm run lint'),
            bash(3, 'npm test'),
          ],
        },
      ],
      share,
      ['TodoWrite'],
    );
    expect(found).toEqual({
      sessions: ['a', 'b'],
      steps: [
        { tool: 'Bash', command: 'npm install' },
        { tool: 'Bash', command: 'npm test' },
      ],
    });
  });

  it('is null when the sessions share only steps most sessions take, or a failed one', () => {
    const readEdit = (id: string) => ({
      id,
      calls: [call(0, 'Read', { file_path: `/r/${id}.md` }), call(1, 'Edit', { file_path: `/r/${id}.md` })],
    });
    expect(sharedSteps([readEdit('a'), readEdit('b')], share)).toBeNull();
    expect(
      sharedSteps(
        [
          { id: 'a', calls: [bash(0, 'npm outdated', false), call(1, 'Read')] },
          { id: 'b', calls: [bash(0, 'npm outdated', false), call(1, 'Read')] },
        ],
        share,
      ),
    ).toBeNull();
  });

  it('keeps the sessions that share the step most of them take, and leaves the one that does not', () => {
    const found = sharedSteps(
      [
        { id: 'a', calls: [bash(0, 'git commit -am "1.4.0"')] },
        { id: 'b', calls: [bash(0, 'git commit -am "1.4.1"'), bash(1, 'git log --oneline')] },
        { id: 'c', calls: [bash(0, 'git log --oneline')] },
        { id: 'd', calls: [bash(0, 'git commit -m "1.5.0"')] },
      ],
      share,
    );
    expect(found).toEqual({ sessions: ['a', 'b', 'd'], steps: [{ tool: 'Bash', command: 'git commit' }] });
  });
});
