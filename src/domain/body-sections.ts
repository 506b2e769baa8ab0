/** The sections of a SKILL.md body, as the memory writes them (`## Title`, then its lines). Pure. */

/** The non-empty lines of a body's `## title` section, trimmed (none when it has no such section). */
export function sectionLines(body: string, title: string): string[] {
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

/** A body's `## title` section on one line ('' when it has none). */
export function sectionText(body: string, title: string): string {
  return sectionLines(body, title).join(' ');
}
