#!/usr/bin/env node
// An agent whose tools live behind an MCP server: the real @modelcontextprotocol/sdk Client and McpServer,
// connected in memory. The wrapped client records every callTool; the model is scripted.
// Run: npm run build && node examples/agents/mcp-client.mjs [--db PATH]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { createShop, EPISODES, learnAndRecall, openExampleMemory, scriptedPlan } from './shared.mjs';

const shop = createShop();
const server = new McpServer({ name: 'shop', version: '1.0.0' });
const text = (v) => ({ content: [{ type: 'text', text: typeof v === 'string' ? v : JSON.stringify(v) }] });
const fail = (e) => ({ content: [{ type: 'text', text: e.message }], isError: true });
server.registerTool(
  'find_user_id_by_email',
  { description: 'Find a customer', inputSchema: { email: z.string() } },
  (a) => shop.tools.find_user_id_by_email(a).then(text, fail),
);
server.registerTool('get_order_details', { description: 'Order details', inputSchema: { order_id: z.string() } }, (a) =>
  shop.tools.get_order_details(a).then(text, fail),
);
server.registerTool(
  'cancel_pending_order',
  { description: 'Cancel', inputSchema: { order_id: z.string(), reason: z.string() } },
  (a) =>
    shop.tools.cancel_pending_order(a).then((r) => (r.error ? { ...text(r.error), isError: true } : text(r)), fail),
);
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
const client = new Client({ name: 'agent', version: '1.0.0' });
await Promise.all([server.connect(serverSide), client.connect(clientSide)]);

const { memory, recorder, cleanup } = await openExampleMemory();
const mcp = recorder.wrapMcpClient(client); // the rest of the client (listTools, ...) works as before
console.log(`[mcp] server tools: ${(await mcp.listTools()).tools.map((t) => t.name).join(', ')}`);

for (const episode of EPISODES) {
  await recorder.run({ goal: episode.goal, agentId: 'mcp-agent' }, async (session) => {
    let lastResult = null;
    for (let step = 0; step < 8; step++) {
      const next = scriptedPlan(episode, step, lastResult);
      if (next.answer) {
        const end = await session.end({ finalAnswer: next.answer });
        console.log(`[mcp] ${episode.order}: ${next.answer} -> ${end.outcome} (${end.outcomeSource})`);
        return;
      }
      const res = await mcp.callTool({ name: next.tool, arguments: next.args });
      const body = res.content[0]?.text ?? '';
      lastResult = res.isError ? { error: body } : body.startsWith('{') ? JSON.parse(body) : body;
    }
  });
}

await learnAndRecall(memory, 'mcp');
await client.close();
await server.close();
await cleanup();
