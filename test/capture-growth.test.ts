// A task sent before it ended (a log posted after each model call, or while the agent was still working), and
// again later: the stored session grows with the task, it is never stored twice, and the next pass reads it again.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Memory } from '../src/app/memory.js';
import { testMemories } from './support/memories.js';

const memories = testMemories('skillsmith-growth-');

/** The calls of one run of a procedure, as an OpenAI conversation: request, calls with results, then an answer. */
function conversation(goal: string, city: string, answered: boolean) {
  const calls = [
    ['get_weather', { city }, `{"forecast":"sunny","city":"${city}"}`],
    ['lookup_contact', { name: 'Bob' }, '{"email":"bob@example.com"}'],
    ['send_email', { to: 'bob@example.com', subject: `Forecast for ${city}` }, '{"status":"sent"}'],
  ] as const;
  const messages: unknown[] = [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: goal },
  ];
  calls.forEach(([name, args, result], i) => {
    const id = `call_${i}`;
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    });
    messages.push({ role: 'tool', tool_call_id: id, content: result });
  });
  if (answered) messages.push({ role: 'assistant', content: `Done: the forecast for ${city} went to Bob.` });
  return messages;
}

/** What a logger sends after each model call: the messages so far and the model's message (no id of its own). */
function copies(messages: unknown[]): string[] {
  const out: string[] = [];
  messages.forEach((m, k) => {
    if ((m as { role: string }).role === 'assistant') out.push(JSON.stringify({ messages: messages.slice(0, k + 1) }));
  });
  return out;
}

/** A memory holding three finished runs of the procedure, worded differently: enough for a skill. */
async function threeRuns(): Promise<Memory> {
  const memory = await memories.fresh();
  const runs = [
    ['Check the weather in Paris and email the forecast to Bob', 'Paris'],
    ["Get tomorrow's weather for Berlin and send it to Bob by email", 'Berlin'],
    ['Look up the weather forecast in Tokyo and mail it to Bob', 'Tokyo'],
  ];
  for (const [goal, city] of runs)
    await memory.ingestText(JSON.stringify({ messages: conversation(goal, city, true) }));
  return memory;
}

async function sessions(memory: Memory) {
  return memory.sessions.list({ limit: 100 });
}

describe('a task sent before it ended, and again as it went on', () => {
  it('a conversation without an id: each later copy grows the one session; an early copy sent late changes nothing', async () => {
    const memory = await memories.fresh();
    const sent = copies(conversation('Email Bob the weather forecast for Paris', 'Paris', true));
    expect(sent).toHaveLength(4);
    const results = [];
    for (const text of sent) results.push(await memory.ingestText(text, { name: 'call.json' }));
    // The first copy holds one call (no result yet); each later one the task further on; the last one its answer.
    expect(results.map((r) => [r.inserted, r.grown ?? 0, r.skipped])).toEqual([
      [1, 0, 0],
      [0, 1, 0],
      [0, 1, 0],
      [0, 1, 0],
    ]);
    const stored = await sessions(memory);
    expect(stored).toHaveLength(1);
    const [s] = stored;
    expect(s.calls.map((c) => [c.tool, c.result.length > 0])).toEqual([
      ['get_weather', true],
      ['lookup_contact', true],
      ['send_email', true],
    ]);
    // Judged as a whole once the answer came: the last call succeeded and the agent said it was done.
    expect([s.outcome, s.outcomeSource]).toEqual(['success', 'judged']);
    // Every copy's record names the session it went to.
    expect(new Set(results.map((r) => r.records![0].sessionId))).toEqual(new Set([s.id]));
    // The whole log sent again, or an early copy arriving late: nothing is stored or changed.
    expect(await memory.ingestText(sent[3])).toMatchObject({ inserted: 0, skipped: 1 });
    const late = await memory.ingestText(sent[1]);
    expect(late).toMatchObject({ inserted: 0, skipped: 1, problems: [] });
    expect(late.grown).toBeUndefined();
    expect((await sessions(memory))[0].calls).toHaveLength(3);
  });

  it('a copy that only adds the answer (every result was in) ends the task: judged again, and a record names it', async () => {
    const memory = await memories.fresh();
    const messages = conversation('Email Bob the weather forecast for Graz', 'Graz', true);
    // Every call and result, no answer yet; then the answer alone arrives.
    const working = await memory.ingestText(JSON.stringify({ messages: messages.slice(0, -1) }));
    expect(working).toMatchObject({ inserted: 1, judged: { unknown: 1 } });
    const id = working.records![0].sessionId;
    expect((await memory.sessions.get(id))?.endedAt).toBeNull();
    const done = await memory.ingestText(JSON.stringify({ messages }));
    expect(done).toMatchObject({ inserted: 0, grown: 1, judged: { success: 1 }, records: [{ sessionId: id }] });
    const s = await memory.sessions.get(id);
    expect([s?.outcome, s?.outcomeSource, s?.endedAt === null]).toEqual(['success', 'judged', false]);
    // Sent again, the finished copy is present, and its record still names the stored session.
    expect(await memory.ingestText(JSON.stringify({ messages }))).toMatchObject({
      inserted: 0,
      skipped: 1,
      records: [{ sessionId: id }],
    });
    // The copy without the answer, arriving late, is behind it.
    expect(await memory.ingestText(JSON.stringify({ messages: messages.slice(0, -1) }))).toMatchObject({ skipped: 1 });
    expect((await memory.sessions.get(id))?.outcome).toBe('success');
  });

  it('two runs that start alike stay two sessions, finished or not', async () => {
    const memory = await memories.fresh();
    const goal = 'Email Bob the weather forecast';
    const paris = conversation(goal, 'Paris', true);
    const rome = conversation(goal, 'Rome', true);
    await memory.ingestText(JSON.stringify({ messages: paris }));
    // The same request on another day, sent while its first call was running, then whole.
    const [early, , , whole] = copies(rome);
    expect(await memory.ingestText(early)).toMatchObject({ inserted: 1, problems: [] });
    expect(await memory.ingestText(whole)).toMatchObject({ inserted: 0, grown: 1, problems: [] });
    // A third run, cut off after its first call like the second was: it is no copy of the second.
    const [cut] = copies(conversation(goal, 'Oslo', true));
    expect(await memory.ingestText(cut)).toMatchObject({ inserted: 1, problems: [] });
    const cities = (await sessions(memory)).map((s) => s.calls[0].args.city).sort();
    expect(cities).toEqual(['Oslo', 'Paris', 'Rome']);
  });

  it('a thread with an id grows under its id; another task under that id is still refused by name', async () => {
    const memory = await memories.fresh();
    const messages = conversation('Email Bob the weather forecast for Lyon', 'Lyon', true);
    const upTo = (k: number) => JSON.stringify({ id: 'thread-7', messages: messages.slice(0, k) });
    // After the first result (the agent has not answered), then whole.
    expect(await memory.ingestText(upTo(4))).toMatchObject({ inserted: 1, records: [{ sessionId: 'thread-7' }] });
    expect((await memory.sessions.get('thread-7'))?.calls).toHaveLength(1);
    expect(await memory.ingestText(upTo(messages.length))).toMatchObject({ inserted: 0, grown: 1, skipped: 0 });
    expect((await memory.sessions.get('thread-7'))?.calls.map((c) => c.tool)).toEqual([
      'get_weather',
      'lookup_contact',
      'send_email',
    ]);
    const other = JSON.stringify({
      id: 'thread-7',
      messages: conversation('Email Bob the weather forecast for Nice', 'Nice', true),
    });
    const r = await memory.ingestText(other, { name: 'other.json' });
    expect(r.problems).toEqual([
      {
        file: 'other.json',
        line: 1,
        reason: 'session id thread-7 is already stored with different content; the stored one is kept',
      },
    ]);
    expect((await memory.sessions.get('thread-7'))?.goal).toBe('Email Bob the weather forecast for Lyon');
  });

  it('a session whose outcome the log reported has ended: a longer copy under its id is refused by name', async () => {
    const memory = await memories.fresh();
    const step = (tool: string) => ({ tool, args: { order_id: '#W1' }, result: '{"ok":true}', ok: true });
    const record = (steps: unknown[]) =>
      JSON.stringify({ session_id: 'run-1', goal: 'Cancel order #W1', success: true, steps });
    await memory.ingestText(record([step('get_order_details')]));
    const r = await memory.ingestText(record([step('get_order_details'), step('cancel_pending_order')]));
    // Refused, not "already present": the file's copy is not the one stored.
    expect(r).toMatchObject({ inserted: 0, skipped: 0 });
    expect(r.problems.map((p) => p.reason)).toEqual([
      'session id run-1 is already stored with different content; the stored one is kept',
    ]);
    expect((await memory.sessions.get('run-1'))?.calls).toHaveLength(1);
  });

  it('a file holding a task logged while it ran, then whole, stores it once, whole', async () => {
    const memory = await memories.fresh();
    const messages = conversation('Email Bob the weather forecast for Bonn', 'Bonn', true);
    const lines = [4, messages.length].map((k) => JSON.stringify({ id: 'thread-9', messages: messages.slice(0, k) }));
    const r = await memory.ingestText(`${lines.join('\n')}\n`);
    expect(r).toMatchObject({ inserted: 1, problems: [] });
    expect((await memory.sessions.get('thread-9'))?.calls).toHaveLength(3);
  });

  it('a live session a pass read while it was open is read again when it ends: its cluster is distilled again', async () => {
    const memory = await threeRuns();
    const live = await memory.startSession({ goal: "What's the weather in Rome? Email it to Bob" });
    await live.call({ tool: 'get_weather', args: { city: 'Rome' }, result: '{"forecast":"sunny","city":"Rome"}' });
    await live.call({ tool: 'lookup_contact', args: { name: 'Bob' }, result: '{"email":"bob@example.com"}' });
    await live.call({ tool: 'send_email', args: { to: 'bob@example.com' }, result: '{"status":"sent"}' });
    // A pass while the agent has not said how it went: the session counts as unknown.
    expect((await memory.synthesize()).created).toHaveLength(1);
    expect((await memory.synthesize()).stats.distilled).toBe(0);
    await live.end('success');
    const again = await memory.synthesize();
    expect(again.stats).toMatchObject({ newSessions: 0, distilled: 1 });
  });

  it('a session a pass had already read is read again once it grows: its cluster is distilled again', async () => {
    const memory = await threeRuns();
    const fourth = copies(conversation("What's the weather in Rome? Email it to Bob", 'Rome', true));
    await memory.ingestText(fourth[2]);
    const first = await memory.synthesize();
    expect(first.created.map((s) => s.name)).toHaveLength(1);
    // Nothing new: a second pass distils nothing.
    expect((await memory.synthesize()).stats.distilled).toBe(0);
    expect(await memory.ingestText(fourth[3])).toMatchObject({ grown: 1 });
    const again = await memory.synthesize();
    expect(again.stats.distilled).toBe(1);
    expect(again.stats.newSessions).toBe(0);
  });
});

describe('a transcript with a line that could not be read', () => {
  const FIXTURE = new URL('./fixtures/capture/claude-code-session.jsonl', import.meta.url).pathname;

  it('stores the task it cut unjudged, and the whole file read again makes that task whole', async () => {
    const memory = await memories.fresh();
    const whole = readFileSync(FIXTURE, 'utf8');
    const lines = whole.split('\n');
    // Line 6 is the first task's Read call: cut in the middle, as a crash mid-write leaves it.
    expect(lines[5]).toContain('"name": "Read"');
    const broken = [...lines.slice(0, 5), lines[5]!.slice(0, 120), ...lines.slice(6)].join('\n');
    const first = await memory.ingestText(broken, { name: 'session.jsonl' });
    expect(first.problems.map((p) => p.line)).toEqual([6, 7]);
    const [cut, ...others] = (first.records ?? []).map((r) => r.sessionId);
    const stored = (await memory.sessions.get(cut!))!;
    // Before: the task without its read was judged a success and could be learned from.
    expect(stored).toMatchObject({ outcome: 'unknown', outcomeSource: 'judged' });
    expect(stored.calls.map((c) => c.tool)).not.toContain('Read');
    expect(first.notes?.map((n) => n.reason)).toContainEqual(
      expect.stringMatching(
        /^the task that starts here has a line that could not be read \(line 6\), so a step may be missing/,
      ),
    );
    // The tasks after it were read whole, and judged as usual.
    for (const id of others) expect((await memory.sessions.get(id!))!.outcome).not.toBe('unknown');

    const again = await memory.ingestText(whole, { name: 'session.jsonl' });
    expect(again).toMatchObject({ inserted: 0, grown: 1, problems: [] });
    const made = (await memory.sessions.get(cut!))!;
    // As a memory that only ever read the whole file has it.
    const clean = await memories.fresh();
    await clean.ingestText(whole, { name: 'session.jsonl' });
    const wholeTask = (await clean.sessions.get(cut!))!;
    expect(made.calls.map((c) => c.tool)).toEqual(wholeTask.calls.map((c) => c.tool));
    expect(made.calls.map((c) => c.tool)).toContain('Read');
    expect(made).toMatchObject({ outcome: wholeTask.outcome, outcomeSource: 'judged' });
    expect(made.outcome).not.toBe('unknown');
  });
});
