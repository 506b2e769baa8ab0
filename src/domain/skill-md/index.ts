// The SKILL.md format: validate, serialize, parse (fail-open, many shapes) and canonicalise. Pure, no I/O.

export { capAtWordBoundary, codePointLength, collapseWhitespace } from './text.js';
export {
  isMapping,
  loadYaml,
  normalizeBody,
  normalizeNewlines,
  splitFrontmatter,
  type FrontmatterSplit,
  type ScalarMode,
  type YamlLoad,
  type YamlValue,
} from './frontmatter.js';
export {
  ALLOWED_TOP_LEVEL_KEYS,
  MAX_COMPATIBILITY_LENGTH,
  MAX_DESCRIPTION_LENGTH,
  MAX_NAME_LENGTH,
  validateDescription,
  validateSkillMd,
  validateSkillName,
  type ValidateOptions,
  type ValidationResult,
} from './validate.js';
export { FALLBACK_SKILL_NAME, serializeSkillMd, toDescription, toSkillName, type CanonicalSkillDoc } from './serialize.js';
export {
  KIND_METADATA_KEYS,
  parentMetadataKeys,
  parseIntermediate,
  parseSkillMd,
  TOOLS_METADATA_KEYS,
  VERSION_METADATA_KEYS,
  type IntermediateResult,
  type ParsedSkill,
  type SkillFormat,
  type SkillParents,
} from './parse.js';
export { INITIAL_VERSION, toCanonicalDoc, toSemver, type CanonicalOptions } from './canonical.js';
