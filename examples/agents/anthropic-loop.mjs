#!/usr/bin/env node
// An Anthropic Messages tool-use loop (tool_use / tool_result blocks; tools = functions keyed by name),
// recorded by skillsmith. The model is scripted (no network). The outcome is reported by the application
// (here: the order really is cancelled in the back end), so it is stored as reported, not judged.
// Run: npm run build && node examples/agents/anthropic-loop.mjs [--db PATH]
import { createShop, EPISODES, learnAndRecall, openExampleMemory, scriptedPlan } from './shared.mjs';

/** Stands in for `new Anthropic()`: `messages.create` answers with content blocks, scripted. */
function fakeAnthropic(episode) {
  let step = 0;
  return {
    messages: {
      async create({ messages }) {
        const last = messages[messages.length - 1];
        const block = Array.isArray(last.content) ? last.content.find((b) => b.type === 'tool_result') : null;
        const lastResult = block ? JSON.parse(block.content) : null;
        const next = scriptedPlan(episode, step++, lastResult);
        if (next.answer)
          return { role: 'assistant', content: [{ type: 'text', text: next.answer }], stop_reason: 'end_turn' };
        return {
          role: 'assistant',
          content: [
            { type: 'text', text: `Calling ${next.tool}.` },
            { type: 'tool_use', id: `toolu_${step}`, name: next.tool, input: next.args },
          ],
          stop_reason: 'tool_use',
        };
      },
    },
  };
}

const { memory, recorder, cleanup } = await openExampleMemory();
const shop = createShop();
const tools = recorder.wrapFunctions(shop.tools);
const toolSpecs = Object.entries(shop.schemas).map(([name, s]) => ({
  name,
  description: s.description,
  input_schema: s.parameters,
}));

for (const episode of EPISODES) {
  const anthropic = fakeAnthropic(episode);
  const session = await recorder.startSession({ goal: episode.goal, agentId: 'anthropic-loop' });
  const messages = [{ role: 'user', content: episode.goal }];
  let answer = null;
  for (let turn = 0; turn < 10 && answer === null; turn++) {
    const res = await anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      messages,
      tools: toolSpecs,
    });
    messages.push({ role: 'assistant', content: res.content });
    if (res.stop_reason !== 'tool_use') {
      answer = res.content
        .filter((b) => b.type === 'text')
        .map((b) => b.text)
        .join('');
      break;
    }
    const results = [];
    for (const use of res.content.filter((b) => b.type === 'tool_use')) {
      try {
        results.push({
          type: 'tool_result',
          tool_use_id: use.id,
          content: JSON.stringify(await tools[use.name](use.input)),
        });
      } catch (e) {
        results.push({ type: 'tool_result', tool_use_id: use.id, content: e.message, is_error: true });
      }
    }
    messages.push({ role: 'user', content: results });
  }
  // The application knows the truth: report it.
  const cancelled = (await shop.tools.get_order_details({ order_id: episode.order })).status === 'cancelled';
  await session.end({ outcome: cancelled ? 'success' : 'failure', reward: cancelled ? 1 : 0 });
  console.log(`[anthropic] ${episode.order}: ${answer} -> ${cancelled ? 'success' : 'failure'} (reported)`);
}

await learnAndRecall(memory, 'anthropic');
await cleanup();
