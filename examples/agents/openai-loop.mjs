#!/usr/bin/env node
// An OpenAI chat-completions tool-calling loop (tools = functions keyed by name), recorded by skillsmith.
// The model is scripted (no network): `fakeOpenAI.chat.completions.create` answers like the real API would.
// Run: npm run build && node examples/agents/openai-loop.mjs [--db PATH]
import { createShop, EPISODES, learnAndRecall, openExampleMemory, scriptedPlan } from './shared.mjs';

/** Stands in for `new OpenAI()`: same request and response shapes, answers scripted. */
function fakeOpenAI(episode) {
  let step = 0;
  return {
    chat: {
      completions: {
        async create({ messages }) {
          const last = messages[messages.length - 1];
          const lastResult = last.role === 'tool' ? JSON.parse(last.content) : null;
          const next = scriptedPlan(episode, step++, lastResult);
          const message = next.answer
            ? { role: 'assistant', content: next.answer }
            : {
                role: 'assistant',
                content: null,
                tool_calls: [
                  {
                    id: `call_${step}`,
                    type: 'function',
                    function: { name: next.tool, arguments: JSON.stringify(next.args) },
                  },
                ],
              };
          return { choices: [{ index: 0, message, finish_reason: next.answer ? 'stop' : 'tool_calls' }] };
        },
      },
    },
  };
}

const { memory, recorder, cleanup } = await openExampleMemory();
const shop = createShop();
// Wrap the tools once: every call made through `tools` is recorded into the current session.
const tools = recorder.wrapFunctions(shop.tools);
const toolSpecs = Object.entries(shop.schemas).map(([name, s]) => ({
  type: 'function',
  function: { name, description: s.description, parameters: s.parameters },
}));

for (const episode of EPISODES) {
  const openai = fakeOpenAI(episode);
  // One session per agent run; with no outcome given, the conservative judge decides (stored as judged).
  await recorder.run({ goal: episode.goal, agentId: 'openai-loop' }, async (session) => {
    const messages = [
      { role: 'system', content: 'You are a retail support agent.' },
      { role: 'user', content: episode.goal },
    ];
    for (let turn = 0; turn < 10; turn++) {
      const res = await openai.chat.completions.create({ model: 'gpt-4o', messages, tools: toolSpecs });
      const msg = res.choices[0].message;
      messages.push(msg);
      if (!msg.tool_calls?.length) {
        const end = await session.end({ finalAnswer: msg.content });
        console.log(
          `[openai] ${episode.order}: ${msg.content} -> ${end.outcome} (${end.outcomeSource}${end.reason ? `: ${end.reason}` : ''})`,
        );
        return;
      }
      for (const call of msg.tool_calls) {
        let content;
        try {
          content = JSON.stringify(await tools[call.function.name](JSON.parse(call.function.arguments)));
        } catch (e) {
          content = JSON.stringify({ error: e.message });
        }
        messages.push({ role: 'tool', tool_call_id: call.id, content });
      }
    }
  });
}

await learnAndRecall(memory, 'openai');
await cleanup();
