import { sectionLines, sectionText } from './body-sections.js';
import { withoutToolsetSteps } from './branches.js';
import { FIELD_NOTE, RESULT_NOTE, SUPPORT_NOTE } from './step-notes.js';
import type { Skill } from './types.js';
import { hasInstructions, neutraliseInstructions } from './untrusted-text.js';
import { keepFirst } from '../support/text.js';

const SKILL_TEXT = { source: 'skill' } as const;

export const TRUNCATION_MARKER = '… (truncated)';

/** Cuts text to at most `max` characters, ending with an explicit marker when something was cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = Math.max(0, max - TRUNCATION_MARKER.length - 1);
  const cut = keepFirst(text, room);
  const nl = cut.lastIndexOf('\n');
  return `${(nl > room * 0.6 ? cut.slice(0, nl) : cut).trimEnd()}\n${TRUNCATION_MARKER}`;
}

/**
 * Renders recalled skills for a planner prompt: each as a short When / Do / Branches / Done block taken from its body,
 * within maxBodyChars, never raw YAML. A block over the budget is made shorter before anything is cut (packBlock):
 * what the planner acts on (the steps, the branches, when it is done) is the last to go.
 */
export function formatContextPack(
  skills: Pick<Skill, 'id' | 'name' | 'description' | 'body' | 'kind' | 'eta'>[],
  maxBodyChars: number,
): string {
  if (skills.length === 0) return '';
  const blocks = skills.map((s) => {
    // Defence in depth: a stored skill (an older one, or a promoted import) may still carry a planted
    // instruction; the planner never reads one. Lines that carry one are left out, the rest is neutralised.
    const body = s.body
      .split('\n')
      .filter((l) => !hasInstructions(l, SKILL_TEXT))
      .join('\n');
    // The steps of a branch on the agent's tools are the branch's: its line under Branches says where it goes.
    const steps = withoutToolsetSteps(body)
      .split('\n')
      .filter((l) => /^\s*\d+\.\s/.test(l));
    const block = steps.length
      ? packBlock(
          {
            description: neutraliseInstructions(s.description, SKILL_TEXT),
            steps: steps.map((l) => l.trim()),
            branches: sectionLines(body, 'Branches'),
            done: sectionText(body, 'Done when'),
            edges: sectionLines(body, 'Edge cases'),
          },
          maxBodyChars,
        )
      : clip(neutraliseInstructions(body.trim(), SKILL_TEXT), maxBodyChars);
    return `### Skill: ${s.name} (${s.kind}, estimated success ${s.eta.toFixed(2)})\n${block}`;
  });
  return `## Relevant procedures from past runs\n\n${blocks.join('\n\n')}\n`;
}

interface BlockParts {
  description: string;
  steps: string[];
  branches: string[];
  done: string;
  edges: string[];
}

function renderBlock(p: BlockParts): string {
  return [
    `When: ${p.description}`,
    'Do:',
    ...p.steps.map((l) => `  ${l}`),
    ...(p.branches.length ? ['Branches:', ...p.branches.map((l) => `  ${l}`)] : []),
    ...(p.done ? [`Done: ${p.done}`] : []),
    ...(p.edges.length ? ['Watch out:', ...p.edges.map((l) => `  ${l}`)] : []),
  ].join('\n');
}

/** How often the sessions took a step, ending a step's parenthesis: a figure for whoever maintains the skill. */
const SUPPORT = new RegExp(`: ${SUPPORT_NOTE.source}\\)`, 'g');
/** Where in an earlier result a value is: the tool that gave it stays, which field is in the skill's SKILL.md. */
const FIELD = new RegExp(FIELD_NOTE.source, 'g');

/**
 * A block within `max` characters. When the whole block does not fit, it is shortened in turn: the description to
 * its "Use when" sentence; the steps without how often the sessions took them, without which field of a result
 * a value comes from and without what their results showed; then without the edge cases. Only what still does
 * not fit is clipped, with the marker.
 */
function packBlock(parts: BlockParts, max: number): string {
  const whole = renderBlock(parts);
  if (whole.length <= max) return whole;
  const shorter = { ...parts, description: useWhen(parts.description) };
  const short = renderBlock(shorter);
  if (short.length <= max) return short;
  const lean = {
    ...shorter,
    steps: shorter.steps.map((l) => l.replace(SUPPORT, ')').replace(FIELD, '').replace(RESULT_NOTE, '')),
  };
  const leaner = renderBlock(lean);
  if (leaner.length <= max) return leaner;
  return clip(renderBlock({ ...lean, edges: [] }), max);
}

/** A description's "Use when ..." sentence, or its first sentence when it has none. */
function useWhen(description: string): string {
  const sentences = description.match(/[^.!?]+(?:[.!?]+(?=\s|$)|$)/g)?.map((x) => x.trim()) ?? [description];
  return sentences.find((x) => /^use when\b/i.test(x)) ?? sentences[0] ?? description;
}
