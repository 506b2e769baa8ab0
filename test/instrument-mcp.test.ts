import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRecorder } from '../src/instrument/index.js';
import { openMemory } from '../src/app/open-memory.js';
import { tempDbPath } from './support/tau.js';
import { diskText, fakeTarget, leaked, PLANTED } from './support/capture.js';

/** A real MCP server and client over the SDK's in-memory transport. */
async function connect() {
  const server = new McpServer({ name: 'orders', version: '1.0.0' });
  server.registerTool(
    'get_order',
    { description: 'Order details', inputSchema: { order_id: z.string() } },
    async ({ order_id }) =>
      order_id === '#W404'
        ? { content: [{ type: 'text', text: `order ${order_id} not found` }], isError: true }
        : { content: [{ type: 'text', text: JSON.stringify({ order_id, status: 'pending', owner: PLANTED.email }) }] },
  );
  server.registerTool(
    'cancel_order',
    { description: 'Cancel', inputSchema: { order_id: z.string(), reason: z.string() } },
    async ({ order_id, reason }) => ({
      content: [{ type: 'text', text: `cancelled ${order_id} (${reason})` }],
      structuredContent: { order_id, status: 'cancelled' },
    }),
  );
  server.registerTool(
    'slow_echo',
    { description: 'Echo later', inputSchema: { text: z.string(), ms: z.number() } },
    async ({ text, ms }) => {
      await new Promise((r) => setTimeout(r, ms));
      return { content: [{ type: 'text', text }] };
    },
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return { server, client };
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup) await c();
  cleanup = [];
});

describe('MCP client instrumentation (real SDK client and server, in-memory transport)', () => {
  it("records callTool with its arguments, text result and isError; results are exactly the client's", async () => {
    const { client, server } = await connect();
    cleanup.push(
      () => client.close(),
      () => server.close(),
    );
    const db = tempDbPath();
    const memory = await openMemory({ db, logLevel: 'silent' });
    cleanup.push(() => memory.close());
    const recorder = createRecorder(memory);
    const mcp = recorder.wrapMcpClient(client);
    // The rest of the client works through the wrapper.
    const listed = await mcp.listTools();
    expect(listed.tools.map((t) => t.name).sort()).toEqual(['cancel_order', 'get_order', 'slow_echo']);
    expect(mcp.getServerVersion()).toEqual({ name: 'orders', version: '1.0.0' });

    const session = await recorder.startSession({ goal: 'Cancel my pending order #W1' });
    const direct = await client.callTool({ name: 'get_order', arguments: { order_id: '#W1' } });
    const viaWrapper = await mcp.callTool({ name: 'get_order', arguments: { order_id: '#W1' } });
    expect(viaWrapper).toEqual(direct);
    const missing = await mcp.callTool({ name: 'get_order', arguments: { order_id: '#W404' } });
    expect(missing.isError).toBe(true);
    const cancelled = await mcp.callTool({
      name: 'cancel_order',
      arguments: { order_id: '#W1', reason: 'no longer needed' },
    });
    expect(cancelled.structuredContent).toEqual({ order_id: '#W1', status: 'cancelled' });
    // A protocol-level error (unknown tool) reaches the agent as the client reports it.
    const unknownDirect = await client.callTool({ name: 'nope', arguments: {} }).then(
      (r) => ({ resolved: r }),
      (e: Error) => ({ rejected: e.message }),
    );
    const unknownWrapped = await mcp.callTool({ name: 'nope', arguments: {} }).then(
      (r) => ({ resolved: r }),
      (e: Error) => ({ rejected: e.message }),
    );
    expect(unknownWrapped).toEqual(unknownDirect);
    await session.end({ finalAnswer: 'Order #W1 is cancelled.' });

    const stored = (await memory.parts.store!.getSession('default', session.id))!;
    expect(stored.calls.map((c) => [c.tool, c.args, c.ok])).toEqual([
      ['get_order', { order_id: '#W1' }, true],
      ['get_order', { order_id: '#W404' }, false],
      ['cancel_order', { order_id: '#W1', reason: 'no longer needed' }, true],
      ['nope', {}, false],
    ]);
    expect(stored.calls[0].result).toBe('{"order_id":"#W1","status":"pending","owner":"[REDACTED:email]"}');
    expect(stored.calls[1].error).toBe('order #W404 not found');
    expect(stored.calls[2].result).toBe('cancelled #W1 (no longer needed)');
    expect(stored.outcome).toBe('failure'); // judged: the last call failed
    await memory.close();
    cleanup.pop();
    expect(leaked(diskText(db))).toEqual([]);
  });

  it('keeps concurrent MCP calls in start order, and a store failure never reaches the agent', async () => {
    const { client, server } = await connect();
    cleanup.push(
      () => client.close(),
      () => server.close(),
    );
    const broken = fakeTarget({ call: true });
    const errors: unknown[] = [];
    const failRecorder = createRecorder(broken.target, { onError: (e) => errors.push(e), judge: null });
    const failing = failRecorder.wrapMcpClient(client);
    const ok = fakeTarget();
    const recorder = createRecorder(ok.target, { judge: null });
    const mcp = recorder.wrapMcpClient(client);

    const s = await recorder.startSession({ goal: 'echo' });
    const out = await Promise.all([
      mcp.callTool({ name: 'slow_echo', arguments: { text: 'one', ms: 30 } }),
      mcp.callTool({ name: 'slow_echo', arguments: { text: 'two', ms: 1 } }),
    ]);
    expect(out.map((r) => (r.content as { text: string }[])[0].text)).toEqual(['one', 'two']);
    await s.end('success');
    expect(ok.calls.map((c) => c.result)).toEqual(['one', 'two']);

    // Another recorder whose store fails on every write: the tools answer as usual, one report.
    const fs = await failRecorder.startSession({ goal: 'echo through a broken store' });
    for (const text of ['still here', 'and here']) {
      const r = await failing.callTool({ name: 'slow_echo', arguments: { text, ms: 1 } });
      expect((r.content as { text: string }[])[0].text).toBe(text);
    }
    await fs.end('success');
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/SQLITE_FULL/);
    expect(failRecorder.failures).toBe(2);
  });
});
