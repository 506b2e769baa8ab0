import type { Skill } from './types.js';
import { hasInstructions, neutraliseInstructions } from './untrusted-text.js';

const SKILL_TEXT = { source: 'skill' } as const;

export const TRUNCATION_MARKER = '… (truncated)';

/** Cuts text to at most `max` characters, ending with an explicit marker when something was cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = Math.max(0, max - TRUNCATION_MARKER.length - 1);
  const cut = text.slice(0, room);
  const nl = cut.lastIndexOf('\n');
  return `${(nl > room * 0.6 ? cut.slice(0, nl) : cut).trimEnd()}\n${TRUNCATION_MARKER}`;
}

/**
 * Renders recalled skills for a planner prompt: each as a short When / Do / Branches / Done block taken from its body,
 * clipped to maxBodyChars, never raw YAML.
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
    const steps = body.split('\n').filter((l) => /^\s*\d+\.\s/.test(l));
    const branches = sectionLines(body, 'Branches');
    const done = sectionText(body, 'Done when');
    const edges = sectionLines(body, 'Edge cases');
    const block = steps.length
      ? [
          `When: ${neutraliseInstructions(s.description, SKILL_TEXT)}`,
          'Do:',
          ...steps.map((l) => `  ${l.trim()}`),
          ...(branches.length ? ['Branches:', ...branches.map((l) => `  ${l}`)] : []),
          ...(done ? [`Done: ${done}`] : []),
          ...(edges.length ? ['Watch out:', ...edges.map((l) => `  ${l}`)] : []),
        ].join('\n')
      : neutraliseInstructions(body.trim(), SKILL_TEXT);
    return `### Skill: ${s.name} (${s.kind}, eta ${s.eta.toFixed(2)})\n${clip(block, maxBodyChars)}`;
  });
  return `## Relevant procedures from past runs\n\n${blocks.join('\n\n')}\n`;
}

function sectionLines(body: string, title: string): string[] {
  const lines = body.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^##\\s+${title}\\s*$`, 'i').test(l));
  if (start < 0) return [];
  const out: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (/^#{1,6}\s/.test(l)) break;
    if (l.trim()) out.push(l.trim());
  }
  return out;
}

function sectionText(body: string, title: string): string {
  return sectionLines(body, title).join(' ');
}
