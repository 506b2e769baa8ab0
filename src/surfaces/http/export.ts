import type { Memory } from '../../app/memory.js';

export interface ExportedFile {
  name: string;
  text: string;
}

/**
 * The exported SKILL.md texts through the library's own rules (name validation, redaction, SKILL.md
 * validation), for downloads. A GET has no side effects: nothing is written and no event is recorded.
 */
export async function exportSkillFiles(
  memory: Memory,
  opts: { names?: string[]; includeExternal?: boolean },
): Promise<{ files: ExportedFile[]; skipped: { name: string; reason: string }[] }> {
  const res = await memory.skills.renderFiles(opts);
  return { files: res.files.map((f) => ({ name: f.skill.name, text: f.text })), skipped: res.skipped };
}
