import type { RecalledSkill } from '../../../pipeline/recall.js';
import { UsageError, type Command } from '../command.js';
import type { Flags } from '../options.js';
import { jsonText, outText } from '../output.js';

/** The goal and --top-k of `skillsmith recall`, or a UsageError saying what is wrong with them. */
export function recallRequest(args: string[], flags: Flags): { goal: string; topK: number | undefined } {
  const goal = args.join(' ').trim();
  if (!goal) throw new UsageError('recall needs a GOAL, e.g. skillsmith recall "cancel my order"');
  const topK = flags['top-k'] ? Number(flags['top-k']) : undefined;
  if (topK !== undefined && (!Number.isInteger(topK) || topK < 1))
    throw new UsageError('--top-k must be a positive integer');
  return { goal, topK };
}

/** What recall prints: the stable JSON shape with --json, else the prompt block and the tools to load. */
export function recallText(
  hits: RecalledSkill[],
  json: boolean,
  memory: { formatContext(skills: RecalledSkill[]): string; toolsFor(skills: RecalledSkill[]): string[] },
): string {
  if (json)
    return jsonText(
      hits.map((h) => ({
        id: h.id,
        name: h.name,
        similarity: h.similarity,
        toolsRequired: h.toolsRequired,
        toolSequence: h.toolSequence,
        body: h.body,
      })),
    );
  if (hits.length === 0) return outText('No skill matches this goal.');
  return outText(memory.formatContext(hits)) + outText(`Tools to load: ${memory.toolsFor(hits).join(', ')}`);
}

/**
 * `skillsmith recall "GOAL" [--top-k N]`: the skills a planner would get for this goal. (A plain recall
 * usually takes the short path of `../lean-recall.ts`, which prints through the same functions.)
 */
export const command: Command = {
  name: 'recall',
  help: `  recall "GOAL" [--top-k N]   the skills a planner would get for this goal`,
  opens: 'memory',
  async run(args, { flags, memory: open }) {
    const memory = await open();
    const { goal, topK } = recallRequest(args, flags);
    process.stdout.write(recallText(await memory.recall(goal, { topK }), !!flags.json, memory));
    return 0;
  },
};
