#!/usr/bin/env node
// Vercel AI SDK style: tools are `tool({ description, parameters, execute })` objects in a map, and
// `generateText({ model, tools, maxSteps })` runs the loop. The SDK is not needed: the tool objects have the
// SDK's documented shape, and `generateText` below is a minimal stand-in with a scripted model.
// Run: npm run build && node examples/agents/vercel-ai.mjs [--db PATH]
import { createShop, EPISODES, learnAndRecall, openExampleMemory, scriptedPlan } from './shared.mjs';

const tool = (t) => t; // what `tool()` from 'ai' does at runtime

/** A minimal generateText: the model proposes tool calls, the SDK runs `execute`, until the model answers. */
async function generateText({ model, tools, prompt, maxSteps }) {
  const steps = [];
  let lastResult = null;
  for (let i = 0; i < maxSteps; i++) {
    const next = model.next(i, lastResult);
    if (next.answer) return { text: next.answer, steps };
    const toolCallId = `call_${i}`;
    try {
      lastResult = await tools[next.tool].execute(next.args, {
        toolCallId,
        messages: [{ role: 'user', content: prompt }],
      });
    } catch (e) {
      lastResult = { error: e.message };
    }
    steps.push({
      toolCalls: [{ toolCallId, toolName: next.tool, args: next.args }],
      toolResults: [{ toolCallId, result: lastResult }],
    });
  }
  return { text: '', steps };
}

const { memory, recorder, cleanup } = await openExampleMemory();
const shop = createShop();
const sdkTools = Object.fromEntries(
  Object.entries(shop.tools).map(([name, fn]) => [name, tool({ ...shop.schemas[name], execute: fn })]),
);
// Wrap once; descriptions and schemas are kept, `execute` is recorded.
const tools = recorder.wrapVercelTools(sdkTools);

for (const episode of EPISODES) {
  const model = { next: (step, lastResult) => scriptedPlan(episode, step, lastResult) };
  await recorder.run({ goal: episode.goal, agentId: 'vercel-ai' }, async (session) => {
    const { text } = await generateText({ model, tools, prompt: episode.goal, maxSteps: 8 });
    const end = await session.end({ finalAnswer: text });
    console.log(`[vercel-ai] ${episode.order}: ${text} -> ${end.outcome} (${end.outcomeSource})`);
  });
}

await learnAndRecall(memory, 'vercel-ai');
await cleanup();
