import { describe, expect, it } from 'vitest';
import { assignRecallsToTasks, type HeldRecall, type SessionTask, taskBase } from './recall-tasks.js';

const S = 'claude-code:S';
const tasks: SessionTask[] = [
  { id: S, goal: 'fix the date test', startedAt: '2026-01-01T10:00:00.000Z' },
  { id: `${S}#2`, goal: 'upgrade zod to the latest version', startedAt: '2026-01-01T10:10:00.000Z' },
  { id: `${S}#3`, goal: 'fix the date test', startedAt: '2026-01-01T10:20:00.000Z' },
];
let n = 0;
const recall = (goal: string, at: string, sessionId: string | null = S): HeldRecall => ({
  id: ++n,
  sessionId,
  goal,
  at,
});

describe('assignRecallsToTasks: the task of its session a hook recall served', () => {
  it('goes to the task whose request is its prompt, whenever the transcript stamped that prompt', () => {
    // A hook runs before the prompt is written: its time may come just before the task's.
    const r = recall('upgrade  zod to the latest version\n', '2026-01-01T10:09:59.000Z');
    expect(assignRecallsToTasks([r], tasks, S)).toEqual([{ recallId: r.id, from: S, to: `${S}#2` }]);
  });

  it('of two tasks asked in the same words, to the one that started nearest it', () => {
    const late = recall('fix the date test', '2026-01-01T10:19:58.000Z');
    const early = recall('fix the date test', '2026-01-01T09:59:59.000Z');
    expect(assignRecallsToTasks([late, early], tasks, S)).toEqual([{ recallId: late.id, from: S, to: `${S}#3` }]);
  });

  it('a prompt that is no task of its own (a follow-up, "go on") goes to the task running at its time', () => {
    const r = recall('also run the linter', '2026-01-01T10:15:00.000Z');
    expect(assignRecallsToTasks([r], tasks, S)).toEqual([{ recallId: r.id, from: S, to: `${S}#2` }]);
    const joined = [{ id: S, goal: 'hi\nfix the date test', startedAt: '2026-01-01T10:00:00.000Z' }, tasks[1]!];
    const greeting = recall('fix the date test', '2026-01-01T10:30:00.000Z', `${S}#2`);
    expect(assignRecallsToTasks([greeting], joined, S)).toEqual([{ recallId: greeting.id, from: `${S}#2`, to: S }]);
  });

  it('before every stored task, it stays under the agent session id; where it belongs already, it does not move', () => {
    const before = recall('something else', '2026-01-01T09:00:00.000Z');
    const placed = recall('upgrade zod to the latest version', '2026-01-01T10:10:01.000Z', `${S}#2`);
    expect(assignRecallsToTasks([before, placed], tasks, S)).toEqual([]);
    // The first task was not stored (a greeting alone): the base id keeps it.
    expect(assignRecallsToTasks([before], tasks.slice(1), S)).toEqual([]);
  });

  it('a recall made for a later prompt waits under the task then running, and moves once that prompt is a task', () => {
    const r = recall('upgrade zod to the latest version', '2026-01-01T10:09:00.000Z');
    expect(assignRecallsToTasks([r], tasks.slice(0, 1), S)).toEqual([]);
    expect(assignRecallsToTasks([r], tasks, S)).toEqual([{ recallId: r.id, from: S, to: `${S}#2` }]);
  });
});

describe('taskBase', () => {
  it('is the id of the session a task was split from', () => {
    expect(taskBase(`${S}#12`)).toBe(S);
    expect(taskBase(S)).toBe(S);
    expect(taskBase('order#W1 cancel')).toBe('order#W1 cancel');
  });
});
