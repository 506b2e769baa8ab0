#!/usr/bin/env node
// Reshapes the BFCL multi-turn fixture into one session per user turn, as a transcript's task splitter would
// see it: the turn's own words as the goal, the calls of the turn's reference solution as its steps. A BFCL
// conversation asks for several unrelated things in turn; a session per turn is the shape of single-task
// workplace logs (WorkBench and the like), which the whole-conversation file does not give.
//
//   node scripts/bfcl-turns.mjs [--in FILE] [--out FILE]
//
// Every conversation's steps are its turns' reference calls in order (checked: the script stops on the first
// conversation where they differ), so a turn's steps are the next `gold_calls.length` steps. Turns with no
// reference call are left out. Labels, for scoring only (the engine never reads `meta`):
// - `meta.family`: `bfcl-turn:<tool>`, the last call of the turn's reference solution, i.e. what the turn
//   achieves (`book_flight`, `post_tweet`);
// - `meta.group`: the conversation, so the evaluation's tune/test split keeps every turn of one conversation on
//   the side the conversation has in the whole-conversation file.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    in: { type: 'string', default: 'test/fixtures/traces/bfcl-multi-turn-base.jsonl' },
    out: { type: 'string', default: 'test/fixtures/traces/bfcl-multi-turn-turns.jsonl' },
  },
});

const toolOf = (call) => call.slice(0, call.indexOf('('));
const out = [];
for (const line of readFileSync(values.in, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const c = JSON.parse(line);
  const reference = c.meta.turns.flatMap((t) => t.gold_calls.map(toolOf));
  const steps = c.steps.map((s) => s.tool);
  if (JSON.stringify(reference) !== JSON.stringify(steps)) {
    console.error(`${c.session_id}: its steps are not its turns' reference calls; nothing written`);
    process.exit(1);
  }
  let at = 0;
  for (const turn of c.meta.turns) {
    const n = turn.gold_calls.length;
    const own = c.steps.slice(at, at + n);
    at += n;
    if (n === 0) continue;
    out.push({
      session_id: `${c.session_id}:turn${turn.turn}`,
      source: c.source,
      goal: turn.user,
      success: c.success,
      reward: c.reward,
      steps: own,
      meta: {
        domain: c.meta.domain,
        family: `bfcl-turn:${own[own.length - 1].tool}`,
        group: c.session_id,
        turn: turn.turn,
        conversation_family: c.meta.family,
        first_user_message: turn.user,
        success_basis: c.meta.success_basis,
        origin: c.meta.origin,
      },
    });
  }
}
writeFileSync(values.out, `${out.map((r) => JSON.stringify(r)).join('\n')}\n`);
console.log(`${values.out}: ${out.length} turn sessions`);
