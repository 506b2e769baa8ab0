import { describe, expect, it } from 'vitest';
import { procedureCalls } from './spans.js';
import { toolCall as call } from './tool-call.case.js';

const run = (position: number, command: string, ok = true) =>
  call(position, 'Bash', { command }, ok ? 'ok' : 'exit code 1', ok);
const tools = (calls: ReturnType<typeof procedureCalls>) =>
  calls.map((c) => `${c.tool}${c.args?.command ? ` ${c.args.command}` : ''}`);

describe('the calls a procedure is made of', () => {
  it('keeps a failing run that the change then made pass: it shows the problem', () => {
    const calls = [run(0, 'npm test', false), call(1, 'Read'), call(2, 'Edit'), run(3, 'npm test')];
    expect(tools(procedureCalls(calls, new Set()))).toEqual(['Bash npm test', 'Read', 'Edit', 'Bash npm test']);
  });

  it('leaves out other failed calls: a command that never worked, one retried before any change, a failed edit', () => {
    const never = [run(0, 'npm run lint', false), call(1, 'Edit'), run(2, 'npm test')];
    expect(tools(procedureCalls(never, new Set()))).toEqual(['Edit', 'Bash npm test']);
    const retried = [run(0, 'npm tset', false), run(1, 'npm test'), call(2, 'Edit'), run(3, 'npm test')];
    expect(tools(procedureCalls(retried, new Set()))).toEqual(['Bash npm test', 'Edit', 'Bash npm test']);
    const edit = [call(0, 'Read'), call(1, 'Edit', {}, 'String to replace not found', false), call(2, 'Edit')];
    expect(tools(procedureCalls(edit, new Set()))).toEqual(['Read', 'Edit']);
    // Not a command runner: a failed lookup is a mistake, whatever came after.
    const lookup = [call(0, 'get_order', {}, 'not found', false), call(1, 'cancel_order'), call(2, 'get_order')];
    expect(tools(procedureCalls(lookup, new Set()))).toEqual(['cancel_order', 'get_order']);
    expect(tools(procedureCalls([call(0, 'think'), call(1, 'Edit')], new Set(['think'])))).toEqual(['Edit']);
  });
});
