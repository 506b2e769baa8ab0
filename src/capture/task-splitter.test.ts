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
