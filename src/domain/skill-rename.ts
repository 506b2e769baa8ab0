/**
 * A name a person gives a learned skill. Planners and exports know a skill by its name, so the name must be a
 * valid agentskills name, and the text that says the name (the body's title, the description's lead, both written
 * from the name by the distiller) says the new one. A name given by a person outlasts the passes that write the
 * skill again: its SKILL.md says who named it (`named-by`), and a pass keeps that name. Pure.
 */
import { titleOfName, validateSkillName } from './skill-md/index.js';

/** The title of a body: its first line when that is a level-1 heading, else null. */
function titleOf(body: string): string | null {
  const m = /^# (.+)$/m.exec(body);
  return m && body.slice(0, m.index).trim() === '' ? m[1]!.trim() : null;
}

/**
 * The text of a skill said under another name: the body's title and the description's lead ("Old Title: ..."),
 * where they say the title.
 */
export function retitle(
  text: { description: string; body: string },
  name: string,
): { description: string; body: string } {
  const fromTitle = titleOf(text.body);
  if (!fromTitle) return text;
  const title = titleOfName(name, fromTitle);
  const lead = `${fromTitle}: `;
  return {
    description: text.description.startsWith(lead)
      ? `${title}: ${text.description.slice(lead.length)}`
      : text.description,
    body: text.body.replace(`# ${fromTitle}`, `# ${title}`),
  };
}

/** Why a skill cannot take this name (empty when it can): the agentskills rules. */
export function renameProblems(to: string): string[] {
  return validateSkillName(to).map((e) => e.replace(/^name: /, ''));
}

/**
 * What a lookup by a name that found no skill says: the name, and the name the skill it meant has now, when it was
 * renamed or superseded (a planner or a person may still use the name they knew).
 */
export function noSkillNamed(name: string, now: { name: string; how: 'renamed' | 'superseded' } | null): string {
  const where = now ? `: it was ${now.how === 'renamed' ? 'renamed' : 'superseded by'} ${now.name}` : '';
  return `no skill named "${name}"${where}`;
}
