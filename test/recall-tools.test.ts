import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Memory } from '../src/app/memory.js';
import { openMemory } from '../src/index.js';
import { readTau, SAMPLE, tempDbPath, toSession } from './support/tau.js';

// Agents that share a memory (a fleet on one namespace) do not all have the same tools. An agent that says which
// tools it has is only handed skills whose steps it can take: the library, the CLI (full, short path and daemon:
// test/cli-lean-recall.test.ts, test/recall-daemon.test.ts), REST and MCP (below) take the same list.

const db = tempDbPath('skillsmith-recall-tools-');
const EXCHANGE = 'I need to exchange a laptop I received for one with an i7 processor. Can you help with that?';
let memory: Memory;
let exchange: { name: string; toolSequence: string[] };
let telecomTools: string[];

beforeAll(async () => {
  memory = await openMemory({ db, logLevel: 'silent', config: { synthesis: { cooldownMs: 0 } } });
  await memory.ingest(readTau(SAMPLE).map((r) => toSession(r, memory.namespace)));
  await memory.synthesize();
  const skills = await memory.skills.list();
  exchange = skills.find((s) => s.toolSequence.at(-1) === 'exchange_delivered_order_items')!;
  telecomTools = [...new Set(skills.filter((s) => s.name.startsWith('fix-')).flatMap((s) => s.toolsRequired))];
}, 60_000);
afterAll(async () => {
  await memory?.close();
  rmSync(dirname(db), { recursive: true, force: true });
});

/** Recall rows in the file, once the recalls written in batches have settled (a read of the skills waits for them). */
const recallRows = async () => {
  await memory.skills.list();
  const raw = new Database(db, { readonly: true });
  try {
    return (raw.prepare('SELECT COUNT(*) AS n FROM recalls').get() as { n: number }).n;
  } finally {
    raw.close();
  }
};

describe('recall for an agent that names its tools', () => {
  it('serves only skills whose main path uses none but those tools', async () => {
    expect(exchange, 'the sample teaches the exchange').toBeTruthy();
    expect(telecomTools.length).toBeGreaterThan(3);
    // Without a list, the exchange comes first; with the retail agent's tools too.
    expect((await memory.recall(EXCHANGE))[0]?.name).toBe(exchange.name);
    const retail = [...exchange.toolSequence, 'transfer_to_human_agents'];
    const served = await memory.recall(EXCHANGE, { tools: retail, topK: 5 });
    expect(served[0]?.name).toBe(exchange.name);
    for (const s of served)
      expect(
        s.toolSequence.every((t) => retail.includes(t)),
        s.name,
      ).toBe(true);
    // One step's tool missing: that skill cannot be followed, and is not handed over.
    const lacking = exchange.toolSequence.slice(0, -1);
    const without = await memory.recall(EXCHANGE, { tools: lacking, topK: 5 });
    expect(without.map((s) => s.name)).not.toContain(exchange.name);
    for (const s of without)
      expect(
        s.toolSequence.every((t) => lacking.includes(t)),
        s.name,
      ).toBe(true);
  });

  it("gives a phone agent nothing of the shop's, and leaves no trace when nothing is served", async () => {
    const before = await recallRows();
    expect(await memory.recall(EXCHANGE, { tools: telecomTools })).toEqual([]);
    expect(await recallRows()).toBe(before);
    // The nearest skill it could follow is a phone one, or none: never the exchange.
    const nearest = await memory.nearest(EXCHANGE, { tools: telecomTools });
    expect(nearest?.name).not.toBe(exchange.name);
    if (nearest) expect(nearest.name).toMatch(/^fix-/);
    // Its own requests still find its skills.
    const phone = await memory.recall('My phone has no mobile data since this morning', { tools: telecomTools });
    expect(phone[0]?.name).toMatch(/^fix-/);
    expect(await recallRows()).toBe(before + 1);
  });

  it('takes a name ending in * for every tool it starts: a coding agent with its MCP servers gets no shop skill', async () => {
    // A Claude Code agent: its own tools and any MCP server's (mcp__<server>__<tool>).
    const coding = ['Bash', 'Read', 'Edit', 'Write', 'Glob', 'Grep', 'mcp__*'];
    expect(await memory.recall(EXCHANGE, { tools: coding })).toEqual([]);
    // A prefix that covers every step of the exchange serves it.
    const prefixes = ['find_*', 'get_*', 'exchange_*'];
    expect(exchange.toolSequence.every((t) => prefixes.some((p) => t.startsWith(p.slice(0, -1))))).toBe(true);
    expect((await memory.recall(EXCHANGE, { tools: prefixes }))[0]?.name).toBe(exchange.name);
  });
});
