import { buildConsensus, type ConsensusRules } from '../domain/consensus.js';
import { findEdgeCases } from '../domain/edge-cases.js';
import { hasInstructions } from '../domain/untrusted-text.js';
import { toDescription, toSkillName } from '../domain/skill-md/index.js';
import type { Draft, ProcedureStep } from '../domain/types.js';
import type { DistillInput, Distiller } from './distiller.js';

export interface HeuristicDistillerOptions extends ConsensusRules {
  thinkTools: readonly string[];
  redact: (text: string) => string;
}

/**
 * The embedded default: aligns the cluster's tool sequences into a consensus and writes the procedure
 * from it, with no model. Deterministic: the same cluster always gives the same draft.
 */
export class HeuristicDistiller implements Distiller {
  readonly id = 'heuristic@1';
  constructor(private readonly opts: HeuristicDistillerOptions) {}

  async distil(input: DistillInput): Promise<Draft | null> {
    return distilHeuristically(input, this.opts);
  }
}

export function distilHeuristically(input: DistillInput, opts: HeuristicDistillerOptions): Draft | null {
  if (input.spans.length === 0) return null;
  const { steps, medoidSessionId } = buildConsensus(input.spans, opts);
  if (steps.length === 0) return null;
  // The procedure's sequence is its required steps; conditional ones stay in the body and in toolsRequired.
  const required = steps.filter((s) => !s.conditional).map((s) => s.tool);
  const toolSequence = required.length ? required : steps.map((s) => s.tool);
  const toolsRequired = [...new Set(steps.map((s) => s.tool))];

  const keywords = goalKeywords(input.goals, input.goalWordWeight, 3);
  const medoidIndex = Math.max(0, input.successes.findIndex((s) => s.id === medoidSessionId));
  // Goals are untrusted text: the example is the medoid's goal unless it carries an instruction, then the
  // first goal of the cluster that carries none.
  const example = exampleGoal(pickCleanGoal(input.goals, medoidIndex));
  // The step that sets the procedure apart: the last required step among the rarer half of its tools (the
  // action the lookups lead to), not a common lookup every procedure of the namespace shares.
  const requiredSteps = steps.filter((s) => !s.conditional);
  const weights = requiredSteps.map((s) => input.toolWeight(s.tool)).sort((a, b) => a - b);
  const median = weights.length ? weights[Math.floor((weights.length - 1) / 2)] : 0;
  const distinctive = [...requiredSteps].reverse().find((s) => input.toolWeight(s.tool) >= median)?.tool;
  // The name is the tool that sets this procedure apart (goal words in persona-style goals are mostly noise);
  // on a clash, the goals' top key term tells the two apart.
  const toolWords = distinctive ? distinctive.split(/[_\W]+/).filter(Boolean) : keywords;
  const baseName = toSkillName(toolWords.join(' ') || 'procedure');
  const keyed = keywords.find((k) => !toolWords.includes(k));
  const name = input.takenNames.has(baseName) && keyed ? uniqueName(toSkillName(`${keyed} ${toolWords.join(' ')}`), input.takenNames) : uniqueName(baseName, input.takenNames);
  const title = titleCase(toolWords.join(' ') || name.replace(/-/g, ' '));

  const whenToUse = toDescription(
    `${capitalise(title)}. ${example ? `Use when the goal resembles "${example}"` : 'Use for goals like those of its source sessions'}` +
      (keywords.length ? ` (key terms: ${keywords.join(', ')})` : '') +
      '.',
  );

  const edgeCases = findEdgeCases({
    successes: input.successes,
    failures: input.failures,
    procedureTools: toolsRequired,
    thinkTools: opts.thinkTools,
    redact: opts.redact,
  });
  const rate = input.stats.followers ? Math.round((100 * input.stats.successes) / input.stats.followers) : 0;
  const lastRequired = [...steps].reverse().find((s) => !s.conditional)?.tool ?? toolSequence[toolSequence.length - 1];

  const body = [
    `# ${title}`,
    '',
    `Learned from ${input.stats.successes} successful sessions; ${rate}% of the ${input.stats.followers} sessions that followed this procedure succeeded.`,
    '',
    '## Steps',
    '',
    ...steps.map((s, i) => `${i + 1}. ${renderStep(s)}`),
    '',
    '## Done when',
    '',
    `\`${lastRequired}\` has succeeded and the result is confirmed with the user.`,
    '',
    '## Edge cases',
    '',
    ...(edgeCases.length
      ? edgeCases.map((e) => `- ${e.text}`)
      : ['- No failure was observed in the evidence: if a step errors, stop and report the error rather than guessing.']),
  ].join('\n');

  return { name, whenToUse, toolsRequired, toolSequence, body, kind: 'playbook', steps };
}

function renderStep(s: ProcedureStep): string {
  const parts = [`Call \`${s.tool}\``];
  const flowArgs = new Set(s.dataFlow.map((f) => f.arg));
  const params = s.parameters.filter((p) => !flowArgs.has(p));
  if (params.length) parts.push(` with ${params.map((p) => `\`${p}\``).join(', ')} from the request`);
  if (s.dataFlow.length) {
    parts.push(`${params.length ? ', and' : ' with'} ${s.dataFlow.map((f) => `\`${f.arg}\` from the result of \`${f.fromTool}\``).join(', ')}`);
  }
  if (s.repeated) parts.push('; repeat for each item concerned');
  if (s.conditional) parts.push(` (only when needed: seen in ${Math.round(s.support * 100)}% of successful sessions)`);
  return `${parts.join('')}.`;
}

const STOP = new Set(
  'the and you your are for with that this have has not but can will would want wants also any all from into them they their then than when what which who how its our out was were been being very just only some more most other such each both few may might must should could about after before over under again once here there why where while because does did doing done get got make made like know need needs one two three four five first last new want able sure please thanks thank hello help fine okay yes'.split(
    ' ',
  ),
);

/** Words that characterise the cluster's goals: frequent inside it, rare across the namespace, not proper nouns. */
export function goalKeywords(goals: string[], weight: (w: string) => number, k: number): string[] {
  const docFreq = new Map<string, number>();
  const firstSeen = new Map<string, number>();
  const proper = new Set<string>();
  let order = 0;
  for (const g of goals) {
    const seen = new Set<string>();
    // Typed placeholders (<id>, <num>, ...) are not words of the goal.
    const tokens = g.replace(/<[a-z_]+>/g, ' ').split(/[^A-Za-z']+/).filter(Boolean);
    tokens.forEach((tok, i) => {
      const w = tok.toLowerCase().replace(/'s$/, '').replace(/'/g, '');
      if (w.length < 3 || STOP.has(w)) return;
      // A capitalised word that does not start a sentence is most likely a name: never put it in a skill.
      if (/^[A-Z]/.test(tok) && i > 0 && !/[.!?]\s*$/.test(g.slice(0, g.indexOf(tok)))) proper.add(w);
      if (!seen.has(w)) {
        seen.add(w);
        docFreq.set(w, (docFreq.get(w) ?? 0) + 1);
        if (!firstSeen.has(w)) firstSeen.set(w, order++);
      }
    });
  }
  const n = Math.max(1, goals.length);
  return [...docFreq.entries()]
    .filter(([w, df]) => !proper.has(w) && df / n >= 0.5)
    .map(([w, df]) => ({ w, score: (df / n) * weight(w) }))
    .sort((a, b) => b.score - a.score || firstSeen.get(a.w)! - firstSeen.get(b.w)!)
    .slice(0, k)
    .sort((a, b) => firstSeen.get(a.w)! - firstSeen.get(b.w)!)
    .map((x) => x.w);
}

function pickCleanGoal(goals: string[], preferred: number): string {
  const first = goals[preferred] ?? goals[0] ?? '';
  if (!hasInstructions(first)) return first;
  return goals.find((g) => !hasInstructions(g)) ?? '';
}

function exampleGoal(goal: string): string {
  // Placeholders read as {id}; any other angle bracket becomes a guillemet (a description may hold neither).
  const flat = goal
    .replace(/<([a-z_]+)>/g, '{$1}')
    .replace(/[<>]/g, (c) => (c === '<' ? '‹' : '›'))
    .replace(/"/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
  if (flat.length <= 220) return flat;
  const cut = flat.slice(0, 220);
  const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf(' '));
  return `${cut.slice(0, end > 80 ? end : 220).trim()}...`;
}

function uniqueName(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) {
    const suffix = `-${i}`;
    const candidate = `${base.slice(0, 64 - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const titleCase = (s: string) => s.split(/\s+/).filter(Boolean).map(capitalise).join(' ');
