import { givenNameOf, learnedByOf } from '../domain/learned-by.js';
import { retitle } from '../domain/skill-rename.js';
import type { Skill } from '../domain/types.js';
import { renderStoredSkill } from './render-skill-md.js';

/**
 * A learned skill under the name `namedBy` (who: `user`, `http`, `mcp`) gave it: its title and the lead of its
 * description say the name, and its SKILL.md says who gave it, so that the passes that write it again keep it
 * (reconcile.ts). Its version and its other text are the caller's to change. A skill whose text no pass wrote
 * (imported, with no `learned-by`) has no such text to say it in: null.
 */
export function renamedSkill(skill: Skill, name: string, namedBy: string, license: string): Skill | null {
  const learnedBy = learnedByOf(skill.skillMd);
  if (!learnedBy) return null;
  const said = retitle({ description: skill.description, body: skill.body }, name);
  const named: Skill = { ...skill, name, description: said.description, body: said.body };
  // The names it had, the latest first; a name it takes back is its name again, not a former one.
  const before = [skill.name, ...(givenNameOf(skill.skillMd)?.formerNames ?? [])];
  const formerNames = [...new Set(before)].filter((n) => n !== name).slice(0, MAX_FORMER_NAMES);
  return { ...named, skillMd: renderStoredSkill(named, { license, learnedBy, given: { namedBy, formerNames } }) };
}

/** Former names a SKILL.md keeps (`renamed-from`): enough to find a skill by the names people last knew. */
const MAX_FORMER_NAMES = 8;
