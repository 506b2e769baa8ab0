import { describe, expect, it, vi } from 'vitest';
import { createRecorder } from '../src/instrument/index.js';
import { openMemory } from '../src/app/open-memory.js';
import { tempDbPath } from './support/tau.js';
import { diskText, fakeTarget, leaked, PLANTED } from './support/capture.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class OrderNotFound extends Error {
  override name = 'OrderNotFound';
  constructor(readonly orderId: string) {
    super(`order ${orderId} not found`);
  }
}

/** The tools of a small retail agent, in the shape an OpenAI/Anthropic loop dispatches them: name -> function. */
function retailTools() {
  const order = { order_id: '#W1', status: 'delivered', items: [{ id: 'i1', price: 10 }] };
  return {
    order,
    tools: {
      find_user_id_by_email: async ({ email }: { email: string }) =>
        email.endsWith('@example.com') ? 'user_1' : Promise.reject(new Error('no such user')),
      get_order_details: ({ order_id }: { order_id: string }) => {
        if (order_id !== '#W1') throw new OrderNotFound(order_id);
        return order; // synchronous, returns an object
      },
      slow_lookup: async ({ ms, value }: { ms: number; value: string }) => {
        await sleep(ms);
        return value;
      },
      with_timeout: async ({ ms }: { ms: number }) => {
        const signal = AbortSignal.timeout(ms);
        await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
      never_returns: () => new Promise<string>(() => {}),
      answer: 42, // not a function: passed through
    },
  };
}

describe('wrapping a map of functions (OpenAI / Anthropic tool-calling loops)', () => {
  it('returns exactly what the tools return and throws exactly what they throw; the store holds every call', async () => {
    const db = tempDbPath();
    const memory = await openMemory({ db, logLevel: 'silent' });
    const recorder = createRecorder(memory);
    const { tools, order } = retailTools();
    const wrapped = recorder.wrapFunctions(tools);
    expect(Object.keys(wrapped)).toEqual(Object.keys(tools));
    expect(wrapped.answer).toBe(42);

    const session = await recorder.startSession({ goal: 'Return the item from order #W1', agentId: 'agent-7' });
    // async value
    await expect(wrapped.find_user_id_by_email({ email: 'a@example.com' })).resolves.toBe('user_1');
    // sync value: returned synchronously, the same object
    const got = wrapped.get_order_details({ order_id: '#W1' });
    expect(got).toBe(order);
    expect(got).not.toBeInstanceOf(Promise);
    // sync throw: the same error object
    let thrown: unknown;
    try {
      wrapped.get_order_details({ order_id: '#W9' });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(OrderNotFound);
    expect((thrown as OrderNotFound).orderId).toBe('#W9');
    // async rejection: the same error object
    const rejection = await wrapped.find_user_id_by_email({ email: 'x@nowhere.test' }).catch((e: unknown) => e);
    expect((rejection as Error).message).toBe('no such user');

    const end = await session.end('success');
    expect(end).toEqual({ outcome: 'success', outcomeSource: 'reported', recorded: 4 });
    const stored = (await memory.parts.store!.getSession('default', session.id))!;
    expect(stored).toMatchObject({
      goal: 'Return the item from order #W1',
      outcome: 'success',
      agentId: 'agent-7',
      source: 'instrument',
    });
    expect(stored.calls.map((c) => [c.position, c.tool, c.ok])).toEqual([
      [0, 'find_user_id_by_email', true],
      [1, 'get_order_details', true],
      [2, 'get_order_details', false],
      [3, 'find_user_id_by_email', false],
    ]);
    expect(stored.calls[0]).toMatchObject({ args: { email: '[REDACTED:email]' }, result: 'user_1', error: null });
    expect(stored.calls[1]).toMatchObject({ args: { order_id: '#W1' }, result: JSON.stringify(order) });
    expect(stored.calls[2].error).toBe('OrderNotFound: order #W9 not found');
    expect(stored.calls[3].error).toBe('no such user');
    for (const c of stored.calls) {
      expect(typeof c.durationMs).toBe('number');
      expect(c.at).toMatch(/^\d{4}-\d\d-\d\dT/);
    }
    await memory.close();
  });

  it('returns the very promise the tool returned, and keeps `this` for methods', async () => {
    const { target } = fakeTarget();
    const recorder = createRecorder(target, { judge: null });
    const p = Promise.resolve('v');
    const api = {
      base: 'https://api.test',
      url(this: { base: string }, path: string) {
        return `${this.base}${path}`;
      },
      same: () => p,
    };
    const wrapped = recorder.wrapFunctions(api);
    const s = await recorder.startSession({ goal: 'g' });
    expect(wrapped.same()).toBe(p);
    expect(wrapped.url('/x')).toBe('https://api.test/x');
    await s.end('success');
    expect(s.calls.map((c) => [c.tool, c.args])).toEqual([
      ['same', {}],
      ['url', { input: '/x' }],
    ]);
  });

  it('records concurrent calls in the order they started, each with its own result and duration', async () => {
    const db = tempDbPath();
    const memory = await openMemory({ db, logLevel: 'silent' });
    const recorder = createRecorder(memory);
    const wrapped = recorder.wrapFunctions(retailTools().tools);
    const s = await recorder.startSession({ goal: 'Look up three orders at once' });
    const results = await Promise.all([
      wrapped.slow_lookup({ ms: 250, value: 'first' }),
      wrapped.slow_lookup({ ms: 5, value: 'second' }),
      wrapped.slow_lookup({ ms: 30, value: 'third' }),
    ]);
    expect(results).toEqual(['first', 'second', 'third']);
    await s.end('success');
    const stored = (await memory.parts.store!.getSession('default', s.id))!;
    expect(stored.calls.map((c) => [c.position, c.args.value, c.result])).toEqual([
      [0, 'first', 'first'],
      [1, 'second', 'second'],
      [2, 'third', 'third'],
    ]);
    // Each call has its own duration. Compared with each other, not with a fixed bound: on a loaded machine
    // the 5 ms call can take longer than 50 ms.
    expect(stored.calls[0].durationMs!).toBeGreaterThanOrEqual(240);
    expect(stored.calls[1].durationMs!).toBeLessThan(stored.calls[0].durationMs!);
    await memory.close();
  });

  it('records a tool timeout as a failed call with its duration, and a call still running at the end as unfinished', async () => {
    const { target, calls } = fakeTarget();
    const recorder = createRecorder(target, { judge: null });
    const wrapped = recorder.wrapFunctions(retailTools().tools);
    const s = await recorder.startSession({ goal: 'g' });
    const err = await wrapped.with_timeout({ ms: 40 }).catch((e: unknown) => e);
    expect((err as Error).name).toBe('TimeoutError');
    const hanging = wrapped.never_returns();
    const late = wrapped.slow_lookup({ ms: 80, value: 'late' });
    await s.end('failure');
    expect(calls.map((c) => [c.tool, c.ok])).toEqual([
      ['with_timeout', false],
      ['never_returns', false],
      ['slow_lookup', false],
    ]);
    expect(calls[0].error).toMatch(/^TimeoutError/);
    expect(calls[0].durationMs!).toBeGreaterThanOrEqual(35);
    expect(calls[1].error).toBe('did not finish before the session ended');
    // The agent still gets its value; nothing more is recorded for the closed session.
    await expect(late).resolves.toBe('late');
    await sleep(5);
    expect(calls).toHaveLength(3);
    void hanging;
  });

  it('keeps concurrent sessions apart with run() (AsyncLocalStorage), with tools wrapped once', async () => {
    const { target, calls, sessions } = fakeTarget();
    const recorder = createRecorder(target, { judge: null });
    const wrapped = recorder.wrapFunctions(retailTools().tools);
    const agent = (label: string, delays: number[]) =>
      recorder.run({ goal: `run ${label}` }, async (session) => {
        for (const ms of delays) await wrapped.slow_lookup({ ms, value: `${label}-${ms}` });
        await session.end('success');
        return session.id;
      });
    const [a, b] = await Promise.all([agent('a', [20, 1, 15]), agent('b', [1, 25, 2])]);
    expect(calls.filter((c) => c.sessionId === a).map((c) => c.result)).toEqual(['a-20', 'a-1', 'a-15']);
    expect(calls.filter((c) => c.sessionId === b).map((c) => c.result)).toEqual(['b-1', 'b-25', 'b-2']);
    expect([...sessions.values()].map((s) => s.ended?.outcome)).toEqual(['success', 'success']);
  });

  it('run(): an agent that throws ends its session as a judged failure and the error reaches the caller unchanged', async () => {
    const { target, sessions } = fakeTarget();
    const recorder = createRecorder(target);
    const boom = new RangeError('model returned garbage');
    await expect(
      recorder.run({ goal: 'g' }, async () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect([...sessions.values()][0].ended).toEqual({ outcome: 'failure', reward: null, source: 'judged' });
  });

  it('a call outside any session runs unrecorded and is reported once', async () => {
    const { target, calls } = fakeTarget();
    const onError = vi.fn();
    const recorder = createRecorder(target, { onError });
    const wrapped = recorder.wrapFunctions(retailTools().tools);
    expect(wrapped.get_order_details({ order_id: '#W1' }).status).toBe('delivered');
    expect(wrapped.get_order_details({ order_id: '#W1' }).status).toBe('delivered');
    expect(calls).toEqual([]);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0][1]).toMatchObject({ op: 'unattributed', tool: 'get_order_details' });
  });

  it('isError marks returned error payloads as failed calls', async () => {
    const { target, calls } = fakeTarget();
    const recorder = createRecorder(target, {
      judge: null,
      isError: (v) =>
        typeof v === 'object' && v !== null && 'error' in v ? String((v as { error: unknown }).error) : false,
    });
    const wrapped = recorder.wrapFunctions({
      lookup: async (q: { id: string }) => (q.id === 'x' ? { error: 'not found' } : { id: q.id }),
    });
    const s = await recorder.startSession({ goal: 'g' });
    await wrapped.lookup({ id: 'x' });
    await wrapped.lookup({ id: 'y' });
    await s.end('success');
    expect(calls.map((c) => [c.ok, c.error])).toEqual([
      [false, 'not found'],
      [true, null],
    ]);
  });
});

describe('a broken store never breaks the agent', () => {
  it('when every write fails, tools still return their values, the failure is reported once and counted', async () => {
    const { target } = fakeTarget({ call: true, end: true });
    const onError = vi.fn();
    const recorder = createRecorder(target, { onError });
    const { tools, order } = retailTools();
    const wrapped = recorder.wrapFunctions(tools);
    const s = await recorder.startSession({ goal: 'g' });
    for (let i = 0; i < 5; i++) expect(wrapped.get_order_details({ order_id: '#W1' })).toBe(order);
    await expect(wrapped.find_user_id_by_email({ email: 'a@example.com' })).resolves.toBe('user_1');
    const end = await s.end('success');
    expect(end.recorded).toBe(0);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(String(onError.mock.calls[0][0])).toMatch(/SQLITE_FULL/);
    expect(recorder.failures).toBe(7); // 6 calls + the end
  });

  it('when the session cannot even start, the loop runs unrecorded and a broken reporter is swallowed too', async () => {
    const { target } = fakeTarget({ start: true });
    const recorder = createRecorder(target, {
      onError: () => {
        throw new Error('the reporter itself is broken');
      },
    });
    const wrapped = recorder.wrapFunctions(retailTools().tools);
    const s = await recorder.startSession({ goal: 'g' });
    expect(s.recording).toBe(false);
    expect(wrapped.get_order_details({ order_id: '#W1' }).order_id).toBe('#W1');
    expect(() => wrapped.get_order_details({ order_id: '#W2' })).toThrow(OrderNotFound);
    await expect(s.end('success')).resolves.toMatchObject({ outcome: 'success', recorded: 0 });
    expect(await s.recall()).toEqual([]);
    expect(recorder.failures).toBe(1);
  });

  it('a real store closed under the agent: the loop finishes, the failure goes to the memory log once', async () => {
    const lines: string[] = [];
    const memory = await openMemory({
      db: tempDbPath(),
      logger: {
        debug() {},
        info() {},
        warn: (m: string) => lines.push(m),
        error: (m: string) => lines.push(m),
        child() {
          return this;
        },
      },
    });
    const recorder = createRecorder(memory);
    const wrapped = recorder.wrapFunctions(retailTools().tools);
    const s = await recorder.startSession({ goal: 'Look up order #W1' });
    await memory.parts.store!.close(); // the database goes away mid-run
    for (let i = 0; i < 3; i++) expect(wrapped.get_order_details({ order_id: '#W1' }).status).toBe('delivered');
    await expect(wrapped.slow_lookup({ ms: 1, value: 'v' })).resolves.toBe('v');
    await expect(s.end('success')).resolves.toMatchObject({ recorded: 0 });
    expect(lines.filter((l) => /tool recording failed/.test(l))).toHaveLength(1);
    expect(recorder.failures).toBeGreaterThanOrEqual(4);
  });

  it('slow writes never delay a tool', async () => {
    const { target, calls } = fakeTarget({ delayMs: 50 });
    const recorder = createRecorder(target, { judge: null });
    const wrapped = recorder.wrapFunctions(retailTools().tools);
    const s = await recorder.startSession({ goal: 'g' });
    const t0 = performance.now();
    for (let i = 0; i < 5; i++) wrapped.get_order_details({ order_id: '#W1' });
    expect(performance.now() - t0).toBeLessThan(40);
    await s.end('success');
    expect(calls).toHaveLength(5);
  });
});

describe('privacy and judging of recorded sessions', () => {
  it('planted secrets in the goal, args, results and errors never reach the database', async () => {
    const db = tempDbPath();
    const memory = await openMemory({ db, logLevel: 'silent' });
    const recorder = createRecorder(memory);
    const tools = recorder.wrapFunctions({
      login: async (args: { user: string; password: string; api_key: string }) => ({
        session_token: PLANTED.jwt,
        user: args.user,
        note: `aws ${PLANTED.aws}`,
      }),
      charge: async (args: { card: string }) => {
        throw new Error(`card ${args.card} declined for key ${PLANTED.stripe}`);
      },
      echo: (text: string) => text,
    });
    const s = await recorder.startSession({
      goal: `Log in as ${PLANTED.email} with ${PLANTED.openai} and charge ${PLANTED.card}`,
    });
    await tools.login({ user: PLANTED.email, password: PLANTED.password, api_key: PLANTED.openai });
    await tools.charge({ card: PLANTED.card }).catch(() => undefined);
    tools.echo(`my github token is ${PLANTED.github}`);
    await s.end('failure');
    await memory.close();
    const disk = diskText(db);
    expect(disk).toContain('[REDACTED:');
    expect(leaked(disk)).toEqual([]);
  });

  it('a session ended without an outcome is judged and marked judged; the judge sees the final answer', async () => {
    const { target, sessions } = fakeTarget();
    const recorder = createRecorder(target);
    const wrapped = recorder.wrapFunctions(retailTools().tools);
    const ok = await recorder.startSession({ goal: 'a' });
    wrapped.get_order_details({ order_id: '#W1' });
    expect(await ok.end({ finalAnswer: 'Your order was delivered on Monday.' })).toMatchObject({
      outcome: 'success',
      outcomeSource: 'judged',
    });
    const bad = await recorder.startSession({ goal: 'b' });
    expect(() => wrapped.get_order_details({ order_id: '#W2' })).toThrow();
    expect(await bad.end()).toMatchObject({ outcome: 'failure', outcomeSource: 'judged' });
    const unsure = await recorder.startSession({ goal: 'c' });
    wrapped.get_order_details({ order_id: '#W1' });
    expect(await unsure.end()).toMatchObject({ outcome: 'unknown', outcomeSource: 'reported' });
    const reported = await recorder.startSession({ goal: 'd' });
    expect(await reported.end({ outcome: 'failure', reward: 0 })).toMatchObject({
      outcome: 'failure',
      outcomeSource: 'reported',
    });
    expect([...sessions.values()].map((x) => x.ended)).toEqual([
      { outcome: 'success', reward: null, source: 'judged' },
      { outcome: 'failure', reward: null, source: 'judged' },
      { outcome: 'unknown', reward: null, source: 'reported' },
      { outcome: 'failure', reward: 0, source: 'reported' },
    ]);
    // Judging off: unknown stays unknown.
    const off = createRecorder(target, { judge: { mode: 'off' } });
    const s = await off.startSession({ goal: 'e' });
    await s.record({ tool: 'x', result: 'done' });
    expect(await s.end({ finalAnswer: 'Done.' })).toMatchObject({ outcome: 'unknown', outcomeSource: 'reported' });
  });
});

describe('Vercel AI SDK tool objects and LangChain.js tools (duck-typed)', () => {
  it('wraps execute, keeps description and schema, and records the input of each call', async () => {
    const { target, calls } = fakeTarget();
    const recorder = createRecorder(target, { judge: null });
    const parameters = { type: 'object', properties: { city: { type: 'string' } } };
    const weather = {
      description: 'Get the weather for a city',
      parameters,
      execute: async ({ city }: { city: string }, { toolCallId }: { toolCallId: string; messages: unknown[] }) => ({
        city,
        tempC: 21,
        toolCallId,
      }),
    };
    const clientSide = { description: 'Ask the user to confirm', parameters };
    const tools = recorder.wrapVercelTools({ weather, confirm: clientSide });
    expect(tools.confirm).toBe(clientSide);
    expect(tools.weather.description).toBe(weather.description);
    expect(tools.weather.parameters).toBe(parameters);
    const s = await recorder.startSession({ goal: 'What is the weather in Lisbon?' });
    const out = await tools.weather.execute({ city: 'Lisbon' }, { toolCallId: 'call_1', messages: [] });
    expect(out).toEqual({ city: 'Lisbon', tempC: 21, toolCallId: 'call_1' });
    await s.end('success');
    expect(calls).toEqual([
      expect.objectContaining({
        tool: 'weather',
        args: { city: 'Lisbon' },
        result: '{"city":"Lisbon","tempC":21,"toolCallId":"call_1"}',
        ok: true,
      }),
    ]);
  });

  it("wraps a LangChain tool's invoke (plain input or a ToolCall) and leaves the rest of the object alone", async () => {
    const { target, calls } = fakeTarget();
    const recorder = createRecorder(target, { judge: null });
    class Calculator {
      name = 'calculator';
      description = 'adds';
      async invoke(
        input:
          | { a: number; b: number }
          | { type: 'tool_call'; args: { a: number; b: number }; id: string; name: string },
      ) {
        const args = 'type' in input ? input.args : input;
        return String(args.a + args.b);
      }
      schemaName() {
        return this.name;
      }
    }
    const [calc] = recorder.wrapLangChainTools([new Calculator()]);
    expect(calc.name).toBe('calculator');
    expect(calc.schemaName()).toBe('calculator');
    const s = await recorder.startSession({ goal: 'add' });
    expect(await calc.invoke({ a: 2, b: 3 })).toBe('5');
    expect(await calc.invoke({ type: 'tool_call', args: { a: 1, b: 1 }, id: 'c1', name: 'calculator' })).toBe('2');
    await s.end('success');
    expect(calls.map((c) => [c.tool, c.args, c.result])).toEqual([
      ['calculator', { a: 2, b: 3 }, '5'],
      ['calculator', { a: 1, b: 1 }, '2'],
    ]);
  });
});
