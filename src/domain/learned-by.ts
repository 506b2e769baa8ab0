// Which distiller wrote a learned skill, and whether a newer version of that distiller is running now.
//
// A distiller id is `name@version`, optionally followed by `:what` (the model an LLM distiller uses):
// `heuristic@2`, `llm@1:qwen2.5:7b`. The version goes up whenever the distiller's output changes (names,
// descriptions, the procedure's wording). A skill written by an older version of the distiller now running
// is re-distilled from its cluster once, so a memory that was filled by an earlier release shows what
// this release learns; a skill written by another distiller, or for another model, is left as it is.

/** The distiller a SKILL.md names in its frontmatter metadata (`learned-by`), or null. */
export function learnedByOf(skillMd: string): string | null {
  return metadataOf(skillMd, 'learned-by');
}

/** The line of a frontmatter metadata key (indented under `metadata`), its value quoted or not. */
const metadataLine = (key: string) =>
  new RegExp(`^[ \\t]+${key}:[ \\t]*(?:"([^"\\n]*)"|'([^'\\n]*)'|([^\\n]*?))[ \\t]*$`, 'm');

/** A name a person or an agent gave a skill (`skills rename`; skill-rename.ts): who gave it, and the names before it. */
export interface GivenName {
  namedBy: string;
  /** The skill's earlier names, the latest first (`renamed-from`): a lookup by one of them can say what it is now. */
  formerNames: string[];
}

/**
 * The name a person or an agent gave a skill, as its SKILL.md says (`named-by`, `renamed-from`), or null for the
 * name its distiller gave it. A pass that writes the skill again keeps a given name.
 */
export function givenNameOf(skillMd: string): GivenName | null {
  const namedBy = metadataOf(skillMd, 'named-by');
  if (!namedBy) return null;
  return { namedBy, formerNames: (metadataOf(skillMd, 'renamed-from') ?? '').split(/\s+/).filter(Boolean) };
}

/**
 * A person's (or an agent's) edit of a learned skill's text (`skills edit`; skill-edit.ts): who made it and when,
 * and, once a later pass found its sessions following another procedure, that procedure (`sessions-suggest`, its
 * steps' tools in order). A pass keeps an edited text: it restates the counts, never the procedure.
 */
export interface EditMark {
  editedBy: string;
  editedAt: string;
  /** The tool sequence a later pass distilled from the sessions, where it differs from the edited one. */
  suggests?: string[];
}

/** The edit a SKILL.md says a person made (`edited-by`, `edited-at`, `sessions-suggest`), or null for a learner's text. */
export function editOf(skillMd: string): EditMark | null {
  const editedBy = metadataOf(skillMd, 'edited-by');
  if (!editedBy) return null;
  const suggests = (metadataOf(skillMd, 'sessions-suggest') ?? '').split(/\s+/).filter(Boolean);
  return {
    editedBy,
    editedAt: metadataOf(skillMd, 'edited-at') ?? '',
    ...(suggests.length ? { suggests } : {}),
  };
}

/** The frontmatter metadata keys read back from a stored SKILL.md. */
const METADATA = {
  'learned-by': metadataLine('learned-by'),
  cluster: metadataLine('cluster'),
  'named-by': metadataLine('named-by'),
  'renamed-from': metadataLine('renamed-from'),
  'skill-id': metadataLine('skill-id'),
  'edited-by': metadataLine('edited-by'),
  'edited-at': metadataLine('edited-at'),
  'sessions-suggest': metadataLine('sessions-suggest'),
};

/** A value of a SKILL.md's frontmatter metadata (a key indented under `metadata`), or null. */
export function metadataOf(skillMd: string, key: keyof typeof METADATA): string | null {
  const end = skillMd.startsWith('---') ? skillMd.indexOf('\n---', 3) : -1;
  if (end < 0) return null;
  const m = METADATA[key].exec(skillMd.slice(0, end));
  return m ? (m[1] ?? m[2] ?? m[3] ?? null) : null;
}

/** The metadata lines that say which version a text is and who edited it when. */
const VERSION_MARKS = /^[ \t]+(?:version|edited-by|edited-at):.*\n/gm;

/**
 * A SKILL.md without its version marks (metadata `version`, `edited-by`, `edited-at`): the text a person kept with
 * `skills edit` reads as the version the memory made of it, though that version says its own number and the edit.
 */
export function withoutVersionMarks(skillMd: string): string {
  const end = skillMd.startsWith('---') ? skillMd.indexOf('\n---', 3) : -1;
  if (end < 0) return skillMd;
  return skillMd.slice(0, end + 1).replace(VERSION_MARKS, '') + skillMd.slice(end + 1);
}

function parseId(id: string): { name: string; version: number; rest: string } | null {
  const m = /^([^@\s]+)@(\d+)(.*)$/.exec(id);
  return m ? { name: m[1]!, version: Number(m[2]), rest: m[3]! } : null;
}

/** True when `learnedBy` is an earlier version of the distiller `current` (same name, same model). */
export function olderDistiller(learnedBy: string | null, current: string): boolean {
  if (!learnedBy) return false;
  const was = parseId(learnedBy);
  const now = parseId(current);
  return !!was && !!now && was.name === now.name && was.rest === now.rest && was.version < now.version;
}
