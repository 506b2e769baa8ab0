import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../domain/types.js';
import { TaskSplitter } from './task-splitter.js';

const call = (tool: string): ToolCall => ({
  position: 0,
  tool,
  args: {},
  result: 'ok',
  ok: true,
  error: null,
  durationMs: null,
  at: null,
});

/** Feeds a transcript: `u:` user text, `a:` agent text, `c:` a call answered at once, `/clear`. */
function split(events: string[]): TaskSplitter {
  const s = new TaskSplitter();
  events.forEach((e, i) => {
    if (e === '/clear') s.reset();
    else if (e.startsWith('u:')) s.user(e.slice(2), i + 1, null);
    else if (e.startsWith('a:')) s.assistantText(e.slice(2), null);
    else if (e.startsWith('c:')) {
      s.call(null, call(e.slice(2)), false, null);
      s.resulted(null);
    }
  });
  return s;
}

const view = (s: TaskSplitter) => s.tasks.map((t) => [t.goal, t.calls.map((c) => c.tool)]);

describe('TaskSplitter', () => {
  it('a question back before any call is part of the request: the answer to it joins the goal', () => {
    const s = split([
      'u:I want to cancel an order I placed yesterday.',
      'a:Sure. What is your email and the order number?',
      'u:mia@example.com, order #W2378156',
      'c:find_user_by_email',
      'c:cancel_pending_order',
      'a:Cancelled.',
    ]);
    expect(view(s)).toEqual([
      [
        'I want to cancel an order I placed yesterday.\nmia@example.com, order #W2378156',
        ['find_user_by_email', 'cancel_pending_order'],
      ],
    ]);
  });

  it('a greeting is not the goal, and a message said twice is asked once', () => {
    const s = split([
      'u:Hi there!',
      'a:Hello! How can I help?',
      'u:Reset my password',
      'u:Reset my password',
      'c:reset',
    ]);
    expect(view(s)).toEqual([['Reset my password', ['reset']]]);
  });

  it('after an answer that followed calls, a request starts a task; one answered without a call is small talk', () => {
    const s = split([
      'u:Cancel #W1',
      'c:cancel',
      'a:Done.',
      'u:Great, thanks!',
      'a:You are welcome!',
      'u:Now refund #W2',
      'c:refund',
      'a:Refunded.',
    ]);
    // The thanks opens a task; the next request joins it (no call yet) and the thanks leaves the goal.
    expect(view(s)).toEqual([
      ['Cancel #W1', ['cancel']],
      ['Now refund #W2', ['refund']],
    ]);
    const t = split(['u:Cancel #W1', 'c:cancel', 'a:Done.', 'u:Great, thanks!', 'a:You are welcome!']);
    expect(t.tasks.map((x) => t.isChatter(x))).toEqual([false, true]);
    expect(t.chatterNote()).toEqual({
      line: 4,
      path: '',
      reason:
        '1 request(s) without a tool call (answered without one, or not acted on yet) were not stored, as they hold no procedure to learn ("Great, thanks!")',
      note: true,
      requestsLeftOut: 1,
    });
  });

  it('/clear starts a new task even before a call; requests never acted on are left out, with one note', () => {
    const s = split(['u:What is a monad?', 'a:A monad is...', '/clear', 'u:Explain functors', 'a:Which language?']);
    expect(view(s)).toEqual([
      ['What is a monad?', []],
      ['Explain functors', []],
    ]);
    expect(s.tasks.map((t) => s.isChatter(t))).toEqual([true, true]);
    expect(s.chatterNote()?.requestsLeftOut).toBe(2);
    // A task with calls has nothing to say.
    expect(split(['u:Restart web', 'c:restart', 'a:Done.']).chatterNote()).toBeNull();
  });
});
