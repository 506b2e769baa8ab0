import { describe, expect, it } from 'vitest';
import { trialOf } from './trial.js';

const close = {
  steps: ['search_tickets', 'get_ticket', 'update_ticket'],
  tools: ['search_tickets', 'get_ticket', 'update_ticket'],
};
const ok = (tool: string, args: Record<string, unknown> = {}) => ({ tool, args, ok: true });
const err = (tool: string, args: Record<string, unknown> = {}) => ({ tool, args, ok: false });
const think = ['think'];

describe('which trial a session is of a skill recalled for it', () => {
  it('is the outcome when the session called no tool the skill does not name (calls recorded or not)', () => {
    expect(trialOf(close, [], 'success', think)).toBe('pass');
    expect(trialOf(close, [ok('think')], 'failure', think)).toBe('fail');
    // An agent that recorded only its first call, or found the ticket its own way first.
    expect(trialOf(close, [ok('search_tickets')], 'success', think)).toBe('pass');
    expect(trialOf(close, [ok('list_my_tickets')], 'success', think)).toBe('pass');
    expect(trialOf(close, [ok('list_my_tickets'), ok('get_ticket'), ok('update_ticket')], 'success', think)).toBe(
      'pass',
    );
    expect(trialOf(close, [ok('search_tickets'), ok('get_ticket'), err('update_ticket')], 'failure', think)).toBe(
      'fail',
    );
    expect(trialOf(close, [err('search_tickets')], 'failure', think)).toBe('fail');
    // A lookup that failed once (a mistyped id), then the skill's own steps: a success is a pass.
    expect(trialOf(close, [ok('search_tickets'), err('get_ticket'), ok('update_ticket')], 'success', think)).toBe(
      'pass',
    );
  });

  it('passes a success that made every step of the main path, extra lookups and retries included', () => {
    expect(
      trialOf(
        close,
        [ok('search_tickets'), ok('list_comments'), ok('get_ticket'), err('update_ticket'), ok('update_ticket')],
        'success',
        think,
      ),
    ).toBe('pass');
  });

  it('gives no trial to a success that took another action, and fails the skill whose step broke on the way', () => {
    // The agent had patch_ticket and never tried the old step: the old skill was not followed.
    expect(trialOf(close, [ok('search_tickets'), ok('get_ticket'), ok('patch_ticket')], 'success', think)).toBeNull();
    // It tried the old step, which is gone, and got there by the new tool: the old skill's step failed.
    expect(
      trialOf(
        close,
        [ok('search_tickets'), ok('get_ticket'), err('update_ticket'), ok('patch_ticket')],
        'success',
        think,
      ),
    ).toBe('fail');
  });

  it('gives no trial to a failure on a tool the skill does not call', () => {
    const patch = {
      steps: ['search_tickets', 'get_ticket', 'patch_ticket'],
      tools: ['search_tickets', 'get_ticket', 'patch_ticket'],
    };
    const oldWay = [ok('search_tickets'), ok('get_ticket'), err('update_ticket')];
    expect(trialOf(patch, oldWay, 'failure', think)).toBeNull();
    expect(trialOf(close, oldWay, 'failure', think)).toBe('fail');
  });

  it('tells commands of a command runner apart once the session left the skill', () => {
    const test = { steps: ['Read', 'Edit', 'Bash\u0000npm test'], tools: ['Read', 'Edit', 'Bash'] };
    const run = (command: string, good = true) => ({ tool: 'Bash', args: { command }, ok: good });
    expect(trialOf(test, [ok('Read'), ok('Edit'), run('npm test')], 'success', think)).toBe('pass');
    expect(trialOf(test, [ok('Read'), ok('Edit'), run('npm test', false), ok('Write')], 'success', think)).toBe('fail');
    expect(trialOf(test, [ok('Read'), ok('Write'), run('pytest -q')], 'success', think)).toBeNull();
  });
});
