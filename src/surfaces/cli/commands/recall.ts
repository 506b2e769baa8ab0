import type { RecalledSkill } from '../../../pipeline/recall.js';
import { UsageError, type Command } from '../command.js';
import { recalledJson } from '../../shapes.js';
import { readStdin, recallArgs } from '../options.js';
import { jsonText, outText } from '../output.js';

/** What recall prints: the stable JSON shape with --json, else the prompt block and the tools to load. */
export function recallText(
  hits: RecalledSkill[],
  json: boolean,
  memory: { formatContext(skills: RecalledSkill[]): string; toolsFor(skills: RecalledSkill[]): string[] },
  hook = false,
): string {
  if (json) return jsonText(hits.map(recalledJson));
  // A hook's output is added to the agent's context: nothing to add is no text at all.
  if (hits.length === 0) return hook ? '' : outText('No skill matches this goal.');
  return outText(memory.formatContext(hits)) + outText(`Tools to load: ${memory.toolsFor(hits).join(', ')}`);
}

/**
 * `skillsmith recall "GOAL" [--top-k N]`: the skills a planner would get for this goal. (A plain recall
 * usually takes the short path of `../lean-recall.ts`, which prints through the same functions.)
 */
export const command: Command = {
  name: 'recall',
  help: `  recall "GOAL" [--top-k N]   the skills a planner would get for this goal; --hook: the goal from stdin
                              (Claude Code's UserPromptSubmit JSON, or plain text), nothing printed when none matches`,
  opens: 'memory',
  async run(args, { flags, memory: open }) {
    const memory = await open();
    const request = recallArgs(args, flags, readStdin);
    if (typeof request === 'string') throw new UsageError(request);
    const { goal, topK } = request;
    const hits = goal ? await memory.recall(goal, { topK }) : [];
    process.stdout.write(recallText(hits, !!flags.json, memory, !!flags.hook));
    return 0;
  },
};
