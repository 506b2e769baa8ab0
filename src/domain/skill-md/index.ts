// The SKILL.md format: validate, serialize, parse (fail-open, many shapes) and canonicalise. Pure, no I/O.

export { validateSkillMd, validateSkillName } from './validate.js';
export { serializeSkillMd, titleOfName, toDescription, toSkillName } from './serialize.js';
export { parseIntermediate, parseSkillMd } from './parse.js';
export { toCanonicalDoc } from './canonical.js';
