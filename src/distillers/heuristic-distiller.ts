import { buildConsensus, type Consensus, type ConsensusRules } from '../domain/consensus.js';
import { commandAsToolName, commandHead, commandPhrase } from '../domain/commands.js';
import { findEdgeCases } from '../domain/edge-cases.js';
import { evidenceLine } from '../domain/evidence-line.js';
import { hasInstructions } from '../domain/untrusted-text.js';
import { type BranchCondition, textFields } from '../domain/branches.js';
import { roleOf } from '../domain/step-role.js';
import {
  DONE_NOTE,
  doneNote,
  fieldNote,
  RESULT_NOTE,
  resultNote,
  switchedFrom,
  switchLead,
  SUPPORT_NOTE,
  shownItems,
  supportNote,
} from '../domain/step-notes.js';
import { toDescription, toSkillName } from '../domain/skill-md/index.js';
import { wordSkill } from '../domain/skill-naming.js';
import type { Draft, ProcedureStep } from '../domain/types.js';
import type { DistillInput, Distiller } from './distiller.js';
import { uniqueName } from '../domain/skill-naming.js';

export interface HeuristicDistillerOptions extends ConsensusRules {
  thinkTools: readonly string[];
  redact: (text: string) => string;
}

/**
 * Which heuristic distiller wrote a skill (`metadata.learned-by`). The version goes up with every release that
 * changes what it writes (names, descriptions, steps, branches): the first pass after an upgrade then distils
 * again each skill an earlier version wrote (learned-by.ts), so a returning user sees what this release learns.
 * test/distiller-version.test.ts fails when the output changes and this id does not.
 */
export const HEURISTIC_DISTILLER_ID = 'heuristic@25';

/**
 * The embedded default: aligns the cluster's tool sequences into a consensus and writes the procedure
 * from it, with no model. Deterministic: the same cluster always gives the same draft.
 */
export class HeuristicDistiller implements Distiller {
  readonly id = HEURISTIC_DISTILLER_ID;
  constructor(private readonly opts: HeuristicDistillerOptions) {}

  async distil(input: DistillInput): Promise<Draft | null> {
    return distilHeuristically(input, this.opts);
  }
}

/** Whether a call failed in any of the successful sessions (the agent's own notes to itself aside). */
function slipped(successes: DistillInput['successes'], thinkTools: readonly string[]): boolean {
  return successes.some((s) => s.calls.some((c) => !c.ok && !thinkTools.includes(c.tool)));
}

export function distilHeuristically(input: DistillInput, opts: HeuristicDistillerOptions): Draft | null {
  if (input.spans.length === 0) return null;
  const consensus = buildConsensus(input.spans, opts);
  // A condition quotes what a tool printed: untrusted, so one that reads as an instruction is not written, and an
  // optional step is written only with the condition under which the sessions took it.
  const steps = consensus.steps.flatMap((s): ProcedureStep[] => {
    const when = s.when && ![s.when.path, ...s.when.in].some((v) => hasInstructions(v)) ? s.when : undefined;
    if (s.conditional && !when) return [];
    if (when === s.when) return [s];
    const { when: _dropped, ...rest } = s;
    return [rest];
  });
  // The call the sessions' main paths ended at is the finish only where the procedure states it: an optional
  // action with no condition to write it under is not a step, and "Done when" does not name it.
  const goal = consensus.goal && steps.some((s) => s.tool === consensus.goal!.tool) ? consensus.goal : null;
  if (steps.length === 0) return null;
  // The procedure's sequence is its required steps; conditional ones stay in the body and in toolsRequired.
  const required = steps.filter((s) => !s.conditional);
  const sequenceSteps = required.length ? required : steps;
  const toolSequence = sequenceSteps.map((s) => s.tool);
  const toolsRequired = [...new Set(steps.map((s) => s.tool))];

  // Verb and object from what the users asked for, backed by the action the lookups lead to; never one
  // persona's words. Goals and cues are untrusted text: one that carries an instruction gives no word to the
  // name or description.
  const trusted = (xs: readonly string[]) => xs.filter((g) => !hasInstructions(g));
  // A command step is named by what its command does (systemctl restart nginx), not by its runner (run_shell).
  const wording = wordSkill({
    goals: trusted(input.goals),
    cues: trusted(input.cues ?? []),
    toolSequence: sequenceSteps.map((s) => (s.command && commandAsToolName(s.command)) || s.tool),
    commands: sequenceSteps.map((s) => (s.command ? commandHead(s.command.text) : null)),
    said: sequenceSteps.map((s) => (s.command ? commandPhrase(s.command.text) : null)),
    toolWeight: input.toolWeight,
    toolShare: input.toolShare,
    wordWeight: input.goalWordWeight,
  });
  const baseName = toSkillName(wording.nameWords.join(' ') || 'procedure');
  // A name another skill holds: first what this procedure's other steps do, then a number.
  const qualified = wording.qualifiers
    .map((q) => toSkillName([...wording.nameWords, ...q].join(' ')))
    .find((n) => n !== baseName && !input.takenNames.has(n));
  const name = input.takenNames.has(baseName) && qualified ? qualified : uniqueName(baseName, input.takenNames);
  const title = wording.title;
  const whenToUse = toDescription(wording.description);

  const edgeCases = findEdgeCases({
    successes: input.successes,
    failures: input.failures,
    procedureTools: toolsRequired,
    procedureKeys: steps.map((s) => s.key ?? s.tool),
    thinkTools: opts.thinkTools,
    redact: opts.redact,
  });
  const lastRequired = [...steps].reverse().find((s) => !s.conditional) ?? steps[steps.length - 1];
  // A hand-off after the goal step is what the sessions did when the goal could not be reached or did not fix
  // things, not a step after it: said as the fallback it was.
  const goalAt = goal ? steps.map((s) => s.tool).lastIndexOf(goal.tool) : -1;
  const fallback = (s: ProcedureStep, i: number) =>
    goal && goalAt >= 0 && i > goalAt && roleOf(s.tool) === 'handoff'
      ? `If \`${goal.tool}\` cannot be done, or the problem remains after it: `
      : '';
  const requests = [...input.goals, ...(input.cues ?? [])].map((t) => t.toLowerCase());
  const requested = (value: string) => requests.some((t) => t.includes(value.toLowerCase()));

  const body = [
    `# ${title}`,
    '',
    evidenceLine(input.stats),
    '',
    '## Steps',
    '',
    ...steps.map((s, i) => {
      const step = renderStep(s, opts.redact, requested);
      // A switch flipped from one state in every session is said with that state, unless the sessions already
      // gave the step a condition of their own.
      const flip = s.when ? null : switchedFrom(s.tool, s.shows ?? []);
      const lead = fallback(s, i) || (flip ? switchLead(flip) : '');
      // The goal step's result is the finishing condition, said under "Done when".
      const check = i === goalAt ? '' : resultNote(shownValues(s.shows ?? [], opts.redact));
      return `${i + 1}. ${lead ? lead + step[0].toLowerCase() + step.slice(1) : step}${check}`;
    }),
    '',
    '## Done when',
    '',
    doneWhen(goal, lastRequired, opts.redact),
    '',
    '## Edge cases',
    '',
    ...(edgeCases.length
      ? edgeCases.map((e) => `- ${e.text}`)
      : [
          // Said apart from the failed sessions there were: the header counts them among the followers.
          input.failures.length
            ? `- ${input.failures.length === 1 ? 'The failed session shows' : `The ${input.failures.length} failed sessions show`} no step to avoid and no failure recovered from: if a step errors, stop and report the error rather than guessing.`
            : slipped(input.successes, opts.thinkTools)
              ? // A call failed and the session went on: said as what it was, not as no failure at all.
                '- No step failed in more than one of the successful sessions: if a step errors, stop and report the error rather than guessing.'
              : '- No failure was observed: if a step errors, stop and report the error rather than guessing.',
        ]),
  ].join('\n');

  return { name, whenToUse, toolsRequired, toolSequence, body, kind: 'playbook', steps };
}

/**
 * The finishing condition: the state-changing call the main path ends at and what its result showed every time
 * it worked (values redacted and quoted as data), confirmed with the user; when no step changes anything, the
 * last required step: a command's result confirmed with the user, a hand-off said to the user, a lookup's answer
 * told to the user.
 */
function doneWhen(goal: Consensus['goal'], lastRequired: ProcedureStep, redact: (text: string) => string): string {
  if (!goal) {
    // A last command that printed the same short line every time (`active`): that line is the check.
    const prints = lastRequired.command?.prints;
    if (lastRequired.command && prints && !hasInstructions(prints) && !hasInstructions(lastRequired.command.text))
      return `The last command (${commandNamed(lastRequired.command, redact)} with \`${lastRequired.tool}\`) prints ${JSON.stringify(redact(prints))}, as it did every time, and the result is confirmed with the user.`;
    // A command may have changed something; a hand-off passes the case on; any other call changed nothing: the
    // task was to find something out, and it is done once the user has the answer.
    const tool = `\`${lastRequired.tool}\` has succeeded`;
    // The command, not its runner: "`Bash` has succeeded" says nothing of which of its steps.
    if (lastRequired.command && !hasInstructions(lastRequired.command.text))
      return `The last command (${commandNamed(lastRequired.command, redact)} with \`${lastRequired.tool}\`) succeeds, and the result is confirmed with the user.`;
    if (lastRequired.command) return `${tool} and the result is confirmed with the user.`;
    if (roleOf(lastRequired.tool) === 'handoff') return `${tool} and the user has been told a person takes over.`;
    return `${tool} and the user has been told what it returned.`;
  }
  // A command run after the change (a coding agent's tests) checks it: said on a line of its own, after the
  // change's own note (which stepResults reads back), and the user is not asked to confirm what it checks.
  const check =
    lastRequired.command && lastRequired.tool !== goal.tool && !hasInstructions(lastRequired.command.text)
      ? lastRequired.command
      : null;
  // A plain-text answer is quoted as the answer: "answered "Email deleted successfully."".
  const answered = goal.shows.find((l) => l.path === '');
  const note =
    answered && quotable(answered.value)
      ? doneNote(goal.tool, { answered: JSON.stringify(redact(answered.value)) }, !!check)
      : doneNote(goal.tool, { shows: shownValues(goal.shows, redact) }, !!check);
  if (!check) return note;
  const run = `The last command (${commandNamed(check, redact)} with \`${lastRequired.tool}\`)`;
  const prints = check.prints && !hasInstructions(check.prints) ? check.prints : null;
  return `${note}\n${run} ${prints ? `prints ${JSON.stringify(redact(prints))}, as it did every time` : 'succeeds'}.`;
}

/**
 * Whether a result's text may be quoted in a skill: not when it carries an instruction, nor when it holds an id or a
 * credential (a run of 16 or more letters and digits mixed: a key, a token, a UUID), which no later run shares and
 * which a skill never states.
 */
function quotable(value: string): boolean {
  if (hasInstructions(value)) return false;
  return !value.split(/[^A-Za-z0-9_+/=-]+/).some((t) => t.length >= 16 && /\d/.test(t) && /[A-Za-z]/.test(t));
}

/**
 * What a result showed, quoted as data: a plain text as a JSON string, a field as `path` "value". Tool results
 * are untrusted: a value that carries an instruction is not quoted.
 */
function shownValues(shows: readonly { path: string; value: string }[], redact: (text: string) => string): string[] {
  return shows
    .filter((l) => quotable(l.value))
    .map((l) => (l.path === '' ? JSON.stringify(redact(l.value)) : `\`${l.path}\` ${JSON.stringify(redact(l.value))}`));
}

/**
 * What a repeated step goes through, named by the argument that changes from call to call: an id's noun
 * (`order_id` -> order, `reservationId` -> reservation; a bare `id`, the field of the result it came from:
 * `line_ids[]` -> line), a file for a path, a plain one-word name as it is (`date`, `permission`); else an item.
 */
function loopNoun(arg: string | undefined, field?: string): string {
  if (!arg) return 'item';
  if (/^(?:file_?)?path$|^file(?:_?name)?$/i.test(arg)) return 'file';
  const idOf = (name: string) => {
    const m = /^([a-z][a-z_]*?)_ids?$/i.exec(name.replace(/([a-z])Id(s?)$/, '$1_id$2'));
    const noun = m?.[1]?.replace(/_/g, ' ').toLowerCase().trim();
    return noun && noun !== 'item' && /^[a-z ]{2,30}$/.test(noun) ? noun : null;
  };
  const last = field?.replace(/\[\]/g, '').split('.').pop() ?? '';
  const noun = idOf(arg) ?? (/^ids?$/i.test(arg) && last ? idOf(last) : null);
  if (noun) return noun;
  return /^[a-z]{3,20}$/.test(arg) && !GENERIC_ARGS.has(arg) ? arg : 'item';
}

/** Argument names that say nothing of what a run goes through. */
const GENERIC_ARGS = new Set([
  'args',
  'body',
  'command',
  'content',
  'data',
  'input',
  'item',
  'params',
  'query',
  'text',
  'value',
]);

/**
 * Renders one step. `requested` says whether a value is written in the requests (the user's choice, replayed:
 * named, never quoted as a setting).
 */
function renderStep(s: ProcedureStep, redact: (text: string) => string, requested: (value: string) => boolean): string {
  const parts = [s.command ? runCommand(s.tool, s.command, redact) : `Call \`${s.tool}\``];
  const fromResult = s.dataFlow;
  const flowArgs = new Set(fromResult.map((f) => f.arg));
  // A command step shows its command; the argument that holds it is not a parameter to fill in, nor are the notes
  // and options the agent gives the runner beside it (Claude Code's `description` of what the command does).
  const params = s.command ? [] : s.parameters.filter((p) => !flowArgs.has(p));
  // Without traced sources (an older step), every varying argument is the user's, as it always was said.
  const fromUser = s.sources ? new Set(s.sources.filter((x) => x.from === 'user').map((x) => x.arg)) : null;
  // A value every session passed: quoted when it is a setting (and carries no instruction), else named.
  // A command step is its command: the runner's other fixed options (a description, a timeout) are not steps.
  const fixed = s.command ? [] : (s.fixed ?? []).filter((f) => !flowArgs.has(f.arg));
  const quoted = fixed.filter((f) => f.value !== undefined && !hasInstructions(f.value) && !requested(f.value));
  const named = fixed.filter((f) => !quoted.includes(f)).map((f) => f.arg);
  // A few words the tool took there, none of them the user's own (a request that says "ordered by mistake" names it).
  const choices = s.command
    ? []
    : (s.choices ?? []).filter(
        (c) => !flowArgs.has(c.arg) && !c.values.some((v) => hasInstructions(v) || requested(v)),
      );
  const chosen = new Set(choices.map((c) => c.arg));
  // Files the step goes through in every session: named, one after the other, never asked of the user.
  const each = s.each && !s.command && !flowArgs.has(s.each.arg) ? s.each : null;
  const open = [...params, ...named].filter((p) => !chosen.has(p) && p !== each?.arg);
  const written = new Set(s.written ?? []);
  // A value the agent chose that an earlier step was given too (the file it read, then edits): said as such.
  const given = (s.sameAs ?? []).filter((g) => open.includes(g.arg));
  const givenArgs = new Set(given.map((g) => g.arg));
  const said = open.filter((p) => (!fromUser || fromUser.has(p)) && !written.has(p)).sort();
  const unsure = open.filter((p) => ((fromUser && !fromUser.has(p)) || written.has(p)) && !givenArgs.has(p)).sort();
  const clauses: string[] = [];
  if (each)
    parts.push(
      ` for each of ${each.values.map((v) => inlineCode(redact(v))).join(', ')} (\`${each.arg}\`, the same files in every session)`,
    );
  if (said.length) clauses.push(`${said.map((p) => `\`${p}\``).join(', ')} from the user`);
  for (const f of quoted) clauses.push(`\`${f.arg}\` ${JSON.stringify(redact(f.value!))}`);
  for (const c of choices)
    clauses.push(`\`${c.arg}\` (${c.values.map((v) => JSON.stringify(redact(v))).join(' or ')}, as the case needs)`);
  for (const g of given)
    clauses.push(
      g.fromArg === g.arg
        ? `\`${g.arg}\` as given to \`${g.tool}\``
        : `\`${g.arg}\` as \`${g.fromArg}\` was given to \`${g.tool}\``,
    );
  if (unsure.length) clauses.push(`${unsure.map((p) => `\`${p}\``).join(', ')} as the case needs`);
  for (const f of fromResult) {
    const field = f.path || f.part ? fieldNote(f.path ?? '', f.part) : '';
    clauses.push(`\`${f.arg}\` from the result of \`${f.fromTool}\`${field}`);
  }
  if (clauses.length) parts.push(` with ${clauses.join(', ')}`);
  if (s.repeated && !each)
    parts.push(`; repeat for each ${loopNoun(s.over, fromResult.find((f) => f.arg === s.over)?.path)} concerned`);
  if (s.when) {
    parts.push(` (${s.conditional ? 'only when' : 'when'} ${shows(s.when, redact)}: ${supportNote(s.support)})`);
  } else if (s.conditional) parts.push(` (only when needed: ${supportNote(s.support)})`);
  return `${parts.join('')}.`;
}

/** A step line's condition as renderStep writes it, up to the support it ends with. */
const STEP_CONDITION = new RegExp(
  ` \\((?:only )?when \`([^\`]+)\` (shows \`([^\`]+)\` in (\\[.*\\])|printed (.+)): ${SUPPORT_NOTE.source}\\)\\.(?:${RESULT_NOTE.source})?$`,
);
/** The tool a step line calls: "Call `x`", a fallback's "call `x`", or a command's "... with `x`". */
const STEP_TOOL = /^\d+\. (?:.*?\b[Cc]all `([^`]+)`|Run .*? with `([^`]+)`)/;

/**
 * The conditions a body's steps state, read back from the lines renderStep writes: each step's tool and its
 * condition (what the evaluation holds against sessions the skill was not learned from). None for a body that
 * states none.
 */
export function stepConditions(body: string): { step: string; when: BranchCondition }[] {
  const out: { step: string; when: BranchCondition }[] = [];
  for (const line of body.split('\n')) {
    const m = STEP_CONDITION.exec(line);
    const step = m && STEP_TOOL.exec(line);
    if (!m || !step) continue;
    const tool = step[1] ?? step[2];
    if (m[3] !== undefined) {
      let values: unknown;
      try {
        values = JSON.parse(m[4]);
      } catch {
        continue;
      }
      if (Array.isArray(values) && values.every((v) => typeof v === 'string'))
        out.push({ step: tool, when: { tool: m[1], path: m[3], in: values } });
      continue;
    }
    // Printed lines: each quoted as JSON, joined by " or "; a line reads back into its key and value as printed.
    const fields = [...m[5].matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((q) => textFields(JSON.parse(`"${q[1]}"`))[0]);
    if (fields.length === 0 || fields.some((f) => !f || f.path !== fields[0].path)) continue;
    out.push({ step: tool, when: { tool: m[1], path: fields[0].path, in: fields.map((f) => f.value), text: true } });
  }
  return out;
}

/**
 * What a body says the results of its state-changing calls show, read back from the lines renderStep and doneWhen
 * write: each step's expected result, and the finishing call's (`done`). What the evaluation checks against the
 * results of sessions the skill was not learned from.
 */
export function stepResults(body: string): { step: string; shows: { path: string; value: string }[]; done: boolean }[] {
  const out: { step: string; shows: { path: string; value: string }[]; done: boolean }[] = [];
  const lines = body.split('\n');
  for (const line of lines) {
    const note = RESULT_NOTE.exec(line);
    const step = note && STEP_TOOL.exec(line);
    if (note && step) out.push({ step: step[1] ?? step[2], shows: shownItems(note[1]), done: false });
  }
  const doneAt = lines.findIndex((l) => /^## Done when\s*$/.test(l));
  const done = doneAt >= 0 ? lines.slice(doneAt + 1).find((l) => l.trim()) : undefined;
  const m = done ? DONE_NOTE.exec(done.trim()) : null;
  if (m) out.push({ step: m[1], shows: shownItems(m[2]), done: true });
  return out;
}

/**
 * What a step's condition asks of an earlier result: a JSON field's values (`status` in ["pending"]), or the
 * line or text a tool printed ("Airplane Mode: ON", "inactive").
 */
export function shows(when: BranchCondition, redact: (v: string) => string = (v) => v): string {
  if (!when.text) {
    const values = when.in.map((v) => JSON.stringify(redact(v))).join(', ');
    return `\`${when.tool}\` shows \`${when.path}\` in [${values}]`;
  }
  const lines = when.in.map((v) => JSON.stringify(redact(when.path ? `${when.path}: ${v}` : v)));
  return `\`${when.tool}\` printed ${lines.join(' or ')}`;
}

/**
 * A command step: the line the sessions ran (redacted; tool arguments are untrusted, so a line that reads as an
 * instruction is not quoted), or, when they ran different lines, the kind of command with an example.
 */
function runCommand(tool: string, command: { text: string; exact: boolean }, redact: (text: string) => string): string {
  const text = redact(command.text);
  const bare = commandHead(command.text);
  const head = inlineCode(bare);
  if (hasInstructions(text)) return `Run a ${head} command with \`${tool}\``;
  if (command.exact) return `Run ${inlineCode(text)} with \`${tool}\``;
  // The example is the bare command (`npm test`), which other sessions ran with more: no example to give.
  if (bare === command.text)
    return `Run ${inlineCode(text)} with \`${tool}\`, with more arguments when the case needs them`;
  return `Run a ${head} command with \`${tool}\`, as the case needs (the sessions ran, for example, ${inlineCode(text)})`;
}

/** A step's command as a finishing condition names it: the line itself when the sessions ran that line, else its kind. */
function commandNamed(command: { text: string; exact: boolean }, redact: (text: string) => string): string {
  return command.exact ? inlineCode(redact(command.text)) : `a ${inlineCode(commandHead(command.text))} command`;
}

/** Markdown inline code that holds any text: a fence longer than the text's longest run of backticks. */
function inlineCode(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  return longest ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}
