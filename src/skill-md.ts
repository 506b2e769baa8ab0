// SKILL.md entry point (`skillsmith/skill-md`): the skill file format on its own. Pure, no I/O.

/** Parses a SKILL.md in any of the shapes seen in the wild (fail-open: problems are reported, not thrown). */
export { parseSkillMd, type ParsedSkill, type SkillFormat } from './domain/skill-md/parse.js';
/** Writes the canonical SKILL.md of a skill document. */
export { serializeSkillMd, type CanonicalSkillDoc } from './domain/skill-md/serialize.js';
/** Checks a SKILL.md against the format's rules (name, description, allowed keys, lengths). */
export { validateSkillMd, type ValidateOptions, type ValidationResult } from './domain/skill-md/validate.js';
