import { restateEvidence } from '../domain/evidence-line.js';
import { editOf, learnedByOf } from '../domain/learned-by.js';
import { bumpVersion } from '../domain/reconcile.js';
import type { EditedFields } from '../domain/skill-edit.js';
import { parseSkillMd } from '../domain/skill-md/index.js';
import { sameWordingButSteps } from '../domain/skill-naming.js';
import { retitle } from '../domain/skill-rename.js';
import type { Skill } from '../domain/types.js';
import { renderStoredSkill } from './render-skill-md.js';

/**
 * A learned skill with a person's text (skill-edit.ts: readEdit): a new minor version of the same skill whose
 * SKILL.md says who edited it and when (`edited-by`, `edited-at`), so that the passes that write the skill again
 * keep the text (stages/reconcile.ts). What a pass suggested before is dropped: the person has had their say. Null
 * for a skill whose text no pass wrote (imported: its folder is its text).
 */
export function editedSkill(
  skill: Skill,
  fields: Pick<EditedFields, 'description' | 'body' | 'toolSequence' | 'toolsRequired'>,
  o: { editedBy: string; at: string; license: string },
): Skill | null {
  const learnedBy = learnedByOf(skill.skillMd);
  if (!learnedBy) return null;
  const edited: Skill = {
    ...skill,
    description: fields.description,
    body: fields.body,
    toolSequence: fields.toolSequence,
    toolsRequired: fields.toolsRequired,
    version: bumpVersion(skill.version, 'minor'),
    updatedAt: o.at,
  };
  return {
    ...edited,
    skillMd: renderStoredSkill(edited, {
      license: o.license,
      learnedBy,
      edit: { editedBy: o.editedBy, editedAt: o.at },
    }),
  };
}

/**
 * A skill handed back to the learner (`skills edit --revert`): a new minor version with the text of its latest
 * version a pass wrote (before the person's edit), its procedure and tools as that version had them, said under the
 * name it has now and with the counts it has now; no `edited-by`, so the next pass may write it again. With no such
 * version (none is kept), the text it has, no longer marked as a person's. Null when it is not edited.
 */
export function revertedSkill(
  skill: Skill,
  versions: readonly { skillMd: string; toolSequence: string[] }[],
  o: { at: string; license: string },
): Skill | null {
  const learnedBy = learnedByOf(skill.skillMd);
  if (!learnedBy || !editOf(skill.skillMd)) return null;
  const learned = [...versions].reverse().find((v) => !editOf(v.skillMd) && learnedByOf(v.skillMd));
  let text: Pick<Skill, 'description' | 'body' | 'toolSequence' | 'toolsRequired'> = skill;
  if (learned) {
    const parsed = parseSkillMd(learned.skillMd);
    const said =
      parsed.name && parsed.name !== skill.name
        ? retitle({ description: parsed.description ?? '', body: parsed.body }, skill.name)
        : { description: parsed.description ?? skill.description, body: parsed.body };
    text = {
      description: said.description,
      body: said.body,
      toolSequence: [...learned.toolSequence],
      toolsRequired: parsed.toolsRequired.length ? parsed.toolsRequired : [...skill.toolsRequired],
    };
  }
  const body = restateEvidence(text.body, {
    successes: skill.sourceSessions.length,
    succeeded: skill.successCount,
    followers: skill.attemptCount,
  });
  const reverted: Skill = {
    ...skill,
    ...text,
    body,
    version: bumpVersion(skill.version, 'minor'),
    updatedAt: o.at,
  };
  return {
    ...reverted,
    skillMd: renderStoredSkill(reverted, {
      license: o.license,
      learnedBy: learnedByOf(learned?.skillMd ?? '') ?? learnedBy,
      edit: null,
    }),
  };
}

/**
 * Whether a learned skill's description is the learner's wording (an edit may then restate the step count it
 * says), not a person's: a skill nobody edited has the learner's; an edited one has it when its description is the
 * one its latest learned version had (said under the name it has now), but for the step count. `versions`, oldest
 * first, are read only for an edited skill.
 */
export async function learnedDescription(
  skill: Pick<Skill, 'name' | 'description' | 'skillMd'>,
  versions: () => Promise<readonly { skillMd: string }[]>,
): Promise<boolean> {
  if (!learnedByOf(skill.skillMd)) return false;
  if (!editOf(skill.skillMd)) return true;
  const learned = [...(await versions())].reverse().find((v) => !editOf(v.skillMd) && learnedByOf(v.skillMd));
  if (!learned) return false;
  const parsed = parseSkillMd(learned.skillMd);
  const description =
    parsed.name && parsed.name !== skill.name
      ? retitle({ description: parsed.description ?? '', body: parsed.body }, skill.name).description
      : parsed.description;
  return description !== null && sameWordingButSteps(description, skill.description);
}
