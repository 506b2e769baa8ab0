import { describe, expect, it } from 'vitest';
import { rejectionOf, RuleJudge } from './judge.js';
import { parseCaptureText } from './parse-file.js';
import { rejectionLabels, rejectsAnswer, TaskSplitter } from './task-splitter.js';
import type { ToolCall } from '../domain/types.js';

const call = (tool: string, command: string): ToolCall => ({
  tool,
  args: { command },
  result: 'done',
  ok: true,
  error: null,
  position: 0,
  durationMs: null,
  at: null,
});

describe('rejectsAnswer', () => {
  it('reads a message that says the answer was wrong', () => {
    for (const text of [
      "no, that's wrong: don't disable the rule, fix the comparison itself",
      "No, that's wrong, I asked for a patch release. Leave it.",
      'That is not what I asked for',
      'nope, this is incorrect',
      'wrong file, the helper lives in src/util.ts',
      'it still fails on CI',
      "that didn't work",
      'undo that please',
    ])
      expect(rejectsAnswer(text), text).toBe(true);
  });

  it('does not read a new request, thanks, or a mention of something broken further on as one', () => {
    for (const text of [
      'now add a dependency on zod',
      "no problem, that's all for today",
      'thanks, perfect',
      "the login doesn't work, fix it",
      'Release a patch version. That is wrong in the changelog too.',
      'nothing is wrong with the parser; add a test for it',
    ])
      expect(rejectsAnswer(text), text).toBe(false);
  });
});

describe('a rejection after an answer', () => {
  it('stays with the task it answered, and says so in the labels', () => {
    const split = new TaskSplitter();
    split.user('ship a patch release', 1, null);
    split.call('t1', call('Bash', 'npm version minor'), false, null);
    split.assistantText('Bumped to 1.5.0.', null);
    split.user("No, that's wrong, I asked for a patch.", 4, null);
    split.call('t2', call('Bash', 'npm version patch'), false, null);
    split.assistantText('Now 1.4.4.', null);
    split.user('add zod as a dependency', 7, null);
    split.call('t3', call('Bash', 'npm install zod'), false, null);
    expect(split.tasks.map((t) => t.goal)).toEqual(['ship a patch release', 'add zod as a dependency']);
    expect(split.tasks[0].calls).toHaveLength(2);
    expect(rejectionLabels(split.tasks[0])).toEqual({
      user_rejected_answer: "No, that's wrong, I asked for a patch.",
      user_rejected_after_calls: 1,
    });
    expect(rejectionLabels(split.tasks[1])).toEqual({});
  });

  it('before any call is no rejection: the agent asked a question back, and the request goes on', () => {
    const split = new TaskSplitter();
    split.user('fix the lint', 1, null);
    split.assistantText('Which package?', null);
    split.user('wrong question, the root one', 3, null);
    expect(split.tasks).toHaveLength(1);
    expect(split.tasks[0].rejection).toBeNull();
  });
});

describe('the rule judge and a rejection', () => {
  const judge = new RuleJudge();
  const calls = [call('Bash', 'npm test'), call('Bash', 'npm version minor')];
  it('is a failure when no call came after it, unknown when the agent worked on', () => {
    const rejected = { said: "No, that's wrong", afterCalls: 2 };
    expect(judge.decide({ goal: 'release', calls, finalAnswer: 'Sorry.', rejection: rejected }).outcome).toBe(
      'failure',
    );
    const reworked = { said: "No, that's wrong", afterCalls: 1 };
    expect(judge.decide({ goal: 'release', calls, finalAnswer: 'Done.', rejection: reworked }).outcome).toBe('unknown');
    expect(judge.decide({ goal: 'release', calls, finalAnswer: 'Done.' }).outcome).toBe('success');
  });
});

describe('a rejection in an OpenAI conversation and in Responses items', () => {
  const limits = {
    file: 'chat.json',
    namespace: 'default',
    maxRecordBytes: 1_000_000,
    resultChars: 2000,
    maxCallsPerSession: 1000,
  };
  const call = (id: string, command: string) => ({
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name: 'run_shell', arguments: JSON.stringify({ command }) } }],
  });
  it('keeps the task with the user words in its labels, whatever the format', () => {
    const chat = {
      id: 'chat-1',
      messages: [
        { role: 'user', content: 'ship a patch release' },
        call('c1', 'npm version minor'),
        { role: 'tool', tool_call_id: 'c1', content: 'v1.5.0' },
        { role: 'assistant', content: 'Bumped to 1.5.0.' },
        { role: 'user', content: "No, that's wrong, I asked for a patch." },
        { role: 'assistant', content: 'Sorry.' },
      ],
    };
    const parsed = parseCaptureText(JSON.stringify(chat), { ...limits, format: 'openai' });
    expect(parsed.sessions).toHaveLength(1);
    expect(parsed.sessions[0].labels).toMatchObject({
      user_rejected_answer: "No, that's wrong, I asked for a patch.",
      user_rejected_after_calls: 1,
    });
    expect(rejectionOf(parsed.sessions[0])).toEqual({ said: "No, that's wrong, I asked for a patch.", afterCalls: 1 });

    const items = [
      { type: 'message', role: 'user', content: 'ship a patch release' },
      {
        type: 'function_call',
        call_id: 'c1',
        name: 'shell',
        arguments: JSON.stringify({ command: 'npm version minor' }),
      },
      { type: 'function_call_output', call_id: 'c1', output: 'v1.5.0' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Bumped to 1.5.0.' }] },
      { type: 'message', role: 'user', content: 'that is not what I asked for' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Sorry.' }] },
    ];
    const agents = parseCaptureText(JSON.stringify(items), { ...limits, format: 'openai-agents' });
    expect(agents.sessions.map((x) => x.goal)).toEqual(['ship a patch release']);
    expect(rejectionOf(agents.sessions[0])).toEqual({ said: 'that is not what I asked for', afterCalls: 1 });
  });
});

// The splitting itself (before rejections were read).
const bare = (tool: string): ToolCall => ({
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
      s.call(null, bare(e.slice(2)), false, null);
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
