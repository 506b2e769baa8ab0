import type { NearestSkill, RecalledSkill } from '../../../pipeline/recall.js';
import { UsageError, type Command, MEMORY_FLAGS } from '../command.js';
import { noMatch, recalledJson } from '../../shapes.js';
import { hookOutput, readStdin, recallArgs } from '../options.js';
import { jsonText, outText } from '../output.js';

interface Printing {
  formatContext(skills: RecalledSkill[]): string;
  toolsFor(skills: RecalledSkill[]): string[];
}

/** What recall prints: the stable JSON shape with --json, else the prompt block and the tools to load. */
export function recallText(
  hits: RecalledSkill[],
  json: boolean,
  memory: Printing,
  hook = false,
  nearest: NearestSkill | null = null,
): string {
  if (json) return jsonText(hits.map(recalledJson));
  // A hook's output is added to the agent's context: nothing to add is no text at all.
  if (hits.length === 0) return hook ? '' : outText(noMatch(nearest));
  return outText(memory.formatContext(hits)) + outText(`Tools to load: ${memory.toolsFor(hits).join(', ')}`);
}

/**
 * Recalls for one command line and says what it found, as every path prints it (the full CLI, the short path and
 * the recall daemon): a person told that nothing matched also learns which skill came nearest (looked up without
 * a trace); a hook and --json get nothing more.
 */
export async function answerRecall(
  memory: Printing & {
    recall(
      goal: string,
      opts: { topK?: number; tools?: readonly string[]; agentSession?: string },
    ): Promise<RecalledSkill[]>;
    nearest(goal: string, opts: { tools?: readonly string[] }): Promise<NearestSkill | null>;
  },
  request: { goal: string; topK?: number; tools?: string[]; json: boolean; hook: boolean; session?: string },
): Promise<string> {
  const { goal, topK, tools, session } = request;
  // Recorded under the agent's session (--session, a hook's session_id): the outcome of the task it served credits it.
  const hits = await memory.recall(goal, { topK, tools, ...(session ? { agentSession: session } : {}) });
  const explain = hits.length === 0 && !request.json && !request.hook;
  const nearest = explain ? await memory.nearest(goal, { tools }) : null;
  return recallText(hits, request.json, memory, request.hook, nearest);
}

/**
 * `skillsmith recall "GOAL" [--top-k N]`: the skills a planner would get for this goal. (A plain recall
 * usually takes the short path of `../lean-recall.ts`, which prints through the same functions.)
 */
export const command: Command = {
  name: 'recall',
  flags: [...MEMORY_FLAGS, 'top-k', 'tools', 'hook', 'session', 'json'],
  help: `  recall "GOAL" [--top-k N] [--tools A,B]
                              the skills a planner would get for this goal (when none matches: which came
                              nearest, and the threshold it missed); --tools: only skills whose steps use none but
                              the agent's tools (a name ending in * stands for every tool it starts: mcp__*); --hook: the goal from stdin (Claude Code's UserPromptSubmit or
                              Gemini CLI's BeforeAgent JSON, or plain text), nothing printed when none matches; the recall
                              is recorded under the agent's session (its session_id), and once its transcript is
                              ingested, the outcome of the task it served credits the skills (skillsmith outcome);
                              --session ID: that session, for any other wrapper (wins over the hook's)`,
  opens: 'memory',
  ifMissing: () => 'empty',
  // Checked before the memory opens (stdin, a hook's goal, is read once, by the run).
  usage: (args, flags) => {
    const request = recallArgs(args, flags);
    return typeof request === 'string' ? request : null;
  },
  async run(args, { flags, memory: open }) {
    const memory = await open();
    const request = recallArgs(args, flags, readStdin);
    if (typeof request === 'string') throw new UsageError(request);
    const { goal, topK, tools, session } = request;
    const json = !!flags.json;
    const hook = !!flags.hook;
    const text = goal
      ? await answerRecall(memory, { goal, topK, tools, json, hook, session })
      : recallText([], json, memory, hook);
    process.stdout.write(hookOutput(text, request.hookEvent));
    return 0;
  },
};
