import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Memory } from '../../memory.js';

export interface ExportedFile {
  name: string;
  text: string;
}

/**
 * Exports through the library's own path (name validation, redaction, SKILL.md validation, `skill.exported`
 * events) into a private temporary folder, and hands back the texts. The folder never outlives the call.
 */
export async function exportSkillFiles(
  memory: Memory,
  opts: { names?: string[]; includeExternal?: boolean },
): Promise<{ files: ExportedFile[]; skipped: { name: string; reason: string }[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'skillsmith-export-'));
  try {
    const res = await memory.exportSkills(dir, opts);
    return { files: res.written.map((w) => ({ name: w.name, text: readFileSync(w.path, 'utf8') })), skipped: res.skipped };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
