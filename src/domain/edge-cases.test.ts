import { describe, expect, it } from 'vitest';
import { findEdgeCases } from './edge-cases.js';
import type { Session, ToolCall } from './types.js';

/** A session of `steps`: a name is a call that worked, `name!` one that failed with `error`. */
function session(
  id: string,
  steps: string[],
  error = 'Error: order status is delivered, cannot be cancelled',
): Session {
  const calls: ToolCall[] = steps.map((step, position) => {
    const failed = step.endsWith('!');
    return {
      position,
      tool: failed ? step.slice(0, -1) : step,
      args: {},
      result: failed ? error : '{"ok":true}',
      ok: !failed,
      error: failed ? error : null,
      durationMs: null,
      at: null,
    };
  });
  return {
    id,
    namespace: 'default',
    goal: 'exchange the lamp I received',
    outcome: 'success',
    reward: 1,
    agentId: null,
    source: 'test',
    startedAt: '2026-01-01T00:00:00.000Z',
    endedAt: null,
    labels: null,
    calls,
  } as Session;
}

const procedureTools = ['get_order_details', 'exchange_delivered_order_items'];

describe('findEdgeCases', () => {
  it('tells the agent to retry a step of the procedure that failed and then worked', () => {
    const items = findEdgeCases({
      successes: [
        session('a', ['get_order_details!', 'get_order_details', 'exchange_delivered_order_items'], 'not found'),
        session('b', ['get_order_details!', 'get_order_details', 'exchange_delivered_order_items'], 'not found'),
        session('c', ['get_order_details', 'exchange_delivered_order_items']),
      ],
      failures: [],
      procedureTools,
      thinkTools: [],
    });
    expect(items.map((i) => i.text)).toEqual([
      'If `get_order_details` fails (e.g. nothing found for the given id), correct the arguments and retry `get_order_details`.',
    ]);
  });

  it('says not to call a tool outside the procedure that only ever failed in the successful sessions', () => {
    const items = findEdgeCases({
      successes: [
        session('a', ['return_delivered_order_items!', 'get_order_details', 'exchange_delivered_order_items']),
        session('b', ['get_order_details', 'return_delivered_order_items!', 'exchange_delivered_order_items']),
        session('c', ['get_order_details', 'exchange_delivered_order_items']),
      ],
      failures: [],
      procedureTools,
      thinkTools: [],
    });
    expect(items).toEqual([
      {
        kind: 'avoid',
        tool: 'return_delivered_order_items',
        count: 2,
        text: 'Do not call `return_delivered_order_items` for this task: it failed (e.g. the item is not in the right state) in each of the 2 successful sessions that called it, and they succeeded without it.',
      },
    ]);
  });

  it('says so plainly when the one successful session that called such a tool is all the evidence', () => {
    const items = findEdgeCases({
      successes: [session('a', ['get_order_details', 'return_delivered_order_items!', 'transfer_to_human_agents'])],
      failures: [],
      procedureTools: ['get_order_details', 'transfer_to_human_agents'],
      thinkTools: [],
    });
    expect(items.map((i) => i.text)).toEqual([
      'Do not call `return_delivered_order_items` for this task: it failed (e.g. the item is not in the right state) in the one successful session that called it, which succeeded without it.',
    ]);
  });

  it('keeps the recovery of a tool outside the procedure that also worked in a successful session', () => {
    const items = findEdgeCases({
      successes: [
        session('a', ['get_order_details', 'check_stock!', 'exchange_delivered_order_items']),
        session('b', ['get_order_details', 'check_stock!', 'exchange_delivered_order_items']),
        session('c', ['get_order_details', 'check_stock', 'exchange_delivered_order_items']),
      ],
      failures: [],
      procedureTools,
      thinkTools: [],
    });
    expect(items).toHaveLength(1);
    expect(items[0].kind).toBe('recovery');
    expect(items[0].text).toBe(
      'If `check_stock` fails (e.g. the item is not in the right state), continue with `exchange_delivered_order_items` instead.',
    );
  });

  it('tells the agent not to skip a step every success made and failures went without before the change', () => {
    const forward = ['search_emails', 'find_email_address', 'forward_email'];
    const failed = (id: string, steps: string[]) => ({ ...session(id, steps), outcome: 'failure' as const });
    const successes = ['a', 'b'].map((id) => session(id, forward));
    const items = findEdgeCases({
      successes,
      // Three forwarded to an address they made up; one looked it up and still failed; one never forwarded.
      failures: [
        failed('w', ['search_emails', 'forward_email']),
        failed('x', ['search_emails', 'forward_email']),
        failed('y', ['forward_email']),
        failed('z', forward),
        failed('v', ['search_emails']),
      ],
      procedureTools: forward,
      thinkTools: [],
    });
    expect(items).toEqual([
      {
        kind: 'required',
        tool: 'find_email_address',
        count: 3,
        text: 'Call `find_email_address` before `forward_email`: every successful session did, and the 3 sessions that called `forward_email` without it failed.',
      },
    ]);
    // Not when a successful session went without it, nor for one failure alone.
    const optional = findEdgeCases({
      successes: [...successes, session('c', ['search_emails', 'forward_email'])],
      failures: [failed('w', ['search_emails', 'forward_email']), failed('x', ['search_emails', 'forward_email'])],
      procedureTools: forward,
      thinkTools: [],
    });
    expect(optional.filter((e) => e.kind === 'required')).toEqual([]);
    const once = findEdgeCases({
      successes,
      failures: [failed('w', ['search_emails', 'forward_email'])],
      procedureTools: forward,
      thinkTools: [],
    });
    expect(once).toEqual([]);
  });

  it('warns against a step that acts or hands off which failed sessions took, never against a lookup', () => {
    const failed = (id: string, steps: string[]) => ({ ...session(id, steps), outcome: 'failure' as const });
    const items = findEdgeCases({
      successes: ['a', 'b', 'c'].map((id) => session(id, procedureTools)),
      // Three of four failures looked the product up and then returned the items instead of exchanging them.
      failures: [
        failed('w', ['get_order_details', 'get_product_details', 'return_delivered_order_items']),
        failed('x', ['get_order_details', 'get_product_details', 'return_delivered_order_items']),
        failed('y', ['get_order_details', 'get_product_details', 'transfer_to_human_agents']),
        failed('z', ['get_order_details']),
      ],
      procedureTools,
      thinkTools: [],
    });
    expect(items.map((i) => i.text)).toEqual([
      // Before: first of all, "Do not call `get_product_details` for this task: 3 of 4 failed sessions did".
      'Do not call `return_delivered_order_items` for this task: 2 of 4 failed sessions did, and no successful one did.',
    ]);
    // Called by half of the failures: a hand-off is warned against like an action; the lookup still is not.
    const handoff = findEdgeCases({
      successes: ['a', 'b', 'c'].map((id) => session(id, procedureTools)),
      failures: [
        failed('w', ['get_order_details', 'get_product_details', 'transfer_to_human_agents']),
        failed('x', ['get_order_details', 'get_product_details', 'transfer_to_human_agents']),
      ],
      procedureTools,
      thinkTools: [],
    });
    expect(handoff.map((i) => i.tool)).toEqual(['transfer_to_human_agents']);
  });

  describe('of a command runner, step by step: its command, not the tool every step shares', () => {
    /** A session of shell commands: `npm outdated!` failed (with `error`), the others worked. */
    const shell = (id: string, commands: string[], error = 'Exit code 1') => {
      const s = session(id, []);
      s.calls = commands.map((line, position) => {
        const failed = line.endsWith('!');
        return {
          position,
          tool: 'Bash',
          args: { command: failed ? line.slice(0, -1) : line },
          result: failed ? error : 'done',
          ok: !failed,
          error: failed ? error : null,
          durationMs: null,
          at: null,
        };
      });
      return s;
    };
    const keys = ['Bash\u0000npm install', 'Bash\u0000npm test'];

    it('reads no retry of `Bash` into a failed command followed by another one', () => {
      const items = findEdgeCases({
        successes: ['zod', 'eslint', 'date-fns'].map((p) =>
          shell(p, ['npm outdated!', `npm install ${p}@latest`, 'npm test']),
        ),
        failures: [],
        procedureTools: ['Bash'],
        procedureKeys: keys,
        thinkTools: [],
      });
      // Before: "If `Bash` fails, correct the arguments and retry `Bash`."
      expect(items.map((i) => i.text)).toEqual([
        'Do not run `npm outdated` with `Bash` for this task: it failed in each of the 3 successful sessions that ran it, and they succeeded without it.',
      ]);
    });

    it('says that the failing run before the change is expected, not a reason to stop', () => {
      const fix = (id: string) => {
        const s = shell(id, ['pytest -q!', 'sed -n 1,60p app/orders.py', 'pytest -q']);
        s.calls.splice(2, 0, {
          position: 2,
          tool: 'apply_patch',
          args: { input: '*** Begin Patch' },
          result: 'Done',
          ok: true,
          error: null,
          durationMs: null,
          at: null,
        });
        s.calls.forEach((c, i) => {
          c.position = i;
        });
        return s;
      };
      const items = findEdgeCases({
        successes: [fix('a'), fix('b'), fix('c')],
        failures: [],
        procedureTools: ['Bash', 'apply_patch'],
        procedureKeys: ['Bash\u0000pytest', 'Bash\u0000sed', 'apply_patch', 'Bash\u0000pytest'],
        thinkTools: [],
      });
      // Before: no item, and the skill said "No failure was observed: if a step errors, stop".
      expect(items.map((i) => i.text)).toEqual([
        'The first run of `pytest` with `Bash` fails (in 3 of the 3 successful sessions): that failure shows what to fix, so go on to the change; the same command passes when run again after it.',
      ]);
    });

    it('warns against a command that failed sessions ran only when it may change something', () => {
      const failedShell = (id: string, commands: string[]) => ({ ...shell(id, commands), outcome: 'failure' as const });
      const items = findEdgeCases({
        successes: ['a', 'b', 'c'].map((id) => shell(id, ['npm install zod@latest', 'npm test'])),
        failures: ['w', 'x', 'y'].map((id) =>
          failedShell(id, ['grep -rn zod src', 'npm install zod@latest', 'git push --force', 'npm test']),
        ),
        procedureTools: ['Bash'],
        procedureKeys: keys,
        thinkTools: [],
      });
      // The search is how they looked; the forced push is what they should not have done.
      expect(items.map((i) => i.text)).toEqual([
        'Do not run `git push` with `Bash` for this task: 3 of 3 failed sessions did, and no successful one did.',
      ]);
    });

    it('tells the agent to run a command of the procedure again when it failed and then worked', () => {
      const items = findEdgeCases({
        successes: [
          shell('a', ['npm install!', 'npm install', 'npm test'], 'npm ERR! network request timed out'),
          shell('b', ['npm install!', 'npm install', 'npm test'], 'npm ERR! network request timed out'),
          shell('c', ['npm install', 'npm test']),
        ],
        failures: [],
        procedureTools: ['Bash'],
        procedureKeys: keys,
        thinkTools: [],
      });
      expect(items.map((i) => i.text)).toEqual([
        'If `npm install` with `Bash` fails (e.g. a transient error), correct the arguments and retry `npm install` with `Bash`.',
      ]);
    });
  });
});
